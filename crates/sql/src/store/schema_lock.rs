//! The schema lock ([`SchemaLock`]): DDL against writing transactions, like MySQL's metadata
//! lock.
//!
//! Invariants: any number of sessions hold it shared, or one exclusively (a session holding it
//! shared may upgrade once it is the only holder); waiting DDL is served before new shared
//! requests; a session may take it again (re-entrant); a wait ends at its timeout (1205) or when
//! the waiting session is killed (KILL calls [`SchemaLock::wake`]; 1317 / 1927). An online index
//! build holds the lock's *online hold* between its two exclusive moments: other DDL waits for it
//! (without holding back writers), writers do not (design.md OIX1).

use std::collections::HashSet;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use crate::error::db_error::{DbError, DbResult};
use crate::error::interrupt::LockWait;

/// How a session holds the [`SchemaLock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// Writing rows (many sessions at once).
    Shared,
    /// Changing a table's definition (alone).
    Exclusive,
}

/// Who holds the lock and who waits for it exclusively.
#[derive(Default)]
struct SchemaState {
    shared: HashSet<u64>,
    exclusive: Option<u64>,
    /// Sessions waiting for exclusive access (new shared requests queue behind them).
    exclusive_waiters: usize,
    /// The session running an online index build: only it may take the lock exclusively.
    online: Option<u64>,
}

/// Keeps DDL apart from writing transactions, like MySQL's metadata lock: sessions writing rows
/// hold it shared until their transaction ends; DDL holds it exclusive for the statement. Waiting
/// DDL is served before new writers (no starvation). Re-entrant per session.
#[derive(Default)]
pub struct SchemaLock {
    state: Mutex<SchemaState>,
    cv: Condvar,
}

impl SchemaLock {
    /// Takes the lock for `session` in `mode`; 1205 after the wait's timeout, the interrupt's error
    /// when the session is killed. A session holding it shared may upgrade to exclusive once it is
    /// the only holder.
    pub fn acquire(&self, session: u64, mode: LockMode, wait: LockWait<'_>) -> DbResult<()> {
        let deadline = Instant::now() + wait.timeout;
        let mut st = self.state.lock();
        if mode == LockMode::Exclusive {
            // Behind an online build: wait without holding back writers.
            while st.online.is_some_and(|s| s != session) {
                wait.check()?;
                if self.cv.wait_until(&mut st, deadline).timed_out() {
                    return Err(DbError::lock_timeout());
                }
            }
            st.exclusive_waiters += 1;
        }
        let granted = loop {
            let free = match mode {
                LockMode::Shared => {
                    st.exclusive == Some(session)
                        || st.shared.contains(&session)
                        || (st.exclusive.is_none() && st.exclusive_waiters == 0)
                }
                LockMode::Exclusive => {
                    st.exclusive.is_none_or(|s| s == session)
                        && st.shared.iter().all(|&s| s == session)
                }
            };
            if free {
                break Ok(());
            }
            if let Err(e) = wait.check() {
                break Err(e);
            }
            if self.cv.wait_until(&mut st, deadline).timed_out() {
                break Err(DbError::lock_timeout());
            }
        };
        if mode == LockMode::Exclusive {
            st.exclusive_waiters -= 1;
        }
        if granted.is_ok() {
            match mode {
                LockMode::Shared => {
                    if st.exclusive != Some(session) {
                        st.shared.insert(session);
                    }
                }
                LockMode::Exclusive => {
                    st.shared.remove(&session);
                    st.exclusive = Some(session);
                }
            }
        } else {
            // A timed-out or killed exclusive waiter may have held back shared requests.
            self.cv.notify_all();
        }
        granted
    }
    /// Wakes every wait so it looks at its session's interrupt flag (after a KILL).
    pub fn wake(&self) {
        let _st = self.state.lock();
        self.cv.notify_all();
    }

    /// Starts `session`'s online hold; it holds the lock exclusively now (then releases it, and
    /// takes it again at the end of its build).
    pub fn hold_online(&self, session: u64) {
        let mut st = self.state.lock();
        debug_assert_eq!(st.exclusive, Some(session));
        st.online = Some(session);
    }

    /// Ends `session`'s online hold.
    pub fn end_online(&self, session: u64) {
        let mut st = self.state.lock();
        if st.online == Some(session) {
            st.online = None;
        }
        self.cv.notify_all();
    }

    pub fn release(&self, session: u64) {
        let mut st = self.state.lock();
        st.shared.remove(&session);
        if st.exclusive == Some(session) {
            st.exclusive = None;
        }
        self.cv.notify_all();
    }
}
