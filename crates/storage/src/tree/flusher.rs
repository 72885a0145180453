//! Background flushing of internal nodes (design.md, "Trees and messages").
//!
//! A writer whose message leaves an internal node's buffers above the node size does not flush them
//! itself while a flusher thread runs: it asks for a flush of the tree ([`FlushQueue::request`]) and
//! returns. The flusher takes the tree's write lock and walks the internal nodes in memory, flushing every
//! node over the node size into its heaviest children, then splits what grew too big. A writer flushes
//! inline only when a node reaches twice the node size (back-pressure), or when no flusher runs (tests
//! that drive the tree step by step, recovery).
//!
//! Cache pressure is a second reason to flush: when the internal nodes in memory hold more than their share
//! of the cache budget (`CacheBudget::internal_over`), the flusher flushes the heaviest buffer of each
//! height-1 node into its leaf until they are back under 4/5 of that share (a writer does it inline when the
//! share is exceeded by half again, or when no flusher runs). Evicting a dirty internal node instead costs
//! re-encoding and re-decoding all its buffers for the next message routed through it: with the internal
//! level larger than the cache (a table ten times the cache), inserts fell to a thousandth of their rate.
//!
//! Invariants: a flush is the same operation whichever thread runs it, under the same lock, so the tree
//! invariants hold between any two operations; buffers stay below twice the node size whenever the
//! write lock is free.

use super::node::{BlockNum, Node};
use super::{Tree, TreeState};
use crate::cache::INTERNAL_SHARE;
use crate::error::Result;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

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

    /// Flushes every internal node in memory that is over the node size (the flusher thread's work).
    pub(crate) fn flush_pending(&self) -> Result<()> {
        let mut st = self.state.write();
        if self.dropped.load(Ordering::SeqCst) {
            return Ok(());
        }
        let root = st.root;
        self.flushq.done.fetch_add(1, Ordering::Relaxed);
        self.flush_walk(&mut st, root)?;
        self.fix_root(&mut st)?;
        self.relieve_pressure(&mut st)?;
        self.settle(&mut st);
        let keep = [st.root];
        self.evict_if_needed(&mut st, &keep)
    }

    fn flush_walk(&self, st: &mut TreeState, bn: BlockNum) -> Result<()> {
        if self.load(st, bn)?.is_leaf() {
            return Ok(());
        }
        self.flush_if_needed(st, bn)?;
        // Children from the last: a split of child i inserts at i + 1 and leaves 0..i where they were.
        let n = match &*self.load(st, bn)? {
            Node::Internal { children, .. } => children.len(),
            Node::Leaf { .. } => return Ok(()),
        };
        for i in (0..n).rev() {
            let child = match &*self.load(st, bn)? {
                Node::Internal { children, .. } => children[i],
                Node::Leaf { .. } => return Ok(()),
            };
            if cached_internal(st, child) {
                self.flush_walk(st, child)?;
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
        let critical = self.budget.internal_used() > self.budget.limit() / INTERNAL_SHARE * 3 / 2;
        critical || !self.flushq.request(self.id)
    }

    /// Flushes buffers of height-1 nodes down into leaves until the internal nodes in memory are back under
    /// 4/5 of their share of the cache (or nothing is left to flush).
    pub(crate) fn relieve_pressure(&self, st: &mut TreeState) -> Result<()> {
        let target = self.budget.limit() / INTERNAL_SHARE * 4 / 5;
        for _ in 0..16 {
            if self.budget.internal_used() <= target {
                break;
            }
            let root = st.root;
            let flushed = self.pressure_walk(st, root, target)?;
            self.fix_root(st)?;
            self.settle(st);
            if !flushed {
                break;
            }
        }
        Ok(())
    }

    /// One round below `bn`: each height-1 node in memory flushes its heaviest buffer into its child;
    /// whether anything was flushed.
    fn pressure_walk(&self, st: &mut TreeState, bn: BlockNum, target: u64) -> Result<bool> {
        let node = self.load(st, bn)?;
        let Node::Internal {
            height,
            buffers,
            children,
            ..
        } = &*node
        else {
            return Ok(false);
        };
        if *height == 1 {
            let Some(i) = super::node::BufferSlot::heaviest(buffers) else {
                return Ok(false);
            };
            drop(node);
            self.flush_child(st, bn, i)?;
            self.settle(st);
            return Ok(true);
        }
        let n = children.len();
        drop(node);
        let mut flushed = false;
        for i in (0..n).rev() {
            if self.budget.internal_used() <= target {
                break;
            }
            let child = match &*self.load(st, bn)? {
                Node::Internal { children, .. } => children[i],
                Node::Leaf { .. } => break,
            };
            if cached_internal(st, child) {
                flushed |= self.pressure_walk(st, child, target)?;
                self.fix_child(st, bn, i)?;
            }
        }
        Ok(flushed)
    }
}

/// Whether block `child` is an internal node in the cache. Flush walks visit only those: a node
/// that is not in memory has not grown since it was written, so it has nothing to flush.
fn cached_internal(st: &TreeState, child: BlockNum) -> bool {
    st.nodes
        .lock()
        .get(&child)
        .is_some_and(|slot| !slot.node.is_leaf())
}
