//! Transactions across any number of trees: multi-version reads, row and range locks, O(1) commit and
//! rollback.
//!
//! A transaction that writes gets an id: the LSN of its `TxnBegin` record (so ids and MSNs share one ordered
//! space). Each write takes an exclusive row lock, is logged as a message stamped with the id and applied to
//! the tree at once, where it becomes a provisional version of the row (`tree::in_memory::mvcc`). Commit
//! appends one `TxnCommit` record, waits for durability (the transaction's or the environment's mode), and
//! only then makes the transaction non-active, which is what makes its versions visible. Rollback appends one
//! `TxnAbort` record and puts the id in the aborted set, whose versions readers skip. Neither keeps anything
//! per row. Upserts stay blind: they are messages like any write.
//!
//! Reads use a [`ReadView`]: REPEATABLE READ takes one at begin and keeps it (registered, so garbage
//! collection keeps the versions it needs); READ COMMITTED takes a fresh one for each read. `get_for_update`
//! locks the row and reads the latest committed version plus the transaction's own writes.
//!
//! Invariants (docs/design.md, "Transactions and multi-version reads"): TXN2, a transaction's versions stay
//! invisible to others until its commit record is durable; TXN3, rows it wrote stay locked until it ends.

pub mod bulk;
#[cfg(test)]
mod commit_tests;
#[cfg(test)]
mod early_release_tests;
pub mod locks;

use crate::env::{EnvInner, TreeHandle};
use crate::error::{Error, Result};
use crate::tree::in_memory::message::{Op, TxnId};
use crate::tree::in_memory::mvcc::ReadView;
use crate::tree::operations::cursor::{RangeIter, ViewGuard};
use crate::wal::Record;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Isolation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    #[default]
    RepeatableRead,
    ReadCommitted,
}

/// Options of one transaction.
#[derive(Debug, Clone, Copy)]
pub struct TxnOptions {
    pub isolation: Isolation,
    /// How long a row lock request waits before failing with [`Error::LockTimeout`].
    pub lock_timeout: Duration,
    /// Durability of this transaction's commit (None: the environment's mode).
    pub durability: Option<crate::env::Durability>,
}

impl Default for TxnOptions {
    fn default() -> TxnOptions {
        TxnOptions {
            isolation: Isolation::RepeatableRead,
            lock_timeout: Duration::from_secs(50),
            durability: None,
        }
    }
}

/// How a transaction's lock requests wait: its timeout, ended early by its cancel.
fn lock_wait<'a>(opts: &TxnOptions, cancel: &'a Option<locks::WaitCancel>) -> locks::Wait<'a> {
    locks::Wait {
        timeout: opts.lock_timeout,
        cancel: cancel.as_ref(),
    }
}

/// A transaction. Dropping it without commit rolls it back.
pub struct Txn {
    env: Arc<EnvInner>,
    /// 0 until the first write.
    id: TxnId,
    opts: TxnOptions,
    /// REPEATABLE READ: the view taken at begin (registered).
    view: Option<(ReadView, ViewGuard)>,
    locked: Vec<locks::Held>,
    /// Whether a message was written (a transaction may hold locks only).
    wrote: bool,
    /// Trees this transaction holds a whole-tree lock on (`bulk.rs`).
    whole_trees: Vec<u64>,
    /// The largest commit LSN among the fences its locks took over (0: none, or already awaited): the
    /// log must be durable that far before it reads the latest committed state (TXN5).
    read_fence: AtomicU64,
    /// Ends this transaction's lock waits early (`Error::Cancelled`; KILL in the SQL layer).
    cancel: Option<locks::WaitCancel>,
    finished: bool,
}

impl EnvInner {
    pub(crate) fn begin(self: &Arc<Self>, opts: TxnOptions) -> Result<Txn> {
        self.check_writable()?;
        let view = match opts.isolation {
            Isolation::RepeatableRead => {
                let (view, id) = self.mvcc.view(0, || self.wal.next_lsn(), true);
                let guard = ViewGuard::new(self.mvcc.clone(), id.expect("registered"));
                Some((view, guard))
            }
            Isolation::ReadCommitted => None,
        };
        Ok(Txn {
            env: self.clone(),
            id: 0,
            opts,
            view,
            locked: Vec::new(),
            wrote: false,
            whole_trees: Vec::new(),
            read_fence: AtomicU64::new(0),
            cancel: None,
            finished: false,
        })
    }
}

