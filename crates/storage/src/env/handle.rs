//! `TreeHandle`: what callers write and read one tree through. Each write is checked against the limits
//! below, appends its log record and applies its message under the tree's write lock (invariant CKP5),
//! then waits for durability outside the lock (outside a transaction, the log syncer starts the fsync
//! while the messages are applied, invariant WAL1).

use super::EnvInner;
use crate::error::{Error, Result};
use crate::tree::format::columnar::ColumnLayout;
use crate::tree::in_memory::message::{Message, Msn, Op};
use crate::tree::operations::cursor::RangeIter;
use crate::tree::operations::sample::{SampleOptions, TreeSample};
use crate::tree::{Tree, TreeStats};

use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Largest key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 32 << 10;
/// Largest value accepted, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 << 20;

/// A handle to one tree; cheap to clone.
#[derive(Clone)]
pub struct TreeHandle {
    pub(super) env: Arc<EnvInner>,
    pub(super) tree: Arc<Tree>,
    pub(super) name: String,
}

impl TreeHandle {
    /// The tree's name when the handle was made.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Applies a batch of changes to this tree outside any transaction: each change is logged and applied in
    /// turn (each is committed at once, with its own MSN), and the call waits once for durability at the end.
    pub fn write_batch(&self, ops: Vec<(Vec<u8>, Op)>) -> Result<()> {
        for (key, op) in &ops {
            self.validate(key, op)?;
            if matches!(op, Op::Abort) {
                return Err(Error::InvalidArgument("abort messages are internal".into()));
            }
        }
        if let Some(last) = self.write_messages(0, ops)? {
            self.env.commit(last)?;
        }
        Ok(())
    }

    /// Logs and applies messages stamped with transaction `txn` (0: none); returns the last LSN, without
    /// waiting for durability. All of the batch's records are appended before any is applied, so that a
    /// writer outside a transaction (`txn` 0, which commits with this call) can have the log syncer start
    /// their fsync while it applies them (invariant WAL1); both happen under the tree's write lock, so the
    /// tree sees the messages in LSN order as before.
    pub(crate) fn write_messages(&self, txn: u64, ops: Vec<(Vec<u8>, Op)>) -> Result<Option<Msn>> {
        if ops.is_empty() {
            return Ok(None);
        }
        let env = &self.env;
        env.check_writable()?;
        let last = {
            let mut st = self.tree.state.write();
            if self.tree.dropped.load(Ordering::SeqCst) {
                return Err(Error::NoSuchTree(self.name.clone()));
            }
            let mut lsns = Vec::with_capacity(ops.len());
            env.wal
                .append_messages(self.tree.id, txn, &ops, &mut lsns)?;
            let msgs: Vec<Message> = ops
                .into_iter()
                .zip(lsns)
                .map(|((key, op), msn)| Message { msn, txn, key, op })
                .collect();
            let last = msgs.last().map_or(0, |m| m.msn);
            if txn == 0 {
                env.wal.syncer.request(last);
            }
            if let Err(e) = self.tree.apply_batch(&mut st, msgs) {
                // The log now holds a change the tree lacks: only a reopen (replay) can reconcile them.
                return Err(env.health.fail(e));
            }
            last
        };
        self.tree.request_write_back();
        Ok(Some(last))
    }

    pub(crate) fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    pub(crate) fn validate(&self, key: &[u8], op: &Op) -> Result<()> {
        if key.len() > MAX_KEY_BYTES {
            return Err(Error::InvalidArgument(format!(
                "key of {} bytes exceeds {MAX_KEY_BYTES}",
                key.len()
            )));
        }
        match op {
            Op::Put(v) if v.len() > MAX_VALUE_BYTES => Err(Error::InvalidArgument(format!(
                "value of {} bytes exceeds {MAX_VALUE_BYTES}",
                v.len()
            ))),
            Op::Upsert { func, arg } | Op::Broadcast { func, arg, .. } => {
                if !self.env.reg.contains(*func) {
                    return Err(Error::UnknownFunction(*func));
                }
                if arg.len() > MAX_VALUE_BYTES {
                    return Err(Error::InvalidArgument("argument too large".into()));
                }
                Ok(())
            }
            Op::RangeDelete { end } if end.as_slice() <= key => Err(Error::InvalidArgument(
                "range delete with end ≤ start".into(),
            )),
            _ => Ok(()),
        }
    }

    /// Does the background flusher's work for this tree now, in the calling thread (flushes of
    /// over-full buffers, cache-pressure relief, write-back): for tests and tools that run without
    /// background threads.
    pub fn flush_now(&self) -> Result<()> {
        self.tree.flush_pending()
    }

    /// Inserts or overwrites.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.write_batch(vec![(key.to_vec(), Op::Put(value.to_vec()))])
    }

    /// Deletes (no error if absent).
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.write_batch(vec![(key.to_vec(), Op::Delete)])
    }

    /// Sends an upsert message: function `func` will be applied to the row with `arg`, without reading now.
    pub fn upsert(&self, key: &[u8], func: u32, arg: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            key.to_vec(),
            Op::Upsert {
                func,
                arg: arg.to_vec(),
            },
        )])
    }

    /// Deletes every key in [start, end).
    pub fn range_delete(&self, start: &[u8], end: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            start.to_vec(),
            Op::RangeDelete { end: end.to_vec() },
        )])
    }

    /// Applies function `func` with `arg` to every row of the tree (lazily, as messages reach the rows).
    pub fn broadcast(&self, func: u32, arg: &[u8]) -> Result<()> {
        self.write_batch(vec![(
            Vec::new(),
            Op::Broadcast {
                func,
                arg: arg.to_vec(),
                end: Vec::new(),
            },
        )])
    }

    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.tree.get(key)
    }

    /// Entries within the bounds, in key order or reverse.
    pub fn range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, reverse: bool) -> RangeIter<'_> {
        self.tree.range(lower, upper, reverse)
    }

    /// The tree's committed rows, estimated from a few basements or counted exactly when the tree
    /// is small, and the keys read (`Tree::sample`, design.md STA1-STA3).
    pub fn sample(&self, opts: &SampleOptions) -> Result<TreeSample> {
        self.tree.sample(opts)
    }

    /// Sizes and counts.
    pub fn stats(&self) -> TreeStats {
        self.tree.stats()
    }

    /// The tree's options (codec, level, node sizes).
    pub fn options(&self) -> crate::TreeOptions {
        self.tree.options()
    }

    /// Sets (or clears) the column layout the tree's leaves are written with from now on (design.md
    /// COL5); anything written before stays readable as it is.
    pub fn set_column_layout(&self, layout: Option<ColumnLayout>) {
        self.tree.set_column_layout(layout.map(Arc::new));
    }

    /// The column layout the tree's leaves are written with, if any.
    pub fn column_layout(&self) -> Option<Arc<ColumnLayout>> {
        self.tree.column_layout()
    }

    /// Checks the structural invariants of the whole tree (reads every node; for tests).
    pub fn check_invariants(&self) -> Result<()> {
        self.tree.check_invariants()
    }
}
