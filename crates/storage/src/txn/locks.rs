//! Row and key-range locks, held until commit or rollback, with a wait timeout and deadlock detection.
//!
//! All locks are exclusive. A point lock covers one (tree, key); a range lock covers every key of a tree in
//! [lo, hi) (hi None = no upper bound), including keys not present yet (so a locking range read can keep
//! rows from appearing in the range). A request conflicts with another transaction's point lock on a key it
//! covers, or with another transaction's range lock that overlaps it.
//!
//! Invariants: a transaction waits for at most one lock at a time, and records the transaction it waits
//! for; before waiting, the chain waiter → holder → (what the holder waits for) → ... is followed, and if it
//! leads back to the requester the request fails with `Deadlock` instead of waiting (the requester is the
//! victim). A lock wait ends with the lock, a `LockTimeout`, or a `Deadlock` — never by itself otherwise.

use crate::error::{Error, Result};
use crate::tree::in_memory::message::TxnId;
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::time::{Duration, Instant};

/// What a transaction holds, for release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    Point(u64, Vec<u8>),
    Range(u64),
}

struct RangeLock {
    lo: Vec<u8>,
    hi: Option<Vec<u8>>,
    owner: TxnId,
}

#[derive(Default)]
struct Table {
    points: HashMap<u64, BTreeMap<Vec<u8>, TxnId>>,
    ranges: HashMap<u64, Vec<RangeLock>>,
    /// waiter → the transaction holding what it waits for.
    waiting: HashMap<TxnId, TxnId>,
}

fn overlaps(lo: &[u8], hi: Option<&[u8]>, r: &RangeLock) -> bool {
    let a = hi.is_none_or(|h| r.lo.as_slice() < h);
    let b = r.hi.as_deref().is_none_or(|rh| lo < rh);
    a && b
}

impl Table {
    /// The other transaction whose lock conflicts with `txn` locking [lo, hi) (hi None with `point` set:
    /// the single key `lo`).
    fn conflict(
        &self,
        txn: TxnId,
        tree: u64,
        lo: &[u8],
        hi: Option<&[u8]>,
        point: bool,
    ) -> Option<TxnId> {
        if let Some(points) = self.points.get(&tree) {
            if point {
                if let Some(&o) = points.get(lo) {
                    if o != txn {
                        return Some(o);
                    }
                }
            } else {
                let upper = hi.map_or(Bound::Unbounded, Bound::Excluded);
                if let Some((_, &o)) = points
                    .range::<[u8], _>((Bound::Included(lo), upper))
                    .find(|(_, o)| **o != txn)
                {
                    return Some(o);
                }
            }
        }
        let hi_for_range = if point { None } else { hi };
        self.ranges.get(&tree).and_then(|rs| {
            rs.iter()
                .find(|r| {
                    r.owner != txn
                        && if point {
                            r.lo.as_slice() <= lo && r.hi.as_deref().is_none_or(|h| lo < h)
                        } else {
                            overlaps(lo, hi_for_range, r)
                        }
                })
                .map(|r| r.owner)
        })
    }

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
    pub fn lock(
        &self,
        txn: TxnId,
        tree: u64,
        key: &[u8],
        timeout: Duration,
    ) -> Result<Option<Held>> {
        self.acquire(txn, tree, key, None, true, timeout)
    }

    /// Takes a range lock on [lo, hi) of `tree` (hi None: to the end) for `txn`.
    pub fn lock_range(
        &self,
        txn: TxnId,
        tree: u64,
        lo: &[u8],
        hi: Option<&[u8]>,
        timeout: Duration,
    ) -> Result<Option<Held>> {
        self.acquire(txn, tree, lo, hi, false, timeout)
    }

    fn acquire(
        &self,
        txn: TxnId,
        tree: u64,
        lo: &[u8],
        hi: Option<&[u8]>,
        point: bool,
        timeout: Duration,
    ) -> Result<Option<Held>> {
        let deadline = Instant::now() + timeout;
        let mut t = self.table.lock();
        loop {
            match t.conflict(txn, tree, lo, hi, point) {
                None => {
                    t.waiting.remove(&txn);
                    if point {
                        let points = t.points.entry(tree).or_default();
                        if points.get(lo) == Some(&txn) {
                            return Ok(None);
                        }
                        points.insert(lo.to_vec(), txn);
                        return Ok(Some(Held::Point(tree, lo.to_vec())));
                    }
                    t.ranges.entry(tree).or_default().push(RangeLock {
                        lo: lo.to_vec(),
                        hi: hi.map(|h| h.to_vec()),
                        owner: txn,
                    });
                    return Ok(Some(Held::Range(tree)));
                }
                Some(holder) => {
                    if t.leads_to(holder, txn) {
                        t.waiting.remove(&txn);
                        return Err(Error::Deadlock);
                    }
                    t.waiting.insert(txn, holder);
                    if self.released.wait_until(&mut t, deadline).timed_out()
                        && t.conflict(txn, tree, lo, hi, point).is_some()
                    {
                        t.waiting.remove(&txn);
                        return Err(Error::LockTimeout);
                    }
                }
            }
        }
    }

