//! The only door from the SQL layer to the storage engine: tree handles, the session's write
//! set with its row locks, and the schema lock.
//!
//! A session's changes are buffered here in a [`WriteSet`] (an overlay of puts, deletes and blind
//! upserts per tree) that the session's own reads merge over the committed trees; COMMIT writes
//! them through one storage transaction (`betula_storage::Txn`: atomic across trees, durable
//! when it returns), ROLLBACK drops them. Statement atomicity comes from an undo log of overlay
//! entries ([`WriteSet::mark`] / [`WriteSet::rollback_to`]).
//!
//! Isolation: writers lock rows, not tables. The write set owns a storage transaction from the
//! session's first change; every key put in the overlay is locked through it first (an exclusive
//! row lock held until commit or rollback), and a row read to check uniqueness or to be updated
//! is locked before it is read ([`WriteSet::lock`]), so two sessions never both decide from the
//! same committed row (no lost updates, no duplicate keys). Lock waits end after
//! `innodb_lock_wait_timeout` (1205) or on a deadlock (1213). DDL takes the [`SchemaLock`]
//! exclusively, writing sessions hold it shared until their transaction ends.
//! Readers never wait and see committed data.
//! Reads take an optional snapshot (`Option<&Txn>`, the REPEATABLE READ view of an explicit
//! transaction); without one they see the latest committed rows. Known limit: a transaction's
//! writes are held in memory until COMMIT.

pub mod upsert;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use betula_storage::{
    Env, EnvOptions, Op, RangeIter, TreeHandle, TreeOptions, Txn, TxnOptions, UpdateRegistry,
};
use parking_lot::{Condvar, Mutex, RwLock};

use crate::error::db_error::{DbError, DbResult};

/// Id under which the generic row upsert function is registered.
pub const UPSERT_FN: u32 = 1;

/// How a session holds the [`SchemaLock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// Writing rows (many sessions at once).
    Shared,
    /// Changing a table's definition (alone).
    Exclusive,
}

#[derive(Default)]
struct SchemaState {
    shared: HashSet<u64>,
    exclusive: Option<u64>,
    /// Sessions waiting for exclusive access (new shared requests queue behind them).
    exclusive_waiters: usize,
}

/// Keeps DDL apart from writing transactions, like MySQL's metadata lock: sessions writing rows
/// hold it shared until their transaction ends; DDL holds it exclusive for the statement. Waiting
/// DDL is served before new writers (no starvation). Re-entrant per session.
#[derive(Default)]
pub struct SchemaLock {
    state: Mutex<SchemaState>,
    cv: Condvar,
}

impl SchemaLock {
    /// Takes the lock for `session` in `mode`; `false` after `timeout`. A session holding it
    /// shared may upgrade to exclusive once it is the only holder.
    pub fn acquire(&self, session: u64, mode: LockMode, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.state.lock();
        if mode == LockMode::Exclusive {
            st.exclusive_waiters += 1;
        }
        let granted = loop {
            let free = match mode {
                LockMode::Shared => {
                    st.exclusive == Some(session)
                        || st.shared.contains(&session)
                        || (st.exclusive.is_none() && st.exclusive_waiters == 0)
                }
                LockMode::Exclusive => {
                    st.exclusive.is_none_or(|s| s == session)
                        && st.shared.iter().all(|&s| s == session)
                }
            };
            if free {
                break true;
            }
            if self.cv.wait_until(&mut st, deadline).timed_out() {
                break false;
            }
        };
        if mode == LockMode::Exclusive {
            st.exclusive_waiters -= 1;
        }
        if granted {
            match mode {
                LockMode::Shared => {
                    if st.exclusive != Some(session) {
                        st.shared.insert(session);
                    }
                }
                LockMode::Exclusive => {
                    st.shared.remove(&session);
                    st.exclusive = Some(session);
                }
            }
        } else {
            // A timed-out exclusive waiter may have held back shared requests.
            self.cv.notify_all();
        }
        granted
    }
    pub fn release(&self, session: u64) {
        let mut st = self.state.lock();
        st.shared.remove(&session);
        if st.exclusive == Some(session) {
            st.exclusive = None;
        }
        self.cv.notify_all();
    }
}

pub struct Store {
    env: Env,
    trees: RwLock<HashMap<String, TreeHandle>>,
    pub schema_lock: SchemaLock,
}

