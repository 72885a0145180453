//! Progress of a long statement ([`Progress`]), as MariaDB reports it: a state text, the stage
//! the statement is in out of how many, and how far the current stage is. SHOW PROCESSLIST
//! shows the total (`Progress`, 0-100), information_schema.PROCESSLIST the stage (`STAGE`,
//! `MAX_STAGE`) and the progress within it (`PROGRESS`). Table rebuilds and index builds report
//! it (ddl/rebuild.rs, ddl/online_index.rs).
//!
//! Invariants: written by the session's own thread only, read by any (relaxed atomics: a reader
//! may see a stage with the previous stage's counter for an instant, never a value outside
//! 0-100); cleared when the statement ends.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use parking_lot::Mutex;

/// One session's progress report (shared with its process-list entry).
#[derive(Default, Debug)]
pub struct Progress {
    state: Mutex<Option<&'static str>>,
    stage: AtomicU32,
    max_stage: AtomicU32,
    done: AtomicU64,
    total: AtomicU64,
}

/// What a process list shows of a [`Progress`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub state: &'static str,
    /// 1-based.
    pub stage: u32,
    pub max_stage: u32,
    /// Within the stage, 0-100.
    pub stage_percent: f64,
    /// Of the whole statement, 0-100.
    pub total_percent: f64,
}

impl Progress {
    /// Enters stage `stage` (1-based) of `max_stage`, with `total` units of work in it.
    pub fn stage(&self, state: &'static str, stage: u32, max_stage: u32, total: u64) {
        *self.state.lock() = Some(state);
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.max_stage.store(max_stage, Ordering::Relaxed);
        self.stage.store(stage, Ordering::Relaxed);
    }
    /// `done` units of the current stage's work are done.
    pub fn set_done(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }
    /// The statement ended (or stopped reporting).
    pub fn clear(&self) {
        *self.state.lock() = None;
        self.stage.store(0, Ordering::Relaxed);
        self.max_stage.store(0, Ordering::Relaxed);
    }
    /// What the process list shows; None when no statement reports progress.
    pub fn report(&self) -> Option<Report> {
        let state = (*self.state.lock())?;
        let stage = self.stage.load(Ordering::Relaxed).max(1);
        let max_stage = self.max_stage.load(Ordering::Relaxed).max(stage);
        let total = self.total.load(Ordering::Relaxed);
        let done = self.done.load(Ordering::Relaxed);
        let frac = if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).min(1.0)
        };
        Some(Report {
            state,
            stage,
            max_stage,
            stage_percent: frac * 100.0,
            total_percent: ((stage - 1) as f64 + frac) / max_stage as f64 * 100.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_progress_counts_finished_stages() {
        let p = Progress::default();
        assert_eq!(p.report(), None);
        p.stage("altering table", 2, 4, 200);
        p.set_done(50);
        let r = p.report().unwrap();
        assert_eq!((r.stage, r.max_stage), (2, 4));
        assert!((r.stage_percent - 25.0).abs() < 1e-9);
        assert!((r.total_percent - 31.25).abs() < 1e-9);
        p.set_done(500);
        assert!((p.report().unwrap().stage_percent - 100.0).abs() < 1e-9);
        p.clear();
        assert_eq!(p.report(), None);
    }
}
