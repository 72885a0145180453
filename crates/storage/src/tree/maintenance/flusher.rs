//! Background flushing of internal nodes (design.md, "Flusher").
//!
//! A writer whose message leaves an internal node's buffers above the node size does not flush them
//! itself while a flusher thread runs: it asks for a flush of the tree ([`FlushQueue::request`]) and
//! returns. The flusher takes the tree's write lock and walks the internal nodes in memory, flushing every
//! node over the node size into its heaviest children, then splits what grew too big. A writer flushes
//! inline only when a node reaches twice the node size (back-pressure), or when no flusher runs (tests
//! that drive the tree step by step, recovery).
//!
//! Cache pressure is a second reason to flush: when the internal nodes in memory hold more than their share
//! of the cache budget (`CacheBudget::internal_over`), the flusher flushes the fullest buffer of any
//! cached height-1 node into its leaf, one at a time, until they are back under 4/5 of that share (a
//! writer does it inline, [`INLINE_FLUSHES`] per batch, when usage passes halfway from the share to the
//! whole budget, or up to [`INLINE_PRESSURE_FLUSHES`] when no flusher runs). Evicting a dirty internal node instead costs
//! re-encoding and re-decoding all its buffers for the next message routed through it: with the internal
//! level larger than the cache (a table ten times the cache), inserts fell to a thousandth of their rate.
//!
//! Invariants: a flush is the same operation whichever thread runs it, under the same lock, so the tree
//! invariants hold between any two operations; buffers stay below twice the node size whenever the
//! write lock is free. The flusher gives the lock up after every [`FLUSHES_PER_HOLD`] child flushes
//! (design.md FLU1), so a point read waits for at most that much flushing, not for a whole pass (with
//! whole passes, queries during the sensor stream at 10x the cache had a p99 of 265-538 ms).

use super::detached_flush::Detached;
use crate::error::Result;
use crate::tree::in_memory::node::{BlockNum, BufferSlot, Node};
use crate::tree::{Tree, TreeState};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Child flushes the flusher thread does per hold of a tree's write lock (FLU1): each loads a child
/// (a leaf may come from disk whole), merges the buffer into it and may split it.
const FLUSHES_PER_HOLD: usize = 2;

/// Leaf flushes a writer does inline, per batch, when the internal nodes far exceed their share of the
/// cache and no flusher thread runs.
const INLINE_PRESSURE_FLUSHES: usize = 64;

/// Child flushes a writer does inline, per batch, while a flusher thread runs but has fallen behind (a
/// node at twice the node size, internal nodes halfway from their share to the whole budget). One leaf
/// flush moves a whole buffer, far more than a batch adds, so this bounds the cache; more made one batch
/// wait for up to 64 leaf rewrites (half a second, the worst second of a random-insert run at 10x the cache).
pub(crate) const INLINE_FLUSHES: usize = 1;

/// Trees waiting for the flusher, shared by an environment's trees and its flusher thread.
#[derive(Default)]
pub struct FlushQueue {
    pending: Mutex<BTreeSet<u64>>,
    cv: Condvar,
    /// A flusher thread is running (writers may leave flushes to it).
    active: AtomicBool,
    /// Tree flushes the flusher has done.
    done: AtomicU64,
}

impl FlushQueue {
    /// Marks the flusher running (`true`) or stopped; stopping wakes it so it can exit.
    pub fn set_active(&self, on: bool) {
        self.active.store(on, Ordering::SeqCst);
        let _g = self.pending.lock();
        self.cv.notify_all();
    }

