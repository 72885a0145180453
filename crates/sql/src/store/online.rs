//! Online index builds, the writers' half ([`OnlineLogs`]): which primary trees have an index
//! being built, the change log each of their writers appends to, and the epochs that let the
//! builder know which logged changes a read view already contains. Also the births of trees
//! ([`TreeBirths`]) that a REPEATABLE READ snapshot older than them must not read (1412).
//!
//! Invariants (design.md "Online index builds", OIX1-OIX7):
//! * A transaction that writes a registered primary tree appends, in the same storage
//!   transaction, one log entry per written key: (epoch it entered with, big-endian u64) ++
//!   primary key, empty value (OIX2). It enters ([`OnlineLogs::enter`]) before its first such
//!   write and leaves ([`Entered`] dropped) only after its commit or rollback returned.
//! * [`OnlineLogs::advance`] returns only when no transaction that entered with the old epoch
//!   or an earlier one is still in flight (OIX3); logs are registered and unregistered only
//!   while no transaction is entered (under the exclusive schema lock, or after a drain).
//! * Once [`OnlineLogs::start_maintaining`] turned maintenance on, a write made after its keys
//!   were locked writes the new indexes' entries instead of logging ([`Entered::writes_for`],
//!   OIX8, OIX9); the mode stays on until the build unregisters.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use betula_storage::{Op, TreeHandle, Txn};
use parking_lot::{Condvar, Mutex};

use super::{upsert, Store};
use crate::error::db_error::{DbError, DbResult};

/// Changes of one tree: (key, op), in the order written.
pub type TreeOps = Vec<(Vec<u8>, Op)>;

/// What an index build's writers compute for one written row: given the primary tree, the
/// primary key, and the row's bytes before and after the write (None: absent), it appends the
/// new indexes' entry changes to the map (index tree → ops).
pub type Maintain = Arc<
    dyn Fn(
            &str,
            &[u8],
            Option<&[u8]>,
            Option<&[u8]>,
            &mut BTreeMap<String, TreeOps>,
        ) -> DbResult<()>
        + Send
        + Sync,
>;

/// What a write of a registered primary tree adds to its transaction ([`Entered::writes_for`]).
pub enum OnlineWrites {
    /// Entries of the change log tree (OIX2).
    Log(String, TreeOps),
    /// The new indexes' entry changes, per index tree (OIX9).
    Entries(BTreeMap<String, TreeOps>),
}

impl OnlineWrites {
    /// Writes them through `txn` (locking each key).
    pub fn write(self, store: &Store, txn: &mut Txn) -> DbResult<()> {
        match self {
            OnlineWrites::Log(log, ops) => txn.write_batch(&store.tree(&log)?, ops)?,
            OnlineWrites::Entries(map) => {
                for (tree, ops) in map {
                    txn.write_batch(&store.tree(&tree)?, ops)?;
                }
            }
        }
        Ok(())
    }
}

/// The change log tree of an online build on `primary` (a name a table's trees cannot take:
/// index names never hold NUL; still a table's tree for the orphan sweep, RBD2).
pub fn log_tree_of(primary: &str) -> String {
    format!("{primary}\0online")
}

/// The key of a change log entry: epoch, then the primary key.
pub fn log_key(epoch: u64, pk: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(8 + pk.len());
    k.extend_from_slice(&epoch.to_be_bytes());
    k.extend_from_slice(pk);
    k
}