impl Store {
    pub fn open(dir: &Path, opts: EnvOptions) -> DbResult<Store> {
        let mut reg = UpdateRegistry::new();
        reg.register(UPSERT_FN, |_key, old, arg| upsert::apply(old, arg));
        let env = Env::open(dir, opts, reg)?;
        Ok(Store {
            env,
            trees: RwLock::new(HashMap::new()),
            schema_lock: SchemaLock::default(),
        })
    }
    pub fn env(&self) -> &Env {
        &self.env
    }
    pub fn tree(&self, name: &str) -> DbResult<TreeHandle> {
        if let Some(t) = self.trees.read().get(name) {
            return Ok(t.clone());
        }
        let t = self.env.open_tree(name)?;
        self.trees.write().insert(name.to_string(), t.clone());
        Ok(t)
    }
    pub fn create_tree(&self, name: &str, opts: Option<TreeOptions>) -> DbResult<()> {
        let t = self.env.create_tree(name, opts)?;
        self.trees.write().insert(name.to_string(), t);
        Ok(())
    }
    pub fn drop_tree(&self, name: &str) -> DbResult<()> {
        self.trees.write().remove(name);
        if self.env.tree_names().iter().any(|n| n == name) {
            self.env.drop_tree(name)?;
        }
        Ok(())
    }
    pub fn rename_tree(&self, from: &str, to: &str) -> DbResult<()> {
        self.trees.write().remove(from);
        self.env.rename_tree(from, to)?;
        Ok(())
    }
    /// Replaces the named trees' contents from sorted streams, atomically (`Env::bulk_replace`),
    /// and forgets the cached handles of the replaced trees.
    pub fn bulk_replace(
        &self,
        loads: Vec<(String, betula_storage::SortedRows<'_>)>,
    ) -> betula_storage::Result<Vec<betula_storage::BuildStats>> {
        let names: Vec<String> = loads.iter().map(|(n, _)| n.clone()).collect();
        let r = self.env.bulk_replace(loads);
        let mut cache = self.trees.write();
        for n in names {
            cache.remove(&n);
        }
        r
    }
    /// Bytes on disk of the named trees.
    pub fn tree_bytes(&self, names: &[String]) -> u64 {
        names
            .iter()
            .filter_map(|n| self.tree(n).ok())
            .map(|t| t.stats().file_bytes)
            .sum()
    }
}

/// A pending change of one key.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    /// Known final value (None = deleted).
    Value(Option<Vec<u8>>),
    /// Blind upserts over a base value not read yet, oldest first.
    Upserts(Vec<Vec<u8>>),
}

impl Pending {
    fn resolve(&self, base: Option<&[u8]>) -> Option<Vec<u8>> {
        match self {
            Pending::Value(v) => v.clone(),
            Pending::Upserts(args) => {
                let mut cur = base.map(|b| b.to_vec());
                for a in args {
                    cur = upsert::apply(cur.as_deref(), a);
                }
                cur
            }
        }
    }
}

/// A session's uncommitted changes, and the storage transaction that holds their row locks.
#[derive(Default)]
pub struct WriteSet {
    overlay: HashMap<String, BTreeMap<Vec<u8>, Pending>>,
    undo: Vec<(String, Vec<u8>, Option<Pending>)>,
    /// Holds the row locks of every key in the overlay (and of keys read for a uniqueness check
    /// or an update); the overlay is written through it at commit.
    txn: Option<Txn>,
}

