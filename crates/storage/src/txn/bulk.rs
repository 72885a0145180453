//! Batched transactional writes under a whole-tree lock: the storage half of `LOAD DATA` into a
//! non-empty table.
//!
//! [`Txn::write_sorted`] takes one range lock over the whole tree (once per transaction and
//! tree) instead of one row lock per key, then logs and applies the batch's messages stamped
//! with the transaction's id under one acquisition of the tree's state lock. A load of millions
//! of rows therefore costs no lock-table memory per row, and its messages enter the root buffer
//! in key order (the batch is sorted by the caller), so flushes move long runs to few children.
//!
//! Invariants: the same as every transactional write (docs/design.md, "Transactions and
//! multi-version reads"): the versions stay invisible to other transactions until the commit
//! record is durable (TXN2), and rollback or a crash before commit erases them (recovery rolls the
//! transaction back). The whole-tree lock makes other writers of the tree wait (TXN3 holds for
//! every key of it). Keys within one call must be strictly increasing (checked), so one call
//! cannot write a key twice.

use super::Txn;
use crate::env::TreeHandle;
use crate::error::{Error, Result};
use crate::tree::in_memory::message::Op;

impl Txn {
    /// Takes the whole-tree lock on `t` (once per transaction): other transactions can neither write
    /// nor lock any key of the tree until this one ends.
    pub fn lock_whole_tree(&mut self, t: &TreeHandle) -> Result<()> {
        let tree = t.tree().id();
        if !self.whole_trees.contains(&tree) {
            self.lock_range(t, b"", None)?;
            self.whole_trees.push(tree);
        }
        Ok(())
    }

    /// Writes a batch of changes sorted by strictly increasing key to `t` under a whole-tree lock.
    pub fn write_sorted(&mut self, t: &TreeHandle, ops: Vec<(Vec<u8>, Op)>) -> Result<()> {
        for (i, (key, op)) in ops.iter().enumerate() {
            t.validate(key, op)?;
            if matches!(op, Op::Abort) {
                return Err(Error::InvalidArgument("abort messages are internal".into()));
            }
            if i > 0 && ops[i - 1].0 >= *key {
                return Err(Error::InvalidArgument(format!(
                    "write_sorted: key {i} of the batch is not greater than the one before it"
                )));
            }
        }
        if ops.is_empty() {
            return Ok(());
        }
        self.lock_whole_tree(t)?;
        let id = self.ensure_id()?;
        self.wrote = true;
        t.write_messages(id, ops)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Env, EnvOptions, Op, TxnOptions, UpdateRegistry};
    use std::time::Duration;

    fn batch(lo: u32, hi: u32) -> Vec<(Vec<u8>, Op)> {
        (lo..hi)
            .map(|i| (i.to_be_bytes().to_vec(), Op::Put(vec![i as u8; 8])))
            .collect()
    }

    #[test]
    fn invisible_until_commit_and_gone_after_rollback() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::open(dir.path(), EnvOptions::default(), UpdateRegistry::new()).unwrap();
        let t = env.create_tree("t", None).unwrap();
        t.put(&5u32.to_be_bytes(), b"old").unwrap();
        let mut txn = env.begin(TxnOptions::default()).unwrap();
        txn.write_sorted(&t, batch(0, 1000)).unwrap();
        txn.write_sorted(&t, batch(1000, 2000)).unwrap();
        assert_eq!(t.get(&7u32.to_be_bytes()).unwrap(), None);
        assert_eq!(t.get(&5u32.to_be_bytes()).unwrap(), Some(b"old".to_vec()));
        assert_eq!(
            txn.get(&t, &1500u32.to_be_bytes()).unwrap(),
            Some(vec![1500u32 as u8; 8])
        );
        // Another writer of the tree waits for the whole-tree lock.
        let mut other = env
            .begin(TxnOptions {
                lock_timeout: Duration::from_millis(20),
                ..TxnOptions::default()
            })
            .unwrap();
        assert!(other.put(&t, &9_999u32.to_be_bytes(), b"x").is_err());
        drop(other);
        txn.rollback().unwrap();
        assert_eq!(
            t.range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false
            )
            .count(),
            1
        );

        let mut txn = env.begin(TxnOptions::default()).unwrap();
        txn.write_sorted(&t, batch(0, 3000)).unwrap();
        txn.commit().unwrap();
        assert_eq!(t.get(&5u32.to_be_bytes()).unwrap(), Some(vec![5u8; 8]));
        assert_eq!(
            t.range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false
            )
            .count(),
            3000
        );
    }

    #[test]
    fn unsorted_batch_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::open(dir.path(), EnvOptions::default(), UpdateRegistry::new()).unwrap();
        let t = env.create_tree("t", None).unwrap();
        let mut txn = env.begin(TxnOptions::default()).unwrap();
        let mut b = batch(0, 10);
        b.swap(3, 4);
        assert!(txn.write_sorted(&t, b).is_err());
        let mut b = batch(0, 10);
        b[4].0 = b[3].0.clone();
        assert!(txn.write_sorted(&t, b).is_err());
    }

    #[test]
    fn uncommitted_batch_is_rolled_back_by_recovery() {
        use crate::vfs::SimVfs;
        use std::path::Path;
        use std::sync::Arc;
        let vfs = Arc::new(SimVfs::new());
        let env = Env::open_with_vfs(
            vfs.clone(),
            Path::new("/db"),
            EnvOptions::default(),
            UpdateRegistry::new(),
        )
        .unwrap();
        let t = env.create_tree("t", None).unwrap();
        t.put(b"keep", b"1").unwrap();
        let mut txn = env.begin(TxnOptions::default()).unwrap();
        txn.write_sorted(&t, batch(0, 500)).unwrap();
        env.sync().unwrap();
        // Power fails now: only synced bytes survive, the transaction never committed.
        let image = Arc::new(vfs.crash_image(7));
        let env = Env::open_with_vfs(
            image,
            Path::new("/db"),
            EnvOptions::default(),
            UpdateRegistry::new(),
        )
        .unwrap();
        let t = env.open_tree("t").unwrap();
        let all: Vec<_> = t
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false,
            )
            .map(|r| r.unwrap().0)
            .collect();
        assert_eq!(all, vec![b"keep".to_vec()]);
        drop(txn);
    }
}
