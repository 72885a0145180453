//! The node cache's byte budget, shared by every tree of an environment.
//!
//! Each tree keeps its own map of cached nodes (see `tree::node_cache`) and reports the bytes it holds here.
//! When the total exceeds the budget, the tree being written evicts the least-recently-used nodes of the
//! whole cache (writing dirty ones first; their partitions first, then whole nodes): its own and those of every other open tree whose lock is free at
//! that instant (`try_write`: eviction never waits for another tree, so it cannot deadlock), until the
//! total is back under the budget or nothing is left to evict. The budget keeps the list of open trees for
//! that ([`CacheBudget::register`]).
//!
//! Invariant: `last_use` values come from one clock ([`CacheBudget::tick`]), so recency compares across
//! trees; a tree nobody touches cannot keep the cache from the trees in use.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::tree::Tree;

/// Internal nodes may hold up to this percentage of the budget before their buffers are flushed down.
/// Their buffers set how many messages each leaf rewrite takes once the table is far larger than the
/// cache; the leaves keep the rest (docs/decisions/2026-11-26-internal-node-share.md: why 65 and not
/// 50 or 75).
pub const INTERNAL_SHARE_PERCENT: u64 = 65;

pub struct CacheBudget {
    limit_bytes: u64,
    used_bytes: AtomicI64,
    /// The part of `used_bytes` held by internal nodes.
    internal_bytes: AtomicI64,
    clock: AtomicU64,
    /// Node lookups in the cache, hits and misses (statistics: one relaxed addition per lookup, as
    /// `clock` already takes).
    pub node_lookups: AtomicU64,
    /// Bytes written by eviction and checkpoints (statistics).
    pub node_bytes_written: AtomicU64,
    /// Node blocks read from disk (statistics).
    pub node_reads: AtomicU64,
    /// Partitions (basements, buffers) read from disk and decompressed (statistics).
    pub part_reads: AtomicU64,
    /// Point reads that decompressed one frame of a basement not in memory (statistics).
    pub frame_reads: AtomicU64,
    /// Leaf flushes prepared without the tree's write lock and installed (statistics).
    pub detached_flushes: AtomicU64,
    /// Partition reads that a key filter made unnecessary (statistics).
    pub filter_skips: AtomicU64,
    /// Basement frames written, and of them columnar ones (statistics, design.md COL1-COL5).
    pub frames_written: AtomicU64,
    pub columnar_frames_written: AtomicU64,
    /// Basements written from their stored copy (TREE6).
    pub basements_reused: AtomicU64,
    /// Dirty nodes the flusher wrote without the write lock and marked clean
    /// (tree/maintenance/write_back.rs).
    pub written_back: AtomicU64,
    /// The environment's open trees (eviction picks across all of them).
    members: Mutex<Vec<Weak<Tree>>>,
}

impl CacheBudget {
    pub fn new(limit_bytes: u64) -> CacheBudget {
        CacheBudget {
            limit_bytes,
            used_bytes: AtomicI64::new(0),
            internal_bytes: AtomicI64::new(0),
            clock: AtomicU64::new(1),
            node_lookups: AtomicU64::new(0),
            node_bytes_written: AtomicU64::new(0),
            node_reads: AtomicU64::new(0),
            part_reads: AtomicU64::new(0),
            frame_reads: AtomicU64::new(0),
            detached_flushes: AtomicU64::new(0),
            filter_skips: AtomicU64::new(0),
            frames_written: AtomicU64::new(0),
            columnar_frames_written: AtomicU64::new(0),
            basements_reused: AtomicU64::new(0),
            written_back: AtomicU64::new(0),
            members: Mutex::new(Vec::new()),
        }
    }
    /// Adds an open tree to the set eviction picks from (dropped trees leave it by themselves).
    pub(crate) fn register(&self, tree: &Arc<Tree>) {
        let mut m = self.members.lock();
        m.retain(|w| w.strong_count() > 0);
        m.push(Arc::downgrade(tree));
    }
    /// The registered trees still open.
    pub(crate) fn members(&self) -> Vec<Arc<Tree>> {
        let mut m = self.members.lock();
        m.retain(|w| w.strong_count() > 0);
        m.iter().filter_map(Weak::upgrade).collect()
    }
    pub fn limit(&self) -> u64 {
        self.limit_bytes
    }
    pub fn used(&self) -> u64 {
        self.used_bytes.load(Ordering::Relaxed).max(0) as u64
    }
    /// Counts `delta` more bytes of a cached node (`internal`: an internal node's).
    pub fn add(&self, delta: i64, internal: bool) {
        self.used_bytes.fetch_add(delta, Ordering::Relaxed);
        if internal {
            self.internal_bytes.fetch_add(delta, Ordering::Relaxed);
        }
    }
    /// Bytes held by internal nodes (their buffers, mostly).
    pub fn internal_used(&self) -> u64 {
        self.internal_bytes.load(Ordering::Relaxed).max(0) as u64
    }
    /// The internal nodes' share of the budget ([`INTERNAL_SHARE_PERCENT`]).
    pub fn internal_limit(&self) -> u64 {
        self.limit_bytes / 100 * INTERNAL_SHARE_PERCENT
    }
    /// Where pressure relief stops: 4/5 of the internal nodes' share.
    pub fn internal_target(&self) -> u64 {
        self.internal_limit() / 5 * 4
    }
    /// Past this, writers relieve pressure inline: halfway from the share to the whole budget.
    pub fn internal_critical(&self) -> u64 {
        self.internal_limit() + (self.limit_bytes - self.internal_limit()) / 2
    }
    /// Whether internal nodes hold more than their share of the budget: their buffers are then flushed
    /// down rather than evicted (design.md, "Node cache and eviction").
    pub fn internal_over(&self) -> bool {
        self.internal_used() > self.internal_limit()
    }
    pub fn over(&self) -> bool {
        self.used() > self.limit_bytes
    }
    /// Past 3/4 of the budget: time for write-back to start making dirty nodes clean, so that the
    /// cache reaches its budget with few dirty nodes left to write at once.
    pub fn filling(&self) -> bool {
        self.used() > self.limit_bytes / 4 * 3
    }
    /// Within a sixteenth of the budget or over it (point reads stop caching whole basements then).
    pub fn near(&self) -> bool {
        self.used() > self.limit_bytes - self.limit_bytes / 16
    }
    /// A logical time for least-recently-used ordering.
    pub fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }
}
