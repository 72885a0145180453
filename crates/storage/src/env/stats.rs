//! Environment-wide figures for status output ([`Env::stats`]): the cache budget, the log, checkpoints,
//! node I/O, row locks, transactions and the background threads' work.

use super::Env;
use crate::latency::LatencySnapshot;
use crate::tree::in_memory::message::Msn;
use std::sync::atomic::Ordering;

/// Environment-wide figures for status output.
#[derive(Debug, Clone)]
pub struct EnvStats {
    pub cache_used_bytes: u64,
    pub cache_limit_bytes: u64,
    /// The part of `cache_used_bytes` held by internal nodes (their message buffers, mostly), which may
    /// take up to half the budget.
    pub cache_internal_bytes: u64,
    pub wal_next_lsn: Msn,
    pub wal_bytes_appended: u64,
    /// Bytes of packed, compressed frames written to log segments since the environment was opened.
    pub wal_bytes_written: u64,
    pub wal_segments: usize,
    /// Retired log segments kept to be written over (design.md SEG1).
    pub wal_free_segments: usize,
    /// Spare log segments (files of zeros) written since open (design.md SPR1-SPR5).
    pub wal_spares_made: u64,
    pub checkpoints: u64,
    pub last_checkpoint_ms: u64,
    pub node_bytes_written: u64,
    pub node_reads: u64,
    /// Basements and message buffers read from disk and decompressed (a cached one is never read again).
    pub part_reads: u64,
    /// Point reads that read and decompressed one frame of a basement not in memory (tree/format/frames.rs).
    pub frame_reads: u64,
    /// Leaf flushes the flusher prepared without the tree's write lock (design.md FLU2).
    pub detached_flushes: u64,
    /// Partition reads a key filter made unnecessary (the key was absent from a partition not in memory).
    pub filter_skips: u64,
    /// Basement frames written, and of them columnar ones (design.md "Column encoding").
    pub frames_written: u64,
    pub columnar_frames_written: u64,
    /// Basements written from a stored copy instead of encoded again (design.md TREE6).
    pub basements_reused: u64,
    pub failure: Option<String>,
    /// Row locks held and transactions waiting for one.
    pub row_locks: usize,
    pub lock_waiters: usize,
    /// Transactions with writes still open.
    pub active_txns: usize,
    /// Read views open (transactions' snapshots, scans) and how far behind the log the oldest one is, in
    /// LSNs: a long-open snapshot keeps old row versions alive.
    pub open_views: usize,
    pub oldest_view_lag_lsns: u64,
    /// Flushes of over-full internal nodes done by the flusher thread (not by writers).
    pub background_flushes: u64,
    /// Dirty nodes the flusher wrote back without the tree's write lock (design.md WBK1).
    pub written_back: u64,
    /// Node lookups in the cache (hits and misses; `node_reads` are the misses).
    pub node_lookups: u64,
    /// The internal nodes' share of the cache budget (their buffers are flushed down past it).
    pub cache_internal_limit_bytes: u64,
    /// Trees waiting for the flusher thread.
    pub flusher_pending_trees: usize,
    /// Transactions with writes committed, and transactions with writes rolled back.
    pub txn_commits: u64,
    pub txn_rollbacks: u64,
    /// How long log fsyncs and completed checkpoints took.
    pub log_fsync_latency: LatencySnapshot,
    pub checkpoint_latency: LatencySnapshot,
}

impl Env {
    /// Environment-wide figures.
    pub fn stats(&self) -> EnvStats {
        let i = &self.inner;
        EnvStats {
            cache_used_bytes: i.budget.used(),
            cache_limit_bytes: i.budget.limit(),
            cache_internal_bytes: i.budget.internal_used(),
            wal_next_lsn: i.wal.next_lsn(),
            wal_bytes_appended: i.wal.bytes_appended(),
            wal_bytes_written: i.wal.bytes_written(),
            wal_segments: i.wal.segment_count(),
            wal_free_segments: i.wal.free_count(),
            wal_spares_made: i.wal.spares_made(),
            checkpoints: i.checkpoints_done.load(Ordering::Relaxed),
            last_checkpoint_ms: i.last_checkpoint_ms.load(Ordering::Relaxed),
            node_bytes_written: i.budget.node_bytes_written.load(Ordering::Relaxed),
            node_reads: i.budget.node_reads.load(Ordering::Relaxed),
            part_reads: i.budget.part_reads.load(Ordering::Relaxed),
            frame_reads: i.budget.frame_reads.load(Ordering::Relaxed),
            detached_flushes: i.budget.detached_flushes.load(Ordering::Relaxed),
            written_back: i.budget.written_back.load(Ordering::Relaxed),
            filter_skips: i.budget.filter_skips.load(Ordering::Relaxed),
            frames_written: i.budget.frames_written.load(Ordering::Relaxed),
            columnar_frames_written: i.budget.columnar_frames_written.load(Ordering::Relaxed),
            basements_reused: i.budget.basements_reused.load(Ordering::Relaxed),
            failure: i.health.failure(),
            row_locks: i.locks.held(),
            lock_waiters: i.locks.waiting(),
            active_txns: i.mvcc.active_count(),
            open_views: i.mvcc.open_views().0,
            background_flushes: i.flushq.flushes(),
            node_lookups: i.budget.node_lookups.load(Ordering::Relaxed),
            cache_internal_limit_bytes: i.budget.internal_limit(),
            flusher_pending_trees: i.flushq.pending(),
            txn_commits: i.txn_commits.load(Ordering::Relaxed),
            txn_rollbacks: i.txn_rollbacks.load(Ordering::Relaxed),
            log_fsync_latency: i.wal.fsync_latency.snapshot(),
            checkpoint_latency: i.checkpoint_latency.snapshot(),
            oldest_view_lag_lsns: i
                .mvcc
                .open_views()
                .1
                .map_or(0, |bound| i.wal.next_lsn().saturating_sub(bound)),
        }
    }
}
