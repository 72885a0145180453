//! Commit throughput: T threads each committing single-row writes with synchronous durability for a fixed
//! time. With group commit, one fsync covers every commit waiting for it, so commits/s should grow with T.

use super::keys::{KeyKind, KeyStream};
use crate::engine::{self, BenchError, BenchResult, DurabilityMode, EngineConfig};
use crate::stats::{self, Latency};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct CommitParams {
    pub thread_counts: Vec<usize>,
    pub secs: f64,
    pub cache_bytes: u64,
    pub seed: u64,
    pub dir: PathBuf,
}

#[derive(Debug, Clone)]
pub struct CommitPoint {
    pub engine: String,
    pub threads: usize,
    pub commits: u64,
    pub secs: f64,
    pub latency: Option<Latency>,
}

impl CommitPoint {
    pub fn commits_per_sec(&self) -> f64 {
        self.commits as f64 / self.secs.max(1e-9)
    }
}

/// Runs one (engine, thread count) point in a fresh directory.
pub fn run_point(name: &str, threads: usize, p: &CommitParams) -> BenchResult<CommitPoint> {
    let dir = p.dir.join(format!("{name}-commit-{threads}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let cfg = EngineConfig {
        cache_bytes: p.cache_bytes,
        durability: DurabilityMode::Sync,
        betula_tree: None,
        betula_wal_recycle: None,
    };
    let eng = engine::open(name, &dir, &cfg)?;
    let ks = KeyStream::new(p.seed);
    let stop = AtomicBool::new(false);
    let err: Mutex<Option<BenchError>> = Mutex::new(None);
    let start = Instant::now();
    let lats: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let (eng, ks, stop, err) = (&eng, &ks, &stop, &err);
                s.spawn(move || {
                    let mut lat = Vec::new();
                    let mut i = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        // Disjoint rows per thread.
                        let row = ((t as u64) << 40) | i;
                        let t0 = Instant::now();
                        if let Err(e) = eng.write_batch(ks.batch(KeyKind::Random, row, row + 1)) {
                            err.lock().unwrap().get_or_insert(e);
                            break;
                        }
                        lat.push(t0.elapsed().as_nanos() as u64);
                        i += 1;
                    }
                    lat
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs_f64(p.secs));
        stop.store(true, Ordering::Relaxed);
        hs.into_iter().map(|h| h.join().expect("writer")).collect()
    });
    let secs = start.elapsed().as_secs_f64();
    if let Some(e) = err.into_inner().unwrap() {
        return Err(e);
    }
    let mut all: Vec<u64> = lats.into_iter().flatten().collect();
    let commits = all.len() as u64;
    // Close without waiting on a final checkpoint's cost being counted: it is after `secs` was taken.
    eng.close()?;
    std::fs::remove_dir_all(&dir)?;
    Ok(CommitPoint {
        engine: name.to_string(),
        threads,
        commits,
        secs,
        latency: stats::latency(&mut all),
    })
}
