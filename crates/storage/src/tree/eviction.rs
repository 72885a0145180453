//! Eviction from the node cache (design.md, "Node cache and eviction"): while the cache is over its
//! budget, the least-recently-used nodes of every open tree whose lock is free go, dirty ones written
//! first; internal nodes age more slowly than leaves ([`staleness`]).

use super::in_memory::node::BlockNum;
use super::{Slot, Tree, TreeState};
use crate::error::Result;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Eviction writes dirty nodes under the tree's lock only when the cache holds more than its budget plus
/// 1/HARD_MARGIN of it; below that, write-back (tree/maintenance/write_back.rs) makes them clean without
/// the lock.
pub(crate) const HARD_MARGIN: u64 = 8;

/// How many times more slowly an internal node ages in the cache than a leaf.
const INTERNAL_AGING: u64 = 8;

/// Eviction's ranking of a cached node: the clock ticks since its last use, divided by
/// [`INTERNAL_AGING`] for internal nodes (design.md, "Node cache and eviction"). Every lookup passes
/// through the internal nodes above its leaf, and reloading one decodes whole message buffers; when lookups sweep the key space
/// (one row per sensor per batch), plain recency evicted them as often as the leaves. Idle trees' internal
/// nodes still go: their staleness grows without bound.
pub(super) fn staleness(now: u64, slot: &Slot) -> std::cmp::Reverse<u64> {
    let age = now.saturating_sub(slot.last_use);
    std::cmp::Reverse(if slot.node.is_leaf() {
        age
    } else {
        age / INTERNAL_AGING
    })
}

impl Tree {
    /// Evicts the least-recently-used nodes of the cache while it is over budget: this tree's and those of
    /// every other open tree whose lock is free now (see crate::cache_budget). The roots and this tree's nodes on
    /// `keep` (the path just used) stay.
    pub(crate) fn evict_if_needed(&self, st: &mut TreeState, keep: &[BlockNum]) -> Result<()> {
        if !self.budget.over() {
            return Ok(());
        }
        // Every other open tree whose lock is free now: `try_write` never waits, so no lock cycle.
        let others: Vec<Arc<Tree>> = self
            .budget
            .members()
            .into_iter()
            .filter(|t| !std::ptr::eq(&**t, self) && !t.dropped.load(Ordering::SeqCst))
            .collect();
        let mut locked: Vec<(&Tree, parking_lot::RwLockWriteGuard<'_, TreeState>)> = others
            .iter()
            .filter_map(|t| t.state.try_write().map(|g| (&**t, g)))
            .collect();
        // (how stale, whose: 0 = this tree, i + 1 = locked[i], block), stalest first.
        let now = self.budget.tick();
        let mut candidates: Vec<(std::cmp::Reverse<u64>, usize, BlockNum)> = st
            .nodes
            .get_mut()
            .iter()
            .filter(|(bn, _)| **bn != st.root && !keep.contains(bn))
            .map(|(bn, s)| (staleness(now, s), 0, *bn))
            .collect();
        for (i, (_, g)) in locked.iter_mut().enumerate() {
            let root = g.root;
            candidates.extend(
                g.nodes
                    .get_mut()
                    .iter()
                    .filter(|(bn, _)| **bn != root)
                    .map(|(bn, s)| (staleness(now, s), i + 1, *bn)),
            );
        }
        candidates.sort_unstable();
        let limit = self.budget.limit();
        let target = limit * 9 / 10;
        // Pass 1 sheds partitions and keeps prefixes; pass 2 drops whole nodes (design.md, "Node cache and
        // eviction").
        // Each stops at the first dirty node (invariant EVI1): writing it here, under the lock, made every
        // other user of the tree wait for its compression, and write-back cleans the stalest dirty nodes
        // first without the lock, so eviction resumes in the same order once it has. Only over the hard
        // margin is one dirty node written here per call; with no flusher thread, every one needed.
        let alone = !self.flushq.is_active();
        let mut may_write = alone || self.budget.used() > limit + limit / HARD_MARGIN;
        for whole in [false, true] {
            for &(_, whose, bn) in &candidates {
                if self.budget.used() <= target {
                    return Ok(());
                }
                let (owner, (done, wrote)) = match whose {
                    0 => (self.id, self.evict_node(st, bn, whole, may_write)?),
                    i => {
                        let (t, g) = &mut locked[i - 1];
                        (t.id, t.evict_node(g, bn, whole, may_write)?)
                    }
                };
                may_write &= alone || !wrote;
                if !done {
                    // The tree that owns the dirty node writes it back.
                    self.flushq.request(owner);
                    break;
                }
            }
        }
        Ok(())
    }

    /// Sheds node `bn`'s partitions (`whole`: drops the node from the cache), writing it first if it is
    /// dirty and `write_dirty` allows. Returns (false when it was dirty and left alone, whether it was
    /// written).
    fn evict_node(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        whole: bool,
        write_dirty: bool,
    ) -> Result<(bool, bool)> {
        let Some(slot) = st.nodes.get_mut().get(&bn) else {
            return Ok((true, false));
        };
        if slot.dirty && !write_dirty {
            return Ok((false, false));
        }
        let (dirty, node) = (slot.dirty, slot.node.clone());
        if !whole && !node.any_loaded() {
            return Ok((true, false));
        }
        if dirty {
            let (loc, places) = self.write_node(&node, bn)?;
            drop(node);
            self.mark_clean(st, bn, loc, &places);
            self.aging.note(bn, loc);
        } else {
            drop(node);
        }
        if whole {
            if let Some(slot) = st.nodes.get_mut().remove(&bn) {
                self.budget.add(-(slot.bytes as i64), !slot.node.is_leaf());
            }
        } else if let Some(slot) = st.nodes.get_mut().get_mut(&bn) {
            Arc::make_mut(&mut slot.node).shed_parts();
            let bytes = slot.node.mem_bytes();
            self.budget
                .add(bytes as i64 - slot.bytes as i64, !slot.node.is_leaf());
            slot.bytes = bytes;
        }
        Ok((true, dirty))
    }
}

impl Tree {
    /// Forgets every cached node of a dropped tree at once (their bytes leave the cache budget now) and
    /// frees them on a thread of their own: a dropped tree's cache can hold millions of entries, and
    /// freeing them took most of an instant DROP PARTITION of a large partition.
    pub(crate) fn release_dropped_nodes(&self) {
        debug_assert!(self.dropped.load(Ordering::SeqCst));
        let nodes = {
            let mut st = self.state.write();
            std::mem::take(st.nodes.get_mut())
        };
        for slot in nodes.values() {
            self.budget.add(-(slot.bytes as i64), !slot.node.is_leaf());
        }
        if nodes.is_empty() {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("betula-free".into())
            .spawn(move || drop(nodes));
        // Without a thread the nodes are freed here (the map moved into the failed closure).
        drop(spawned);
    }
}