impl Txn {
    /// The transaction's id (0 until it first writes).
    pub fn id(&self) -> TxnId {
        self.id
    }

    pub fn options(&self) -> TxnOptions {
        self.opts
    }

    /// The low limit of a REPEATABLE READ transaction's view (versions at or above it are
    /// invisible to it); None under READ COMMITTED.
    pub fn view_low_limit(&self) -> Option<u64> {
        self.view.as_ref().map(|(v, _)| v.low_limit)
    }

    /// Whether the transaction has written anything.
    pub fn has_writes(&self) -> bool {
        self.wrote
    }

    /// Changes the durability of this transaction's commit (None: the environment's mode).
    pub fn set_durability(&mut self, durability: Option<crate::env::Durability>) {
        self.opts.durability = durability;
    }

    /// Sets what ends this transaction's lock waits early with `Error::Cancelled`; whoever raises it
    /// calls `Env::wake_lock_waiters`.
    pub fn set_wait_cancel(&mut self, cancel: Option<locks::WaitCancel>) {
        self.cancel = cancel;
    }

    /// Takes the exclusive row lock on `key` without writing (until the transaction ends): a caller
    /// that buffers its writes locks each row before reading it for a uniqueness check or an update.
    pub fn lock_key(&mut self, t: &TreeHandle, key: &[u8]) -> Result<()> {
        self.lock(t.tree().id(), key)
    }

    /// The owner id used in the lock table before the transaction has an id of its own.
    fn lock_owner(&mut self) -> Result<TxnId> {
        self.ensure_id()
    }

    fn ensure_id(&mut self) -> Result<TxnId> {
        if self.id == 0 {
            let wal = &self.env.wal;
            self.id = self.env.mvcc.begin(|| wal.append(&Record::TxnBegin))?;
            if let Some((view, _)) = &mut self.view {
                view.own = self.id;
            }
        }
        Ok(self.id)
    }

    fn lock(&mut self, tree: u64, key: &[u8]) -> Result<()> {
        let owner = self.lock_owner()?;
        let mut fence = 0;
        let got = self.env.locks.lock_many(
            owner,
            tree,
            [key],
            lock_wait(&self.opts, &self.cancel),
            &mut self.locked,
            &mut fence,
        );
        self.read_fence.fetch_max(fence, Ordering::Relaxed);
        got
    }

