//! Leaf flushes prepared without the tree's write lock (design.md, FLU2).
//!
//! Moving a height-1 buffer into its leaf (decoding the leaf, merging thousands of messages into its
//! basements, splitting them) was most of the time the flusher held the write lock in random inserts at
//! 10x the cache, and writers waited for it as long as they ran. So the flusher prepares such a flush in
//! three steps:
//! 1. under the read lock, it picks the fullest buffer of a cached height-1 node and takes `Arc`s of the
//!    buffer and of the leaf (or the leaf's place in the file, when the leaf is not wholly in memory);
//! 2. with no lock, it decodes the leaf if needed, gives its basements copies of their stored bytes
//!    when the leaf is clean (design.md TREE6: the write of the flushed leaf encodes only the basements
//!    the messages changed), and applies the buffer's messages to a private copy;
//! 3. under the write lock, it installs the new leaf and removes the applied messages from the buffer,
//!    only if the leaf did not change meanwhile and the parent still has it at the same index;
//!    otherwise the work is dropped (the buffer, untouched, is flushed later).
//!
//! Invariant FLU2: messages added to the buffer while step 2 runs have MSNs above every message of the
//! snapshot (a parent's buffer only receives messages newer than everything below it), so step 3 removes
//! exactly the snapshot's messages by MSN; and any flush of the same buffer changes the leaf, which
//! step 3 detects (an `Arc` other than the one taken, or, for a leaf read from the file, a place other
//! than the one read or a dirty cached copy).

use crate::block::BlockLoc;
use crate::corruption;
use crate::error::Result;
use crate::tree::format::node_codec;
use crate::tree::in_memory::buffer::Buffer;
use crate::tree::in_memory::message::Msn;
use crate::tree::in_memory::node::{BlockNum, BufferSlot, Node};
use crate::tree::{Tree, TreeState};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Where the leaf's content came from.
enum Source {
    /// The cached node (wholly in memory), and its block's place when it is clean.
    Cached(Arc<Node>, Option<BlockLoc>),
    /// Its block in the file (the node was clean or not cached).
    Disk(BlockLoc),
}

/// What [`Tree::flush_leaf_detached`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detached {
    /// A leaf flush was installed.
    Installed,
    /// No leaf needs a flush now.
    NotNeeded,
    /// The leaf or its parent changed meanwhile, or the buffer is not in memory: nothing was
    /// installed, and the locked path flushes.
    Dropped,
}

/// What step 1 found.
enum Pick {
    /// No leaf flush is needed.
    Nothing,
    /// One is, but only the locked path can do it.
    Locked,
    Snapshot(Snapshot),
}

/// What step 1 takes.
struct Snapshot {
    parent: BlockNum,
    idx: usize,
    child: BlockNum,
    buffer: Arc<Buffer>,
    source: Source,
}

impl Tree {
    /// Does one leaf flush the steps above, into the fullest buffer of a height-1 node over the node
    /// size, or else of any height-1 node when the internal nodes hold more than 4/5 of their share of
    /// the cache (the flusher's targets, `flush_walk` and `relieve_step`).
    pub(crate) fn flush_leaf_detached(&self) -> Result<Detached> {
        let snap = match self.leaf_flush_snapshot()? {
            Pick::Snapshot(snap) => snap,
            Pick::Nothing => return Ok(Detached::NotNeeded),
            Pick::Locked => return Ok(Detached::Dropped),
        };
        // The leaf's basements keep copies of their stored bytes (TREE6): a flush changes a few.
        let mut node = match &snap.source {
            Source::Cached(n, None) => (**n).clone(),
            Source::Cached(n, Some(loc)) => {
                let mut node = (**n).clone();
                // The block is read only for the copies: a read error costs the copies alone.
                let _ = self.with_bytes(loc.offset, loc.len as usize, |block| {
                    self.keep_stored_copies(&mut node, block);
                    Ok(())
                });
                node
            }
            Source::Disk(loc) => self.with_bytes(loc.offset, loc.len as usize, |block| {
                let mut node = node_codec::decode_node(block, snap.child, false).map_err(|e| {
                    corruption!(self.path, Some(loc.offset), "node {}: {e}", snap.child)
                })?;
                self.keep_stored_copies(&mut node, block);
                Ok(node)
            })?,
        };
        if !node.is_leaf() {
            return Ok(Detached::Dropped);
        }
        let max_msn = {
            let msgs = snap.buffer.refs();
            let Some(max_msn) = msgs.iter().map(|m| m.msn).max() else {
                return Ok(Detached::NotNeeded);
            };
            self.apply_refs_to_leaf_node(&mut node, msgs)?;
            max_msn
        };
        self.install_leaf_flush(snap, node, max_msn)
    }

