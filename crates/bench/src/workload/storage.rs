//! The storage workload: N random inserts, N sequential inserts, settle, point reads, range scans — per
//! engine, in-process, one engine after the other.

use super::keys::{KeyKind, KeyStream, KEY_BYTES, VALUE_BYTES};
use super::sampler::{self, Marks};
use crate::engine::{self, BenchError, BenchResult, Engine, EngineConfig};
use crate::io_stats::{dir_size, log_size, ProcIo};
use crate::stats::{self, Latency};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct StorageParams {
    /// Rows per insert phase (N random, then N sequential).
    pub rows: u64,
    pub engine: EngineConfig,
    pub threads: usize,
    /// Rows per write batch (one commit).
    pub batch: usize,
    pub seed: u64,
    /// Point reads after the inserts.
    pub reads: u64,
    pub scans: u64,
    pub scan_rows: usize,
    /// Parent of each engine's data directory (`<dir>/<engine>`, emptied first).
    pub dir: PathBuf,
    /// Keep the data directories after the run.
    pub keep: bool,
}

impl StorageParams {
    pub fn raw_bytes_per_phase(&self) -> u64 {
        self.rows * (KEY_BYTES + VALUE_BYTES) as u64
    }
}

/// One timed phase.
#[derive(Debug, Clone, Default)]
pub struct Phase {
    pub name: &'static str,
    pub rows: u64,
    pub secs: f64,
    pub io: ProcIo,
    pub marks: Marks,
    /// CPU seconds each thread (by name) used during the phase, largest first.
    pub thread_cpu: Vec<(String, f64)>,
}

impl Phase {
    pub fn rows_per_sec(&self) -> f64 {
        if self.secs > 0.0 {
            self.rows as f64 / self.secs
        } else {
            0.0
        }
    }

    pub fn per_second(&self) -> Vec<u64> {
        stats::per_second(&self.marks.rows)
    }

    pub fn io_per_second(&self) -> Vec<u64> {
        stats::per_second(&self.marks.write_bytes)
    }
}

#[derive(Debug, Clone)]
pub struct ReadResult {
    pub count: u64,
    pub secs: f64,
    pub missing: u64,
    pub wrong: u64,
    pub latency: Option<Latency>,
    pub io: ProcIo,
}

#[derive(Debug, Clone)]
pub struct ScanResult {
    pub scans: u64,
    pub rows: u64,
    pub short_scans: u64,
    pub secs: f64,
    pub io: ProcIo,
}

#[derive(Debug, Clone)]
pub struct EngineRun {
    pub engine: String,
    pub version: String,
    pub settings: Vec<(String, String)>,
    pub open_secs: f64,
    pub random: Phase,
    pub sequential: Phase,
    pub settle: Phase,
    pub reads: ReadResult,
    pub scans: ScanResult,
    /// Apparent bytes and allocated bytes of the data directory after settling.
    pub disk_len: u64,
    pub disk_alloc: u64,
    /// Of `disk_len`, the write-ahead log's files.
    pub log_len: u64,
    pub extra: Vec<(String, String)>,
    pub close_secs: f64,
}

impl EngineRun {
    /// Bytes written to disk by the inserts (and by settling them) per byte of key+value inserted.
    pub fn write_amp(&self, raw_bytes_total: u64, include_settle: bool) -> f64 {
        let mut w = self.random.io.net_written() + self.sequential.io.net_written();
        if include_settle {
            w += self.settle.io.net_written();
        }
        w as f64 / raw_bytes_total.max(1) as f64
    }

    /// Both insert phases' per-second series back to back.
    pub fn insert_series(&self) -> Vec<u64> {
        let mut s = self.random.per_second();
        s.extend(self.sequential.per_second());
        s
    }
}

fn first_error(slot: &Mutex<Option<BenchError>>, e: BenchError) {
    let mut g = slot.lock().unwrap();
    if g.is_none() {
        *g = Some(e);
    }
}

