//! Table locks across sessions: `LOCK TABLES ... READ | WRITE`, `FLUSH TABLES WITH READ LOCK` (the global
//! read lock), and the write uses of tables that ordinary statements take so that those wait for them
//! (design.md, "Table locks", TLK1-TLK6).
//!
//! Owns [`TableLocks`], the engine-wide state under one mutex: each session's LOCK TABLES list, the
//! sessions holding the global read lock, each session's write uses (a table it changed, held until its
//! transaction ends) and its write statements in progress. Waits end when the state changes or after
//! `lock_wait_timeout` seconds (1205), or at once when the waiting session is killed (KILL calls
//! [`TableLocks::wake`]; 1317 / 1927).
//!
//! Invariants: a lock is granted only when no other session's lock or use conflicts with it (TLK1, TLK2);
//! a session holding a LOCK TABLES list waits for nothing here (TLK3); everything a session holds is
//! released when it ends (TLK6).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::interrupt::LockWait;

/// A table by database and name, as the catalog spells them.
pub type TableKey = (String, String);

/// One entry of a LOCK TABLES list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldLock {
    pub table: TableKey,
    /// The name the statements must use when the lock named an alias.
    pub alias: Option<String>,
    pub write: bool,
}

#[derive(Default)]
struct State {
    /// LOCK TABLES lists by session.
    listed: HashMap<u64, Vec<HeldLock>>,
    /// Sessions holding FLUSH TABLES WITH READ LOCK.
    global_read: HashSet<u64>,
    /// Tables each session changed in its open transaction (or is changing in its statement).
    uses: HashMap<u64, HashSet<TableKey>>,
    /// Write statements in progress, by session.
    writing: HashMap<u64, usize>,
}

impl State {
    fn others_lock(&self, me: u64, t: &TableKey) -> Option<bool> {
        let mut found = None;
        for (s, list) in &self.listed {
            if *s == me {
                continue;
            }
            for l in list.iter().filter(|l| &l.table == t) {
                found = Some(found.unwrap_or(false) || l.write);
            }
        }
        found
    }
    fn others_use(&self, me: u64, t: &TableKey) -> bool {
        self.uses.iter().any(|(s, u)| *s != me && u.contains(t))
    }
    fn others_global_read(&self, me: u64) -> bool {
        self.global_read.iter().any(|s| *s != me)
    }
}

/// The engine-wide table locks.
#[derive(Default)]
pub struct TableLocks {
    state: Mutex<State>,
    changed: Condvar,
    /// LOCK TABLES lists and global read locks held: while 0 a reader checks nothing.
    active: AtomicUsize,
}

/// Waits on `cond` until `ready` holds, or fails with 1205 after the wait's timeout, or with the
/// interrupt's error once the session is killed.
fn wait_until<'l>(
    locks: &'l TableLocks,
    wait: LockWait<'_>,
    mut ready: impl FnMut(&State) -> bool,
) -> DbResult<parking_lot::MutexGuard<'l, State>> {
    let deadline = Instant::now() + wait.timeout;
    let mut st = locks.state.lock();
    while !ready(&st) {
        wait.check()?;
        if locks.changed.wait_until(&mut st, deadline).timed_out() && !ready(&st) {
            return Err(DbError::lock_timeout());
        }
    }
    Ok(st)
}

impl TableLocks {
    /// Wakes every wait so it looks at its session's interrupt flag (after a KILL).
    pub fn wake(&self) {
        let _st = self.state.lock();
        self.changed.notify_all();
    }