    /// Whether `txn` holds a point lock on `key` of `tree` or a range lock covering it.
    pub fn holds(&self, txn: TxnId, tree: u64, key: &[u8]) -> bool {
        let t = self.table.lock();
        let point = t
            .points
            .get(&tree)
            .is_some_and(|p| p.get(key) == Some(&txn));
        point
            || t.ranges.get(&tree).is_some_and(|rs| {
                rs.iter().any(|r| {
                    r.owner == txn
                        && r.lo.as_slice() <= key
                        && r.hi.as_deref().is_none_or(|h| key < h)
                })
            })
    }

    /// Releases every lock `txn` holds.
    pub fn release_all(&self, txn: TxnId, held: &[Held]) {
        let mut t = self.table.lock();
        for h in held {
            match h {
                Held::Point(tree, key) => {
                    if let Some(points) = t.points.get_mut(tree) {
                        if points.get(key) == Some(&txn) {
                            points.remove(key);
                        }
                        if points.is_empty() {
                            t.points.remove(tree);
                        }
                    }
                }
                Held::Range(tree) => {
                    if let Some(rs) = t.ranges.get_mut(tree) {
                        rs.retain(|r| r.owner != txn);
                        if rs.is_empty() {
                            t.ranges.remove(tree);
                        }
                    }
                }
            }
        }
        t.waiting.remove(&txn);
        drop(t);
        self.released.notify_all();
    }

    /// Number of transactions waiting for a lock (status output).
    pub fn waiting(&self) -> usize {
        self.table.lock().waiting.len()
    }

    /// Number of locks held (status output).
    pub fn held(&self) -> usize {
        let t = self.table.lock();
        t.points.values().map(|p| p.len()).sum::<usize>()
            + t.ranges.values().map(|r| r.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const SHORT: Duration = Duration::from_millis(20);

    #[test]
    fn timeout_deadlock_and_handover() {
        let locks = Arc::new(LockTable::default());
        let a = locks
            .lock(1, 0, b"a", Duration::from_secs(1))
            .unwrap()
            .unwrap();
        assert!(locks
            .lock(1, 0, b"a", Duration::from_secs(1))
            .unwrap()
            .is_none());
        assert!(matches!(
            locks.lock(2, 0, b"a", SHORT),
            Err(Error::LockTimeout)
        ));
        assert!(locks
            .lock(2, 0, b"b", Duration::from_secs(1))
            .unwrap()
            .is_some());
        // 2 waits for a (held by 1) in a thread; then 1 asks for b (held by 2): deadlock.
        let l2 = locks.clone();
        let waiter = std::thread::spawn(move || l2.lock(2, 0, b"a", Duration::from_secs(5)));
        while locks.waiting() == 0 {
            std::thread::yield_now();
        }
        assert!(matches!(
            locks.lock(1, 0, b"b", Duration::from_secs(5)),
            Err(Error::Deadlock)
        ));
        locks.release_all(1, &[a]);
        assert!(waiter.join().unwrap().unwrap().is_some());
        assert_eq!(locks.held(), 2);
    }

    #[test]
    fn range_locks_block_points_inside_and_overlapping_ranges() {
        let locks = LockTable::default();
        let r = locks
            .lock_range(1, 7, b"b", Some(b"f"), SHORT)
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
            locks.lock_range(3, 7, b"e", None, SHORT),
            Err(Error::LockTimeout)
        ));
        assert!(matches!(
            locks.lock_range(3, 7, b"a", Some(b"g"), SHORT),
            Err(Error::LockTimeout),
        ));
        assert!(
            locks.lock(1, 7, b"d", SHORT).unwrap().is_some(),
            "own range"
        );
        // A range over another's point lock waits.
        assert!(matches!(
            locks.lock_range(1, 7, b"f", Some(b"z"), SHORT),
            Err(Error::LockTimeout)
        ));
        locks.release_all(1, &[r, Held::Point(7, b"d".to_vec())]);
        assert!(locks.lock(2, 7, b"c", SHORT).unwrap().is_some());
    }
}