impl WriteSet {
    pub fn is_empty(&self) -> bool {
        self.overlay.values().all(|m| m.is_empty())
    }
    pub fn mark(&self) -> usize {
        self.undo.len()
    }
    pub fn rollback_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some((tree, key, prev)) = self.undo.pop() else {
                break;
            };
            let m = self.overlay.entry(tree).or_default();
            match prev {
                Some(p) => {
                    m.insert(key, p);
                }
                None => {
                    m.remove(&key);
                }
            }
        }
    }
    /// Drops the changes and ends the transaction (releasing its row locks).
    pub fn clear(&mut self) {
        self.overlay.clear();
        self.undo.clear();
        if let Some(t) = self.txn.take() {
            let _ = t.rollback();
        }
    }

    /// Starts the storage transaction that will hold this session's row locks, if none is open.
    pub fn begin(&mut self, store: &Store, lock_timeout: Duration) -> DbResult<()> {
        if self.txn.is_none() {
            self.txn = Some(store.env.begin(TxnOptions {
                isolation: betula_storage::Isolation::ReadCommitted,
                lock_timeout,
                durability: None,
            })?);
        }
        Ok(())
    }

    /// Locks `key` of `tree` for this session until it commits or rolls back (waits for another
    /// session holding it: 1205 after the lock wait timeout, 1213 on a deadlock). Callers lock a
    /// row before reading it to check uniqueness or to change it.
    pub fn lock(&mut self, store: &Store, tree: &str, key: &[u8]) -> DbResult<()> {
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let h = store.tree(tree)?;
        if let Some(t) = self.txn.as_mut() {
            t.lock_key(&h, key)?;
        }
        Ok(())
    }

    /// Locks every key of `tree`, present or future, until the transaction ends.
    pub fn lock_tree(&mut self, store: &Store, tree: &str) -> DbResult<()> {
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let h = store.tree(tree)?;
        if let Some(t) = self.txn.as_mut() {
            t.lock_range(&h, &[], None)?;
        }
        Ok(())
    }

    /// Locks the keys `[lo, hi)` of `tree` (hi None: to the end), present or future, until the
    /// transaction ends.
    pub fn lock_range(
        &mut self,
        store: &Store,
        tree: &str,
        lo: &[u8],
        hi: Option<&[u8]>,
    ) -> DbResult<()> {
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let h = store.tree(tree)?;
        if let Some(t) = self.txn.as_mut() {
            t.lock_range(&h, lo, hi)?;
        }
        Ok(())
    }

    fn set(&mut self, store: &Store, tree: &str, key: Vec<u8>, p: Pending) -> DbResult<()> {
        self.lock(store, tree, &key)?;
        let m = self.overlay.entry(tree.to_string()).or_default();
        let prev = m.insert(key.clone(), p);
        self.undo.push((tree.to_string(), key, prev));
        Ok(())
    }
    pub fn put(&mut self, store: &Store, tree: &str, key: Vec<u8>, value: Vec<u8>) -> DbResult<()> {
        self.set(store, tree, key, Pending::Value(Some(value)))
    }
    pub fn delete(&mut self, store: &Store, tree: &str, key: Vec<u8>) -> DbResult<()> {
        self.set(store, tree, key, Pending::Value(None))
    }
    pub fn upsert(
        &mut self,
        store: &Store,
        tree: &str,
        key: Vec<u8>,
        arg: Vec<u8>,
    ) -> DbResult<()> {
        let prev = self.overlay.get(tree).and_then(|m| m.get(&key)).cloned();
        let p = match prev {
            Some(Pending::Value(v)) => Pending::Value(upsert::apply(v.as_deref(), &arg)),
            Some(Pending::Upserts(mut a)) => {
                a.push(arg);
                Pending::Upserts(a)
            }
            None => Pending::Upserts(vec![arg]),
        };
        self.set(store, tree, key, p)
    }

    /// Reads `key` as this session sees it: its own changes over the snapshot `snap` (a
    /// REPEATABLE READ transaction's view) or, without one, the latest committed value.
    pub fn get(
        &self,
        store: &Store,
        tree: &str,
        key: &[u8],
        snap: Option<&Txn>,
    ) -> DbResult<Option<Vec<u8>>> {
        let base = |store: &Store| -> DbResult<Option<Vec<u8>>> {
            let h = store.tree(tree)?;
            Ok(match snap {
                Some(t) => t.get(&h, key)?,
                None => h.get(key)?,
            })
        };
        match self.overlay.get(tree).and_then(|m| m.get(key)) {
            Some(Pending::Value(v)) => Ok(v.clone()),
            Some(p) => Ok(p.resolve(base(store)?.as_deref())),
            None => base(store),
        }
    }

    /// Scans `[lo, hi)`-style bounds in key order (or reverse), merging this session's changes.
    pub fn scan<'t>(
        &self,
        store: &Store,
        tree: &str,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
        reverse: bool,
        snap: Option<&'t Txn>,
    ) -> DbResult<Scan<'t>> {
        let handle = store.tree(tree)?;
        let mut pending: Vec<(Vec<u8>, Pending)> = match self.overlay.get(tree) {
            Some(m) => m
                .range((lo.clone(), hi.clone()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None => Vec::new(),
        };
        if reverse {
            pending.reverse();
        }
        Ok(Scan {
            snap,
            handle,
            lo,
            hi,
            reverse,
            batch: VecDeque::new(),
            exhausted: false,
            pending: pending.into(),
        })
    }

    /// Commits everything as one storage transaction (atomic across trees: one commit record,
    /// invisible to readers until durable, rolled back by recovery if the commit record is
    /// missing) and clears the set. On error nothing is applied.
    pub fn flush(&mut self, store: &Store, commit_sync: bool) -> DbResult<()> {
        if self.is_empty() {
            self.clear();
            return Ok(());
        }
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let Some(mut txn) = self.txn.take() else {
            return Err(DbError::internal("write set without a transaction"));
        };
        txn.set_durability((!commit_sync).then_some(betula_storage::Durability::NoSync));
        // The changes leave the set whatever happens (on failure the transaction rolls back).
        let mut trees: Vec<(String, BTreeMap<Vec<u8>, Pending>)> =
            std::mem::take(&mut self.overlay).into_iter().collect();
        self.undo.clear();
        trees.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, m) in trees {
            if m.is_empty() {
                continue;
            }
            // A table dropped meanwhile takes its changes with it.
            let Ok(t) = store.tree(&name) else { continue };
            let mut ops = Vec::with_capacity(m.len());
            for (k, p) in m {
                match p {
                    Pending::Value(Some(v)) => ops.push((k, Op::Put(v))),
                    Pending::Value(None) => ops.push((k, Op::Delete)),
                    Pending::Upserts(args) => {
                        for arg in args {
                            ops.push((
                                k.clone(),
                                Op::Upsert {
                                    func: UPSERT_FN,
                                    arg,
                                },
                            ));
                        }
                    }
                }
            }
            txn.write_batch(&t, ops)?;
        }
        txn.commit()?;
        self.clear();
        Ok(())
    }
}