    /// How many tree flushes the flusher has done.
    pub fn flushes(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Trees waiting for the flusher now.
    pub fn pending(&self) -> usize {
        self.pending.lock().len()
    }

    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::SeqCst)
    }

    /// Asks for a flush of tree `id`; `false` if no flusher runs (the caller flushes itself).
    pub fn request(&self, id: u64) -> bool {
        if !self.is_active() {
            return false;
        }
        let mut p = self.pending.lock();
        if p.insert(id) {
            self.cv.notify_one();
        }
        true
    }

    /// The trees waiting, after waiting up to `timeout` for one; empty when stopped or timed out.
    pub fn take(&self, timeout: Duration) -> Vec<u64> {
        let mut p = self.pending.lock();
        if p.is_empty() && self.is_active() {
            self.cv.wait_for(&mut p, timeout);
        }
        std::mem::take(&mut *p).into_iter().collect()
    }
}

impl Tree {
    /// Whether internal node `bn`'s buffers, after a write, call for a flush now (inline) — `false` when
    /// they fit or when the flusher took the request.
    pub(crate) fn flush_inline(&self, total: usize) -> bool {
        let node_max = self.opts.node_size_bytes as usize;
        if total <= node_max {
            return false;
        }
        total > 2 * node_max || !self.flushq.request(self.id)
    }

    /// Flushes every internal node in memory that is over the node size, then relieves cache pressure
    /// (the flusher thread's work), a few flushes per hold of the tree's write lock: readers and
    /// writers get the lock between them instead of waiting for the whole pass (FLU1).
    pub(crate) fn flush_pending(&self) -> Result<()> {
        self.flushq.done.fetch_add(1, Ordering::Relaxed);
        loop {
            self.write_back()?;
            let detached = self.flush_leaf_detached()?;
            // Leaf flushes are left to the detached path unless it dropped its work (FLU2).
            let leaves = detached == Detached::Dropped;
            let mut st = self.state.write();
            if self.dropped.load(Ordering::SeqCst) {
                return Ok(());
            }
            let mut budget = FLUSHES_PER_HOLD;
            let root = st.root;
            self.flush_walk(&mut st, root, &mut budget, leaves)?;
            self.fix_root(&mut st)?;
            let mut more = budget == 0;
            if !more && leaves {
                more = self.relieve_step(&mut st, &mut budget)?;
            }
            self.settle(&mut st);
            let keep = [st.root];
            self.evict_if_needed(&mut st, &keep)?;
            if !more && detached == Detached::NotNeeded {
                return Ok(());
            }
        }
    }

    /// Flushes the internal nodes below `bn` that are over the node size, at most `budget` child
    /// flushes (the budget is spent as they happen).
    fn flush_walk(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        budget: &mut usize,
        leaves: bool,
    ) -> Result<()> {
        let height = self.load(st, bn)?.height();
        if *budget == 0 || height == 0 {
            return Ok(());
        }
        if leaves || height > 1 {
            self.flush_over_size(st, bn, budget)?;
        }
        // Children from the last: a split of child i inserts at i + 1 and leaves 0..i where they were.
        let n = match &*self.load(st, bn)? {
            Node::Internal { children, .. } => children.len(),
            Node::Leaf { .. } => return Ok(()),
        };
        for i in (0..n).rev() {
            if *budget == 0 {
                break;
            }
            let child = match &*self.load(st, bn)? {
                Node::Internal { children, .. } => children[i],
                Node::Leaf { .. } => return Ok(()),
            };
            if cached_internal(st, child) {
                self.flush_walk(st, child, budget, leaves)?;
                self.fix_child(st, bn, i)?;
            }
        }
        Ok(())
    }

    /// Whether the internal nodes' share of the cache calls for flushing now, inline — `false` when it is
    /// within bounds or the flusher took the request.
    pub(crate) fn relieve_inline(&self) -> bool {
        if !self.budget.internal_over() {
            return false;
        }
        let critical = self.budget.internal_used() > self.budget.internal_critical();
        critical || !self.flushq.request(self.id)
    }

    /// Flushes buffers of height-1 nodes down into leaves until the internal nodes in memory are back under
    /// 4/5 of their share of the cache, nothing is left to flush, or [`INLINE_PRESSURE_FLUSHES`] flushes
    /// are done (a writer's inline relief).
    pub(crate) fn relieve_pressure(&self, st: &mut TreeState) -> Result<()> {
        let mut budget = self.inline_budget(INLINE_PRESSURE_FLUSHES);
        self.relieve_step(st, &mut budget).map(drop)
    }

