//! Write-back: the flusher writes dirty nodes out without holding the tree's write lock, so that the
//! eviction that runs under the lock (the flusher's or a writer's) finds them clean and only drops them.
//!
//! Writing a dirty node means encoding and compressing it (the largest share of the flusher's CPU in a
//! profile of random inserts at 10x the cache); done under the write lock, every point read of the
//! tree waited for it. Here the flusher
//! takes the read lock only to choose nodes and copy their `Arc`s (the stalest dirty ones, which the
//! least-recently-used eviction would write next), writes them with no lock held, then takes the write
//! lock briefly to mark each clean — as the checkpoint does (design.md C7).
//!
//! A writer that finds the cache past 3/4 of its budget after a batch asks the flusher for a round
//! ([`Tree::request_write_back`]), so write-back runs ahead of eviction and not only when a buffer is
//! over-full.
//!
//! Invariant WB1 (design.md): a node is marked clean at the place written only if it is still dirty with the
//! generation that was written (no change since the copy); otherwise the place, which nothing
//! references, is freed at once.

use super::cache::staleness;
use super::node::{BlockNum, Node};
use super::Tree;
use crate::error::Result;
use std::sync::Arc;

/// Dirty nodes written per round (between two holds of the write lock by the flusher).
const WRITE_BACK_BATCH: usize = 2;

impl Tree {
    /// After a batch of writes: asks the flusher for a round when the cache is filling up, so
    /// that write-back runs ahead of eviction and not only when a buffer is over-full.
    pub(crate) fn request_write_back(&self) {
        if self.budget.filling() {
            self.flushq.request(self.id);
        }
    }

    /// Writes up to [`WRITE_BACK_BATCH`] of the stalest dirty nodes (never the root) when the cache is
    /// past 3/4 of its budget ([`crate::cache::CacheBudget::filling`]); nothing otherwise.
    pub(crate) fn write_back(&self) -> Result<()> {
        if !self.budget.filling() {
            return Ok(());
        }
        let picks: Vec<(BlockNum, u64, Arc<Node>)> = {
            let st = self.state.read();
            let now = self.budget.tick();
            let nodes = st.nodes.lock();
            let mut dirty: Vec<_> = nodes
                .iter()
                .filter(|(bn, s)| s.dirty && **bn != st.root)
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
            if self.mark_clean_if_current(&mut st, bn, gen, loc, &places) {
                self.aging.note(bn, loc);
                self.budget
                    .written_back
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            } else {
                self.space.lock().release(loc);
            }
        }
        Ok(())
    }
}
