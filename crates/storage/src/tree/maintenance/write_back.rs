//! Write-back: the flusher writes dirty nodes out without holding the tree's write lock, so that the
//! eviction that runs under the lock (the flusher's or a writer's) finds them clean and only drops them.
//!
//! Writing a dirty node means encoding and compressing it (the largest share of the flusher's CPU in a
//! profile of random inserts at 10x the cache); done under the write lock, every point read of the
//! tree waited for it. Here the flusher
//! takes the read lock only to choose nodes and copy their `Arc`s (the stalest dirty ones, which the
//! least-recently-used eviction would write next), writes them with no lock held, then takes the write
//! lock briefly to mark each clean — as the checkpoint does (design.md CKP7).
//!
//! A writer that finds the cache past 3/4 of its budget after a batch asks the flusher for a round
//! ([`Tree::request_write_back`]), so write-back runs ahead of eviction and not only when a buffer is
//! over-full.
//!
//! Invariant WBK1 (design.md): a node is marked clean at the place written only if it is still dirty with the
//! generation that was written (no change since the copy); otherwise the place, which nothing
//! references, is freed at once.
//!
//! WBK2: a node whose write-back was lost that way is passed over until it has stayed unchanged for
//! [`SETTLE_TIME`] ([`Settled`]), and so are the pieces a split cuts from it. Sequential inserts keep a
//! leaf and the internal nodes above it changing all the time, and as the few dirty nodes left they were
//! chosen again and again: two thirds of the sequential phase's write-back bytes were thrown away. This
//! only delays writing a node; every dirty node is still written by eviction or the next checkpoint.

use crate::error::Result;
use crate::tree::eviction::staleness;
use crate::tree::in_memory::node::{BlockNum, Node};
use crate::tree::Tree;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Dirty nodes written per round (between two holds of the write lock by the flusher).
const WRITE_BACK_BATCH: usize = 2;

/// How long a node whose write-back was lost to a change must then stay unchanged before write-back
/// takes it again (WBK2), at least.
const SETTLE_TIME: Duration = Duration::from_millis(50);

/// Most nodes remembered as changing under write-back (beyond, the memory is cleared).
const MAX_UNSETTLED: usize = 1024;

/// Which dirty nodes write-back takes (WBK2): every one, except a node whose last write-back was lost
/// because it changed meanwhile (the leaf that sequential inserts append to, the internal nodes above
/// it); such a node is taken again only once it has stayed unchanged for [`SETTLE_TIME`].
#[derive(Debug)]
pub(crate) struct Settled {
    /// Nodes whose last write-back was lost to a change.
    unsettled: HashSet<BlockNum>,
    /// Clock ticks at the starts of the last two periods of [`SETTLE_TIME`] or more.
    earlier: u64,
    later: u64,
    later_at: Instant,
}

impl Default for Settled {
    fn default() -> Settled {
        Settled {
            unsettled: HashSet::new(),
            earlier: 0,
            later: 0,
            later_at: Instant::now(),
        }
    }
}

impl Settled {
    /// The tick before which an unsettled node's last change must lie for write-back to take it, at
    /// clock tick `now` and time `at`: the start of the period before the current one, so at least
    /// [`SETTLE_TIME`] ago.
    fn boundary(&mut self, now: u64, at: Instant) -> u64 {
        if at.saturating_duration_since(self.later_at) >= SETTLE_TIME {
            self.earlier = self.later;
            self.later = now;
            self.later_at = at;
        }
        self.earlier
    }

    /// Whether write-back may take node `bn`, last changed at tick `gen`, given `boundary`.
    fn ready(&self, bn: BlockNum, gen: u64, boundary: u64) -> bool {
        gen < boundary || !self.unsettled.contains(&bn)
    }

    /// Node `from` was split into it and `pieces`: when `from` was unsettled, so are the pieces (the one
    /// that goes on changing, the right one in sequential inserts, is a new node).
    pub(crate) fn inherit(&mut self, from: BlockNum, pieces: &[BlockNum]) {
        if self.unsettled.contains(&from) {
            for &bn in pieces {
                self.record(bn, false);
            }
        }
    }