const BATCH: usize = 256;

/// A merged scan; yields `(key, value)` in order.
pub struct Scan<'t> {
    snap: Option<&'t Txn>,
    handle: TreeHandle,
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    reverse: bool,
    batch: VecDeque<(Vec<u8>, Vec<u8>)>,
    exhausted: bool,
    pending: VecDeque<(Vec<u8>, Pending)>,
}

impl Scan<'_> {
    fn refill(&mut self) -> DbResult<()> {
        if !self.batch.is_empty() || self.exhausted {
            return Ok(());
        }
        let lo = as_ref(&self.lo);
        let hi = as_ref(&self.hi);
        let mut n = 0;
        let iter: RangeIter<'_> = match self.snap {
            Some(t) => t.range(&self.handle, lo, hi, self.reverse),
            None => self.handle.range(lo, hi, self.reverse),
        };
        for item in iter {
            let (k, v) = item?;
            self.batch.push_back((k, v));
            n += 1;
            if n >= BATCH {
                break;
            }
        }
        if n < BATCH {
            self.exhausted = true;
        }
        if let Some((last, _)) = self.batch.back() {
            if self.reverse {
                self.hi = Bound::Excluded(last.clone());
            } else {
                self.lo = Bound::Excluded(last.clone());
            }
        }
        Ok(())
    }

    fn before(&self, a: &[u8], b: &[u8]) -> bool {
        if self.reverse {
            a > b
        } else {
            a < b
        }
    }

    pub fn next_entry(&mut self) -> DbResult<Option<(Vec<u8>, Vec<u8>)>> {
        loop {
            self.refill()?;
            let take_pending = match (self.pending.front(), self.batch.front()) {
                (None, None) => return Ok(None),
                (Some(_), None) => Some(false),
                (None, Some(_)) => None,
                (Some((pk, _)), Some((sk, _))) => {
                    if pk == sk {
                        Some(true)
                    } else if self.before(pk, sk) {
                        Some(false)
                    } else {
                        None
                    }
                }
            };
            match take_pending {
                None => return Ok(self.batch.pop_front()),
                Some(same) => {
                    let Some((k, p)) = self.pending.pop_front() else {
                        continue;
                    };
                    let base = if same {
                        self.batch.pop_front().map(|(_, v)| v)
                    } else {
                        None
                    };
                    if let Some(v) = p.resolve(base.as_deref()) {
                        return Ok(Some((k, v)));
                    }
                }
            }
        }
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Shared handle type used by sessions.
pub type SharedStore = Arc<Store>;

pub fn lock_timeout_error() -> DbError {
    DbError::lock_timeout()
}