    /// LOCK TABLES by `me` (its previous list was released by the caller): waits until no other session
    /// holds a lock that conflicts or a write use of a table it locks (TLK1), and for a WRITE lock until no
    /// other session holds the global read lock (TLK2).
    pub fn lock_tables(&self, me: u64, list: Vec<HeldLock>, wait: LockWait<'_>) -> DbResult<()> {
        let wants_write = list.iter().any(|l| l.write);
        let mut st = wait_until(self, wait, |st| {
            (!wants_write || !st.others_global_read(me))
                && list.iter().all(|l| {
                    !st.others_use(me, &l.table)
                        && match st.others_lock(me, &l.table) {
                            None => true,
                            Some(other_write) => !other_write && !l.write,
                        }
                })
        })?;
        if st.listed.insert(me, list).is_none() {
            self.active.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// UNLOCK TABLES (and the end of a session): its list and its global read lock go.
    pub fn unlock(&self, me: u64) {
        let mut st = self.state.lock();
        if st.listed.remove(&me).is_some() {
            self.active.fetch_sub(1, Ordering::SeqCst);
        }
        if st.global_read.remove(&me) {
            self.active.fetch_sub(1, Ordering::SeqCst);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Releases `me`'s LOCK TABLES list only (LOCK TABLES replacing it, BEGIN); a global read lock stays.
    pub fn unlock_list(&self, me: u64) {
        let mut st = self.state.lock();
        if st.listed.remove(&me).is_some() {
            self.active.fetch_sub(1, Ordering::SeqCst);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Forgets `table` in `me`'s list (it was dropped or renamed under LOCK TABLES).
    pub fn forget(&self, me: u64, table: &TableKey) {
        let mut st = self.state.lock();
        if let Some(list) = st.listed.get_mut(&me) {
            list.retain(|l| &l.table != table);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// FLUSH TABLES WITH READ LOCK by `me`: waits until no other session has a write statement in progress
    /// or a LOCK TABLES ... WRITE (TLK4).
    pub fn global_read_lock(&self, me: u64, wait: LockWait<'_>) -> DbResult<()> {
        let mut st = wait_until(self, wait, |st| {
            st.writing.iter().all(|(s, n)| *s == me || *n == 0)
                && st
                    .listed
                    .iter()
                    .all(|(s, l)| *s == me || l.iter().all(|h| !h.write))
        })?;
        if st.global_read.insert(me) {
            self.active.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Whether `me` holds the global read lock.
    pub fn holds_global_read(&self, me: u64) -> bool {
        self.active.load(Ordering::SeqCst) > 0 && self.state.lock().global_read.contains(&me)
    }

    /// A read of `table` by a session without a LOCK TABLES list: waits while another session holds a
    /// WRITE lock on it (TLK1).
    pub fn before_read(&self, me: u64, table: &TableKey, wait: LockWait<'_>) -> DbResult<()> {
        if self.active.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        wait_until(self, wait, |st| st.others_lock(me, table) != Some(true)).map(drop)
    }

    /// A write statement of a session without a LOCK TABLES list, changing `tables`: waits while another
    /// session holds the global read lock (unless `tables_only`: a statement on temporary tables) or a
    /// lock on one of the tables, then records the write uses (held until [`TableLocks::end_transaction`])
    /// and the statement in progress (until [`TableLocks::end_statement`]) (TLK2, TLK5).
    pub fn before_write(&self, me: u64, tables: &[TableKey], wait: LockWait<'_>) -> DbResult<()> {
        let mut st = wait_until(self, wait, |st| {
            !st.others_global_read(me) && tables.iter().all(|t| st.others_lock(me, t).is_none())
        })?;
        *st.writing.entry(me).or_default() += 1;
        st.uses
            .entry(me)
            .or_default()
            .extend(tables.iter().cloned());
        Ok(())
    }

    /// A COMMIT: if the transaction changed tables (it has write uses; temporary tables have none), waits
    /// while another session holds the global read lock (TLK4).
    pub fn before_commit(&self, me: u64, wait: LockWait<'_>) -> DbResult<()> {
        if self.active.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        wait_until(self, wait, |st| {
            !st.others_global_read(me) || st.uses.get(&me).is_none_or(|u| u.is_empty())
        })
        .map(drop)
    }

    /// The statement ended: it no longer counts as a write in progress.
    pub fn end_statement(&self, me: u64) {
        let mut st = self.state.lock();
        if st.writing.remove(&me).is_some() {
            drop(st);
            self.changed.notify_all();
        }
    }

    /// The transaction ended: its write uses go (TLK5).
    pub fn end_transaction(&self, me: u64) {
        let mut st = self.state.lock();
        if st.uses.remove(&me).is_some() {
            drop(st);
            self.changed.notify_all();
        }
    }

    /// The session ended: everything it held goes (TLK6).
    pub fn end_session(&self, me: u64) {
        self.unlock(me);
        self.end_statement(me);
        self.end_transaction(me);
    }
}

/// 1100 for a table a session under LOCK TABLES did not lock.
pub fn not_locked(name: &str) -> DbError {
    DbError::new(
        ErrorCode::TableNotLocked,
        format!("Table '{name}' was not locked with LOCK TABLES"),
    )
}

/// 1099 for a write to a table a session locked for reading.
pub fn locked_for_read(name: &str) -> DbError {
    DbError::new(
        ErrorCode::TableNotLockedForWrite,
        format!("Table '{name}' was locked with a READ lock and can't be updated"),
    )
}

/// 1223 for a write by the session holding the global read lock.
pub fn conflicting_read_lock() -> DbError {
    DbError::new(
        ErrorCode::CantUpdateWithReadlock,
        "Can't execute the query because you have a conflicting read lock",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn key(t: &str) -> TableKey {
        ("d".into(), t.into())
    }
    fn held(t: &str, write: bool) -> HeldLock {
        HeldLock {
            table: key(t),
            alias: None,
            write,
        }
    }
    const SHORT: LockWait<'static> = LockWait::timeout(Duration::from_millis(30));

    #[test]
    fn read_locks_share_and_write_locks_exclude() {
        let l = TableLocks::default();
        l.lock_tables(1, vec![held("a", false)], SHORT).unwrap();
        l.lock_tables(2, vec![held("a", false)], SHORT).unwrap();
        assert!(l.lock_tables(3, vec![held("a", true)], SHORT).is_err());
        assert!(l.before_write(3, &[key("a")], SHORT).is_err());
        l.before_read(3, &key("a"), SHORT).unwrap();
        l.unlock(1);
        l.unlock(2);
        l.lock_tables(3, vec![held("a", true)], SHORT).unwrap();
        assert!(l.before_read(4, &key("a"), SHORT).is_err());
        l.before_read(4, &key("b"), SHORT).unwrap();
        l.end_session(3);
        l.before_read(4, &key("a"), SHORT).unwrap();
    }

    #[test]
    fn a_transactions_write_use_holds_off_lock_tables_until_it_ends() {
        let l = TableLocks::default();
        l.before_write(1, &[key("a")], SHORT).unwrap();
        l.end_statement(1);
        assert!(l.lock_tables(2, vec![held("a", false)], SHORT).is_err());
        l.end_transaction(1);
        l.lock_tables(2, vec![held("a", false)], SHORT).unwrap();
    }

    #[test]
    fn the_global_read_lock_waits_for_writers_and_holds_off_writes_and_commits() {
        let l = TableLocks::default();
        l.before_write(1, &[key("a")], SHORT).unwrap();
        assert!(l.global_read_lock(2, SHORT).is_err());
        l.end_statement(1);
        l.global_read_lock(2, SHORT).unwrap();
        assert!(l.holds_global_read(2));
        assert!(l.before_write(1, &[key("b")], SHORT).is_err());
        assert!(l.before_commit(1, SHORT).is_err());
        assert!(l.lock_tables(3, vec![held("c", true)], SHORT).is_err());
        l.lock_tables(3, vec![held("c", false)], SHORT).unwrap();
        l.unlock(2);
        l.before_commit(1, SHORT).unwrap();
        l.before_write(1, &[key("b")], SHORT).unwrap();
    }

    #[test]
    fn a_waiter_is_granted_when_the_lock_goes() {
        let l = std::sync::Arc::new(TableLocks::default());
        l.lock_tables(1, vec![held("a", true)], SHORT).unwrap();
        let l2 = l.clone();
        let t = std::thread::spawn(move || {
            l2.before_read(2, &key("a"), LockWait::timeout(Duration::from_secs(30)))
        });
        std::thread::sleep(Duration::from_millis(50));
        l.unlock(1);
        t.join().unwrap().unwrap();
    }
}
