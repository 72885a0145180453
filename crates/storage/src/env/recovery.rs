//! Opening an environment: read the header and catalog, open every tree, replay the log
//! (design.md, "Recovery", steps 1 to 5; invariants RCV1 to RCV5).

use super::catalog::{
    catalog_name, Catalog, CatalogEntry, EnvHeader, ENV_MAGIC, ENV_PAYLOAD_BYTES,
};
use super::{CheckpointState, EnvInner, EnvOptions, Trees};
use crate::block::slots;
use crate::cache_budget::CacheBudget;
use crate::corruption;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::in_memory::message::{Message, Msn, UpdateRegistry};
use crate::tree::in_memory::mvcc::MvccState;
use crate::tree::maintenance::flusher::FlushQueue;
use crate::tree::{Tree, TreeContextArgs};
use crate::vfs::Vfs;
use crate::wal::reader::{scan_and_repair, LogScan};
use crate::wal::{Record, Wal};
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Instant;

pub(crate) const ENV_FILE: &str = "betula.env";
pub(crate) const WAL_DIR: &str = "wal";

/// Reads the newer valid environment header, if any, with the format version it was written in.
pub(crate) fn read_env_header(vfs: &dyn Vfs, dir: &Path) -> Result<Option<(EnvHeader, u32)>> {
    let path = dir.join(ENV_FILE);
    if !vfs.exists(&path) {
        return Ok(None);
    }
    let pstr = path.display().to_string();
    let file = vfs
        .open(&path, false)
        .map_err(|e| Error::io("open", pstr.clone(), e))?;
    slots::newest_valid(
        &*file,
        &pstr,
        ENV_MAGIC,
        ENV_PAYLOAD_BYTES,
        EnvHeader::decode,
        |h| h.seq,
    )
}

/// RCV5: the header recovery is about to act on (retiring and reusing the log before its replay LSN) is
/// rewritten and fsynced first. A process that died after writing a checkpoint's header but before its
/// fsync succeeded leaves it in the page cache only, where this recovery reads it; a power loss could
/// still take it back to the previous header, whose log would be gone. The slot is written again, not
/// only fsynced: after a failed fsync the kernel may have dropped the dirty page's error and its data.
/// A header of an older format is fsynced as it is (RCV4 checkpoints it before any write).
fn make_header_durable(vfs: &dyn Vfs, dir: &Path, h: &EnvHeader, version: u32) -> Result<()> {
    let path = dir.join(ENV_FILE);
    let pstr = path.display().to_string();
    let file = vfs
        .open(&path, false)
        .map_err(|e| Error::io("open", pstr.clone(), e))?;
    if version == crate::format::FORMAT_VERSION {
        slots::write_slot(&*file, h.seq, &h.encode())
            .map_err(|e| Error::io("rewrite environment header", pstr.clone(), e))?;
    }
    file.sync().map_err(|e| Error::io("fsync", pstr, e))
}