    /// Records the outcome of writing node `bn` back: `kept` (marked clean) or lost to a change.
    fn record(&mut self, bn: BlockNum, kept: bool) {
        if kept {
            self.unsettled.remove(&bn);
        } else {
            if self.unsettled.len() >= MAX_UNSETTLED {
                self.unsettled.clear();
            }
            self.unsettled.insert(bn);
        }
    }
}

impl Tree {
    /// After a batch of writes: asks the flusher for a round when the cache is filling up, so
    /// that write-back runs ahead of eviction and not only when a buffer is over-full.
    pub(crate) fn request_write_back(&self) {
        if self.budget.filling() {
            self.flushq.request(self.id);
        }
    }

    /// Writes up to [`WRITE_BACK_BATCH`] of the stalest dirty nodes (never the root) when the cache is
    /// past 3/4 of its budget ([`crate::cache_budget::CacheBudget::filling`]); nothing otherwise.
    pub(crate) fn write_back(&self) -> Result<()> {
        if !self.budget.filling() {
            return Ok(());
        }
        let picks: Vec<(BlockNum, u64, Arc<Node>)> = {
            let st = self.state.read();
            let now = self.budget.tick();
            let mut settled = self.settled.lock();
            let boundary = settled.boundary(now, Instant::now());
            let nodes = st.nodes.lock();
            let mut dirty: Vec<_> = nodes
                .iter()
                .filter(|(bn, s)| {
                    s.dirty && **bn != st.root && settled.ready(**bn, s.gen, boundary)
                })
                .map(|(bn, s)| (staleness(now, s), *bn, s.gen))
                .collect();
            dirty.sort_unstable();
            dirty
                .into_iter()
                .take(WRITE_BACK_BATCH)
                .filter_map(|(_, bn, gen)| nodes.get(&bn).map(|s| (bn, gen, s.node.clone())))
                .collect()
        };
        for (bn, gen, node) in picks {
            let (loc, places) = self.write_node(&node, bn)?;
            drop(node);
            let mut st = self.state.write();
            let kept = self.mark_clean_if_current(&mut st, bn, gen, loc, &places);
            self.settled.lock().record(bn, kept);
            if kept {
                self.aging.note(bn, loc);
                self.budget.written_back.fetch_add(1, Ordering::Relaxed);
            } else {
                self.space.lock().release(loc);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_node_lost_to_a_change_waits_and_only_until_it_has_settled() {
        let t0 = Instant::now();
        let mut s = Settled {
            later_at: t0,
            ..Settled::default()
        };
        let b = s.boundary(10, t0);
        // Nodes never lost are taken whatever their age.
        assert!(s.ready(1, 9, b) && s.ready(1, 1_000, b));
        s.record(1, false);
        assert!(!s.ready(1, 9, b), "lost once: waits for a settled period");
        // Within SETTLE_TIME the boundary does not move.
        let b = s.boundary(20, t0 + SETTLE_TIME / 2);
        assert_eq!(b, 0);
        // Two periods later, a change before the first period's start has settled; a later one has not.
        s.boundary(30, t0 + SETTLE_TIME);
        let b = s.boundary(40, t0 + SETTLE_TIME * 2);
        assert_eq!(b, 30);
        assert!(s.ready(1, 29, b));
        assert!(!s.ready(1, 30, b) && !s.ready(1, 35, b));
        // Pieces split off an unsettled node are unsettled too; those of an ordinary node are not.
        s.inherit(1, &[2, 3]);
        assert!(!s.ready(2, 35, b) && !s.ready(3, 35, b));
        s.inherit(4, &[5]);
        assert!(s.ready(5, 35, b));
        // A write-back that is kept makes it an ordinary node again.
        s.record(1, true);
        assert!(s.ready(1, 35, b));
    }

    #[test]
    fn the_memory_of_unsettled_nodes_is_bounded() {
        let mut s = Settled::default();
        for bn in 0..(MAX_UNSETTLED as u64 + 10) {
            s.record(bn, false);
        }
        assert!(s.unsettled.len() <= MAX_UNSETTLED);
        assert!(s.unsettled.contains(&(MAX_UNSETTLED as u64 + 9)));
    }
}