    /// Step 1.
    fn leaf_flush_snapshot(&self) -> Result<Pick> {
        let st = self.state.read();
        if self.dropped.load(Ordering::SeqCst) {
            return Ok(Pick::Nothing);
        }
        let node_max = self.opts.node_size_bytes as usize;
        let (parent_bn, idx) = match self.oversized_leaf_parent(&st, node_max)? {
            Some(found) => found,
            None => {
                let relief = self.budget.internal_target();
                if self.budget.internal_used() <= relief {
                    return Ok(Pick::Nothing);
                }
                match self.heaviest_leaf_buffer(&st)? {
                    Some(b) => (b.node, b.idx),
                    None => return Ok(Pick::Nothing),
                }
            }
        };
        let parent = self.load(&st, parent_bn)?;
        let Node::Internal {
            buffers, children, ..
        } = &*parent
        else {
            return Ok(Pick::Nothing);
        };
        // A buffer not in memory (its node is clean) is left to the locked path, which loads it.
        let Some(buffer) = buffers[idx].loaded.clone() else {
            return Ok(Pick::Locked);
        };
        let child = children[idx];
        let cached = st
            .nodes
            .lock()
            .get(&child)
            .map(|s| (s.node.clone(), s.dirty));
        let source = match cached {
            Some((n, dirty)) if n.fully_loaded() => {
                let clean_at = (!dirty).then(|| st.table.get(&child).copied()).flatten();
                Source::Cached(n, clean_at)
            }
            _ => Source::Disk(self.location(&st, child)?),
        };
        Ok(Pick::Snapshot(Snapshot {
            parent: parent_bn,
            idx,
            child,
            buffer,
            source,
        }))
    }

    /// Step 3.
    fn install_leaf_flush(&self, snap: Snapshot, node: Node, max_msn: Msn) -> Result<Detached> {
        let mut st = self.state.write();
        if self.dropped.load(Ordering::SeqCst) {
            return Ok(Detached::Dropped);
        }
        let leaf_unchanged = {
            let nodes = st.nodes.lock();
            let cached = nodes.get(&snap.child);
            match &snap.source {
                Source::Cached(n, loc) => {
                    cached.is_some_and(|s| Arc::ptr_eq(&s.node, n))
                        && loc.is_none_or(|l| st.table.get(&snap.child) == Some(&l))
                }
                Source::Disk(loc) => {
                    st.table.get(&snap.child) == Some(loc) && cached.is_none_or(|s| !s.dirty)
                }
            }
        };
        let parent_unchanged = st.nodes.lock().get(&snap.parent).is_some_and(|s| {
            matches!(&*s.node, Node::Internal { children, buffers, .. }
                if children.get(snap.idx) == Some(&snap.child) && buffers[snap.idx].loaded.is_some())
        });
        if !leaf_unchanged || !parent_unchanged {
            return Ok(Detached::Dropped);
        }
        let Snapshot {
            parent,
            idx,
            child,
            buffer,
            source,
        } = snap;
        // Dropped before the change, so that the copy-on-write below does not copy what they hold.
        drop(source);
        {
            let Node::Internal { buffers, .. } = self.node_mut(&mut st, parent)? else {
                unreachable!("checked above: an internal node");
            };
            let slot = &mut buffers[idx];
            let untouched = slot
                .loaded
                .as_ref()
                .is_some_and(|b| Arc::ptr_eq(b, &buffer));
            drop(buffer);
            if untouched {
                slot.loaded = Some(Arc::new(Buffer::default()));
            } else {
                slot.buffer_mut().remove_through(max_msn);
            }
        }
        self.replace_node(&mut st, child, node);
        self.fix_child(&mut st, parent, idx)?;
        self.settle(&mut st);
        self.budget.detached_flushes.fetch_add(1, Ordering::Relaxed);
        Ok(Detached::Installed)
    }

    /// A cached height-1 node whose buffers hold more than `node_max` bytes, and the index of its
    /// fullest buffer.
    fn oversized_leaf_parent(
        &self,
        st: &TreeState,
        node_max: usize,
    ) -> Result<Option<(BlockNum, usize)>> {
        let mut found = None;
        self.visit_leaf_parents(st, st.root, &mut Vec::new(), &mut |bn, buffers, _| {
            let total: usize = buffers.iter().map(|b| b.bytes()).sum();
            if found.is_none() && total > node_max {
                found = BufferSlot::heaviest(buffers).map(|i| (bn, i));
            }
        })?;
        Ok(found)
    }
}