/// Opens the environment in `dir`, creating it if needed (recovery steps 1 to 5); returns it and whether
/// its header is missing or of an older format, so that the caller checkpoints before any write (RCV4).
pub(crate) fn open(
    vfs: Arc<dyn Vfs>,
    dir: &Path,
    opts: EnvOptions,
    reg: UpdateRegistry,
) -> Result<(EnvInner, bool)> {
    let (wal_dir, lock) = create_and_lock(&*vfs, dir)?;

    // Step 1: header and catalog.
    let header = read_env_header(&*vfs, dir)?;
    if let Some((h, version)) = &header {
        make_header_durable(&*vfs, dir, h, *version)?;
    }
    // RCV4: an environment without a header, or with one of an older format, is checkpointed before it is
    // used, so no build that cannot read this one's log frames takes it for its own.
    let stale_header = header
        .as_ref()
        .is_none_or(|(_, version)| *version < crate::format::FORMAT_VERSION);
    let (catalog, replay_lsn, seq) = read_catalog(&*vfs, dir, header.map(|(h, _)| h))?;

    let ctx = shared_state(&opts, reg, &catalog);
    let mut recovery = Recovery {
        vfs: &*vfs,
        dir,
        ctx,
        trees: Trees {
            catalog,
            open: HashMap::new(),
        },
        missing: BTreeSet::new(),
    };

    // Step 2: every tree from its own header.
    recovery.open_trees()?;

    // Steps 3 and 4: replay, truncating the torn tail.
    let mut scan = scan_and_repair(&*vfs, &wal_dir, replay_lsn, replay_lsn)?;
    if header.is_some() && scan.records.first().map(|r| r.0) != Some(replay_lsn) {
        return Err(corruption!(
            wal_dir.display(),
            None,
            "log records from LSN {replay_lsn} (the last checkpoint's) are missing"
        ));
    }
    for (lsn, rec) in std::mem::take(&mut scan.records) {
        recovery.replay(lsn, rec)?;
    }
    recovery.check_no_file_missing()?;
    let Recovery { trees, ctx, .. } = recovery;

    // Step 5: continue the log.
    let wal = continue_log(vfs.clone(), wal_dir, &opts, &ctx, scan)?;
    let log_bytes = wal.bytes_appended();
    let TreeContextArgs {
        budget,
        reg,
        health,
        mvcc,
        flushq,
    } = ctx;
    let inner = EnvInner {
        vfs,
        dir: dir.to_path_buf(),
        opts,
        wal,
        trees: Mutex::new(trees),
        budget,
        reg,
        health,
        ckpt: Mutex::new(CheckpointState {
            seq,
            began: Instant::now(),
            log_bytes_at_begin: log_bytes,
        }),
        stop: Mutex::new(false),
        wake: Condvar::new(),
        closed: AtomicBool::new(false),
        checkpoints_done: AtomicU64::new(0),
        last_checkpoint_ms: AtomicU64::new(0),
        checkpoint_latency: Default::default(),
        txn_commits: AtomicU64::new(0),
        txn_rollbacks: AtomicU64::new(0),
        locks: Default::default(),
        mvcc,
        flushq,
        unlogged_gate: Default::default(),
        backup_running: Default::default(),
        _lock: lock,
    };
    Ok((inner, stale_header))
}

/// Creates the environment's directory and its log directory if needed, and locks the environment
/// against a second opener; returns the log directory and the lock (held as long as the environment).
fn create_and_lock(vfs: &dyn Vfs, dir: &Path) -> Result<(PathBuf, Box<dyn Send + Sync>)> {
    let dstr = dir.display().to_string();
    vfs.create_dir_all(dir)
        .map_err(|e| Error::io("create directory", dstr.clone(), e))?;
    let wal_dir = dir.join(WAL_DIR);
    vfs.create_dir_all(&wal_dir)
        .map_err(|e| Error::io("create directory", wal_dir.display().to_string(), e))?;
    Ok((wal_dir, lock_dir(vfs, dir)?))
}

/// Takes the environment's lock (its `LOCK` file): `Error::Locked` while another opener holds it.
pub(crate) fn lock_dir(vfs: &dyn Vfs, dir: &Path) -> Result<Box<dyn Send + Sync>> {
    let dstr = dir.display().to_string();
    vfs.lock(&dir.join("LOCK")).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Error::Locked(dstr)
        } else {
            Error::io("lock", dstr, e)
        }
    })
}

/// Step 1: the catalog the environment header names, with the LSN replay starts from and the
/// checkpoint sequence; an empty catalog (replay from LSN 1) without a header.
pub(crate) fn read_catalog(
    vfs: &dyn Vfs,
    dir: &Path,
    header: Option<EnvHeader>,
) -> Result<(Catalog, Msn, u64)> {
    Ok(match header {
        None => (
            Catalog {
                next_tree_id: 1,
                trees: Default::default(),
                aborted: Vec::new(),
            },
            1,
            0,
        ),
        Some(h) => {
            let raw = read_catalog_bytes(vfs, dir, &h)?;
            let pstr = dir.join(catalog_name(h.seq)).display().to_string();
            let catalog =
                Catalog::decode(&raw).map_err(|e| corruption!(pstr, Some(0), "catalog: {e}"))?;
            (catalog, h.replay_lsn, h.seq)
        }
    })
}

