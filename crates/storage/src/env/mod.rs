//! The environment: a directory with one write-ahead log, one node cache budget and many named trees
//! (design.md, "Storage engine").
//!
//! `Env` owns the catalog, the log, the trees and the background thread (periodic log sync, checkpoints).
//! `TreeHandle` (handle.rs) is what callers write and read through: each write appends its log record and
//! applies its message under the tree's write lock (invariant CKP5), then waits for durability outside the
//! lock. Status figures are in stats.rs, opening and replay in recovery.rs, checkpoints in checkpoint.rs.

pub mod backup;
mod catalog;
mod checkpoint;
mod handle;
mod loader;
mod options;
mod recovery;
mod stats;
mod transport;
#[cfg(test)]
mod upgrade_tests;
mod verify;

pub use catalog::{Catalog, CatalogEntry};
pub use handle::{TreeHandle, MAX_KEY_BYTES, MAX_VALUE_BYTES};
pub use loader::{SortedRows, LOAD_PREFIX};
pub use options::{Durability, EnvOptions};
pub use stats::EnvStats;
pub use transport::ExportStats;
pub use verify::{verify_environment, VerifyReport};

use crate::cache_budget::CacheBudget;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::in_memory::message::{Msn, UpdateRegistry};
use crate::tree::options::TreeOptions;
use crate::tree::Tree;
use crate::vfs::{RealVfs, Vfs};
use crate::wal::{Record, Wal};
use catalog::tree_file_name;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

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
    /// How long each completed checkpoint took (statistics).
    pub checkpoint_latency: crate::latency::LatencyHistogram,
    /// Transactions with writes committed, and transactions rolled back (statistics).
    pub txn_commits: AtomicU64,
    pub txn_rollbacks: AtomicU64,
    pub locks: crate::txn::locks::LockTable,
    pub mvcc: Arc<crate::tree::in_memory::mvcc::MvccState>,
    pub flushq: Arc<crate::tree::maintenance::flusher::FlushQueue>,
    /// Held shared by bulk builds from their checkpoint until their `ReplaceTrees` record is durable, and
    /// exclusively by a backup's final round (design.md BKP3).
    pub unlogged_gate: parking_lot::RwLock<()>,
    /// Held by the running backup (one at a time, BKP7).
    pub backup_running: Mutex<()>,
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
        let (lsn, id, dropped) = {
            let mut trees = inner.trees.lock();
            let id = trees
                .catalog
                .id_of(name)
                .ok_or_else(|| Error::NoSuchTree(name.to_string()))?;
            let lsn = inner.wal.append(&Record::DropTree { id })?;
            trees.catalog.trees.remove(&id);
            let dropped = trees.open.remove(&id);
            if let Some(t) = &dropped {
                t.dropped.store(true, Ordering::SeqCst);
            }
            (lsn, id, dropped)
        };
        if let Some(t) = dropped {
            t.release_dropped_nodes();
        }
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

    /// Swaps the names of each pair of trees, all pairs at once: the contents of `a` are then
    /// found under `b`'s name and those of `b` under `a`'s. The renames are logged as one group
    /// (design.md WAL3): after a crash, every pair is swapped or none is. Durable when this
    /// returns (under `Durability::Sync`).
    pub fn swap_trees(&self, pairs: &[(String, String)]) -> Result<()> {
        let inner = &self.inner;
        inner.check_writable()?;
        let lsn = {
            let mut trees = inner.trees.lock();
            let mut renames = Vec::with_capacity(pairs.len() * 2);
            for (a, b) in pairs {
                let id_of = |n: &str| {
                    trees
                        .catalog
                        .id_of(n)
                        .ok_or_else(|| Error::NoSuchTree(n.to_string()))
                };
                let (ia, ib) = (id_of(a)?, id_of(b)?);
                if ia == ib || renames.iter().any(|(i, _)| *i == ia || *i == ib) {
                    return Err(Error::InvalidArgument(format!(
                        "tree swapped twice: {a:?} <-> {b:?}"
                    )));
                }
                renames.push((ia, b.clone()));
                renames.push((ib, a.clone()));
            }
            let records: Vec<Record> = renames
                .iter()
                .map(|(id, name)| Record::RenameTree {
                    id: *id,
                    name: name.clone(),
                })
                .collect();
            if records.is_empty() {
                return Ok(());
            }
            let lsn = inner.wal.append_group(&records)?;
            for (id, name) in renames {
                trees.catalog.trees.get_mut(&id).expect("present").name = name;
            }
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

    /// The LSN the next log record will get: a REPEATABLE READ view made from now on has a low
    /// limit at least this large ([`crate::Txn::view_low_limit`]).
    pub fn next_lsn(&self) -> u64 {
        self.inner.wal.next_lsn()
    }

    /// Starts a transaction.
    pub fn begin(&self, opts: crate::txn::TxnOptions) -> Result<crate::txn::Txn> {
        self.inner.begin(opts)
    }

    /// Wakes every row-lock wait so it checks its transaction's cancel (`Txn::set_wait_cancel`): called
    /// after a cancel was raised.
    pub fn wake_lock_waiters(&self) {
        self.inner.locks.wake_waiters();
    }

    /// Runs a checkpoint now.
    pub fn checkpoint(&self) -> Result<()> {
        checkpoint::run(&self.inner)
    }

    /// Makes everything written so far durable.
    pub fn sync(&self) -> Result<()> {
        self.inner.wal.sync_all()
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
