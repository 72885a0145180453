//! A connection's transaction: BEGIN / COMMIT / ROLLBACK and savepoints, the engine-wide schema
//! lock (shared while rows change, exclusive for DDL) and the row-lock helpers locking reads use.
//!
//! Invariants:
//! * In autocommit mode (and outside BEGIN) a statement's changes are committed when it ends
//!   and its row locks are released; inside a transaction they wait for COMMIT/ROLLBACK.
//!   DDL commits the current transaction first, as MySQL does.
//! * The schema lock is held from the first change (shared) or the DDL statement (exclusive)
//!   until the transaction ends.

use std::time::Duration;

use super::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::interrupt::LockWait;
use crate::store::LockMode;

impl Context {
    /// IN_TRANS for the status flags.
    pub fn in_transaction(&self) -> bool {
        self.in_txn || !self.ws.is_empty()
    }

    pub(crate) fn lock_wait_timeout(&self) -> Duration {
        let secs = self
            .vars
            .get("innodb_lock_wait_timeout")
            .and_then(|v| v.to_f64_lenient())
            .unwrap_or(50.0)
            .clamp(0.0, 1e6);
        Duration::from_secs_f64(secs)
    }

    /// A wait for a table-level lock (LOCK TABLES, the global read lock, table uses):
    /// `lock_wait_timeout` seconds, ended early by KILL.
    pub fn metadata_wait(&self) -> LockWait<'_> {
        let secs = self.int_var("lock_wait_timeout").min(31_536_000);
        LockWait {
            timeout: Duration::from_secs(secs),
            interrupt: Some(&self.interrupt),
        }
    }

    fn take_schema_lock(&mut self, mode: LockMode) -> DbResult<()> {
        if self.holds_lock == Some(LockMode::Exclusive) || self.holds_lock == Some(mode) {
            return Ok(());
        }
        let wait = LockWait {
            timeout: self.lock_wait_timeout(),
            interrupt: Some(&self.interrupt),
        };
        self.engine.store.schema_lock.acquire(self.id, mode, wait)?;
        self.holds_lock = Some(mode);
        Ok(())
    }

    /// Prepares to change rows: the schema lock shared (no DDL meanwhile) and the storage
    /// transaction that takes the row locks (waits up to innodb_lock_wait_timeout, then 1205).
    pub fn begin_write(&mut self) -> DbResult<()> {
        self.take_schema_lock(LockMode::Shared)?;
        // Written-through rows are kept for the binary log (design.md BLG4).
        self.ws.capture = self.engine.binlog().is_some();
        let timeout = self.lock_wait_timeout();
        self.ws.begin(&self.engine.store, timeout)
    }

    /// Prepares to change a table's definition: the schema lock exclusive (waits for writing
    /// transactions to end).
    pub fn begin_ddl(&mut self) -> DbResult<()> {
        self.take_schema_lock(LockMode::Exclusive)?;
        // Before any table's name changes (design.md AIC3).
        self.engine.persist_auto_inc()
    }

    /// Whether statements run inside a transaction (BEGIN, or autocommit off).
    pub fn in_explicit_or_implicit_txn(&self) -> bool {
        self.in_txn || !self.autocommit()
    }

    /// Locks every key of each tree, present or future, until the transaction ends (a locking
    /// read that no narrower lock covers: locking_read.rs).
    pub fn lock_trees(&mut self, trees: &[String]) -> DbResult<()> {
        self.begin_write()?;
        for t in trees {
            self.ws.lock_tree(&self.engine.store, t)?;
        }
        Ok(())
    }

    /// Locks the key ranges `[lo, hi)` (hi None: to the end) of `tree` until the transaction ends.
    pub fn lock_key_ranges(
        &mut self,
        tree: &str,
        ranges: &[(Vec<u8>, Option<Vec<u8>>)],
    ) -> DbResult<()> {
        self.begin_write()?;
        for (lo, hi) in ranges {
            self.ws
                .lock_range(&self.engine.store, tree, lo, hi.as_deref())?;
        }
        Ok(())
    }

    pub(crate) fn release_lock(&mut self) {
        if self.holds_lock.take().is_some() {
            self.engine.store.schema_lock.release(self.id);
        }
    }

    /// Starts an explicit transaction (BEGIN / START TRANSACTION).
    pub fn begin(&mut self) -> DbResult<()> {
        self.implicit_commit()?;
        self.in_txn = true;
        let rc = self
            .vars
            .get("transaction_isolation")
            .and_then(crate::expr::eval::text_of)
            .is_some_and(|v| v.to_ascii_uppercase().starts_with("READ-"));
        if !rc {
            let opts = betula_storage::TxnOptions {
                isolation: betula_storage::Isolation::RepeatableRead,
                ..Default::default()
            };
            self.snapshot = Some(self.engine.store.env().begin(opts)?);
        }
        Ok(())
    }

    fn end_snapshot(&mut self) {
        if let Some(t) = self.snapshot.take() {
            let _ = t.rollback();
        }
    }

    pub fn commit(&mut self) -> DbResult<()> {
        let wrote = !self.ws.is_empty();
        if wrote {
            // No commit while another session holds the global read lock (design.md TLK4).
            let wait = self.metadata_wait();
            self.engine.table_locks.before_commit(self.id, wait)?;
        }
        self.savepoints.clear();
        self.end_snapshot();
        let sync = ["betula_commit_sync", "tokudb_commit_sync"]
            .iter()
            .all(|v| !matches!(self.vars.get(*v), Some(crate::types::value::Value::Int(0))));
        // The transaction's binlog group goes into the same storage transaction (BLG1).
        let prepared = if wrote {
            self.binlog_prepare()
        } else {
            Ok(None)
        };
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => {
                self.rollback();
                return Err(e);
            }
        };
        let extra = prepared
            .as_ref()
            .map(|(seq, g)| Context::binlog_entry(*seq, g));
        // Moved AUTO_INCREMENT counters go to the log before this commit record (AIC2).
        let r = self
            .engine
            .persist_auto_inc()
            .and_then(|()| self.ws.flush_with(&self.engine.store, sync, extra));
        if let Some((seq, g)) = prepared {
            let logged = self.binlog_finish(seq, r.is_ok().then_some(g));
            if let Err(e) = logged {
                eprintln!("binlog: {e}");
            }
        }
        self.binlog_statement = None;
        if r.is_err() {
            self.ws.clear();
        } else if wrote {
            crate::context::metrics::add(&self.engine.metrics.commits, 1);
        }
        self.in_txn = false;
        self.release_lock();
        self.engine.table_locks.end_transaction(self.id);
        r
    }

    /// SAVEPOINT: marks the transaction's changes so far (a savepoint of the same name moves here).
    pub fn savepoint(&mut self, name: &str) {
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.savepoints.push((name.to_string(), self.ws.mark()));
    }

    fn find_savepoint(&self, name: &str) -> DbResult<usize> {
        self.savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                DbError::new(
                    ErrorCode::SpDoesNotExist,
                    format!("SAVEPOINT {name} does not exist"),
                )
            })
    }

    /// ROLLBACK TO SAVEPOINT: undoes the changes made after it and forgets later savepoints. As in
    /// InnoDB, row locks taken after the savepoint stay held until the transaction ends.
    pub fn rollback_to_savepoint(&mut self, name: &str) -> DbResult<()> {
        let i = self.find_savepoint(name)?;
        let mark = self.savepoints[i].1;
        self.savepoints.truncate(i + 1);
        self.ws.rollback_to(mark);
        Ok(())
    }

    /// RELEASE SAVEPOINT: forgets it and every later one (the changes stay).
    pub fn release_savepoint(&mut self, name: &str) -> DbResult<()> {
        let i = self.find_savepoint(name)?;
        self.savepoints.truncate(i);
        Ok(())
    }

    pub fn rollback(&mut self) {
        if !self.ws.is_empty() {
            crate::context::metrics::add(&self.engine.metrics.rollbacks, 1);
        }
        self.savepoints.clear();
        self.end_snapshot();
        self.ws.clear();
        self.binlog_statement = None;
        self.in_txn = false;
        self.release_lock();
        self.engine.table_locks.end_transaction(self.id);
    }

    /// DDL and other statements that commit the current transaction first.
    pub fn implicit_commit(&mut self) -> DbResult<()> {
        if self.in_transaction() {
            self.commit()?;
        }
        Ok(())
    }
}
