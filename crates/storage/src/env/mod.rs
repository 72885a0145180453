//! The environment: a directory with one write-ahead log, one node cache budget and many named trees
//! (design.md, "Storage engine").
//!
//! `Env` owns the catalog, the log, the trees and the background thread (periodic log sync, checkpoints).
//! `TreeHandle` is what callers write and read through: each write appends its log record and applies its
//! message under the tree's write lock (invariant CKP5), then waits for durability outside the lock.

mod catalog;
mod checkpoint;
mod loader;
mod options;
mod recovery;
#[cfg(test)]
mod upgrade_tests;

pub use loader::{SortedRows, LOAD_PREFIX};
pub use options::{Durability, EnvOptions};

use crate::cache::CacheBudget;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::cursor::RangeIter;
use crate::tree::message::{Message, Msn, Op, UpdateRegistry};
use crate::tree::options::TreeOptions;
use crate::tree::{Tree, TreeStats};
use crate::vfs::{RealVfs, Vfs};
use crate::wal::{Record, Wal};
use catalog::{tree_file_name, Catalog, CatalogEntry};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Largest key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 32 << 10;
/// Largest value accepted, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 << 20;

pub(crate) struct Trees {
    pub catalog: Catalog,
    pub open: HashMap<u64, Arc<Tree>>,
}

pub(crate) struct EnvInner {
    pub vfs: Arc<dyn Vfs>,
    pub dir: PathBuf,
    pub opts: EnvOptions,
    pub wal: Wal,
    pub trees: Mutex<Trees>,
    pub budget: Arc<CacheBudget>,
    pub reg: Arc<UpdateRegistry>,
    pub health: Arc<Health>,
    /// One checkpoint at a time; holds the sequence number of the last completed one.
    pub ckpt: Mutex<CheckpointState>,
    pub stop: Mutex<bool>,
    pub wake: Condvar,
    pub closed: AtomicBool,
    pub checkpoints_done: AtomicU64,
    /// How long the last completed checkpoint took. Kept outside `ckpt` so that reading the figures
    /// (`Env::stats`) never waits for a checkpoint that is running.
    pub last_checkpoint_ms: AtomicU64,
    pub locks: crate::txn::locks::LockTable,
    pub mvcc: Arc<crate::tree::mvcc::MvccState>,
    pub flushq: Arc<crate::tree::flusher::FlushQueue>,
    _lock: Box<dyn Send + Sync>,
}

pub(crate) struct CheckpointState {
    pub seq: u64,
    pub began: Instant,
    pub log_bytes_at_begin: u64,
}

/// An open environment. Dropping it stops the background thread and syncs the log, without a final
/// checkpoint (the log covers everything); [`Env::close`] checkpoints first.
pub struct Env {
    inner: Arc<EnvInner>,
    background: Option<JoinHandle<()>>,
    flusher: Option<JoinHandle<()>>,
    syncer: Option<JoinHandle<()>>,
}

/// A handle to one tree; cheap to clone.
#[derive(Clone)]
pub struct TreeHandle {
    env: Arc<EnvInner>,
    tree: Arc<Tree>,
    name: String,
}

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
    /// Point reads that read and decompressed one frame of a basement not in memory (tree/frames.rs).
    pub frame_reads: u64,
    /// Leaf flushes the flusher prepared without the tree's write lock (design.md FLU2).
    pub detached_flushes: u64,
    /// Partition reads a key filter made unnecessary (the key was absent from a partition not in memory).
    pub filter_skips: u64,
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
}

impl Env {
    /// Opens (creating if needed) the environment in `dir` on the real file system, recovering from the log.
    pub fn open(dir: impl AsRef<Path>, opts: EnvOptions, reg: UpdateRegistry) -> Result<Env> {
        Env::open_with_vfs(Arc::new(RealVfs), dir.as_ref(), opts, reg)
    }