/// Inserts rows `[0, rows)` of `kind` in batches handed out to `threads` workers, sampled every second.
pub fn insert_phase(
    eng: &dyn Engine,
    p: &StorageParams,
    kind: KeyKind,
    name: &'static str,
) -> BenchResult<Phase> {
    let ks = KeyStream::new(p.seed);
    let batch = p.batch.max(1) as u64;
    let batches = p.rows.div_ceil(batch);
    let next = AtomicU64::new(0);
    let done_rows = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let err = Mutex::new(None);
    let io0 = ProcIo::now();
    let cpu0 = crate::cpu_time::threads_cpu_secs();
    let start = Instant::now();
    let writer_cpu = Mutex::new(0.0f64);
    let (marks, cpu1) = std::thread::scope(|s| {
        let sampler =
            s.spawn(|| sampler::run(start, &done_rows, &done, &|| eng.background_events()));
        let workers: Vec<_> = (0..p.threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    let own0 = crate::cpu_time::this_thread_cpu_secs();
                    loop {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= batches || err.lock().unwrap().is_some() {
                            break;
                        }
                        let lo = b * batch;
                        let hi = (lo + batch).min(p.rows);
                        if let Err(e) = eng.write_batch(ks.batch(kind, lo, hi)) {
                            first_error(&err, e);
                            break;
                        }
                        done_rows.fetch_add(hi - lo, Ordering::Release);
                    }
                    if let (Some(a), Some(b)) = (own0, crate::cpu_time::this_thread_cpu_secs()) {
                        *writer_cpu.lock().unwrap() += b - a;
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
        done.store(true, Ordering::Release);
        let marks = sampler.join().expect("sampler thread");
        (marks, crate::cpu_time::threads_cpu_secs())
    });
    let secs = start.elapsed().as_secs_f64();
    if let Some(e) = err.into_inner().unwrap() {
        return Err(e);
    }
    Ok(Phase {
        name,
        rows: p.rows,
        secs,
        io: ProcIo::now().since(&io0),
        marks,
        thread_cpu: {
            // The writers have ended by `cpu1`; each measured itself.
            let mut t = crate::cpu_time::threads_cpu_since(&cpu0, &cpu1);
            t.push(("writers".to_string(), writer_cpu.into_inner().unwrap()));
            t.sort_by(|a, b| b.1.total_cmp(&a.1));
            t
        },
    })
}

fn settle_phase(eng: &dyn Engine) -> BenchResult<Phase> {
    let io0 = ProcIo::now();
    let start = Instant::now();
    eng.settle()?;
    Ok(Phase {
        name: "settle",
        rows: 0,
        secs: start.elapsed().as_secs_f64(),
        io: ProcIo::now().since(&io0),
        marks: Marks::default(),
        thread_cpu: Vec::new(),
    })
}

/// Picks an existing row: half the picks among the random keys, half among the sequential ones.
fn pick(rng: &mut SmallRng, rows: u64) -> (KeyKind, u64) {
    let kind = if rng.gen_bool(0.5) {
        KeyKind::Random
    } else {
        KeyKind::Sequential
    };
    (kind, rng.gen_range(0..rows))
}

fn read_phase(eng: &dyn Engine, p: &StorageParams) -> BenchResult<ReadResult> {
    let ks = KeyStream::new(p.seed);
    let threads = p.threads.max(1) as u64;
    let io0 = ProcIo::now();
    let start = Instant::now();
    let results: Vec<BenchResult<(Vec<u64>, u64, u64)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let ks = &ks;
                s.spawn(move || {
                    let n = p.reads / threads + u64::from(t < p.reads % threads);
                    let mut rng = SmallRng::seed_from_u64(p.seed ^ 0x7ead_0000 ^ t);
                    let mut lat = Vec::with_capacity(n as usize);
                    let (mut missing, mut wrong) = (0, 0);
                    for _ in 0..n {
                        let (kind, row) = pick(&mut rng, p.rows);
                        let key = ks.key(kind, row);
                        let t0 = Instant::now();
                        let got = eng.get(&key)?;
                        lat.push(t0.elapsed().as_nanos() as u64);
                        match got {
                            None => missing += 1,
                            Some(v) if v[..] != ks.value(kind, row)[..] => wrong += 1,
                            Some(_) => {}
                        }
                    }
                    Ok((lat, missing, wrong))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("reader thread"))
            .collect()
    });
    let secs = start.elapsed().as_secs_f64();
    let mut lat = Vec::new();
    let (mut missing, mut wrong) = (0, 0);
    for r in results {
        let (l, m, w) = r?;
        lat.extend(l);
        missing += m;
        wrong += w;
    }
    Ok(ReadResult {
        count: lat.len() as u64,
        secs,
        missing,
        wrong,
        latency: stats::latency(&mut lat),
        io: ProcIo::now().since(&io0),
    })
}

fn scan_phase(eng: &dyn Engine, p: &StorageParams) -> BenchResult<ScanResult> {
    let ks = KeyStream::new(p.seed);
    let mut rng = SmallRng::seed_from_u64(p.seed ^ 0x5ca2);
    let io0 = ProcIo::now();
    let start = Instant::now();
    let (mut rows, mut short) = (0u64, 0u64);
    for _ in 0..p.scans {
        // Start at an existing random key: the sequential keys sit above all of them, so every scan can read
        // its full length.
        let row = rng.gen_range(0..p.rows);
        let (n, _) = eng.scan(&ks.key(KeyKind::Random, row), p.scan_rows)?;
        rows += n as u64;
        short += u64::from(n < p.scan_rows);
    }
    Ok(ScanResult {
        scans: p.scans,
        rows,
        short_scans: short,
        secs: start.elapsed().as_secs_f64(),
        io: ProcIo::now().since(&io0),
    })
}

/// Runs the whole workload against one engine in a fresh directory.
pub fn run_engine(name: &str, p: &StorageParams) -> BenchResult<EngineRun> {
    let dir = p.dir.join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let t0 = Instant::now();
    let eng = engine::open(name, &dir, &p.engine)?;
    let open_secs = t0.elapsed().as_secs_f64();
    let version = eng.version();
    let settings = eng.settings();
    eprintln!("[{name}] inserting {} random rows", p.rows);
    let random = insert_phase(&*eng, p, KeyKind::Random, "random insert")?;
    eprintln!(
        "[{name}] random: {:.0} rows/s in {:.1}s; inserting {} sequential rows",
        random.rows_per_sec(),
        random.secs,
        p.rows
    );
    eprintln!("[{name}] {}", crate::report::thread_cpu_line(&random));
    let sequential = insert_phase(&*eng, p, KeyKind::Sequential, "sequential insert")?;
    eprintln!(
        "[{name}] sequential: {:.0} rows/s in {:.1}s; settling",
        sequential.rows_per_sec(),
        sequential.secs
    );
    eprintln!("[{name}] {}", crate::report::thread_cpu_line(&sequential));
    let settle = settle_phase(&*eng)?;
    let (disk_len, disk_alloc) = dir_size(&dir)?;
    let log_len = log_size(&dir)?;
    eprintln!(
        "[{name}] settled in {:.1}s, {} MiB on disk; {} point reads",
        settle.secs,
        disk_len >> 20,
        p.reads
    );
    let reads = read_phase(&*eng, p)?;
    eprintln!(
        "[{name}] reads: {:.0}/s; {} scans",
        reads.count as f64 / reads.secs,
        p.scans
    );
    let scans = scan_phase(&*eng, p)?;
    let extra = eng.extra_stats();
    let t1 = Instant::now();
    eng.close()?;
    let close_secs = t1.elapsed().as_secs_f64();
    if !p.keep {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(EngineRun {
        engine: name.to_string(),
        version,
        settings,
        open_secs,
        random,
        sequential,
        settle,
        reads,
        scans,
        disk_len,
        disk_alloc,
        log_len,
        extra,
        close_secs,
    })
}
