//! A connection's interrupt flag ([`Interrupt`]): what KILL sets from another connection, and the
//! errors a statement stops with when it sees it (1317 after KILL QUERY, 1927 after KILL
//! CONNECTION). Kept here, in the bottom layer, because every layer that runs a long loop checks
//! it (expressions for SLEEP, scans, DML, LOAD DATA, table rebuilds).
//!
//! Invariants: a check is one relaxed atomic load while nobody killed the connection; the flag
//! only rises (RUNNING → KILL QUERY → KILL CONNECTION) except when a statement starts, which
//! forgets a KILL QUERY that arrived while the connection was idle; [`Interrupt::sleep`] returns
//! as soon as the flag rises (KILL wakes it, no polling). A [`LockWait`] (a lock wait's timeout
//! and the flag) ends early once the flag rises: KILL wakes the lock's waiters
//! (`Engine::wake_waits`), which look at the flag before each wait.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::code::ErrorCode;
use super::db_error::{DbError, DbResult};

const RUNNING: u8 = 0;
const KILL_QUERY: u8 = 1;
const KILL_CONNECTION: u8 = 2;

#[derive(Default)]
struct Flag {
    state: AtomicU8,
    /// Held by a sleeping statement between its check and its wait, and by KILL to wake it.
    sleepers: Mutex<()>,
    wake: Condvar,
}

/// A connection's interrupt flag; clones share it (the connection's context and the process
/// list's entry).
#[derive(Clone, Default)]
pub struct Interrupt(Arc<Flag>);

impl Interrupt {
    /// KILL QUERY (`connection` false) or KILL [CONNECTION]: raises the flag and wakes a SLEEP.
    pub fn kill(&self, connection: bool) {
        let v = if connection {
            KILL_CONNECTION
        } else {
            KILL_QUERY
        };
        self.0.state.fetch_max(v, Ordering::SeqCst);
        let _held = self.0.sleepers.lock();
        self.0.wake.notify_all();
    }

    /// Whether a KILL (QUERY or CONNECTION) is pending: what ends lock waits early.
    pub fn raised(&self) -> bool {
        self.0.state.load(Ordering::SeqCst) != RUNNING
    }

    /// The storage engine's view of this flag: a row-lock wait ends (`Cancelled`) once it is
    /// raised.
    pub fn wait_cancel(&self) -> betula_storage::WaitCancel {
        let flag = self.clone();
        betula_storage::WaitCancel::new(move || flag.raised())
    }

    /// Whether the connection was killed: it closes after its reply.
    pub fn connection_killed(&self) -> bool {
        self.0.state.load(Ordering::SeqCst) == KILL_CONNECTION
    }

    /// At a statement's start: a KILL QUERY that arrived while the connection was idle is
    /// forgotten (as in MariaDB); a killed connection runs nothing more (1927).
    pub fn statement_starts(&self) -> DbResult<()> {
        if self.0.state.load(Ordering::Relaxed) == RUNNING {
            return Ok(());
        }
        let _ =
            self.0
                .state
                .compare_exchange(KILL_QUERY, RUNNING, Ordering::SeqCst, Ordering::SeqCst);
        self.check()
    }

    /// Between rows: 1317 after KILL QUERY, 1927 after KILL CONNECTION.
    #[inline]
    pub fn check(&self) -> DbResult<()> {
        match self.0.state.load(Ordering::Relaxed) {
            RUNNING => Ok(()),
            state => Err(Self::error(state)),
        }
    }

    #[cold]
    fn error(state: u8) -> DbError {
        if state == KILL_QUERY {
            DbError::new(
                ErrorCode::QueryInterrupted,
                "Query execution was interrupted",
            )
        } else {
            DbError::new(ErrorCode::ConnectionKilled, "Connection was killed")
        }
    }

    /// Waits `d` (SLEEP), or until the connection is killed (then its error).
    pub fn sleep(&self, d: Duration) -> DbResult<()> {
        let deadline = Instant::now().checked_add(d);
        let mut held = self.0.sleepers.lock();
        loop {
            self.check()?;
            match deadline {
                Some(at) => {
                    if self.0.wake.wait_until(&mut held, at).timed_out() {
                        return self.check();
                    }
                }
                None => self.0.wake.wait(&mut held),
            }
        }
    }
}

/// How long a session may wait for a lock, and the flag that ends the wait early (KILL).
#[derive(Clone, Copy)]
pub struct LockWait<'a> {
    pub timeout: Duration,
    pub interrupt: Option<&'a Interrupt>,
}

impl LockWait<'_> {
    /// A wait ended only by its timeout.
    pub const fn timeout(timeout: Duration) -> LockWait<'static> {
        LockWait {
            timeout,
            interrupt: None,
        }
    }

    /// Before each wait: the interrupt's error if the session was killed.
    pub fn check(&self) -> DbResult<()> {
        self.interrupt.map_or(Ok(()), Interrupt::check)
    }
}

/// One flag is one generator of interruptions: clones are equal, two connections' flags not.
impl PartialEq for Interrupt {
    fn eq(&self, other: &Interrupt) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interrupt({})", self.0.state.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_query_is_forgotten_at_the_next_statement_kill_connection_is_not() {
        let i = Interrupt::default();
        assert!(i.check().is_ok());
        i.kill(false);
        assert_eq!(i.check().unwrap_err().code, ErrorCode::QueryInterrupted);
        assert!(!i.connection_killed());
        i.statement_starts().unwrap();
        assert!(i.check().is_ok());
        i.kill(true);
        i.kill(false); // never lowers the flag
        assert_eq!(i.check().unwrap_err().code, ErrorCode::ConnectionKilled);
        assert_eq!(
            i.statement_starts().unwrap_err().code,
            ErrorCode::ConnectionKilled
        );
        assert!(i.connection_killed());
    }

    #[test]
    fn kill_wakes_a_sleep_at_once() {
        let i = Interrupt::default();
        let start = Instant::now();
        i.sleep(Duration::from_millis(20)).unwrap();
        assert!(start.elapsed() >= Duration::from_millis(20));
        let killer = i.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            killer.kill(false);
        });
        let start = Instant::now();
        let e = i.sleep(Duration::from_secs(60)).unwrap_err();
        assert_eq!(e.code, ErrorCode::QueryInterrupted);
        assert!(start.elapsed() < Duration::from_secs(30));
        t.join().unwrap();
        // An endless sleep wakes too.
        let i = Interrupt::default();
        let killer = i.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            killer.kill(true);
        });
        let e = i.sleep(Duration::MAX).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConnectionKilled);
        t.join().unwrap();
    }
}
