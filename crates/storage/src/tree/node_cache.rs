//! Loading, dirtying, writing and evicting this tree's nodes (design.md, "Node cache and eviction").
//!
//! - `load` returns a node from the cache or reads it (leaves lazily: prefix only, basements on demand).
//! - `node_mut` makes a node dirty and fully loaded and hands out a mutable reference (copy-on-write against
//!   any checkpoint holding the old `Arc`); a leaf dirtied keeps copies of its basements' stored bytes
//!   (design.md TREE6). Dirtying releases the node's old place (invariant CKP1 decides
//!   whether it is really freed).
//! - `write_node` serializes a node into a newly allocated place; a failed write latches the environment.
//! - Eviction, which drops nodes again, is in eviction.rs.

use super::format::{frames, node_codec};
use super::in_memory::basement::Basement;
use super::in_memory::buffer::Buffer;
use super::in_memory::node::{
    BlockNum, Node, PartLoc, PartPlaces, PartSize, PartSlot, PART_OVERHEAD,
};
use super::in_memory::stored_copy::{CopyParts, StoredCopy};
use super::{Slot, Tree, TreeState};
use crate::block::BlockLoc;
use crate::corruption;
use crate::error::{Error, Result};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Puts the partitions of `full` (the node's block decoded whole) into the slots of `node` that lack
/// theirs; false when the two do not have the same partitions.
fn merge_loaded(node: &mut Node, full: Node) -> bool {
    match (node, full) {
        (Node::Leaf { basements, .. }, Node::Leaf { basements: f, .. })
            if basements.len() == f.len() =>
        {
            for (b, f) in basements.iter_mut().zip(f) {
                b.loaded = b.loaded.take().or(f.loaded);
            }
            true
        }
        (Node::Internal { buffers, .. }, Node::Internal { buffers: f, .. })
            if buffers.len() == f.len() =>
        {
            for (b, f) in buffers.iter_mut().zip(f) {
                b.loaded = b.loaded.take().or(f.loaded);
            }
            true
        }
        _ => false,
    }
}

/// Slots for the partitions a prefix describes, none loaded.
fn slots_of<T>(p: &node_codec::NodePrefix) -> Vec<PartSlot<T>> {
    p.parts
        .iter()
        .zip(&p.filters)
        .map(|(part, filter)| PartSlot {
            loaded: None,
            part: Some(*part),
            filter: filter.clone(),
            cold_reads: Default::default(),
            stored: None,
        })
        .collect()
}

impl Tree {
    /// Reads `len` bytes at `offset` into a per-thread scratch buffer and hands them to `f` (block reads are
    /// decoded into fresh structures at once, so the buffer is reused: no zeroed allocation per read).
    pub(crate) fn with_bytes<T>(
        &self,
        offset: u64,
        len: usize,
        f: impl FnOnce(&[u8]) -> Result<T>,
    ) -> Result<T> {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SCRATCH.with(|scratch| {
            let mut buf = scratch.take();
            if buf.len() < len {
                buf.resize(len, 0);
            }
            let read = self
                .file
                .read_exact_at(&mut buf[..len], offset)
                .map_err(|e| Error::io_at("read", &self.path, offset, e));
            let result = read.and_then(|()| f(&buf[..len]));
            // Keep at most a node's worth for the next read.
            if buf.len() <= 16 << 20 {
                scratch.replace(buf);
            }
            result
        })
    }

    pub(super) fn location(&self, st: &TreeState, bn: BlockNum) -> Result<BlockLoc> {
        st.table.get(&bn).copied().ok_or_else(|| {
            corruption!(
                self.path,
                None,
                "node {bn} has no place in the translation table"
            )
        })
    }

    /// Reads a node's prefix from disk: its partitions are read on demand.
    fn read_node(&self, st: &TreeState, bn: BlockNum) -> Result<Node> {
        let loc = self.location(st, bn)?;
        self.budget.node_reads.fetch_add(1, Ordering::Relaxed);
        let p = self.with_bytes(loc.offset, loc.prefix_len as usize, |prefix| {
            node_codec::decode_prefix(prefix, bn)
                .map_err(|e| corruption!(self.path, Some(loc.offset), "node {bn}: {e}"))
        })?;
        Ok(if p.height == 0 {
            Node::Leaf {
                basements: slots_of(&p),
                pivots: p.pivots.into(),
            }
        } else {
            Node::Internal {
                height: p.height,
                buffers: slots_of(&p),
                pivots: p.pivots.into(),
                children: p.children,
            }
        })
    }

    /// The node `bn`, from the cache or from disk (partitions possibly not loaded).
    pub(crate) fn load(&self, st: &TreeState, bn: BlockNum) -> Result<Arc<Node>> {
        let tick = self.budget.tick();
        self.budget.node_lookups.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = st.nodes.lock().get_mut(&bn) {
            slot.last_use = tick;
            return Ok(slot.node.clone());
        }
        let node = Arc::new(self.read_node(st, bn)?);
        let mut nodes = st.nodes.lock();
        let slot = nodes.entry(bn).or_insert_with(|| {
            let bytes = node.mem_bytes();
            self.budget.add(bytes as i64, !node.is_leaf());
            Slot {
                node: node.clone(),
                dirty: false,
                gen: 0,
                last_use: tick,
                bytes,
            }
        });
        Ok(slot.node.clone())
    }

    /// Reads partition `j` of clean node `bn` from its block and remembers it in the cached node.
    fn load_part<T: PartSize>(
        &self,
        st: &TreeState,
        bn: BlockNum,
        j: usize,
        part: Option<PartLoc>,
        decode: impl Fn(Vec<u8>) -> Result<T, crate::encoding::DecodeError>,
        slot_of: impl Fn(&mut Node) -> Option<&mut PartSlot<T>>,
    ) -> Result<Arc<T>> {
        let part = part
            .ok_or_else(|| corruption!(self.path, None, "node {bn} partition {j} has no place"))?;
        let loc = self.location(st, bn)?;
        self.budget.part_reads.fetch_add(1, Ordering::Relaxed);
        let raw = self.with_bytes(
            loc.offset + u64::from(part.offset),
            part.stored_len as usize,
            |stored| {
                node_codec::decode_part_bytes(stored, &part).map_err(|e| {
                    corruption!(self.path, Some(loc.offset), "node {bn} partition {j}: {e}")
                })
            },
        )?;
        let value = Arc::new(decode(raw).map_err(|e| {
            corruption!(self.path, Some(loc.offset), "node {bn} partition {j}: {e}")
        })?);
        let mut nodes = st.nodes.lock();
        if let Some(cached) = nodes.get_mut(&bn) {
            if !cached.dirty {
                let n = Arc::make_mut(&mut cached.node);
                if let Some(s) = slot_of(n) {
                    if s.loaded.is_none() && s.part == Some(part) {
                        s.loaded = Some(value.clone());
                        // What the part adds to `Node::mem_bytes` (kept equal to the slot's
                        // `bytes` without walking every part of the node).
                        let added = value.part_size() + PART_OVERHEAD;
                        self.budget.add(added as i64, !n.is_leaf());
                        cached.bytes += added;
                        debug_assert_eq!(cached.bytes, n.mem_bytes());
                    }
                }
            }
        }
        Ok(value)
    }

    /// Basement `j` of leaf `bn` (whose cached content is `node`), reading it if needed.
    ///
    /// Takes the caller's `Arc` of the node and drops it before remembering a partition it read, so the
    /// cached node is usually not shared then and is changed in place (a shared one is copied whole,
    /// pivots included: with small basements that copy cost more than the read; callgrind, see
    /// docs/design.md "Node cache and eviction").
    pub(crate) fn load_basement(
        &self,
        st: &TreeState,
        bn: BlockNum,
        node: Arc<Node>,
        j: usize,
    ) -> Result<Arc<Basement>> {
        let Node::Leaf { basements, .. } = &*node else {
            unreachable!("load_basement on an internal node");
        };
        if let Some(b) = &basements[j].loaded {
            return Ok(b.clone());
        }
        let part = basements[j].part;
        drop(node);
        self.load_part(st, bn, j, part, Basement::decode_owned, |n| match n {
            Node::Leaf { basements, .. } => basements.get_mut(j),
            Node::Internal { .. } => None,
        })
    }

    /// Message buffer `i` of internal node `bn` (whose cached content is `node`), reading it if needed
    /// (drops `node` first, as `load_basement` does).
    pub(crate) fn load_buffer(
        &self,
        st: &TreeState,
        bn: BlockNum,
        node: Arc<Node>,
        i: usize,
    ) -> Result<Arc<Buffer>> {
        let Node::Internal { buffers, .. } = &*node else {
            unreachable!("load_buffer on a leaf");
        };
        if let Some(b) = &buffers[i].loaded {
            return Ok(b.clone());
        }
        let part = buffers[i].part;
        drop(node);
        self.load_part(
            st,
            bn,
            i,
            part,
            |raw| Buffer::decode(&raw),
            |n| match n {
                Node::Internal { buffers, .. } => buffers.get_mut(i),
                Node::Leaf { .. } => None,
            },
        )
    }

    /// Loads every missing partition of a clean node into its cached copy. With `keep_stored`, a leaf's
    /// basements also get copies of their stored bytes from the block (TREE6), read in the same pass.
    fn load_all(&self, st: &mut TreeState, bn: BlockNum, keep_stored: bool) -> Result<()> {
        let node = self.load(st, bn)?;
        let full = node.fully_loaded();
        let copy = keep_stored && node.is_leaf();
        drop(node);
        if full && !copy {
            return Ok(());
        }
        let loc = self.location(st, bn)?;
        let slot = st.nodes.get_mut().get_mut(&bn).expect("just loaded");
        let node = Arc::make_mut(&mut slot.node);
        let read = self.with_bytes(loc.offset, loc.len as usize, |block| {
            if !full {
                let decoded = node_codec::decode_node(block, bn, false)
                    .map_err(|e| corruption!(self.path, Some(loc.offset), "node {bn}: {e}"))?;
                if !merge_loaded(node, decoded) {
                    return Err(corruption!(
                        self.path,
                        Some(loc.offset),
                        "node {bn} changed shape"
                    ));
                }
            }
            if copy {
                self.keep_stored_copies(node, block);
            }
            Ok(())
        });
        match read {
            // A node already in memory needed the block only for the copies, which are an economy:
            // a read error costs it the copies, not the change.
            Err(_) if full => {}
            other => other?,
        }
        st.touched.push(bn);
        Ok(())
    }

    /// Gives each loaded basement of leaf `node`, clean and read from `block`, a copy of its stored
    /// bytes there where a write could carry them unchanged (TREE6).
    pub(crate) fn keep_stored_copies(&self, node: &mut Node, block: &[u8]) {
        let Node::Leaf { basements, .. } = node else {
            return;
        };
        for b in basements {
            let (Some(loaded), Some(p)) = (&b.loaded, &b.part) else {
                continue;
            };
            if let Some(mut copy) = self.stored_bytes(block, p) {
                copy.filter = b.filter.clone();
                b.stored = Some(Arc::new(StoredCopy::new(loaded, copy)));
            }
        }
    }

    /// A copy of partition `p`'s stored bytes in `block`, when a leaf written now could carry them
    /// unchanged: tagged frames of this tree's codec, whose checksum and frame table check.
    fn stored_bytes(&self, block: &[u8], p: &PartLoc) -> Option<CopyParts> {
        if !(p.framed && p.tagged && p.codec == self.opts.codec) {
            return None;
        }
        let start = p.offset as usize;
        let bytes = block.get(start..start + p.stored_len as usize)?;
        if crc32c::crc32c(bytes) != p.crc {
            return None;
        }
        let (frames, columnar) = frames::tagged_frame_counts(bytes).ok()?;
        Some(CopyParts {
            bytes: bytes.into(),
            crc: p.crc,
            raw_len: p.raw_len,
            filter: None,
            frames,
            columnar,
        })
    }

    /// Makes node `bn` dirty and fully loaded, and returns it for change.
    pub(crate) fn node_mut<'a>(&self, st: &'a mut TreeState, bn: BlockNum) -> Result<&'a mut Node> {
        let clean = st.nodes.get_mut().get(&bn).is_none_or(|s| !s.dirty);
        self.load_all(st, bn, clean)?;
        let released = {
            let gen = self.budget.tick();
            let slot = st.nodes.get_mut().get_mut(&bn).expect("loaded");
            slot.gen = gen;
            if slot.dirty {
                None
            } else {
                slot.dirty = true;
                Some(())
            }
        };
        if released.is_some() {
            if let Some(loc) = st.table.remove(&bn) {
                self.space.lock().release(loc);
            }
        }
        st.touched.push(bn);
        let slot = st.nodes.get_mut().get_mut(&bn).expect("loaded");
        let node = Arc::make_mut(&mut slot.node);
        if released.is_some() {
            node.forget_parts();
        }
        Ok(node)
    }

    /// Replaces the content of node `bn` (cached or not) with `node`, which becomes dirty: as
    /// [`Tree::node_mut`] followed by an assignment, without loading what is replaced.
    pub(crate) fn replace_node(&self, st: &mut TreeState, bn: BlockNum, mut node: Node) {
        node.forget_parts();
        let gen = self.budget.tick();
        let was_dirty = st.nodes.get_mut().get(&bn).is_some_and(|s| s.dirty);
        if !was_dirty {
            if let Some(loc) = st.table.remove(&bn) {
                self.space.lock().release(loc);
            }
        }
        // A new slot counts no bytes yet: `settle` adds the node's size to the budget.
        let node = Arc::new(node);
        match st.nodes.get_mut().get_mut(&bn) {
            Some(slot) => {
                slot.node = node;
                slot.dirty = true;
                slot.gen = gen;
                slot.last_use = gen;
            }
            None => {
                st.nodes.get_mut().insert(
                    bn,
                    Slot {
                        node,
                        dirty: true,
                        gen,
                        last_use: gen,
                        bytes: 0,
                    },
                );
            }
        }
        st.touched.push(bn);
    }

    /// Adds a new dirty node; returns its number.
    pub(crate) fn new_node(&self, st: &mut TreeState, node: Node) -> BlockNum {
        let bn = st.next_bn;
        st.next_bn += 1;
        let bytes = node.mem_bytes();
        self.budget.add(bytes as i64, !node.is_leaf());
        let tick = self.budget.tick();
        st.nodes.get_mut().insert(
            bn,
            Slot {
                node: Arc::new(node),
                dirty: true,
                gen: tick,
                last_use: tick,
                bytes,
            },
        );
        bn
    }

    /// Removes a node that no parent references any more.
    pub(crate) fn delete_node(&self, st: &mut TreeState, bn: BlockNum) {
        if let Some(slot) = st.nodes.get_mut().remove(&bn) {
            self.budget.add(-(slot.bytes as i64), !slot.node.is_leaf());
        }
        if let Some(loc) = st.table.remove(&bn) {
            self.space.lock().release(loc);
        }
    }

    /// Recomputes the budgeted size of the nodes changed by the current operation.
    pub(crate) fn settle(&self, st: &mut TreeState) {
        let mut touched = std::mem::take(&mut st.touched);
        touched.sort_unstable();
        touched.dedup();
        let nodes = st.nodes.get_mut();
        for bn in touched {
            if let Some(slot) = nodes.get_mut(&bn) {
                let bytes = slot.node.mem_bytes();
                self.budget
                    .add(bytes as i64 - slot.bytes as i64, !slot.node.is_leaf());
                slot.bytes = bytes;
            }
        }
    }

    /// Serializes `node` into a newly allocated place of the file (not synced). A failed write latches the
    /// environment.
    /// A leaf is written without the versions no reader can see any more (`Node::collected`).
    pub(crate) fn write_node(&self, node: &Node, bn: BlockNum) -> Result<(BlockLoc, PartPlaces)> {
        let collected = if node.is_leaf() {
            node.collected(self.mvcc.horizon(), &self.mvcc.aborted())
        } else {
            None
        };
        let node = collected.as_ref().unwrap_or(node);
        // Leaves' frames and internal nodes' buffers are columnar where the layout fits (COL6).
        let layout = self.column_layout();
        let enc = node_codec::encode(
            node,
            bn,
            self.opts.codec,
            i32::from(self.opts.level),
            self.opts.frame_bytes(),
            layout.as_deref(),
        );
        #[cfg(test)]
        let enc = if self.write_version_5.load(Ordering::Relaxed) {
            node_codec::encode_version_5(
                node,
                bn,
                self.opts.codec,
                i32::from(self.opts.level),
                self.opts.frame_bytes(),
            )
        } else {
            enc
        };
        let loc = self.write_block(&enc.bytes, enc.prefix_len)?;
        self.budget
            .frames_written
            .fetch_add(enc.frames as u64, Ordering::Relaxed);
        self.budget
            .columnar_frames_written
            .fetch_add(enc.columnar_frames as u64, Ordering::Relaxed);
        self.budget
            .basements_reused
            .fetch_add(enc.reused as u64, Ordering::Relaxed);
        Ok((
            loc,
            PartPlaces {
                parts: enc.parts,
                filters: enc.filters,
            },
        ))
    }

    /// Writes bytes to a newly allocated place (not synced).
    pub(crate) fn write_block(&self, bytes: &[u8], prefix_len: u32) -> Result<BlockLoc> {
        self.health.check()?;
        let offset = self.space.lock().alloc(bytes.len() as u64);
        if let Err(e) = self.file.write_all_at(bytes, offset) {
            return Err(self
                .health
                .fail(Error::io_at("write", &self.path, offset, e)));
        }
        self.budget
            .node_bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(BlockLoc {
            offset,
            len: bytes.len() as u32,
            prefix_len,
        })
    }

    /// Marks node `bn` clean at `loc`, where a copy of it of generation `gen` was written without the
    /// write lock, if it is still dirty with that generation (no change since the copy); whether it did.
    pub(crate) fn mark_clean_if_current(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        gen: u64,
        loc: BlockLoc,
        places: &PartPlaces,
    ) -> bool {
        let current = st
            .nodes
            .get_mut()
            .get(&bn)
            .is_some_and(|s| s.dirty && s.gen == gen);
        if current {
            self.mark_clean(st, bn, loc, places);
        }
        current
    }

    /// Marks a dirty node clean at `loc` (it was just written there).
    pub(crate) fn mark_clean(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        loc: BlockLoc,
        places: &PartPlaces,
    ) {
        let slot = st.nodes.get_mut().get_mut(&bn).expect("cached");
        slot.dirty = false;
        Arc::make_mut(&mut slot.node).set_parts(places);
        let bytes = slot.node.mem_bytes();
        self.budget
            .add(bytes as i64 - slot.bytes as i64, !slot.node.is_leaf());
        slot.bytes = bytes;
        if let Some(old) = st.table.insert(bn, loc) {
            self.space.lock().release(old);
        }
    }
}