    /// Waits until the log is durable past every fence this transaction's locks took over, and makes
    /// the transactions that left them visible (TXN5): what a read of the latest committed state
    /// under those locks needs first. Free when there is none.
    pub fn await_read_fence(&self) -> Result<()> {
        let fence = self.read_fence.load(Ordering::Relaxed);
        if fence != 0 {
            self.env.wal.sync_to(fence)?;
            self.env.mvcc.settle(fence);
            let _ =
                self.read_fence
                    .compare_exchange(fence, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Takes the exclusive row locks on every key of `keys` (until the transaction ends) under one hold
    /// of the lock table while none has to wait: what [`Txn::lock_key`] does for each, for a statement's
    /// whole batch of rows. Sorted keys keep two batches over the same keys from waiting on each other
    /// in a cycle.
    pub fn lock_keys<'k>(
        &mut self,
        t: &TreeHandle,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> Result<()> {
        let owner = self.lock_owner()?;
        let mut fence = 0;
        let got = self.env.locks.lock_many(
            owner,
            t.tree().id(),
            keys,
            lock_wait(&self.opts, &self.cancel),
            &mut self.locked,
            &mut fence,
        );
        self.read_fence.fetch_max(fence, Ordering::Relaxed);
        got
    }

    /// Locks every key of the tree in [lo, hi) (hi None: to the end), present or not, until the transaction
    /// ends: other transactions can neither write nor lock keys in it (no phantoms for locking reads).
    pub fn lock_range(&mut self, t: &TreeHandle, lo: &[u8], hi: Option<&[u8]>) -> Result<()> {
        let owner = self.lock_owner()?;
        let mut fence = 0;
        let got = self.env.locks.lock_range(
            owner,
            t.tree().id(),
            lo,
            hi,
            lock_wait(&self.opts, &self.cancel),
            &mut fence,
        );
        self.read_fence.fetch_max(fence, Ordering::Relaxed);
        if let Some(held) = got? {
            self.locked.push(held);
        }
        // A range is locked to be read (locking reads, loads): its fences are awaited at once.
        self.await_read_fence()
    }

    /// The latest committed state plus this transaction's own writes.
    fn current_view(&self) -> ReadView {
        self.env.mvcc.view(self.id, || TxnId::MAX, false).0
    }

    fn write(&mut self, t: &TreeHandle, key: &[u8], op: Op) -> Result<()> {
        t.validate(key, &op)?;
        let tree = t.tree().id();
        self.lock(tree, key)?;
        let id = self.ensure_id()?;
        self.wrote = true;
        t.write_messages(id, vec![(key.to_vec(), op)])?;
        Ok(())
    }

    /// Writes many rows of one tree at once (locks each; one pass under the tree's lock): what a
    /// caller that buffered its changes sends at commit.
    pub fn write_batch(&mut self, t: &TreeHandle, ops: Vec<(Vec<u8>, Op)>) -> Result<()> {
        let tree = t.tree().id();
        for (key, op) in &ops {
            t.validate(key, op)?;
            self.lock(tree, key)?;
        }
        let id = self.ensure_id()?;
        self.wrote |= !ops.is_empty();
        t.write_messages(id, ops)?;
        Ok(())
    }

    /// [`Txn::write_batch`] for keys this transaction has already locked, each through
    /// [`Txn::lock_key`] on `t`: the lock table is not consulted again (debug builds check that
    /// every key is held).
    pub fn write_locked_batch(&mut self, t: &TreeHandle, ops: Vec<(Vec<u8>, Op)>) -> Result<()> {
        let tree = t.tree().id();
        for (key, op) in &ops {
            t.validate(key, op)?;
            debug_assert!(
                self.id != 0 && self.env.locks.holds(self.id, tree, key),
                "write_locked_batch: a key this transaction has not locked"
            );
        }
        let id = self.ensure_id()?;
        self.wrote |= !ops.is_empty();
        t.write_messages(id, ops)?;
        Ok(())
    }

    /// Inserts or overwrites a row (locks it).
    pub fn put(&mut self, t: &TreeHandle, key: &[u8], value: &[u8]) -> Result<()> {
        self.write(t, key, Op::Put(value.to_vec()))
    }

    /// Deletes a row (locks it).
    pub fn delete(&mut self, t: &TreeHandle, key: &[u8]) -> Result<()> {
        self.write(t, key, Op::Delete)
    }

    /// Sends a blind upsert (locks the row, never reads it).
    pub fn upsert(&mut self, t: &TreeHandle, key: &[u8], func: u32, arg: &[u8]) -> Result<()> {
        self.write(
            t,
            key,
            Op::Upsert {
                func,
                arg: arg.to_vec(),
            },
        )
    }

    /// Reads a row as the transaction's isolation level says.
    pub fn get(&self, t: &TreeHandle, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match &self.view {
            Some((v, _)) => t.tree().get_with_view(key, v),
            // A view per read: made under the tree lock (TXN4).
            None => {
                self.await_read_fence()?;
                t.tree().get_with_fresh_view(key, || self.current_view())
            }
        }
    }

    /// Which of `keys` have a row in the latest committed state plus this transaction's own writes: one
    /// hold of the tree's read lock for the whole batch. The caller locked the keys first
    /// ([`Txn::lock_keys`]), so the answer stays true until the transaction ends.
    pub fn contains_latest(&self, t: &TreeHandle, keys: &[&[u8]]) -> Result<Vec<bool>> {
        self.await_read_fence()?;
        t.tree()
            .contains_with_fresh_view(keys, || self.current_view())
    }

    /// The latest committed value of a row this transaction has locked, with its own writes: what
    /// the row is until the transaction ends, whatever its isolation level.
    pub fn get_latest(&self, t: &TreeHandle, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.await_read_fence()?;
        t.tree().get_with_fresh_view(key, || self.current_view())
    }

    /// [`Txn::get_latest`] of many locked rows, in groups under one hold of the tree's read lock.
    pub fn get_latest_many(&self, t: &TreeHandle, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.await_read_fence()?;
        t.tree()
            .get_many_with_fresh_view(keys, || self.current_view())
    }

    /// Locks the row, then reads its latest committed value (with this transaction's own writes).
    pub fn get_for_update(&mut self, t: &TreeHandle, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.lock(t.tree().id(), key)?;
        self.get_latest(t, key)
    }

    /// Entries in a range as the transaction sees them, streamed in key order (or reverse).
    pub fn range<'a>(
        &self,
        t: &'a TreeHandle,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
    ) -> RangeIter<'a> {
        match &self.view {
            Some((v, _)) => t
                .tree()
                .range_with_view(lower, upper, reverse, v.clone(), None),
            None => {
                let (view, id) = self.env.mvcc.view(self.id, || TxnId::MAX, true);
                let guard = id.map(|id| ViewGuard::new(self.env.mvcc.clone(), id));
                t.tree().range_with_view(lower, upper, reverse, view, guard)
            }
        }
    }

    /// Commits: one log record, a durability wait (per the environment's mode), then visibility.
    /// Under `Sync` durability the point locks are released when the commit record is appended, as
    /// fences, and the durability wait follows (TXN5): writers of the same rows go on meanwhile.
    pub fn commit(mut self) -> Result<()> {
        if !self.wrote {
            let result = self.end_lock_only();
            return self.finish_commit(result, None);
        }
        let lsn = match self.log_commit() {
            Ok(lsn) => lsn,
            Err(e) => return self.finish_commit(Err(e), None),
        };
        let durability = self.opts.durability.unwrap_or(self.env.opts.durability);
        let waits = durability == crate::env::Durability::Sync;
        if waits {
            self.env.locks.fence_points(self.id, &self.locked, lsn);
        }
        let result = self.env.commit_with(lsn, self.opts.durability);
        self.finish_commit(result, Some((lsn, waits)))
    }

    /// After the commit record (`commit`: its LSN, and whether its durability was waited for) and the
    /// durability wait: visibility (if they succeeded), then the locks and fences.
    fn finish_commit(mut self, result: Result<()>, commit: Option<(TxnId, bool)>) -> Result<()> {
        if result.is_ok() {
            if commit.is_some() {
                self.env.txn_commits.fetch_add(1, Ordering::Relaxed);
            }
            match commit {
                // Durable through `lsn`: this and every earlier committer become visible at once.
                Some((lsn, true)) => self.env.mvcc.settle(lsn),
                _ => self.end(),
            }
        }
        // On failure the environment is latched; the transaction stays active (invisible) until reopen.
        self.finished = true;
        self.release(commit.filter(|c| c.1).map_or(0, |c| c.0));
        result
    }

    /// Rolls back: erases every version the transaction wrote.
    pub fn rollback(mut self) -> Result<()> {
        let result = self.abort();
        self.finished = true;
        self.release(0);
        result
    }

    fn abort(&mut self) -> Result<()> {
        if self.id == 0 {
            return Ok(());
        }
        if !self.wrote {
            let result = self.end_lock_only();
            self.env.mvcc.deactivate(self.id);
            return result;
        }
        self.env.txn_rollbacks.fetch_add(1, Ordering::Relaxed);
        // O(1): the id joins the aborted set; readers skip its versions, garbage collection drops them.
        // (If this record is lost in a crash, recovery rolls the transaction back all the same.)
        let result = self.env.wal.append(&Record::TxnAbort { txn: self.id });
        self.env.mvcc.abort(self.id);
        result.map(|_| ())
    }

    /// Ends a transaction that took locks (and so an id) but wrote nothing: a commit record with no
    /// versions behind it, not waited for (if a crash loses it, recovery rolls back nothing), and
    /// the id stays out of the aborted set.
    fn end_lock_only(&mut self) -> Result<()> {
        if self.id == 0 {
            return Ok(());
        }
        self.log_commit().map(|_| ())
    }

    /// Appends the commit record (TXN1: under the transactions' mutex, so a checkpoint that begins after
    /// it does not name this transaction open); returns its LSN.
    fn log_commit(&self) -> Result<crate::tree::in_memory::message::Msn> {
        let wal = &self.env.wal;
        let txn = self.id;
        self.env
            .mvcc
            .log_commit(txn, || wal.append(&Record::TxnCommit { txn }))
    }

    /// The transaction stops being active.
    fn end(&mut self) {
        if self.id != 0 {
            self.env.mvcc.deactivate(self.id);
        }
    }

    /// Releases the locks, and the fences left at `commit_lsn` (0: none).
    fn release(&mut self, commit_lsn: TxnId) {
        self.view = None;
        let owner = self.id;
        self.env.locks.release_all(owner, &self.locked, commit_lsn);
        self.locked.clear();
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            let _ = self.abort();
            self.release(0);
        }
    }
}

/// Whether an error is a lock wait timeout or a deadlock (the SQL layer maps them to 1205 and 1213).
pub fn is_lock_error(e: &Error) -> bool {
    matches!(e, Error::LockTimeout | Error::Deadlock)
}
