//! The log syncer: a background thread that starts the fsync of a batch's log records while the writer is
//! still applying the batch to its tree (design.md, "Write-ahead log and durability", invariant WAL1).
//!
//! A writer outside any transaction appends all of a batch's records, calls [`SyncRequests::request`] with
//! the last LSN, applies the messages, and only then waits in `Wal::sync_to`. The syncer thread takes the
//! request and becomes the log's group-commit leader for it, so the fsync runs on the other core while the
//! writer works; the writer's wait then usually finds the LSN durable or the fsync under way. A request
//! never makes anything durable that is not already appended, and the writer's acknowledgement still
//! waits for durability exactly as without the syncer: this only moves *when* the fsync starts.
//!
//! Invariants: `want` only grows; the thread exits once `stop` is set and it has seen it; a failed fsync
//! latches the environment inside `Wal::sync_to` (the syncer just stops asking until the next request).

use crate::tree::in_memory::message::Msn;
use parking_lot::{Condvar, Mutex};

#[derive(Default)]
struct State {
    /// Highest LSN a writer asked to have made durable.
    want: Msn,
    stop: bool,
}

/// Pending early-sync requests, shared by writers and the syncer thread.
#[derive(Default)]
pub struct SyncRequests {
    state: Mutex<State>,
    cond: Condvar,
    /// A syncer thread is serving requests (without one, `request` does nothing).
    active: std::sync::atomic::AtomicBool,
}

impl SyncRequests {
    /// Asks the syncer to make everything up to `lsn` durable soon; returns at once.
    pub fn request(&self, lsn: Msn) {
        if !self.active.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let mut st = self.state.lock();
        if lsn > st.want {
            st.want = lsn;
            self.cond.notify_one();
        }
    }

    /// Marks a syncer thread as serving (or no longer serving) requests.
    pub fn set_active(&self, active: bool) {
        self.active
            .store(active, std::sync::atomic::Ordering::Release);
        let mut st = self.state.lock();
        st.stop = !active;
        self.cond.notify_all();
    }

    /// Blocks until a request above `done` arrives (returns its LSN) or the syncer is stopped (None).
    pub fn next(&self, done: Msn) -> Option<Msn> {
        let mut st = self.state.lock();
        loop {
            if st.stop {
                return None;
            }
            if st.want > done {
                return Some(st.want);
            }
            self.cond.wait(&mut st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn requests_without_a_syncer_are_ignored_and_a_stop_ends_the_wait() {
        let r = Arc::new(SyncRequests::default());
        r.request(5);
        r.set_active(true);
        r.request(7);
        r.request(6);
        assert_eq!(r.next(0), Some(7));
        let r2 = r.clone();
        let waiter = std::thread::spawn(move || r2.next(7));
        std::thread::sleep(std::time::Duration::from_millis(20));
        r.set_active(false);
        assert_eq!(waiter.join().unwrap(), None);
    }
}