/// The bytes of the catalog that `h` names, checked against its CRC-32C.
pub(crate) fn read_catalog_bytes(vfs: &dyn Vfs, dir: &Path, h: &EnvHeader) -> Result<Vec<u8>> {
    let path = dir.join(catalog_name(h.seq));
    let pstr = path.display().to_string();
    let file = vfs
        .open(&path, false)
        .map_err(|e| Error::io("open", pstr.clone(), e))?;
    let mut raw = vec![0u8; h.catalog_len as usize];
    file.read_exact_at(&mut raw, 0)
        .map_err(|e| Error::io("read", pstr.clone(), e))?;
    if crc32c::crc32c(&raw) != h.catalog_crc {
        return Err(corruption!(pstr, Some(0), "catalog checksum mismatch"));
    }
    Ok(raw)
}

/// What every tree shares with the environment: the latch, the cache budget, the upsert registry, the
/// transactions' state (with the aborted ids the catalog keeps) and the flush queue.
pub(crate) fn shared_state(
    opts: &EnvOptions,
    reg: UpdateRegistry,
    catalog: &Catalog,
) -> TreeContextArgs {
    let health = Arc::new(Health::default());
    let budget = Arc::new(CacheBudget::new(opts.cache_bytes));
    let reg = Arc::new(reg);
    let mvcc = Arc::new(MvccState::default());
    mvcc.load_aborted(&catalog.aborted);
    let flushq = Arc::new(FlushQueue::default());
    TreeContextArgs {
        budget,
        reg,
        health,
        mvcc,
        flushq,
    }
}

/// Step 5: starts the log after the last valid record `scan` found, rolls back the transactions that
/// never committed (logged, so this is itself recoverable) and syncs.
fn continue_log(
    vfs: Arc<dyn Vfs>,
    wal_dir: PathBuf,
    opts: &EnvOptions,
    ctx: &TreeContextArgs,
    scan: LogScan,
) -> Result<Wal> {
    let wal = Wal::start(
        vfs,
        wal_dir,
        opts.wal_segment_bytes,
        opts.wal_codec,
        opts.wal_recycle_segments,
        ctx.health.clone(),
        scan.next_lsn,
        scan.segments,
        scan.free,
    )?;
    for txn in ctx.mvcc.active_list() {
        wal.append(&Record::TxnAbort { txn })?;
        ctx.mvcc.abort(txn);
    }
    wal.sync_all()?;
    Ok(wal)
}

/// The trees being recovered: those the catalog names, each opened from its own header (step 2), then
/// changed by the log records replayed in LSN order (steps 3 and 4).
struct Recovery<'a> {
    vfs: &'a dyn Vfs,
    dir: &'a Path,
    /// What every tree shares with the environment (cache budget, registry, latch, MVCC, flush queue).
    ctx: TreeContextArgs,
    trees: Trees,
    /// Trees whose file is gone: each must be dropped (or replaced) later in the log; checked after replay.
    missing: BTreeSet<u64>,
}