    /// Opens the environment through any file system (tests pass a simulated one).
    pub fn open_with_vfs(
        vfs: Arc<dyn Vfs>,
        dir: &Path,
        opts: EnvOptions,
        reg: UpdateRegistry,
    ) -> Result<Env> {
        opts.default_tree.validate()?;
        let (inner, stale_header) = recovery::open(vfs, dir, opts, reg)?;
        let inner = Arc::new(inner);
        if stale_header {
            // RCV4 (design.md, "Recovery"): the headers carry this build's format version before any
            // write can reach the log.
            checkpoint::run(&inner)?;
        }
        // A log with nothing to write over gets its first spare now, not beside its first commits (SPR5),
        // and before the maintenance thread, which makes the later ones, starts. A failure latches
        // nothing and stops spares (SPR4).
        if inner.opts.background {
            let _ = inner.wal.prepare_first_spare();
        }
        let background = if inner.opts.background {
            let bg = inner.clone();
            Some(
                std::thread::Builder::new()
                    .name("betula-maintenance".into())
                    .spawn(move || checkpoint::background_loop(bg))
                    .map_err(|e| Error::io("spawn thread", dir.display().to_string(), e))?,
            )
        } else {
            None
        };
        let flusher = if inner.opts.background {
            inner.flushq.set_active(true);
            let bg = inner.clone();
            Some(
                std::thread::Builder::new()
                    .name("betula-flusher".into())
                    .spawn(move || checkpoint::flusher_loop(bg))
                    .map_err(|e| Error::io("spawn thread", dir.display().to_string(), e))?,
            )
        } else {
            None
        };
        // The log syncer starts fsyncs early for writers outside transactions (design.md WAL1).
        let syncer = if inner.opts.background && inner.opts.durability == Durability::Sync {
            inner.wal.syncer.set_active(true);
            let bg = inner.clone();
            Some(
                std::thread::Builder::new()
                    .name("betula-log-syncer".into())
                    .spawn(move || bg.wal.run_syncer())
                    .map_err(|e| Error::io("spawn thread", dir.display().to_string(), e))?,
            )
        } else {
            None
        };
        let env = Env {
            inner,
            background,
            flusher,
            syncer,
        };
        EnvInner::drop_stale_staging(&env)?;
        Ok(env)
    }

    /// Creates a tree. Durable when this returns (under `Durability::Sync`).
    pub fn create_tree(&self, name: &str, options: Option<TreeOptions>) -> Result<TreeHandle> {
        let inner = &self.inner;
        inner.check_writable()?;
        let options = options.unwrap_or(inner.opts.default_tree);
        options.validate()?;
        if name.is_empty() || name.len() > 1024 {
            return Err(Error::InvalidArgument(format!("bad tree name {name:?}")));
        }
        let (lsn, tree) = {
            let mut trees = inner.trees.lock();
            if trees.catalog.id_of(name).is_some() {
                return Err(Error::TreeExists(name.to_string()));
            }
            let id = trees.catalog.next_tree_id;
            let lsn = inner.wal.append(&Record::CreateTree {
                id,
                name: name.to_string(),
                options,
            })?;
            let tree = Arc::new(inner.open_tree_file(id, options, true)?);
            trees.catalog.next_tree_id = id + 1;
            trees.catalog.trees.insert(
                id,
                CatalogEntry {
                    name: name.to_string(),
                    options,
                    ckpt_seq: 0,
                },
            );
            inner.budget.register(&tree);
            trees.open.insert(id, tree.clone());
            (lsn, tree)
        };
        inner.commit(lsn)?;
        Ok(TreeHandle {
            env: inner.clone(),
            tree,
            name: name.to_string(),
        })
    }

    /// Opens an existing tree.
    pub fn open_tree(&self, name: &str) -> Result<TreeHandle> {
        let trees = self.inner.trees.lock();
        let id = trees
            .catalog
            .id_of(name)
            .ok_or_else(|| Error::NoSuchTree(name.to_string()))?;
        Ok(TreeHandle {
            env: self.inner.clone(),
            tree: trees.open[&id].clone(),
            name: name.to_string(),
        })
    }

    /// Drops a tree: O(1) — the catalog forgets it and its file is removed.
    pub fn drop_tree(&self, name: &str) -> Result<()> {
        let inner = &self.inner;
        inner.check_writable()?;
        let (lsn, id) = {
            let mut trees = inner.trees.lock();
            let id = trees
                .catalog
                .id_of(name)
                .ok_or_else(|| Error::NoSuchTree(name.to_string()))?;
            let lsn = inner.wal.append(&Record::DropTree { id })?;
            trees.catalog.trees.remove(&id);
            if let Some(t) = trees.open.remove(&id) {
                t.dropped.store(true, Ordering::SeqCst);
            }
            (lsn, id)
        };
        inner.commit_always(lsn)?;
        inner.remove_tree_file(id)
    }

    /// Renames a tree.
    pub fn rename_tree(&self, from: &str, to: &str) -> Result<()> {
        let inner = &self.inner;
        inner.check_writable()?;
        let lsn = {
            let mut trees = inner.trees.lock();
            let id = trees
                .catalog
                .id_of(from)
                .ok_or_else(|| Error::NoSuchTree(from.to_string()))?;
            if trees.catalog.id_of(to).is_some() {
                return Err(Error::TreeExists(to.to_string()));
            }
            let lsn = inner.wal.append(&Record::RenameTree {
                id,
                name: to.to_string(),
            })?;
            trees.catalog.trees.get_mut(&id).expect("present").name = to.to_string();
            lsn
        };
        inner.commit(lsn)
    }

