//! [`Binlog`]: the binary log of one server. Committing sessions reserve a GTID sequence number
//! ([`Binlog::reserve`]), put their event group into the binlog tree inside their own storage
//! transaction, and after the commit hand the group over ([`Binlog::finish`]); groups are
//! appended to the current file in sequence order (a group waits for the ones reserved before
//! it), the file rotates past `max_binlog_size`, and dump threads wait on [`Binlog::wait_past`].
//! A sync thread ([`Binlog::sync_now`], every second) fsyncs the current file and removes the
//! groups it now holds durably from the tree, writing the *marker* (file, position, last GTID)
//! first (design.md BLG1-BLG6; recovery is recovery.rs).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use betula_storage::{Op, TreeHandle};
use parking_lot::{Condvar, Mutex};

use super::control::Gtid;
use super::files::{io_err, Naming};
use super::writer::Writer;
use crate::error::db_error::{DbError, DbResult};
use crate::store::Store;

/// The binlog tree: groups not yet durable in a file, and the marker.
pub const TREE: &str = "\0binlog";
pub(super) const MARKER_KEY: &[u8] = b"m";

/// The tree key of the group with sequence number `seq`.
pub fn group_key(seq: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(9);
    k.push(b'g');
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// Settings (the server's `log_bin`, `server_id`, ... keys).
#[derive(Clone, Debug)]
pub struct BinlogConfig {
    /// `log_bin`'s base name (relative: under the data directory).
    pub basename: String,
    pub server_id: u32,
    pub domain_id: u32,
    pub max_size: u64,
    /// Files older than this are deleted at rotation and start (0: never).
    pub expire_secs: u64,
    pub checksum: bool,
    /// The server version the FORMAT_DESCRIPTION event names.
    pub version: String,
}

/// One file of the log and the GTID state it starts from.
#[derive(Clone, Debug)]
pub struct FileMeta {
    pub name: String,
    pub start: Vec<Gtid>,
}

pub(super) struct State {
    pub files: Vec<FileMeta>,
    pub cur: File,
    /// Bytes of the current file that hold whole groups (readers stop here).
    pub cur_len: u64,
    /// Groups finished out of order, by sequence number (None: the reservation was given up).
    pending: BTreeMap<u64, Option<Vec<u8>>>,
    /// The next sequence number to reserve, and to write.
    pub next_seq: u64,
    pub next_write: u64,
    outstanding: usize,
    /// The last GTID written, per domain.
    pub last: BTreeMap<u32, Gtid>,
    /// Sequence numbers up to this one are durable in a file and gone from the tree.
    pub pruned_seq: u64,
    /// Something was written since the last sync.
    pub dirty: bool,
    /// Changes each time the files are replaced wholesale (RESET MASTER).
    pub epoch: u64,
    /// A write to the files failed: nothing more is written or pruned until a restart
    /// recovers the files from the tree (BLG2).
    pub failed: Option<String>,
}

impl State {
    /// A state with no files yet, `cur` as the current file.
    pub(super) fn empty(cur: File) -> State {
        State {
            files: Vec::new(),
            cur,
            cur_len: 0,
            pending: BTreeMap::new(),
            next_seq: 1,
            next_write: 1,
            outstanding: 0,
            last: BTreeMap::new(),
            pruned_seq: 0,
            dirty: false,
            epoch: 0,
            failed: None,
        }
    }
}

pub struct Binlog {
    pub cfg: BinlogConfig,
    pub(super) naming: Naming,
    pub(super) tree: TreeHandle,
    pub(super) state: Mutex<State>,
    /// Signalled whenever the written end moves (dump threads) or the log stops.
    pub(super) moved: Condvar,
    table_ids: Mutex<HashMap<String, u64>>,
    stopped: AtomicBool,
    sync_wake: (Mutex<bool>, Condvar),
}

impl Binlog {
    /// Opens the log (recovering it from the binlog tree, recovery.rs) and starts its sync
    /// thread.
    pub fn open(cfg: BinlogConfig, datadir: &Path, store: &Store) -> DbResult<Arc<Binlog>> {
        let naming = Naming::new(datadir, &cfg.basename);
        std::fs::create_dir_all(&naming.dir).map_err(|e| io_err("create", &naming.dir, e))?;
        if store.tree(TREE).is_err() {
            store.create_tree(TREE, None)?;
        }
        let tree = store.tree(TREE)?;
        let state = super::recovery::recover(&cfg, &naming, &tree)?;
        let log = Arc::new(Binlog {
            cfg,
            naming,
            tree,
            state: Mutex::new(state),
            moved: Condvar::new(),
            table_ids: Mutex::new(HashMap::new()),
            stopped: AtomicBool::new(false),
            sync_wake: (Mutex::new(false), Condvar::new()),
        });
        log.sync_now()?;
        log.purge_expired()?;
        let weak = Arc::downgrade(&log);
        std::thread::Builder::new()
            .name("binlog-sync".into())
            .spawn(move || sync_loop(weak))
            .map_err(|e| DbError::internal(format!("binlog: cannot start its thread: {e}")))?;
        Ok(log)
    }

    /// Stops the sync thread after a last sync and wakes every dump thread.
    pub fn stop(&self) {
        let _ = self.sync_now();
        self.stopped.store(true, Ordering::SeqCst);
        *self.sync_wake.0.lock() = true;
        self.sync_wake.1.notify_all();
        let _g = self.state.lock();
        self.moved.notify_all();
    }
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// A table id for `db`.`table`, the same for the server's lifetime.
    pub fn table_id(&self, db: &str, table: &str) -> u64 {
        let mut ids = self.table_ids.lock();
        let n = ids.len() as u64;
        *ids.entry(format!("{db}.{table}")).or_insert(n + 1)
    }

    /// Reserves the next GTID; every reservation must end in [`Binlog::finish`].
    pub fn reserve(&self) -> Gtid {
        let mut st = self.state.lock();
        let seq = st.next_seq;
        st.next_seq += 1;
        st.outstanding += 1;
        Gtid {
            domain: self.cfg.domain_id,
            server_id: self.cfg.server_id,
            seq,
        }
    }

    /// Ends a reservation: `group` (unsealed events) was committed with the data, or None if
    /// its transaction did not commit. Writes every group now due, in sequence order.
    pub fn finish(&self, seq: u64, group: Option<Vec<u8>>) -> DbResult<()> {
        let mut st = self.state.lock();
        st.outstanding = st.outstanding.saturating_sub(1);
        if seq < st.next_write {
            return Ok(()); // RESET MASTER came in between: its files start over
        }
        st.pending.insert(seq, group);
        let r = self.drain(&mut st);
        self.moved.notify_all();
        r
    }

    fn drain(&self, st: &mut State) -> DbResult<()> {
        if let Some(why) = &st.failed {
            return Err(DbError::internal(format!(
                "binlog: stopped after a failed write: {why}"
            )));
        }
        while let Some(g) = {
            let k = st.next_write;
            st.pending.remove(&k)
        } {
            if let Some(bytes) = g {
                if let Err(e) = self.append_group(st, &bytes) {
                    st.failed = Some(e.message.clone());
                    return Err(e);
                }
            }
            st.next_write += 1;
        }
        Ok(())
    }

    fn writer(&self) -> Writer<'_> {
        Writer {
            cfg: &self.cfg,
            naming: &self.naming,
        }
    }

    pub(super) fn append_group(&self, st: &mut State, group: &[u8]) -> DbResult<()> {
        let before = st.files.len();
        self.writer().append(st, group)?;
        if st.files.len() != before {
            self.moved.notify_all();
        }
        Ok(())
    }

    /// Makes everything written durable in the files and removes those groups from the tree:
    /// fsync, then the marker, then the deletes (BLG2).
    pub fn sync_now(&self) -> DbResult<()> {
        let (file, name, pos, upto, from, last) = {
            let mut st = self.state.lock();
            if st.failed.is_some() || (!st.dirty && st.pruned_seq + 1 >= st.next_write) {
                return Ok(());
            }
            st.dirty = false;
            let name = st.files.last().map(|f| f.name.clone()).unwrap_or_default();
            let file = st
                .cur
                .try_clone()
                .map_err(|e| io_err("reopen", &self.naming.path(&name), e))?;
            let last = st
                .last
                .get(&self.cfg.domain_id)
                .copied()
                .or_else(|| st.last.values().next_back().copied());
            (
                file,
                name,
                st.cur_len,
                st.next_write - 1,
                st.pruned_seq + 1,
                last,
            )
        };
        file.sync_data()
            .map_err(|e| io_err("sync", &self.naming.path(&name), e))?;
        let mut ops = vec![(
            MARKER_KEY.to_vec(),
            Op::Put(encode_marker(&name, pos, last)),
        )];
        ops.extend((from..=upto).map(|s| (group_key(s), Op::Delete)));
        self.tree.write_batch(ops)?;
        let mut st = self.state.lock();
        st.pruned_seq = st.pruned_seq.max(upto);
        Ok(())
    }

    /// Deletes files older than `binlog_expire_logs_seconds` (never the current one).
    pub fn purge_expired(&self) -> DbResult<()> {
        if self.cfg.expire_secs == 0 {
            return Ok(());
        }
        let cutoff = SystemTime::now() - Duration::from_secs(self.cfg.expire_secs);
        self.purge_where(|path| {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < cutoff)
        })
    }

    /// Deletes the oldest files while `old` says so of each (stopping at the first it does
    /// not, and never deleting the current file).
    pub fn purge_where(&self, old: impl Fn(&Path) -> bool) -> DbResult<()> {
        self.sync_now()?;
        let mut st = self.state.lock();
        let mut gone = 0;
        while gone + 1 < st.files.len() && old(&self.naming.path(&st.files[gone].name)) {
            gone += 1;
        }
        if gone == 0 {
            return Ok(());
        }
        let removed: Vec<FileMeta> = st.files.drain(..gone).collect();
        let names: Vec<String> = st.files.iter().map(|f| f.name.clone()).collect();
        self.naming.write_index(&names)?;
        for f in removed {
            self.naming.remove(&f.name)?;
        }
        Ok(())
    }

    /// FLUSH BINARY LOGS: closes the current file and starts the next one.
    pub fn flush_logs(&self) -> DbResult<()> {
        {
            let mut st = self.state.lock();
            self.writer().rotate(&mut st)?;
            st.dirty = true;
            self.moved.notify_all();
        }
        self.sync_now()?;
        self.purge_expired()
    }

    /// RESET MASTER: deletes every file and starts again at `<basename>.000001` and sequence
    /// number 1 (refused while a transaction is committing).
    pub fn reset(&self) -> DbResult<()> {
        let mut st = self.state.lock();
        if st.outstanding > 0 || !st.pending.is_empty() {
            return Err(DbError::new(
                crate::error::code::ErrorCode::LockOrActiveTransaction,
                "RESET MASTER waits for no transaction to be committing; try again",
            ));
        }
        let old: Vec<FileMeta> = std::mem::take(&mut st.files);
        st.last.clear();
        st.next_seq = 1;
        st.next_write = 1;
        st.pruned_seq = 0;
        st.epoch += 1;
        let first = self.naming.file_name(1);
        for f in &old {
            self.naming.remove(&f.name)?;
        }
        self.writer().start_file(&mut st, &first)?;
        let mut ops = vec![(
            MARKER_KEY.to_vec(),
            Op::Put(encode_marker(&first, st.cur_len, None)),
        )];
        for kv in self.tree.range(
            std::ops::Bound::Included(&b"g"[..]),
            std::ops::Bound::Excluded(&b"h"[..]),
            false,
        ) {
            ops.push((kv?.0, Op::Delete));
        }
        self.tree.write_batch(ops)?;
        self.moved.notify_all();
        Ok(())
    }

    /// Waits until the written end passes (`file`, `pos`), the file changes, the log stops or
    /// `timeout` passes; returns the current (file index epoch, current file, written end).
    pub fn wait_past(&self, file: &str, pos: u64, timeout: Duration) -> (u64, String, u64) {
        let mut st = self.state.lock();
        let cur = |st: &State| st.files.last().map(|f| f.name.clone()).unwrap_or_default();
        if cur(&st) == file && st.cur_len <= pos && !self.stopped() {
            self.moved.wait_for(&mut st, timeout);
        }
        (st.epoch, cur(&st), st.cur_len)
    }

    /// The files, oldest first, with the current one's written end.
    pub fn files(&self) -> (Vec<FileMeta>, u64) {
        let st = self.state.lock();
        (st.files.clone(), st.cur_len)
    }

    /// The last GTID of each domain written (@@gtid_binlog_pos).
    pub fn gtid_pos(&self) -> Vec<Gtid> {
        self.state.lock().last.values().copied().collect()
    }

    /// The binlog tree (groups not yet durable in a file, and the marker).
    pub fn tree(&self) -> &TreeHandle {
        &self.tree
    }

    pub fn path_of(&self, name: &str) -> std::path::PathBuf {
        self.naming.path(name)
    }
}