    /// How many flushes a writer's inline relief may do: [`INLINE_FLUSHES`] while a flusher thread runs,
    /// `alone` without one.
    pub(crate) fn inline_budget(&self, alone: usize) -> usize {
        if self.flushq.is_active() {
            INLINE_FLUSHES
        } else {
            alone
        }
    }

    /// Flushes into leaves, at most `budget` of them, each time the fullest buffer of any cached
    /// height-1 node (the largest batch for one leaf rewrite), until the internal nodes in memory are
    /// back under 4/5 of their share of the cache; whether pressure may remain.
    fn relieve_step(&self, st: &mut TreeState, budget: &mut usize) -> Result<bool> {
        let target = self.budget.internal_target();
        loop {
            if self.budget.internal_used() <= target {
                return Ok(false);
            }
            if *budget == 0 {
                return Ok(true);
            }
            let Some(best) = self.heaviest_leaf_buffer(st)? else {
                return Ok(false);
            };
            self.flush_child(st, best.node, best.idx, &mut 0)?;
            for &(parent, i) in best.path.iter().rev() {
                self.fix_child(st, parent, i)?;
            }
            self.fix_root(st)?;
            self.settle(st);
            *budget -= 1;
        }
    }

    /// The fullest buffer of any cached height-1 node (the way to it from the root with it).
    pub(super) fn heaviest_leaf_buffer(&self, st: &TreeState) -> Result<Option<Heaviest>> {
        let mut best: Option<Heaviest> = None;
        self.visit_leaf_parents(st, st.root, &mut Vec::new(), &mut |bn, buffers, path| {
            if let Some(i) = BufferSlot::heaviest(buffers) {
                let bytes = buffers[i].bytes();
                if best.as_ref().is_none_or(|b| bytes > b.bytes) {
                    best = Some(Heaviest {
                        bytes,
                        node: bn,
                        idx: i,
                        path: path.to_vec(),
                    });
                }
            }
        })?;
        Ok(best)
    }

    /// Calls `f` with each cached height-1 node below `bn`, its buffers and the way to it (`path`:
    /// the way from the root to `bn`).
    pub(super) fn visit_leaf_parents(
        &self,
        st: &TreeState,
        bn: BlockNum,
        path: &mut Vec<(BlockNum, usize)>,
        f: &mut LeafParentVisitor<'_>,
    ) -> Result<()> {
        let node = self.load(st, bn)?;
        let Node::Internal {
            height,
            buffers,
            children,
            ..
        } = &*node
        else {
            return Ok(());
        };
        if *height == 1 {
            f(bn, buffers, path);
            return Ok(());
        }
        for (i, &child) in children.iter().enumerate() {
            if cached_internal(st, child) {
                path.push((bn, i));
                self.visit_leaf_parents(st, child, path, f)?;
                path.pop();
            }
        }
        Ok(())
    }
}

/// What [`Tree::visit_leaf_parents`] calls: a height-1 node, its buffers, the way to it.
pub(super) type LeafParentVisitor<'a> =
    dyn FnMut(BlockNum, &[BufferSlot], &[(BlockNum, usize)]) + 'a;

/// A buffer to flush into a leaf: its size, its node, its index there and the way to that node.
pub(super) struct Heaviest {
    bytes: usize,
    pub(super) node: BlockNum,
    pub(super) idx: usize,
    path: Vec<(BlockNum, usize)>,
}

/// Whether block `child` is an internal node in the cache. Flush walks visit only those: a node
/// that is not in memory has not grown since it was written, so it has nothing to flush.
fn cached_internal(st: &TreeState, child: BlockNum) -> bool {
    st.nodes
        .lock()
        .get(&child)
        .is_some_and(|slot| !slot.node.is_leaf())
}