    /// Names of all trees, sorted (including staging trees of a bulk load in progress).
    pub fn tree_names(&self) -> Vec<String> {
        let trees = self.inner.trees.lock();
        let mut names: Vec<String> = trees
            .catalog
            .trees
            .values()
            .map(|e| e.name.clone())
            .collect();
        names.sort();
        names
    }

    /// Starts a transaction.
    pub fn begin(&self, opts: crate::txn::TxnOptions) -> Result<crate::txn::Txn> {
        self.inner.begin(opts)
    }

    /// Runs a checkpoint now.
    pub fn checkpoint(&self) -> Result<()> {
        checkpoint::run(&self.inner)
    }

    /// Makes everything written so far durable.
    pub fn sync(&self) -> Result<()> {
        self.inner.wal.sync_all()
    }

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
            failure: i.health.failure(),
            row_locks: i.locks.held(),
            lock_waiters: i.locks.waiting(),
            active_txns: i.mvcc.active_count(),
            open_views: i.mvcc.open_views().0,
            background_flushes: i.flushq.flushes(),
            oldest_view_lag_lsns: i
                .mvcc
                .open_views()
                .1
                .map_or(0, |bound| i.wal.next_lsn().saturating_sub(bound)),
        }
    }

    /// Checkpoints and closes.
    pub fn close(mut self) -> Result<()> {
        self.stop_background();
        let result = if self.inner.health.failure().is_none() {
            checkpoint::run(&self.inner)
        } else {
            Ok(())
        };
        self.inner.closed.store(true, Ordering::SeqCst);
        result
    }

    fn stop_background(&mut self) {
        *self.inner.stop.lock() = true;
        self.inner.wake.notify_all();
        if let Some(h) = self.background.take() {
            let _ = h.join();
        }
        self.inner.flushq.set_active(false);
        if let Some(h) = self.flusher.take() {
            let _ = h.join();
        }
        self.inner.wal.syncer.set_active(false);
        if let Some(h) = self.syncer.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        self.stop_background();
        // A clean drop loses nothing that was acknowledged, whatever the durability mode: write and sync
        // what the log still buffers (best effort; a latched environment is left alone).
        if self.inner.health.failure().is_none() && !self.inner.closed.load(Ordering::SeqCst) {
            let _ = self.inner.wal.sync_all();
        }
        self.inner.closed.store(true, Ordering::SeqCst);
    }
}

impl EnvInner {
    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Error::Closed);
        }
        self.health.check()
    }

    pub(crate) fn tree_context(&self) -> crate::tree::TreeContextArgs {
        crate::tree::TreeContextArgs {
            budget: self.budget.clone(),
            reg: self.reg.clone(),
            health: self.health.clone(),
            mvcc: self.mvcc.clone(),
            flushq: self.flushq.clone(),
        }
    }

    pub(crate) fn open_tree_file(
        &self,
        id: u64,
        options: TreeOptions,
        reset: bool,
    ) -> Result<Tree> {
        let path = self.dir.join(tree_file_name(id));
        Tree::open_in(&*self.vfs, &path, id, options, self.tree_context(), reset)
    }

    pub(crate) fn remove_tree_file(&self, id: u64) -> Result<()> {
        let path = self.dir.join(tree_file_name(id));
        if self.vfs.exists(&path) {
            self.vfs.remove(&path).map_err(|e| {
                self.health
                    .fail(Error::io("remove", path.display().to_string(), e))
            })?;
        }
        Ok(())
    }

    /// Waits for `lsn` to be durable as the durability mode says.
    pub(crate) fn commit(&self, lsn: Msn) -> Result<()> {
        self.commit_with(lsn, None)
    }

    /// Waits for `lsn` to be durable as `mode` (or the environment's mode) says.
    pub(crate) fn commit_with(&self, lsn: Msn, mode: Option<Durability>) -> Result<()> {
        match mode.unwrap_or(self.opts.durability) {
            Durability::Sync => self.wal.sync_to(lsn),
            Durability::Periodic(_) | Durability::NoSync => Ok(()),
        }
    }

    /// Waits for `lsn` to be durable whatever the mode (before removing files).
    pub(crate) fn commit_always(&self, lsn: Msn) -> Result<()> {
        self.wal.sync_to(lsn)
    }
}

impl TreeHandle {
    /// The tree's name when the handle was made.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Applies a batch of changes to this tree outside any transaction: each change is logged and applied in
    /// turn (each is committed at once, with its own MSN), and the call waits once for durability at the end.
    pub fn write_batch(&self, ops: Vec<(Vec<u8>, Op)>) -> Result<()> {
        for (key, op) in &ops {
            self.validate(key, op)?;
            if matches!(op, Op::Abort) {
                return Err(Error::InvalidArgument("abort messages are internal".into()));
            }
        }
        if let Some(last) = self.write_messages(0, ops)? {
            self.env.commit(last)?;
        }
        Ok(())
    }

