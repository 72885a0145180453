//! The session's write set ([`WriteSet`]): an overlay of puts, deletes and blind upserts per
//! tree over the committed trees, with an undo log for statement rollback and the storage
//! transaction that holds its row locks and commits it.
//!
//! Invariants: a key is locked (through the transaction) before it enters the overlay; the
//! session's reads see the overlay over the committed data; COMMIT writes the whole overlay in
//! one storage transaction and on error applies nothing.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::time::Duration;

use betula_storage::{Op, Txn, TxnOptions, WaitCancel};

use super::through_log::ThroughLog;
use super::{upsert, Scan, Store, UPSERT_FN};
use crate::error::db_error::{DbError, DbResult};

/// A pending change of one key.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pending {
    /// Known final value (None = deleted).
    Value(Option<Vec<u8>>),
    /// Blind upserts over a base value not read yet, oldest first.
    Upserts(Vec<Vec<u8>>),
}

impl Pending {
    pub(super) fn resolve(&self, base: Option<&[u8]>) -> Option<Vec<u8>> {
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

/// One key's change written through ([`WriteSet::write_through`]).
#[derive(Clone, Debug)]
pub enum Change {
    /// The row or index entry.
    Put(Vec<u8>),
    /// A blind upsert with this argument (`upsert::ArgTemplate::arg`).
    Upsert(Vec<u8>),
}

/// A point in a write set's changes to roll back to ([`WriteSet::mark`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    undo: usize,
    /// The set was empty: rolling back empties it.
    empty: bool,
}

/// A session's uncommitted changes, and the storage transaction that holds their row locks.
#[derive(Default)]
pub struct WriteSet {
    /// The changed trees' names; `overlay[i]` holds the changes of `names[i]`.
    names: Vec<String>,
    slots: HashMap<String, usize>,
    overlay: Vec<BTreeMap<Vec<u8>, Pending>>,
    /// (tree slot, key, the key's previous pending change) per change since `logging` was set,
    /// oldest first.
    undo: Vec<(usize, Vec<u8>, Option<Pending>)>,
    /// Whether changes are logged in `undo`: only after a mark taken on a non-empty set, since
    /// rolling back to a mark taken on an empty one just empties the set (an autocommit
    /// statement, the first statement of a transaction, logs nothing).
    logging: bool,
    /// Holds the row locks of every key in the overlay (and of keys read for a uniqueness check
    /// or an update); the overlay is written through it at commit.
    txn: Option<Txn>,
    /// The last key locked through `txn` (tree name, key): locking it again is a no-op, so a
    /// row locked for its duplicate check is not looked up in the lock table again when it is
    /// written.
    last_locked: Option<(String, Vec<u8>)>,
    /// Changes were written straight through `txn` ([`WriteSet::write_through`]), not kept in
    /// the overlay: committing commits them, rolling back to any mark rolls `txn` back.
    written_through: bool,
    /// The trees written through: this session cannot read them (its reads would miss those
    /// rows) nor change them again before the transaction ends (design.md SES10).
    through_trees: Vec<String>,
    /// Ends `txn`'s row-lock waits early (the session's KILL flag).
    cancel: Option<WaitCancel>,
    /// `txn`'s entry into an online index build's epoch, once it wrote a primary tree that has
    /// a change log (online.rs, design.md OIX2); left after `txn` ends.
    online: Option<super::online::Entered>,
    /// Keep a copy of written-through changes for [`WriteSet::row_diffs`] (the binary log is on).
    pub capture: bool,
    /// Written-through changes kept while `capture` is on.
    through_log: ThroughLog,
}

/// One key's committed value before this transaction and its value after it
/// ([`WriteSet::row_diffs`]).
pub struct RowDiff {
    pub tree: String,
    pub key: Vec<u8>,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

impl WriteSet {
    /// A write set whose row-lock waits end early when `cancel` says so.
    pub fn with_cancel(cancel: WaitCancel) -> WriteSet {
        WriteSet {
            cancel: Some(cancel),
            ..WriteSet::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.written_through && self.overlay.iter().all(|m| m.is_empty())
    }
    /// A point to roll back to: the changes so far.
    pub fn mark(&mut self) -> Mark {
        let empty = self.is_empty();
        self.logging = !empty;
        Mark {
            undo: self.undo.len(),
            empty,
        }
    }
    /// Undoes every change made after `mark` (row locks stay held until the transaction ends).
    pub fn rollback_to(&mut self, mark: Mark) {
        if self.written_through {
            // Written through only by a statement that is the whole transaction (its mark was
            // taken on an empty set): undoing it is rolling the transaction back.
            self.clear();
            return;
        }
        if mark.empty {
            for m in &mut self.overlay {
                m.clear();
            }
            self.undo.clear();
            return;
        }
        while self.undo.len() > mark.undo {
            let Some((slot, key, prev)) = self.undo.pop() else {
                break;
            };
            let m = &mut self.overlay[slot];
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
        self.names.clear();
        self.slots.clear();
        self.overlay.clear();
        self.undo.clear();
        self.logging = false;
        self.last_locked = None;
        self.written_through = false;
        self.through_trees.clear();
        self.through_log.clear();
        if let Some(t) = self.txn.take() {
            let _ = t.rollback();
        }
        self.online = None;
    }

    /// The changes of `tree`, if it has any.
    fn pending(&self, tree: &str) -> Option<&BTreeMap<Vec<u8>, Pending>> {
        self.slots.get(tree).map(|&i| &self.overlay[i])
    }

    /// The slot of `tree`'s changes, made on first use.
    fn slot(&mut self, tree: &str) -> usize {
        if let Some(&i) = self.slots.get(tree) {
            return i;
        }
        let i = self.overlay.len();
        self.names.push(tree.to_string());
        self.slots.insert(tree.to_string(), i);
        self.overlay.push(BTreeMap::new());
        i
    }

    /// Starts the storage transaction that will hold this session's row locks, if none is open.
    pub fn begin(&mut self, store: &Store, lock_timeout: Duration) -> DbResult<()> {
        if self.txn.is_none() {
            let mut txn = store.env().begin(TxnOptions {
                isolation: betula_storage::Isolation::ReadCommitted,
                lock_timeout,
                durability: None,
            })?;
            txn.set_wait_cancel(self.cancel.clone());
            self.txn = Some(txn);
        }
        Ok(())
    }

    /// Locks `key` of `tree` for this session until it commits or rolls back (waits for another
    /// session holding it: 1205 after the lock wait timeout, 1213 on a deadlock). Callers lock a
    /// row before reading it to check uniqueness or to change it.
    pub fn lock(&mut self, store: &Store, tree: &str, key: &[u8]) -> DbResult<()> {
        // `last_locked` is reset whenever `txn` ends, so a match is a lock `txn` holds.
        if matches!(&self.last_locked, Some((n, k)) if n == tree && k == key) {
            return Ok(());
        }
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let h = store.tree(tree)?;
        if let Some(t) = self.txn.as_mut() {
            t.lock_key(&h, key)?;
        }
        match &mut self.last_locked {
            Some((n, k)) => {
                n.clear();
                n.push_str(tree);
                k.clear();
                k.extend_from_slice(key);
            }
            None => self.last_locked = Some((tree.to_string(), key.to_vec())),
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

    /// Waits until every row this session's locks took over from a committing transaction is
    /// durable and visible (design.md TXN5), so that a read of the latest committed state sees it.
    fn await_read_fence(&self) -> DbResult<()> {
        if let Some(t) = &self.txn {
            t.await_read_fence()?;
        }
        Ok(())
    }

    /// Locks every key of `keys` in `tree` ([`WriteSet::lock`] for each) in one call to the lock
    /// table: a statement's whole batch, in key order.
    pub fn lock_batch<'k>(
        &mut self,
        store: &Store,
        tree: &str,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> DbResult<()> {
        self.begin(store, TxnOptions::default().lock_timeout)?;
        let h = store.tree(tree)?;
        if let Some(t) = self.txn.as_mut() {
            t.lock_keys(&h, keys)?;
        }
        Ok(())
    }

    /// Which of `keys` (locked by this session) hold a row in `tree`'s latest committed state
    /// with this session's written-through changes; the overlay must hold nothing for `tree`.
    pub fn contains_locked(
        &self,
        store: &Store,
        tree: &str,
        keys: &[&[u8]],
    ) -> DbResult<Vec<bool>> {
        debug_assert!(self.pending(tree).is_none_or(|m| m.is_empty()));
        let h = store.tree(tree)?;
        match &self.txn {
            Some(t) => Ok(t.contains_latest(&h, keys)?),
            None => Err(DbError::internal("a batch read without a transaction")),
        }
    }

    /// Writes a statement's new rows or entries of `tree`, or its blind upserts (keys locked
    /// through [`WriteSet::lock_batch`], in key order) straight through the transaction instead
    /// of the overlay. Only for a statement that is a whole transaction and reads none of them
    /// (an autocommit INSERT whose set was empty when it began): the session's reads do not see
    /// them, and rolling back to any mark rolls the transaction back.
    pub fn write_through(
        &mut self,
        store: &Store,
        tree: &str,
        changes: Vec<(Vec<u8>, Change)>,
    ) -> DbResult<()> {
        self.write_through_as(store, tree, changes, false)
    }

    /// [`WriteSet::write_through`] of keys proven absent from the committed tree under their
    /// locks: the binary log takes their before images to be absent without reading them
    /// (design.md BLG7).
    pub fn write_through_new(
        &mut self,
        store: &Store,
        tree: &str,
        changes: Vec<(Vec<u8>, Change)>,
    ) -> DbResult<()> {
        self.write_through_as(store, tree, changes, true)
    }

    fn write_through_as(
        &mut self,
        store: &Store,
        tree: &str,
        changes: Vec<(Vec<u8>, Change)>,
        new_keys: bool,
    ) -> DbResult<()> {
        if !self.overlay.iter().all(|m| m.is_empty()) || self.logging {
            return Err(DbError::internal(
                "written through a write set with changes",
            ));
        }
        if self.capture {
            self.through_log.push(tree, new_keys, changes.clone());
        }
        let ops: Vec<(Vec<u8>, Op)> = changes
            .into_iter()
            .map(|(k, c)| match c {
                Change::Put(v) => (k, Op::Put(v)),
                Change::Upsert(arg) => (
                    k,
                    Op::Upsert {
                        func: UPSERT_FN,
                        arg,
                    },
                ),
            })
            .collect();
        let h = store.tree(tree)?;
        let Some(t) = self.txn.as_mut() else {
            return Err(DbError::internal("written through without a transaction"));
        };
        if self.online.is_none() {
            self.online = store.online.enter(std::iter::once(tree));
        }
        let online = match &self.online {
            Some(e) => e.writes_for(t, &h, tree, &ops)?,
            None => None,
        };
        self.written_through = true;
        if !self.through_trees.iter().any(|n| n == tree) {
            self.through_trees.push(tree.to_string());
        }
        t.write_locked_batch(&h, ops)?;
        if let Some(w) = online {
            w.write(store, t)?;
        }
        Ok(())
    }

    /// Deletes every key of `tree` in `[lo, hi)` through the transaction, as one range-delete
    /// message after locking the range (waits for writers holding keys in it): the retention's
    /// expiry (design.md RET5), in a set that holds nothing else. It is not kept for the binary
    /// log; its caller logs the statement it stands for (RET7).
    pub fn range_delete_through(
        &mut self,
        store: &Store,
        tree: &str,
        lo: &[u8],
        hi: &[u8],
    ) -> DbResult<()> {
        if !self.overlay.iter().all(|m| m.is_empty()) || self.logging {
            return Err(DbError::internal(
                "a range delete in a write set with changes",
            ));
        }
        let h = store.tree(tree)?;
        let Some(t) = self.txn.as_mut() else {
            return Err(DbError::internal("a range delete without a transaction"));
        };
        t.lock_range(&h, lo, Some(hi))?;
        self.written_through = true;
        let op = Op::RangeDelete { end: hi.to_vec() };
        t.write_locked_batch(&h, vec![(lo.to_vec(), op)])?;
        Ok(())
    }

    /// Refuses a read or change of a tree written through in this transaction (SES10).
    fn not_through(&self, tree: &str) -> DbResult<()> {
        if self.through_trees.iter().any(|n| n == tree) {
            return Err(DbError::internal(format!(
                "`{tree}` was written on the set-oriented path in this transaction: \
                 it cannot be read or changed again before the transaction ends"
            )));
        }
        Ok(())
    }

    fn set(&mut self, store: &Store, tree: &str, key: Vec<u8>, p: Pending) -> DbResult<()> {
        self.not_through(tree)?;
        self.lock(store, tree, &key)?;
        let slot = self.slot(tree);
        if self.logging {
            let prev = self.overlay[slot].insert(key.clone(), p);
            self.undo.push((slot, key, prev));
        } else {
            self.overlay[slot].insert(key, p);
        }
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
        let prev = self.pending(tree).and_then(|m| m.get(&key)).cloned();
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
        self.not_through(tree)?;
        let base = |store: &Store| -> DbResult<Option<Vec<u8>>> {
            if snap.is_none() {
                self.await_read_fence()?;
            }
            let h = store.tree(tree)?;
            Ok(match snap {
                Some(t) => t.get(&h, key)?,
                None => h.get(key)?,
            })
        };
        match self.pending(tree).and_then(|m| m.get(key)) {
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
        self.not_through(tree)?;
        if snap.is_none() {
            self.await_read_fence()?;
        }
        let handle = store.tree(tree)?;
        let mut pending: Vec<(Vec<u8>, Pending)> = match self.pending(tree) {
            Some(m) => m
                .range((lo.clone(), hi.clone()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None => Vec::new(),
        };
        if reverse {
            pending.reverse();
        }
        Ok(Scan::new(snap, handle, lo, hi, reverse, pending))
    }

    /// Every changed key of the trees `wanted` accepts, with its latest committed value (read
    /// under the row lock this transaction holds on it, so no other writer can have changed it
    /// since) and the value this transaction leaves (design.md BLG4). Keys whose value does not
    /// change are left out.
    pub fn row_diffs(
        &self,
        store: &Store,
        wanted: impl Fn(&str) -> bool,
    ) -> DbResult<Vec<RowDiff>> {
        self.await_read_fence()?;
        let mut out = Vec::new();
        for (name, m) in self.names.iter().zip(&self.overlay) {
            if m.is_empty() || !wanted(name) {
                continue;
            }
            let h = store.tree(name)?;
            for (k, p) in m {
                let before = h.get(k)?;
                let after = p.resolve(before.as_deref());
                if before != after {
                    out.push(RowDiff {
                        tree: name.clone(),
                        key: k.clone(),
                        before,
                        after,
                    });
                }
            }
        }
        self.through_log.diffs(store, wanted, &mut out)?;
        Ok(out)
    }

    /// Commits everything as one storage transaction (atomic across trees: one commit record,
    /// invisible to readers until durable, rolled back by recovery if the commit record is
    /// missing) and clears the set. On error nothing is applied.
    pub fn flush(&mut self, store: &Store, commit_sync: bool) -> DbResult<()> {
        self.flush_with(store, commit_sync, None)
    }

    /// [`WriteSet::flush`], also writing `extra` (tree, key, value) in the same transaction: the
    /// binary log's event group (design.md BLG1).
    pub fn flush_with(
        &mut self,
        store: &Store,
        commit_sync: bool,
        extra: Option<(&str, Vec<u8>, Vec<u8>)>,
    ) -> DbResult<()> {
        if self.is_empty() {
            self.clear();
            return Ok(());
        }
        self.begin(store, TxnOptions::default().lock_timeout)?;
        // Left (dropped) only after `txn` committed or rolled back (declared before it).
        let entered = match self.online.take() {
            Some(e) => Some(e),
            None => store.online.enter(self.names.iter().map(String::as_str)),
        };
        let Some(mut txn) = self.txn.take() else {
            return Err(DbError::internal("write set without a transaction"));
        };
        self.last_locked = None;
        self.written_through = false;
        self.through_trees.clear();
        txn.set_durability((!commit_sync).then_some(betula_storage::Durability::NoSync));
        // The changes leave the set whatever happens (on failure the transaction rolls back).
        let mut trees: Vec<(String, BTreeMap<Vec<u8>, Pending>)> = std::mem::take(&mut self.names)
            .into_iter()
            .zip(std::mem::take(&mut self.overlay))
            .collect();
        self.slots.clear();
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
            let online = match &entered {
                Some(e) => e.writes_for(&txn, &t, &name, &ops)?,
                None => None,
            };
            // Every key was locked through `txn` when it entered the overlay (`set`).
            txn.write_locked_batch(&t, ops)?;
            if let Some(w) = online {
                w.write(store, &mut txn)?;
            }
        }
        if let Some((tree, k, v)) = extra {
            // A key of its own (a sequence number no other transaction has): its lock is free.
            txn.write_batch(&store.tree(tree)?, vec![(k, Op::Put(v))])?;
        }
        txn.commit()?;
        drop(entered);
        self.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use betula_storage::EnvOptions;
    use rand::{Rng, SeedableRng};

    type Model = BTreeMap<(usize, Vec<u8>), Pending>;

    /// What the set holds, as (tree, key) → pending change.
    fn contents(ws: &WriteSet) -> Model {
        let mut out = BTreeMap::new();
        for (name, m) in ws.names.iter().zip(&ws.overlay) {
            let t = if name == "a" { 0 } else { 1 };
            for (k, p) in m {
                out.insert((t, k.clone()), p.clone());
            }
        }
        out
    }

    /// Against snapshots of the whole set taken at every mark: changes, marks (statements and
    /// savepoints, on empty and non-empty sets) and rollbacks to any live mark, which forgets the
    /// later ones as ROLLBACK TO SAVEPOINT does.
    #[test]
    fn rollback_to_a_mark_restores_the_set_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), EnvOptions::default()).unwrap();
        for t in ["a", "b"] {
            store.create_tree(t, None).unwrap();
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let mut ws = WriteSet::default();
            let mut marks: Vec<(Mark, Model)> = Vec::new();
            for _ in 0..60 {
                match rng.gen_range(0..10) {
                    0..=5 => {
                        let tree = ["a", "b"][rng.gen_range(0..2)];
                        let key = vec![rng.gen_range(0..8u8)];
                        if rng.gen_bool(0.2) {
                            ws.delete(&store, tree, key).unwrap();
                        } else {
                            ws.put(&store, tree, key, vec![rng.gen()]).unwrap();
                        }
                    }
                    6 | 7 => {
                        let before = contents(&ws);
                        marks.push((ws.mark(), before));
                    }
                    _ if !marks.is_empty() => {
                        let i = rng.gen_range(0..marks.len());
                        let (mark, want) = marks[i].clone();
                        marks.truncate(i + 1);
                        ws.rollback_to(mark);
                        assert_eq!(contents(&ws), want);
                    }
                    _ => {}
                }
            }
            ws.clear();
        }
    }
}
