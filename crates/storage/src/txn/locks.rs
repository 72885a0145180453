//! Row locks: exclusive locks on (tree, key), held until commit or rollback, with a wait timeout and
//! deadlock detection over the wait-for graph.
//!
//! Invariants: a key has at most one owner; a transaction waits for at most one key at a time; before a
//! transaction starts waiting, the chain owner → (key it waits for) → owner ... is followed, and if it leads
//! back to the waiter the request fails with `Deadlock` instead of waiting (the requester is the victim).

use crate::error::{Error, Result};
use crate::tree::message::TxnId;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::time::{Duration, Instant};

type LockKey = (u64, Vec<u8>);

#[derive(Default)]
struct Table {
    owners: HashMap<LockKey, TxnId>,
    /// What each waiting transaction waits for.
    waiting: HashMap<TxnId, LockKey>,
}

/// The lock table of an environment.
#[derive(Default)]
pub struct LockTable {
    table: Mutex<Table>,
    released: Condvar,
}

impl LockTable {
    /// Takes the lock on (tree, key) for `txn`, waiting up to `timeout`. Returns whether it was newly taken
    /// (false: `txn` already held it).
    pub fn lock(&self, txn: TxnId, tree: u64, key: &[u8], timeout: Duration) -> Result<bool> {
        let lk: LockKey = (tree, key.to_vec());
        let deadline = Instant::now() + timeout;
        let mut t = self.table.lock();
        loop {
            match t.owners.get(&lk) {
                None => {
                    t.owners.insert(lk, txn);
                    t.waiting.remove(&txn);
                    return Ok(true);
                }
                Some(&owner) if owner == txn => {
                    t.waiting.remove(&txn);
                    return Ok(false);
                }
                Some(&owner) => {
                    if Self::leads_to(&t, owner, txn) {
                        t.waiting.remove(&txn);
                        return Err(Error::Deadlock);
                    }
                    t.waiting.insert(txn, lk.clone());
                    if self.released.wait_until(&mut t, deadline).timed_out()
                        && t.owners.get(&lk).is_some_and(|o| *o != txn)
                    {
                        t.waiting.remove(&txn);
                        return Err(Error::LockTimeout);
                    }
                }
            }
        }
    }

    /// Whether following "waits for a key owned by" from `from` reaches `target`.
    fn leads_to(t: &Table, from: TxnId, target: TxnId) -> bool {
        let mut cur = from;
        for _ in 0..=t.waiting.len() {
            if cur == target {
                return true;
            }
            match t.waiting.get(&cur).and_then(|k| t.owners.get(k)) {
                Some(&next) => cur = next,
                None => return false,
            }
        }
        false
    }

    /// Releases every lock `txn` holds.
    pub fn release_all(&self, txn: TxnId, keys: &[(u64, Vec<u8>)]) {
        let mut t = self.table.lock();
        for k in keys {
            if t.owners.get(k) == Some(&txn) {
                t.owners.remove(k);
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
        self.table.lock().owners.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn timeout_deadlock_and_handover() {
        let locks = Arc::new(LockTable::default());
        assert!(locks.lock(1, 0, b"a", Duration::from_secs(1)).unwrap());
        assert!(!locks.lock(1, 0, b"a", Duration::from_secs(1)).unwrap());
        assert!(matches!(
            locks.lock(2, 0, b"a", Duration::from_millis(30)),
            Err(Error::LockTimeout)
        ));
        assert!(locks.lock(2, 0, b"b", Duration::from_secs(1)).unwrap());
        // 2 waits for a (held by 1) in a thread; then 1 asks for b (held by 2): deadlock.
        let l2 = locks.clone();
        let waiter = std::thread::spawn(move || l2.lock(2, 0, b"a", Duration::from_secs(5)));
        while locks.table.lock().waiting.is_empty() {
            std::thread::yield_now();
        }
        assert!(matches!(
            locks.lock(1, 0, b"b", Duration::from_secs(5)),
            Err(Error::Deadlock)
        ));
        locks.release_all(1, &[(0, b"a".to_vec())]);
        assert!(waiter.join().unwrap().unwrap());
        assert_eq!(locks.held(), 2);
    }
}