impl Recovery<'_> {
    fn tree_path(&self, id: u64) -> PathBuf {
        self.dir.join(super::catalog::tree_file_name(id))
    }

    /// Step 2: opens every tree of the catalog from its own header.
    fn open_trees(&mut self) -> Result<()> {
        for (id, entry) in &self.trees.catalog.trees {
            let path = self.tree_path(*id);
            if !self.vfs.exists(&path) {
                self.missing.insert(*id);
                continue;
            }
            let t = Tree::open_in(self.vfs, &path, *id, entry.options, self.ctx.clone(), false)?;
            let seq = t.state.read().ckpt_seq;
            if seq < entry.ckpt_seq {
                return Err(corruption!(
                    path.display(),
                    Some((entry.ckpt_seq % 2) * crate::format::HEADER_SLOT_BYTES),
                    "tree header for checkpoint {} is damaged (newest valid: {seq})",
                    entry.ckpt_seq
                ));
            }
            let t = Arc::new(t);
            self.ctx.budget.register(&t);
            self.trees.open.insert(*id, t);
        }
        Ok(())
    }

    /// Steps 3 and 4: replays one log record (the trees' checkpoints already hold those at or below
    /// their MSN).
    fn replay(&mut self, lsn: Msn, rec: Record) -> Result<()> {
        let mvcc = &self.ctx.mvcc;
        match rec {
            Record::Message { tree, txn, key, op } => {
                if txn != 0 && !mvcc.is_active(txn) {
                    // Until its commit record, the transaction is active: its versions stay apart.
                    mvcc.activate(txn);
                }
                let Some(t) = self.trees.open.get(&tree) else {
                    return Ok(()); // dropped later in the log
                };
                let mut st = t.state.write();
                if lsn <= st.ckpt_msn {
                    return Ok(());
                }
                t.apply_locked(
                    &mut st,
                    Message {
                        msn: lsn,
                        txn,
                        key,
                        op,
                    },
                )?;
            }
            Record::CreateTree { id, name, options } => {
                if self.trees.catalog.trees.contains_key(&id) {
                    return Ok(());
                }
                let t = Tree::open_in(
                    self.vfs,
                    &self.tree_path(id),
                    id,
                    options,
                    self.ctx.clone(),
                    true,
                )?;
                let t = Arc::new(t);
                self.ctx.budget.register(&t);
                self.trees.open.insert(id, t);
                self.trees.catalog.trees.insert(
                    id,
                    CatalogEntry {
                        name,
                        options,
                        ckpt_seq: 0,
                    },
                );
                self.trees.catalog.next_tree_id = self.trees.catalog.next_tree_id.max(id + 1);
            }
            Record::DropTree { id } => {
                self.missing.remove(&id);
                self.trees.catalog.trees.remove(&id);
                self.trees.open.remove(&id);
                let p = self.tree_path(id);
                if self.vfs.exists(&p) {
                    self.vfs
                        .remove(&p)
                        .map_err(|e| Error::io("remove", p.display().to_string(), e))?;
                }
            }
            Record::RenameTree { id, name } => {
                if let Some(e) = self.trees.catalog.trees.get_mut(&id) {
                    e.name = name;
                }
            }
            Record::Checkpoint { .. } => {}
            Record::TxnBegin => mvcc.activate(lsn),
            Record::ReplaceTrees { pairs } => {
                for (old, new) in pairs {
                    self.missing.remove(&old);
                    let Some(name) = self.trees.catalog.trees.get(&old).map(|e| e.name.clone())
                    else {
                        continue;
                    };
                    self.trees.catalog.trees.remove(&old);
                    self.trees.open.remove(&old);
                    if let Some(e) = self.trees.catalog.trees.get_mut(&new) {
                        e.name = name;
                    }
                    let p = self.tree_path(old);
                    if self.vfs.exists(&p) {
                        self.vfs
                            .remove(&p)
                            .map_err(|e| Error::io("remove", p.display().to_string(), e))?;
                    }
                }
            }
            Record::TxnCommit { txn } => mvcc.deactivate(txn),
            Record::TxnAbort { txn } => mvcc.abort(txn),
            Record::TxnsOpen { txns } => {
                for txn in txns {
                    mvcc.activate(txn);
                }
            }
        }
        Ok(())
    }

    /// After replay, no tree the catalog still names may lack its file.
    fn check_no_file_missing(&self) -> Result<()> {
        if let Some(id) = self.missing.first() {
            return Err(corruption!(
                self.tree_path(*id).display(),
                None,
                "the file of tree {id} is missing"
            ));
        }
        Ok(())
    }
}