/// The change log entries for the primary keys `keys` written by a transaction entered with
/// `epoch` (OIX2), in key order and without repeats (a key with several upserts appears once).
pub fn log_ops<'k>(epoch: u64, keys: impl Iterator<Item = &'k [u8]>) -> Vec<(Vec<u8>, Op)> {
    let mut out: Vec<(Vec<u8>, Op)> = keys
        .map(|k| (log_key(epoch, k), Op::Put(Vec::new())))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[derive(Default)]
struct State {
    /// Epoch writers entering now take (0 while no build is registered).
    epoch: u64,
    /// Transactions in flight per epoch they entered with.
    inflight: BTreeMap<u64, usize>,
    /// Primary tree → its change log tree.
    logs: Arc<HashMap<String, String>>,
    /// Set once the fill is done, for a build whose writers write the new entries (OIX8).
    maintain: Option<Maintain>,
}

/// The registry of the (at most one) online index build in progress; see the module header.
#[derive(Default)]
pub struct OnlineLogs {
    active: AtomicBool,
    state: Mutex<State>,
    cv: Condvar,
}

/// A transaction's entry into the current build's epoch; leaving happens on drop.
pub struct Entered {
    owner: Arc<OnlineLogs>,
    epoch: u64,
    logs: Arc<HashMap<String, String>>,
}

impl Entered {
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
    /// The change log of primary tree `tree`, if an index is being built on it.
    pub fn log_of(&self, tree: &str) -> Option<&str> {
        self.logs.get(tree).map(String::as_str)
    }

    /// What writing `ops` to primary tree `tree` (handle `primary`) through `txn` adds, if an
    /// index is being built on it: the new indexes' entries if maintenance is on (OIX8, OIX9;
    /// read from the rows' latest values, so call it before writing `ops`), else the log
    /// entries. The caller holds the lock of every key of `ops`.
    pub fn writes_for(
        &self,
        txn: &Txn,
        primary: &TreeHandle,
        tree: &str,
        ops: &[(Vec<u8>, Op)],
    ) -> DbResult<Option<OnlineWrites>> {
        let Some(log) = self.log_of(tree) else {
            return Ok(None);
        };
        let maintain = self.owner.state.lock().maintain.clone();
        let Some(m) = maintain else {
            let keys = ops.iter().map(|(k, _)| k.as_slice());
            return Ok(Some(OnlineWrites::Log(
                log.to_string(),
                log_ops(self.epoch, keys),
            )));
        };
        let mut out = BTreeMap::new();
        // A key's ops are consecutive (several upserts of one key, oldest first).
        let mut keys: Vec<&[u8]> = ops.iter().map(|(k, _)| k.as_slice()).collect();
        keys.dedup();
        let befores = txn.get_latest_many(primary, &keys)?;
        let mut i = 0;
        for (key, before) in keys.into_iter().zip(befores) {
            let mut after = before.clone();
            while i < ops.len() && ops[i].0 == key {
                after = match &ops[i].1 {
                    Op::Put(v) => Some(v.clone()),
                    Op::Delete => None,
                    Op::Upsert { arg, .. } => upsert::apply(after.as_deref(), arg),
                    _ => return Err(DbError::internal("an online build saw a range write")),
                };
                i += 1;
            }
            m(tree, key, before.as_deref(), after.as_deref(), &mut out)?;
        }
        Ok(Some(OnlineWrites::Entries(out)))
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut st = self.owner.state.lock();
        if let Some(n) = st.inflight.get_mut(&self.epoch) {
            *n -= 1;
            if *n == 0 {
                st.inflight.remove(&self.epoch);
            }
        }
        self.owner.cv.notify_all();
    }
}

impl OnlineLogs {
    /// Whether a build is registered (a cheap test before [`OnlineLogs::enter`]).
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::SeqCst)
    }

    /// Enters the current epoch if a build is registered and one of `trees` has a log.
    pub fn enter<'a>(
        self: &Arc<Self>,
        mut trees: impl Iterator<Item = &'a str>,
    ) -> Option<Entered> {
        if !self.is_active() {
            return None;
        }
        let mut st = self.state.lock();
        if !trees.any(|t| st.logs.contains_key(t)) {
            return None;
        }
        let epoch = st.epoch;
        *st.inflight.entry(epoch).or_default() += 1;
        Some(Entered {
            owner: self.clone(),
            epoch,
            logs: st.logs.clone(),
        })
    }

    /// Registers the logs (primary tree → log tree) of a build, at epoch 1. The caller holds
    /// the schema lock exclusively (no writing transaction is open).
    pub fn register(&self, logs: HashMap<String, String>) {
        let mut st = self.state.lock();
        st.epoch = 1;
        st.logs = Arc::new(logs);
        self.active.store(true, Ordering::SeqCst);
    }

    /// Starts the next epoch and waits until every transaction that entered an earlier one has
    /// ended; returns the epoch that was current (OIX3).
    pub fn advance(&self) -> u64 {
        let mut st = self.state.lock();
        let old = st.epoch;
        st.epoch += 1;
        while st.inflight.range(..=old).next().is_some() {
            self.cv.wait(&mut st);
        }
        old
    }

    /// Turns maintenance on (OIX8): writes from now on write the new indexes' entries through
    /// `m` instead of logging. Then starts the next epoch and waits until every transaction
    /// that entered an earlier one ended; returns the epoch that was current (its log is what
    /// is left to apply, OIX10).
    pub fn start_maintaining(&self, m: Maintain) -> u64 {
        self.state.lock().maintain = Some(m);
        self.advance()
    }

    /// Unregisters the build and waits until no transaction is entered (none writes a log or an
    /// index entry any more: the logs and the new indexes may be dropped).
    pub fn unregister(&self) {
        let mut st = self.state.lock();
        self.active.store(false, Ordering::SeqCst);
        st.logs = Arc::default();
        st.maintain = None;
        st.epoch = 0;
        while !st.inflight.is_empty() {
            self.cv.wait(&mut st);
        }
    }
}

