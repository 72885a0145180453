//! Row and key-range locks, held until commit or rollback, with a wait timeout and deadlock detection.
//!
//! All locks are exclusive. A point lock covers one (tree, key); a range lock covers every key of a tree in
//! [lo, hi) (hi None = no upper bound), including keys not present yet (so a locking range read can keep
//! rows from appearing in the range). A request conflicts with another transaction's point lock on a key it
//! covers, or with another transaction's range lock that overlaps it.
//!
//! Early lock release (design.md TXN5): a committing transaction whose commit record is appended turns its
//! point locks into *fences* carrying that record's LSN ([`LockTable::fence_points`]) before it waits for
//! durability. A fence conflicts with nothing: whoever locks its key takes it over and learns the LSN
//! (`read_fence`), up to which the log must be durable before that transaction reads the key's latest
//! committed version. The committer removes its fences once durable, unless they were taken over.
//!
//! Invariants: a transaction waits for at most one lock at a time, and records the transaction it waits
//! for; before waiting, the chain waiter → holder → (what the holder waits for) → ... is followed, and if it
//! leads back to the requester the request fails with `Deadlock` instead of waiting (the requester is the
//! victim). A lock wait ends with the lock, a `LockTimeout`, a `Deadlock`, or `Cancelled` when the
//! waiter's [`WaitCancel`] says so (checked before each wait and after each wake-up; whoever raises a
//! cancel calls [`LockTable::wake_waiters`], so the waiter sees it at once) — never by itself otherwise.

use crate::error::{Error, Result};
use crate::tree::in_memory::message::TxnId;
use parking_lot::{Condvar, Mutex, MutexGuard};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a transaction holds, for release. A point lock's key is shared with the lock table's entry
/// (one allocation per lock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    Point(u64, Arc<[u8]>),
    Range(u64),
}

impl Held {
    fn tree(&self) -> u64 {
        match self {
            Held::Point(tree, _) | Held::Range(tree) => *tree,
        }
    }
}

/// How long a lock request may wait, and what may end the wait early (KILL in the SQL layer).
#[derive(Clone, Copy)]
pub struct Wait<'a> {
    pub timeout: Duration,
    pub cancel: Option<&'a WaitCancel>,
}

impl Wait<'_> {
    /// A wait ended only by its timeout.
    pub fn timeout(timeout: Duration) -> Wait<'static> {
        Wait {
            timeout,
            cancel: None,
        }
    }
}

/// A caller's test of whether its lock waits should stop (`Error::Cancelled`). It must turn true only
/// together with a call of [`LockTable::wake_waiters`], which is what makes the waiter look.
#[derive(Clone)]
pub struct WaitCancel(Arc<dyn Fn() -> bool + Send + Sync>);

impl WaitCancel {
    pub fn new(cancelled: impl Fn() -> bool + Send + Sync + 'static) -> WaitCancel {
        WaitCancel(Arc::new(cancelled))
    }

    fn cancelled(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for WaitCancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitCancel")
    }
}

struct RangeLock {
    lo: Vec<u8>,
    hi: Option<Vec<u8>>,
    owner: TxnId,
}

/// A point entry of the lock table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    /// Locked by a transaction.
    Held(TxnId),
    /// Released by a transaction whose commit record has this LSN, maybe not durable yet.
    Fenced(TxnId),
}

/// The locks of one tree.
#[derive(Default)]
struct TreeLocks {
    points: BTreeMap<Arc<[u8]>, Point>,
    ranges: Vec<RangeLock>,
}

impl TreeLocks {
    fn is_empty(&self) -> bool {
        self.points.is_empty() && self.ranges.is_empty()
    }
}

#[derive(Default)]
struct Table {
    trees: FxHashMap<u64, TreeLocks>,
    /// waiter → the transaction holding what it waits for.
    waiting: FxHashMap<TxnId, TxnId>,
}

fn overlaps(lo: &[u8], hi: Option<&[u8]>, r: &RangeLock) -> bool {
    let a = hi.is_none_or(|h| r.lo.as_slice() < h);
    let b = r.hi.as_deref().is_none_or(|rh| lo < rh);
    a && b
}