    /// Logs and applies messages stamped with transaction `txn` (0: none); returns the last LSN, without
    /// waiting for durability. All of the batch's records are appended before any is applied, so that a
    /// writer outside a transaction (`txn` 0, which commits with this call) can have the log syncer start
    /// their fsync while it applies them (invariant WAL1); both happen under the tree's write lock, so the
    /// tree sees the messages in LSN order as before.
    pub(crate) fn write_messages(&self, txn: u64, ops: Vec<(Vec<u8>, Op)>) -> Result<Option<Msn>> {
        if ops.is_empty() {
            return Ok(None);
        }
        let env = &self.env;
        env.check_writable()?;
        let last = {
            let mut st = self.tree.state.write();
            if self.tree.dropped.load(Ordering::SeqCst) {
                return Err(Error::NoSuchTree(self.name.clone()));
            }
            let mut msgs = Vec::with_capacity(ops.len());
            for (key, op) in ops {
                let rec = Record::Message {
                    tree: self.tree.id,
                    txn,
                    key,
                    op,
                };
                let lsn = env.wal.append(&rec)?;
                let Record::Message { txn, key, op, .. } = rec else {
                    unreachable!()
                };
                msgs.push(Message {
                    msn: lsn,
                    txn,
                    key,
                    op,
                });
            }
            let last = msgs.last().map_or(0, |m| m.msn);
            if txn == 0 {
                env.wal.syncer.request(last);
            }
            if let Err(e) = self.tree.apply_batch(&mut st, msgs) {
                // The log now holds a change the tree lacks: only a reopen (replay) can reconcile them.
                return Err(env.health.fail(e));
            }
            last
        };
        self.tree.request_write_back();
        Ok(Some(last))
    }

    pub(crate) fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    pub(crate) fn validate(&self, key: &[u8], op: &Op) -> Result<()> {
        if key.len() > MAX_KEY_BYTES {
            return Err(Error::InvalidArgument(format!(
                "key of {} bytes exceeds {MAX_KEY_BYTES}",
                key.len()
            )));
        }
        match op {
            Op::Put(v) if v.len() > MAX_VALUE_BYTES => Err(Error::InvalidArgument(format!(
                "value of {} bytes exceeds {MAX_VALUE_BYTES}",
                v.len()
            ))),
            Op::Upsert { func, arg } | Op::Broadcast { func, arg, .. } => {
                if !self.env.reg.contains(*func) {
                    return Err(Error::UnknownFunction(*func));
                }
                if arg.len() > MAX_VALUE_BYTES {
                    return Err(Error::InvalidArgument("argument too large".into()));
                }
                Ok(())
            }
            Op::RangeDelete { end } if end.as_slice() <= key => Err(Error::InvalidArgument(
                "range delete with end ≤ start".into(),
            )),
            _ => Ok(()),
        }
    }

    /// Does the background flusher's work for this tree now, in the calling thread (flushes of
    /// over-full buffers, cache-pressure relief, write-back): for tests and tools that run without
    /// background threads.
    pub fn flush_now(&self) -> Result<()> {
        self.tree.flush_pending()
    }

    /// Inserts or overwrites.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.write_batch(vec![(key.to_vec(), Op::Put(value.to_vec()))])
    }

    /// Deletes (no error if absent).
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.write_batch(vec![(key.to_vec(), Op::Delete)])
    }

    /// Sends an upsert message: function `func` will be applied to the row with `arg`, without reading now.
    pub fn upsert(&self, key: &[u8], func: u32, arg: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            key.to_vec(),
            Op::Upsert {
                func,
                arg: arg.to_vec(),
            },
        )])
    }

    /// Deletes every key in [start, end).
    pub fn range_delete(&self, start: &[u8], end: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            start.to_vec(),
            Op::RangeDelete { end: end.to_vec() },
        )])
    }

    /// Applies function `func` with `arg` to every row of the tree (lazily, as messages reach the rows).
    pub fn broadcast(&self, func: u32, arg: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            Vec::new(),
            Op::Broadcast {
                func,
                arg: arg.to_vec(),
                end: Vec::new(),
            },
        )])
    }

    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.tree.get(key)
    }

    /// Entries within the bounds, in key order or reverse.
    pub fn range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, reverse: bool) -> RangeIter<'_> {
        self.tree.range(lower, upper, reverse)
    }

    /// Sizes and counts.
    pub fn stats(&self) -> TreeStats {
        self.tree.stats()
    }

    /// Checks the structural invariants of the whole tree (reads every node; for tests).
    pub fn check_invariants(&self) -> Result<()> {
        self.tree.check_invariants()
    }
}
