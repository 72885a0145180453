//! Status counters MariaDB keeps per connection and sums for the server: SHOW STATUS (the
//! session's values), SHOW GLOBAL STATUS and information_schema.SESSION_STATUS /
//! GLOBAL_STATUS show them with the server-wide figures (infoschema/processlist.rs).
//!
//! | counter | counts |
//! | --- | --- |
//! | `Feature_window_functions` | SELECT blocks with window functions run (a statement with two derived tables that have them counts 2) |
//!
//! Invariants: a count goes to the session's counter and to the server's at the same time, so
//! the global value is the sum over every connection since the server started; FLUSH STATUS
//! zeroes the session's counters only.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Context;

/// One connection's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStatus {
    pub feature_window_functions: u64,
}

/// The server's counters: every connection's, summed.
#[derive(Debug, Default)]
pub struct GlobalStatus {
    feature_window_functions: AtomicU64,
}

impl Context {
    /// Counts a SELECT block with window functions run (`Feature_window_functions`).
    pub fn count_window_functions(&mut self) {
        self.status.feature_window_functions += 1;
        self.engine
            .status
            .feature_window_functions
            .fetch_add(1, Ordering::Relaxed);
    }

    /// The counters by MariaDB's names: the session's, or (`global`) the server's.
    pub fn status_counters(&self, global: bool) -> Vec<(&'static str, u64)> {
        let windows = if global {
            self.engine
                .status
                .feature_window_functions
                .load(Ordering::Relaxed)
        } else {
            self.status.feature_window_functions
        };
        vec![("Feature_window_functions", windows)]
    }

    /// FLUSH STATUS: the session's counters start again from 0.
    pub fn flush_status(&mut self) {
        self.status = SessionStatus::default();
    }
}