/// When trees were made by a rebuild or an index build: the next LSN after the catalog write
/// that published them. A REPEATABLE READ view whose low limit is below it began before they
/// existed and gets 1412 instead of reading them (OIX7). Kept in memory only: no view outlives
/// a restart.
#[derive(Default)]
pub struct TreeBirths {
    births: Mutex<HashMap<String, u64>>,
}

impl TreeBirths {
    pub fn record(&self, trees: impl IntoIterator<Item = String>, lsn: u64) {
        let mut b = self.births.lock();
        for t in trees {
            b.insert(t, lsn);
        }
    }
    /// Whether a view of low limit `limit` began before `tree` was made.
    pub fn younger_than(&self, tree: &str, limit: u64) -> bool {
        self.births.lock().get(tree).is_some_and(|&b| limit < b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn advance_waits_for_the_old_epoch_only() {
        let logs = Arc::new(OnlineLogs::default());
        assert!(logs.enter(["a"].into_iter()).is_none());
        logs.register(HashMap::from([("a".to_string(), log_tree_of("a"))]));
        assert!(logs.enter(["b"].into_iter()).is_none());
        let first = logs.enter(["b", "a"].into_iter()).expect("registered");
        assert_eq!(first.epoch(), 1);
        let (tx, rx) = std::sync::mpsc::channel();
        let l2 = logs.clone();
        let h = std::thread::spawn(move || tx.send(l2.advance()).unwrap());
        std::thread::sleep(Duration::from_millis(50));
        // A transaction entering now takes the new epoch and does not hold the advance back.
        let second = logs.enter(["a"].into_iter()).expect("registered");
        assert_eq!(second.epoch(), 2);
        assert!(
            rx.try_recv().is_err(),
            "advance returned with epoch 1 in flight"
        );
        drop(first);
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
        h.join().unwrap();
        drop(second);
        logs.unregister();
        assert!(logs.enter(["a"].into_iter()).is_none());
    }

    #[test]
    fn births_compare_with_view_limits() {
        let b = TreeBirths::default();
        b.record(["t".to_string()], 100);
        assert!(b.younger_than("t", 99));
        assert!(!b.younger_than("t", 100));
        assert!(!b.younger_than("u", 1));
    }
}
