//! Opening an environment: read the header and catalog, open every tree, replay the log
//! (design.md, "Recovery", steps 1 to 5; invariants RCV1 to RCV3).

use super::catalog::{
    catalog_name, Catalog, CatalogEntry, EnvHeader, ENV_MAGIC, ENV_PAYLOAD_BYTES,
};
use super::{CheckpointState, EnvInner, EnvOptions, Trees};
use crate::block::slots;
use crate::cache::CacheBudget;
use crate::corruption;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::message::{Message, UpdateRegistry};
use crate::tree::mvcc::MvccState;
use crate::vfs::Vfs;
use crate::wal::reader::scan_and_repair;
use crate::wal::{Record, Wal};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::path::Path;
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

pub(crate) fn open(
    vfs: Arc<dyn Vfs>,
    dir: &Path,
    opts: EnvOptions,
    reg: UpdateRegistry,
) -> Result<(EnvInner, bool)> {
    let dstr = dir.display().to_string();
    vfs.create_dir_all(dir)
        .map_err(|e| Error::io("create directory", dstr.clone(), e))?;
    let wal_dir = dir.join(WAL_DIR);
    vfs.create_dir_all(&wal_dir)
        .map_err(|e| Error::io("create directory", wal_dir.display().to_string(), e))?;
    let lock = vfs.lock(&dir.join("LOCK")).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Error::Locked(dstr.clone())
        } else {
            Error::io("lock", dstr.clone(), e)
        }
    })?;

    // Step 1: header and catalog.
    let header = read_env_header(&*vfs, dir)?;
    // RCV4: an environment without a header, or with one of an older format, is checkpointed before it is
    // used, so no build that cannot read this one's log frames takes it for its own.
    let stale_header = header
        .as_ref()
        .is_none_or(|(_, version)| *version < crate::format::FORMAT_VERSION);
    let (catalog, replay_lsn, seq) = match header.map(|(h, _)| h) {
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
            let catalog =
                Catalog::decode(&raw).map_err(|e| corruption!(pstr, Some(0), "catalog: {e}"))?;
            (catalog, h.replay_lsn, h.seq)
        }
    };

    let health = Arc::new(Health::default());
    let budget = Arc::new(CacheBudget::new(opts.cache_bytes));
    let reg = Arc::new(reg);
    let mvcc = Arc::new(MvccState::default());
    mvcc.load_aborted(&catalog.aborted);
    let flushq = Arc::new(crate::tree::flusher::FlushQueue::default());
    let ctx = || crate::tree::TreeContextArgs {
        budget: budget.clone(),
        reg: reg.clone(),
        health: health.clone(),
        mvcc: mvcc.clone(),
        flushq: flushq.clone(),
    };
    let tree_path = |id: u64| dir.join(super::catalog::tree_file_name(id));

    // Step 2: every tree from its own header.
    let mut trees = Trees {
        catalog,
        open: HashMap::new(),
    };
    // A tree whose file is gone must be dropped (or replaced) later in the log; checked after replay.
    let mut missing: std::collections::BTreeSet<u64> = Default::default();
    for (id, entry) in &trees.catalog.trees {
        let path = tree_path(*id);
        if !vfs.exists(&path) {
            missing.insert(*id);
            continue;
        }
        let t = crate::tree::Tree::open_in(&*vfs, &path, *id, entry.options, ctx(), false)?;
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
        budget.register(&t);
        trees.open.insert(*id, t);
    }

    // Steps 3 and 4: replay, truncating the torn tail.
    let scan = scan_and_repair(&*vfs, &wal_dir, replay_lsn, replay_lsn)?;
    if header.is_some() && scan.records.first().map(|r| r.0) != Some(replay_lsn) {
        return Err(corruption!(
            wal_dir.display(),
            None,
            "log records from LSN {replay_lsn} (the last checkpoint's) are missing"
        ));
    }
    for (lsn, rec) in scan.records {
        match rec {
            Record::Message { tree, txn, key, op } => {
                if txn != 0 && !mvcc.is_active(txn) {
                    // Until its commit record, the transaction is active: its versions stay apart.
                    mvcc.activate(txn);
                }
                let Some(t) = trees.open.get(&tree) else {
                    continue; // dropped later in the log
                };
                let mut st = t.state.write();
                if lsn <= st.ckpt_msn {
                    continue;
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
                if trees.catalog.trees.contains_key(&id) {
                    continue;
                }
                let t =
                    crate::tree::Tree::open_in(&*vfs, &tree_path(id), id, options, ctx(), true)?;
                let t = Arc::new(t);
                budget.register(&t);
                trees.open.insert(id, t);
                trees.catalog.trees.insert(
                    id,
                    CatalogEntry {
                        name,
                        options,
                        ckpt_seq: 0,
                    },
                );
                trees.catalog.next_tree_id = trees.catalog.next_tree_id.max(id + 1);
            }
            Record::DropTree { id } => {
                missing.remove(&id);
                trees.catalog.trees.remove(&id);
                trees.open.remove(&id);
                let p = tree_path(id);
                if vfs.exists(&p) {
                    vfs.remove(&p)
                        .map_err(|e| Error::io("remove", p.display().to_string(), e))?;
                }
            }
            Record::RenameTree { id, name } => {
                if let Some(e) = trees.catalog.trees.get_mut(&id) {
                    e.name = name;
                }
            }
            Record::Checkpoint { .. } => {}
            Record::TxnBegin => mvcc.activate(lsn),
            Record::ReplaceTrees { pairs } => {
                for (old, new) in pairs {
                    missing.remove(&old);
                    let Some(name) = trees.catalog.trees.get(&old).map(|e| e.name.clone()) else {
                        continue;
                    };
                    trees.catalog.trees.remove(&old);
                    trees.open.remove(&old);
                    if let Some(e) = trees.catalog.trees.get_mut(&new) {
                        e.name = name;
                    }
                    let p = tree_path(old);
                    if vfs.exists(&p) {
                        vfs.remove(&p)
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
    }

    if let Some(id) = missing.first() {
        return Err(corruption!(
            tree_path(*id).display(),
            None,
            "the file of tree {id} is missing"
        ));
    }

    // Step 5: continue the log.
    let wal = Wal::start(
        vfs.clone(),
        wal_dir,
        opts.wal_segment_bytes,
        opts.wal_codec,
        opts.wal_recycle_segments,
        health.clone(),
        scan.next_lsn,
        scan.segments,
        scan.free,
    )?;
    // Transactions that never committed are rolled back (logged, so this is itself recoverable).
    for txn in mvcc.active_list() {
        wal.append(&Record::TxnAbort { txn })?;
        mvcc.abort(txn);
    }
    wal.sync_all()?;
    let log_bytes = wal.bytes_appended();
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
        locks: Default::default(),
        mvcc,
        flushq,
        _lock: lock,
    };
    Ok((inner, stale_header))
}