impl TreeLocks {
    /// The other transaction whose lock conflicts with `txn` locking [lo, hi) (hi None with `point` set:
    /// the single key `lo`).
    fn conflict(&self, txn: TxnId, lo: &[u8], hi: Option<&[u8]>, point: bool) -> Option<TxnId> {
        let other = |p: &Point| match *p {
            Point::Held(o) if o != txn => Some(o),
            _ => None,
        };
        if point {
            if let Some(o) = self.points.get(lo).and_then(other) {
                return Some(o);
            }
        } else {
            let upper = hi.map_or(Bound::Unbounded, Bound::Excluded);
            if let Some(o) = self
                .points
                .range::<[u8], _>((Bound::Included(lo), upper))
                .find_map(|(_, p)| other(p))
            {
                return Some(o);
            }
        }
        let hi_for_range = if point { None } else { hi };
        self.ranges
            .iter()
            .find(|r| {
                r.owner != txn
                    && if point {
                        r.lo.as_slice() <= lo && r.hi.as_deref().is_none_or(|h| lo < h)
                    } else {
                        overlaps(lo, hi_for_range, r)
                    }
            })
            .map(|r| r.owner)
    }

    /// The largest fence among the point entries in [lo, hi) (0: none).
    fn fence_in(&self, lo: &[u8], hi: Option<&[u8]>) -> TxnId {
        let upper = hi.map_or(Bound::Unbounded, Bound::Excluded);
        self.points
            .range::<[u8], _>((Bound::Included(lo), upper))
            .filter_map(|(_, p)| match *p {
                Point::Fenced(lsn) => Some(lsn),
                Point::Held(_) => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Takes the point lock on `key` for `txn` if no other transaction's lock covers it: Ok(Some) with
    /// the new lock, Ok(None) if `txn` already held it, Err(holder) on a conflict. Taking over a fence
    /// raises `fence` to its LSN.
    fn try_point(
        &mut self,
        txn: TxnId,
        key: &[u8],
        fence: &mut TxnId,
    ) -> std::result::Result<Option<Held>, TxnId> {
        if let Some(r) = self.ranges.iter().find(|r| {
            r.owner != txn && r.lo.as_slice() <= key && r.hi.as_deref().is_none_or(|h| key < h)
        }) {
            return Err(r.owner);
        }
        if let Some((k, p)) = self.points.get_key_value(key) {
            return match *p {
                Point::Held(o) if o == txn => Ok(None),
                Point::Held(o) => Err(o),
                Point::Fenced(lsn) => {
                    *fence = (*fence).max(lsn);
                    let k = k.clone();
                    self.points.insert(k.clone(), Point::Held(txn));
                    Ok(Some(Held::Point(0, k)))
                }
            };
        }
        let k: Arc<[u8]> = Arc::from(key);
        self.points.insert(k.clone(), Point::Held(txn));
        Ok(Some(Held::Point(0, k)))
    }
}

impl Table {
    fn leads_to(&self, from: TxnId, target: TxnId) -> bool {
        let mut cur = from;
        for _ in 0..=self.waiting.len() {
            if cur == target {
                return true;
            }
            match self.waiting.get(&cur) {
                Some(&next) => cur = next,
                None => return false,
            }
        }
        false
    }
}

/// The lock table of an environment.
#[derive(Default)]
pub struct LockTable {
    table: Mutex<Table>,
    released: Condvar,
}

impl LockTable {
    /// Takes the point lock on (tree, key) for `txn`, waiting up to `timeout`. Returns the lock to remember
    /// for release, or None if `txn` already held it.
    pub fn lock(&self, txn: TxnId, tree: u64, key: &[u8], wait: Wait<'_>) -> Result<Option<Held>> {
        let (mut held, mut fence) = (Vec::new(), 0);
        self.lock_many(txn, tree, [key], wait, &mut held, &mut fence)?;
        Ok(held.pop())
    }

    /// Takes the point locks on every key of `keys` in `tree` for `txn`, in order, under one hold of the
    /// table's mutex while none has to wait; appends the locks taken to `held` (also those taken before
    /// a failure, so the caller releases them). A conflict waits as [`LockTable::lock`] does (up to
    /// the wait's timeout, deadlock detection, cancel), then goes on with the next key. Raises `fence`
    /// to the largest fence taken over.
    pub fn lock_many<'k>(
        &self,
        txn: TxnId,
        tree: u64,
        keys: impl IntoIterator<Item = &'k [u8]>,
        wait: Wait<'_>,
        held: &mut Vec<Held>,
        fence: &mut TxnId,
    ) -> Result<()> {
        let mut deadline = None;
        let mut t = self.table.lock();
        for key in keys {
            loop {
                match t.trees.entry(tree).or_default().try_point(txn, key, fence) {
                    Ok(got) => {
                        if let Some(Held::Point(_, k)) = got {
                            held.push(Held::Point(tree, k));
                        }
                        break;
                    }
                    Err(holder) => {
                        let deadline =
                            *deadline.get_or_insert_with(|| Instant::now() + wait.timeout);
                        self.wait(&mut t, txn, holder, deadline, wait.cancel, |t| {
                            t.trees
                                .get(&tree)
                                .and_then(|l| l.conflict(txn, key, None, true))
                        })?;
                    }
                }
            }
        }
        t.waiting.remove(&txn);
        Ok(())
    }

    /// Takes a range lock on [lo, hi) of `tree` (hi None: to the end) for `txn`; raises `fence` to the
    /// largest fence inside it.
    pub fn lock_range(
        &self,
        txn: TxnId,
        tree: u64,
        lo: &[u8],
        hi: Option<&[u8]>,
        wait: Wait<'_>,
        fence: &mut TxnId,
    ) -> Result<Option<Held>> {
        let deadline = Instant::now() + wait.timeout;
        let mut t = self.table.lock();
        loop {
            let locks = t.trees.entry(tree).or_default();
            match locks.conflict(txn, lo, hi, false) {
                None => {
                    *fence = (*fence).max(locks.fence_in(lo, hi));
                    locks.ranges.push(RangeLock {
                        lo: lo.to_vec(),
                        hi: hi.map(|h| h.to_vec()),
                        owner: txn,
                    });
                    t.waiting.remove(&txn);
                    return Ok(Some(Held::Range(tree)));
                }
                Some(holder) => self.wait(&mut t, txn, holder, deadline, wait.cancel, |t| {
                    t.trees
                        .get(&tree)
                        .and_then(|l| l.conflict(txn, lo, hi, false))
                })?,
            }
        }
    }

    /// Waits once for a release while `holder` holds what `txn` asks for: fails with `Deadlock` if
    /// `holder` waits (through any chain) for `txn`, with `Cancelled` if `cancel` says so, with
    /// `LockTimeout` if the deadline passes while `conflict` still finds a holder.
    fn wait(
        &self,
        t: &mut MutexGuard<'_, Table>,
        txn: TxnId,
        holder: TxnId,
        deadline: Instant,
        cancel: Option<&WaitCancel>,
        conflict: impl Fn(&Table) -> Option<TxnId>,
    ) -> Result<()> {
        if t.leads_to(holder, txn) {
            t.waiting.remove(&txn);
            return Err(Error::Deadlock);
        }
        if cancel.is_some_and(WaitCancel::cancelled) {
            t.waiting.remove(&txn);
            return Err(Error::Cancelled);
        }
        t.waiting.insert(txn, holder);
        if self.released.wait_until(t, deadline).timed_out() && conflict(t).is_some() {
            t.waiting.remove(&txn);
            return Err(Error::LockTimeout);
        }
        Ok(())
    }

    /// Whether `txn` holds a point lock on `key` of `tree` or a range lock covering it.
    pub fn holds(&self, txn: TxnId, tree: u64, key: &[u8]) -> bool {
        let t = self.table.lock();
        let Some(locks) = t.trees.get(&tree) else {
            return false;
        };
        locks.points.get(key) == Some(&Point::Held(txn))
            || locks.ranges.iter().any(|r| {
                r.owner == txn && r.lo.as_slice() <= key && r.hi.as_deref().is_none_or(|h| key < h)
            })
    }

    /// Turns every point lock of `held` (`txn`'s) into a fence with `commit_lsn`, the LSN of `txn`'s
    /// appended commit record, and wakes the waiters: they take the keys over (TXN5).
    pub fn fence_points(&self, txn: TxnId, held: &[Held], commit_lsn: TxnId) {
        let mut t = self.table.lock();
        for run in held.chunk_by(|a, b| a.tree() == b.tree()) {
            let Some(locks) = t.trees.get_mut(&run[0].tree()) else {
                continue;
            };
            for h in run {
                if let Held::Point(_, key) = h {
                    if let Some(p) = locks.points.get_mut(key.as_ref()) {
                        debug_assert_eq!(*p, Point::Held(txn));
                        *p = Point::Fenced(commit_lsn);
                    }
                }
            }
        }
        drop(t);
        self.released.notify_all();
    }

    /// Releases every lock `txn` holds: its point locks, and the fences it left with `commit_lsn`
    /// (0: none) that nobody took over.
    pub fn release_all(&self, txn: TxnId, held: &[Held], commit_lsn: TxnId) {
        if held.is_empty() {
            return;
        }
        let mut t = self.table.lock();
        for run in held.chunk_by(|a, b| a.tree() == b.tree()) {
            let tree = run[0].tree();
            let Some(locks) = t.trees.get_mut(&tree) else {
                continue;
            };
            for h in run {
                match h {
                    Held::Point(_, key) => {
                        let ours = |p: &Point| {
                            *p == Point::Held(txn)
                                || (commit_lsn != 0 && *p == Point::Fenced(commit_lsn))
                        };
                        if locks.points.get(key.as_ref()).is_some_and(ours) {
                            locks.points.remove(key.as_ref());
                        }
                    }
                    Held::Range(_) => locks.ranges.retain(|r| r.owner != txn),
                }
            }
            if locks.is_empty() {
                t.trees.remove(&tree);
            }
        }
        t.waiting.remove(&txn);
        drop(t);
        self.released.notify_all();
    }

    /// Wakes every lock wait so it checks its [`WaitCancel`] (called after a cancel was raised; the
    /// table's mutex orders the wake-up after the waiter's check, so none is missed).
    pub fn wake_waiters(&self) {
        let _t = self.table.lock();
        self.released.notify_all();
    }

    /// Number of transactions waiting for a lock (status output).
    pub fn waiting(&self) -> usize {
        self.table.lock().waiting.len()
    }

    /// Number of locks held (status output).
    pub fn held(&self) -> usize {
        let t = self.table.lock();
        t.trees
            .values()
            .map(|l| l.points.len() + l.ranges.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const SHORT: Wait<'static> = Wait {
        timeout: Duration::from_millis(20),
        cancel: None,
    };

    #[test]
    fn timeout_deadlock_and_handover() {
        let locks = Arc::new(LockTable::default());
        let a = locks
            .lock(1, 0, b"a", Wait::timeout(Duration::from_secs(1)))
            .unwrap()
            .unwrap();
        assert!(locks
            .lock(1, 0, b"a", Wait::timeout(Duration::from_secs(1)))
            .unwrap()
            .is_none());
        assert!(matches!(
            locks.lock(2, 0, b"a", SHORT),
            Err(Error::LockTimeout)
        ));
        assert!(locks
            .lock(2, 0, b"b", Wait::timeout(Duration::from_secs(1)))
            .unwrap()
            .is_some());
        // 2 waits for a (held by 1) in a thread; then 1 asks for b (held by 2): deadlock.
        let l2 = locks.clone();
        let waiter =
            std::thread::spawn(move || l2.lock(2, 0, b"a", Wait::timeout(Duration::from_secs(5))));
        while locks.waiting() == 0 {
            std::thread::yield_now();
        }
        assert!(matches!(
            locks.lock(1, 0, b"b", Wait::timeout(Duration::from_secs(5))),
            Err(Error::Deadlock)
        ));
        locks.release_all(1, &[a], 0);
        assert!(waiter.join().unwrap().unwrap().is_some());
        assert_eq!(locks.held(), 2);
    }

    #[test]
    fn range_locks_block_points_inside_and_overlapping_ranges() {
        let locks = LockTable::default();
        let r = locks
            .lock_range(1, 7, b"b", Some(b"f"), SHORT, &mut 0)
            .unwrap()
            .unwrap();
        assert!(matches!(
            locks.lock(2, 7, b"c", SHORT),
            Err(Error::LockTimeout)
        ));
        assert!(matches!(
            locks.lock(2, 7, b"b", SHORT),
            Err(Error::LockTimeout)
        ));
        assert!(
            locks.lock(2, 7, b"f", SHORT).unwrap().is_some(),
            "end is exclusive"
        );
        assert!(
            locks.lock(2, 8, b"c", SHORT).unwrap().is_some(),
            "other tree"
        );
        assert!(matches!(
            locks.lock_range(3, 7, b"e", None, SHORT, &mut 0),
            Err(Error::LockTimeout)
        ));
        assert!(matches!(
            locks.lock_range(3, 7, b"a", Some(b"g"), SHORT, &mut 0),
            Err(Error::LockTimeout),
        ));
        assert!(
            locks.lock(1, 7, b"d", SHORT).unwrap().is_some(),
            "own range"
        );
        // A range over another's point lock waits.
        assert!(matches!(
            locks.lock_range(1, 7, b"f", Some(b"z"), SHORT, &mut 0),
            Err(Error::LockTimeout)
        ));
        locks.release_all(1, &[r, Held::Point(7, Arc::from(&b"d"[..]))], 0);
        assert!(locks.lock(2, 7, b"c", SHORT).unwrap().is_some());
    }

    #[test]
    fn lock_many_waits_for_a_held_key_and_reports_what_it_took() {
        let locks = Arc::new(LockTable::default());
        let b = locks.lock(1, 3, b"b", SHORT).unwrap().unwrap();
        // A batch over a, b, c: a is taken, b times out; what was taken is reported for release.
        let mut held = Vec::new();
        let keys: [&[u8]; 3] = [b"a", b"b", b"c"];
        assert!(matches!(
            locks.lock_many(2, 3, keys, SHORT, &mut held, &mut 0),
            Err(Error::LockTimeout)
        ));
        assert_eq!(held, vec![Held::Point(3, Arc::from(&b"a"[..]))]);
        // Again, while 1 releases b meanwhile: the batch waits, then takes b and c (a is its own already).
        let l2 = locks.clone();
        let batch = std::thread::spawn(move || {
            let mut held = Vec::new();
            l2.lock_many(
                2,
                3,
                keys,
                Wait::timeout(Duration::from_secs(5)),
                &mut held,
                &mut 0,
            )
            .map(|()| held)
        });
        while locks.waiting() == 0 {
            std::thread::yield_now();
        }
        locks.release_all(1, &[b], 0);
        let more = batch.join().unwrap().unwrap();
        assert_eq!(
            more,
            vec![
                Held::Point(3, Arc::from(&b"b"[..])),
                Held::Point(3, Arc::from(&b"c"[..]))
            ]
        );
        assert!(locks.holds(2, 3, b"a") && locks.holds(2, 3, b"b") && locks.holds(2, 3, b"c"));
        held.extend(more);
        locks.release_all(2, &held, 0);
        assert_eq!(locks.held(), 0);
    }

    #[test]
    fn a_fenced_key_is_taken_over_with_its_fence_and_released_by_whoever_holds_it() {
        let locks = Arc::new(LockTable::default());
        let mut held = Vec::new();
        let keys: [&[u8]; 2] = [b"a", b"b"];
        locks
            .lock_many(1, 3, keys, SHORT, &mut held, &mut 0)
            .unwrap();
        // 2 waits for a; 1 appends its commit record (LSN 40) and fences: 2 gets a, and learns 40.
        let l2 = locks.clone();
        let taker = std::thread::spawn(move || {
            let (mut held, mut fence) = (Vec::new(), 0);
            l2.lock_many(
                2,
                3,
                [&b"a"[..]],
                Wait::timeout(Duration::from_secs(5)),
                &mut held,
                &mut fence,
            )
            .map(|()| (held, fence))
        });
        while locks.waiting() == 0 {
            std::thread::yield_now();
        }
        locks.fence_points(1, &held, 40);
        let (taken, fence) = taker.join().unwrap().unwrap();
        assert_eq!(fence, 40);
        assert!(locks.holds(2, 3, b"a") && !locks.holds(1, 3, b"b"));
        // A range over b meets the fence too, and no conflict.
        let mut range_fence = 0;
        let r = locks
            .lock_range(3, 3, b"b", Some(b"c"), SHORT, &mut range_fence)
            .unwrap()
            .unwrap();
        assert_eq!(range_fence, 40);
        // 1 releases once durable: its fence on b goes, 2's lock on a stays.
        locks.release_all(1, &held, 40);
        assert!(locks.holds(2, 3, b"a"));
        assert_eq!(locks.held(), 2, "2's point and 3's range");
        locks.release_all(2, &taken, 0);
        locks.release_all(3, &[r], 0);
        assert_eq!(locks.held(), 0);
    }

    #[test]
    fn a_cancelled_wait_ends_at_once_with_cancelled() {
        let locks = Arc::new(LockTable::default());
        assert!(locks.lock(1, 4, b"k", SHORT).unwrap().is_some());
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (l2, f2) = (locks.clone(), flag.clone());
        let waiter = std::thread::spawn(move || {
            let cancel = WaitCancel::new(move || f2.load(std::sync::atomic::Ordering::SeqCst));
            let wait = Wait {
                timeout: Duration::from_secs(120),
                cancel: Some(&cancel),
            };
            l2.lock(2, 4, b"k", wait)
        });
        while locks.waiting() == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        locks.wake_waiters();
        // Without the wake-up the waiter would sleep out its 120 s and report LockTimeout.
        assert!(matches!(waiter.join().unwrap(), Err(Error::Cancelled)));
        assert_eq!(locks.waiting(), 0);
        // The holder still holds its lock; a cancelled request took nothing.
        assert!(locks.holds(1, 4, b"k"));
        assert!(!locks.holds(2, 4, b"k"));
    }
}
