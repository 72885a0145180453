//! A once-a-second sampler of a running phase: at each whole second after the phase began it reads the rows
//! counter, the process's disk-write counter and the engine's background gauge. Per-second figures are the
//! differences between marks (stats::per_second); the partial last second is not a sample.

use crate::io_stats::ProcIo;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Default, Clone)]
pub struct Marks {
    /// Rows done by second i+1.
    pub rows: Vec<u64>,
    /// Process write_bytes (since the phase began) by second i+1.
    pub write_bytes: Vec<u64>,
    /// Engine gauge at second i+1 (Betula: checkpoints done; RocksDB: flushes + compactions running).
    pub background: Vec<u64>,
}

/// Samples until `done` is set. Sleeps to each absolute second boundary so marks do not drift.
pub fn run(
    start: Instant,
    rows: &AtomicU64,
    done: &AtomicBool,
    background: &dyn Fn() -> u64,
) -> Marks {
    let io0 = ProcIo::now();
    let mut m = Marks::default();
    let mut next = 1u64;
    loop {
        let due = start + Duration::from_secs(next);
        // Wake at least every 50 ms to notice the end of the phase.
        loop {
            if done.load(Ordering::Acquire) {
                return m;
            }
            let now = Instant::now();
            if now >= due {
                break;
            }
            std::thread::sleep((due - now).min(Duration::from_millis(50)));
        }
        m.rows.push(rows.load(Ordering::Acquire));
        m.write_bytes.push(ProcIo::now().since(&io0).net_written());
        m.background.push(background());
        next += 1;
    }
}
