//! The node cache's byte budget, shared by every tree of an environment.
//!
//! Each tree keeps its own map of cached nodes (see `tree::cache`) and reports the bytes it holds here.
//! When the total exceeds the budget, the tree being written evicts least-recently-used nodes (writing dirty
//! ones first) until the total is back under the budget or it has nothing left to evict.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

pub struct CacheBudget {
    limit_bytes: u64,
    used_bytes: AtomicI64,
    clock: AtomicU64,
    /// Bytes written by eviction and checkpoints (statistics).
    pub node_bytes_written: AtomicU64,
    /// Node blocks read from disk (statistics).
    pub node_reads: AtomicU64,
}

impl CacheBudget {
    pub fn new(limit_bytes: u64) -> CacheBudget {
        CacheBudget {
            limit_bytes,
            used_bytes: AtomicI64::new(0),
            clock: AtomicU64::new(1),
            node_bytes_written: AtomicU64::new(0),
            node_reads: AtomicU64::new(0),
        }
    }
    pub fn limit(&self) -> u64 {
        self.limit_bytes
    }
    pub fn used(&self) -> u64 {
        self.used_bytes.load(Ordering::Relaxed).max(0) as u64
    }
    pub fn add(&self, delta: i64) {
        self.used_bytes.fetch_add(delta, Ordering::Relaxed);
    }
    pub fn over(&self) -> bool {
        self.used() > self.limit_bytes
    }
    /// A logical time for least-recently-used ordering.
    pub fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }
}