/// The marker's bytes: file name, position, and the last GTID (seq 0: none).
pub(super) fn encode_marker(file: &str, pos: u64, last: Option<Gtid>) -> Vec<u8> {
    let mut v = vec![file.len() as u8];
    v.extend_from_slice(file.as_bytes());
    v.extend_from_slice(&pos.to_le_bytes());
    let g = last.unwrap_or(Gtid {
        domain: 0,
        server_id: 0,
        seq: 0,
    });
    v.extend_from_slice(&g.domain.to_le_bytes());
    v.extend_from_slice(&g.server_id.to_le_bytes());
    v.extend_from_slice(&g.seq.to_le_bytes());
    v
}

/// The marker read back: (file, position, last GTID).
pub(super) fn decode_marker(v: &[u8]) -> Option<(String, u64, Option<Gtid>)> {
    let n = *v.first()? as usize;
    let name = std::str::from_utf8(v.get(1..1 + n)?).ok()?.to_string();
    let r = v.get(1 + n..1 + n + 24)?;
    let pos = u64::from_le_bytes(r[..8].try_into().ok()?);
    let g = Gtid {
        domain: u32::from_le_bytes(r[8..12].try_into().ok()?),
        server_id: u32::from_le_bytes(r[12..16].try_into().ok()?),
        seq: u64::from_le_bytes(r[16..24].try_into().ok()?),
    };
    Some((name, pos, (g.seq > 0).then_some(g)))
}

/// Once a second: sync and prune; expire old files. Ends when the log stops or is dropped.
fn sync_loop(log: std::sync::Weak<Binlog>) {
    loop {
        let Some(l) = log.upgrade() else { return };
        {
            let mut stop = l.sync_wake.0.lock();
            if !*stop {
                l.sync_wake.1.wait_for(&mut stop, Duration::from_secs(1));
            }
            if *stop {
                return;
            }
        }
        if let Err(e) = l.sync_now() {
            eprintln!("binlog: sync failed: {e}");
        }
    }
}
