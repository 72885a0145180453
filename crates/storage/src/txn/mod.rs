//! Transactions across any number of trees (first version: buffered writes, row locks, atomic commit).
//!
//! A transaction buffers its writes and takes an exclusive row lock on every key it writes or reads for
//! update. Its reads see the latest committed data with its own writes applied on top. Commit logs every
//! buffered change as ONE `Batch` record and applies them under the write locks of all the trees involved
//! (taken in tree-id order), so a checkpoint, a reader of one key or a crash sees all of a transaction or
//! none of it; the commit then waits for durability (group commit) as the environment's mode says. Rollback
//! drops the buffer. Upserts stay blind: they are buffered as messages and never read the row.
//!
//! Known limits of this version (see docs/design.md, "Transactions"): reads are READ COMMITTED even when
//! REPEATABLE READ is asked for (no multi-version snapshots yet), the write buffer lives in memory, and commit
//! is proportional to the transaction's size.

pub mod locks;

use crate::env::{EnvInner, TreeHandle};
use crate::error::{Error, Result};
use crate::tree::message::{Op, TxnId};
use crate::tree::Tree;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
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
}

impl Default for TxnOptions {
    fn default() -> TxnOptions {
        TxnOptions {
            isolation: Isolation::RepeatableRead,
            lock_timeout: Duration::from_secs(50),
        }
    }
}

/// A transaction. Dropping it without commit rolls it back.
pub struct Txn {
    env: Arc<EnvInner>,
    id: TxnId,
    opts: TxnOptions,
    /// Buffered changes in issue order.
    ops: Vec<(Arc<Tree>, Vec<u8>, Op)>,
    /// Per tree and key, indexes into `ops` (read-your-writes).
    by_key: HashMap<u64, BTreeMap<Vec<u8>, Vec<usize>>>,
    locked: Vec<(u64, Vec<u8>)>,
    finished: bool,
}

impl EnvInner {
    pub(crate) fn begin(self: &Arc<Self>, opts: TxnOptions) -> Result<Txn> {
        self.check_writable()?;
        let id = self
            .next_txn
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Txn {
            env: self.clone(),
            id,
            opts,
            ops: Vec::new(),
            by_key: HashMap::new(),
            locked: Vec::new(),
            finished: false,
        })
    }
}

impl Txn {
    /// The transaction's id (unique while the environment is open).
    pub fn id(&self) -> TxnId {
        self.id
    }

    pub fn options(&self) -> TxnOptions {
        self.opts
    }

    /// Number of buffered changes.
    pub fn pending(&self) -> usize {
        self.ops.len()
    }

    fn lock(&mut self, tree: &Arc<Tree>, key: &[u8]) -> Result<()> {
        if self
            .env
            .locks
            .lock(self.id, tree.id(), key, self.opts.lock_timeout)?
        {
            self.locked.push((tree.id(), key.to_vec()));
        }
        Ok(())
    }

    fn buffer(&mut self, t: &TreeHandle, key: &[u8], op: Op) -> Result<()> {
        t.validate(key, &op)?;
        let tree = t.tree().clone();
        self.lock(&tree, key)?;
        let i = self.ops.len();
        self.by_key
            .entry(tree.id())
            .or_default()
            .entry(key.to_vec())
            .or_default()
            .push(i);
        self.ops.push((tree, key.to_vec(), op));
        Ok(())
    }

    /// Buffers an insert-or-overwrite (locks the row).
    pub fn put(&mut self, t: &TreeHandle, key: &[u8], value: &[u8]) -> Result<()> {
        self.buffer(t, key, Op::Put(value.to_vec()))
    }

    /// Buffers a delete (locks the row).
    pub fn delete(&mut self, t: &TreeHandle, key: &[u8]) -> Result<()> {
        self.buffer(t, key, Op::Delete)
    }

    /// Buffers a blind upsert (locks the row, never reads it).
    pub fn upsert(&mut self, t: &TreeHandle, key: &[u8], func: u32, arg: &[u8]) -> Result<()> {
        self.buffer(
            t,
            key,
            Op::Upsert {
                func,
                arg: arg.to_vec(),
            },
        )
    }

    fn overlay(&self, tree: u64, key: &[u8], base: Option<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        let Some(idx) = self.by_key.get(&tree).and_then(|m| m.get(key)) else {
            return Ok(base);
        };
        let mut v = base;
        for &i in idx {
            v = self.env.reg.apply(key, v, &self.ops[i].2)?;
        }
        Ok(v)
    }

    /// Reads a row: the latest committed value with this transaction's changes applied.
    pub fn get(&self, t: &TreeHandle, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let base = t.get(key)?;
        self.overlay(t.tree().id(), key, base)
    }

    /// Locks the row, then reads it as [`Txn::get`] does.
    pub fn get_for_update(&mut self, t: &TreeHandle, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let tree = t.tree().clone();
        self.lock(&tree, key)?;
        self.get(t, key)
    }

    /// Entries in a range, with this transaction's changes merged in, streamed in key order (or reverse).
    pub fn range<'a>(
        &'a self,
        t: &'a TreeHandle,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
    ) -> TxnRange<'a> {
        let tree_id = t.tree().id();
        let mut mine: Vec<Vec<u8>> = self
            .by_key
            .get(&tree_id)
            .map(|m| {
                m.range::<[u8], _>((lower, upper))
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default();
        if reverse {
            mine.reverse();
        }
        TxnRange {
            txn: self,
            tree_id,
            base: t.range(lower, upper, reverse).peekable(),
            mine: mine.into_iter().peekable(),
            reverse,
        }
    }

    /// Makes the changes visible and durable (as the environment's durability mode says), atomically.
    pub fn commit(mut self) -> Result<()> {
        let ops = std::mem::take(&mut self.ops);
        let result = if ops.is_empty() {
            Ok(())
        } else {
            self.env
                .apply_batch(self.id, ops)
                .and_then(|lsn| self.env.commit(lsn))
        };
        self.finish();
        result
    }

    /// Discards the changes.
    pub fn rollback(mut self) -> Result<()> {
        self.ops.clear();
        self.finish();
        Ok(())
    }

    fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            self.env.locks.release_all(self.id, &self.locked);
            self.locked.clear();
        }
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A range scan inside a transaction: the tree's entries merged with the transaction's own changes.
pub struct TxnRange<'a> {
    txn: &'a Txn,
    tree_id: u64,
    base: std::iter::Peekable<crate::tree::cursor::RangeIter<'a>>,
    mine: std::iter::Peekable<std::vec::IntoIter<Vec<u8>>>,
    reverse: bool,
}

impl Iterator for TxnRange<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let base_key = match self.base.peek() {
                Some(Ok((k, _))) => Some(k.clone()),
                Some(Err(_)) => return self.base.next(),
                None => None,
            };
            let take_mine = match (self.mine.peek(), &base_key) {
                (None, None) => return None,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(m), Some(b)) => {
                    if self.reverse {
                        m >= b
                    } else {
                        m <= b
                    }
                }
            };
            if !take_mine {
                return self.base.next();
            }
            let key = self.mine.next().expect("peeked");
            let base = if base_key.as_ref() == Some(&key) {
                match self.base.next() {
                    Some(Ok((_, v))) => Some(v),
                    Some(Err(e)) => return Some(Err(e)),
                    None => None,
                }
            } else {
                None
            };
            match self.txn.overlay(self.tree_id, &key, base) {
                Ok(Some(v)) => return Some(Ok((key, v))),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Error helper for callers that map engine errors to SQL codes.
pub fn is_lock_error(e: &Error) -> bool {
    matches!(e, Error::LockTimeout | Error::Deadlock)
}
