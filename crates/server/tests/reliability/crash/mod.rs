//! The crash loop (RocksDB's db_crashtest, over the MySQL protocol): the real server under mixed load,
//! killed with SIGKILL at a random moment, restarted, and checked against a model of what its clients
//! were told (model.rs), cycle after cycle.
//!
//! One seed picks every operation and every kill moment; the operating system's scheduling decides how far
//! the load got before the kill, so a failing seed reruns the same plan, not the same interleaving (the
//! failure message names the cycle, the seed and the data directory, which is kept for inspection).

pub mod model;
pub mod verify;
pub mod workers;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::server::{assert_no_panic, Server, ServerSpec};
use model::{event_ids, Model, Op, Outcome, ACCOUNTS, INITIAL_BALANCE};
use workers::{Worker, WorkerKind, WorkerStart};

pub const DB: &str = "crashdb";

/// How a crash loop runs.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    pub cycles: usize,
    pub seed: u64,
    pub workdir: PathBuf,
    /// Extra `key = value` settings of the server (durability, cache size).
    pub settings: Vec<(String, String)>,
    /// Load runs this long (a random pick in the range, milliseconds) before the kill.
    pub load_ms: (u64, u64),
}

/// What a crash loop measured.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    pub cycles: usize,
    pub restarts: usize,
    pub kills_during_recovery: usize,
    /// Cycles whose state was also checked on the running server, before the kill.
    pub live_checks: usize,
    pub acked: usize,
    pub refused: usize,
    pub unknown: usize,
    pub unknown_applied: usize,
    pub recovery_ms_max: u128,
}

/// The workers of a cycle: `BETULA_CRASH_WORKERS` (a comma-separated list of transfers, events, upserts,
/// loader, checkpoints) narrows a failure down to the kinds of work that cause it; by default two
/// transfer workers, two events workers, an upserter, the loader and the checkpointer.
fn workers() -> Vec<WorkerKind> {
    let spec = std::env::var("BETULA_CRASH_WORKERS")
        .unwrap_or_else(|_| "transfers,transfers,events,events,upserts,loader,checkpoints".into());
    let mut events = 0;
    spec.split(',')
        .map(|w| match w.trim() {
            "transfers" => WorkerKind::Transfers,
            "events" => {
                events += 1;
                WorkerKind::Events(events - 1)
            }
            "upserts" => WorkerKind::Upserts,
            "loader" => WorkerKind::LoaderAndAlter,
            "checkpoints" => WorkerKind::Checkpoints,
            other => panic!("BETULA_CRASH_WORKERS: unknown worker {other:?}"),
        })
        .collect()
}

fn schema() -> Vec<String> {
    let mut s = vec![
        format!("CREATE DATABASE {DB}"),
        format!("USE {DB}"),
        "CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)".into(),
        "CREATE TABLE transfers (id BIGINT PRIMARY KEY, src INT NOT NULL, dst INT NOT NULL, \
         amount BIGINT NOT NULL)"
            .into(),
        "CREATE TABLE events (id BIGINT PRIMARY KEY, stmt BIGINT NOT NULL, tag VARCHAR(32) NOT NULL, \
         payload VARCHAR(200) NOT NULL, KEY by_tag (tag))"
            .into(),
        "CREATE TABLE counters (k INT PRIMARY KEY, n BIGINT NOT NULL)".into(),
        "CREATE TABLE bulk (id BIGINT PRIMARY KEY, batch BIGINT NOT NULL, v VARCHAR(60) NOT NULL)"
            .into(),
    ];
    let accounts: Vec<String> = (0..ACCOUNTS)
        .map(|i| format!("({i}, {INITIAL_BALANCE})"))
        .collect();
    s.push(format!(
        "INSERT INTO accounts VALUES {}",
        accounts.join(", ")
    ));
    s
}

fn start(spec: &ServerSpec, cycle: usize, seed: u64) -> Result<(Server, u128), String> {
    let t0 = Instant::now();
    let server = Server::start(spec).map_err(|e| {
        format!(
            "restart failed at cycle {cycle} (seed {seed}, data in {}):\n{}",
            spec.datadir.display(),
            e.stderr
        )
    })?;
    Ok((server, t0.elapsed().as_millis()))
}

/// Reads the database back and checks it against the model (deciding the unknown operations).
fn verify(
    server: &Server,
    model: &mut Model,
    unknown: &[Op],
    context: &str,
) -> Result<usize, String> {
    let mut c = mysql::Conn::new(server.opts(Some(DB))).map_err(|e| format!("{context}: {e}"))?;
    let actual = verify::read_actual(&mut c).map_err(|e| format!("{context}: {e}"))?;
    let applied = verify::resolve_and_check(model, unknown, &actual)
        .map_err(|e| format!("{context}: {e}"))?;
    verify::check_indexes(&mut c, model.bulk_index).map_err(|e| format!("{context}: {e}"))?;
    Ok(applied)
}

/// The parts of the model a worker starts from.
fn start_of(kind: WorkerKind, model: &Model) -> WorkerStart {
    match kind {
        WorkerKind::Events(n) => WorkerStart {
            events: model
                .events
                .range(event_ids(n))
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            ..Default::default()
        },
        WorkerKind::LoaderAndAlter => WorkerStart {
            batches: model.batches.keys().copied().collect(),
            bulk_index: model.bulk_index,
            bulk_width: model.bulk_width,
            ..Default::default()
        },
        _ => WorkerStart::default(),
    }
}

/// Every operation a cycle sent, and the server if it still runs.
type CycleOps = (Vec<(Op, Outcome)>, Option<Server>);

/// Runs the load against `server` for `load`, then kills the server, or with `live_check` stops the
/// workers and leaves the server running (its state is then checked without a restart, which tells a
/// concurrency bug from a recovery bug). Returns every operation sent.
fn load_and_kill(
    server: Server,
    model: &Model,
    rng: &mut SmallRng,
    cycle: usize,
    load: Duration,
    live_check: bool,
) -> Result<CycleOps, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for (i, kind) in workers().iter().enumerate() {
        let id_base = (cycle as u64 + 1) * 1_000_000_000 + i as u64 * 100_000_000;
        let worker_rng = SmallRng::seed_from_u64(rng.gen());
        let Some(worker) = Worker::connect(
            *kind,
            server.opts(Some(DB)),
            worker_rng,
            id_base,
            start_of(*kind, model),
        ) else {
            return Err(format!("cycle {cycle}: a worker could not connect"));
        };
        let stop = stop.clone();
        handles.push(std::thread::spawn(move || worker.run(&stop)));
    }
    std::thread::sleep(load);
    // With a live check the workers finish what they are doing and the server lives on.
    let server = if live_check {
        Some(server)
    } else {
        server.kill9();
        None
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut ops = Vec::new();
    let mut unexpected = Vec::new();
    for h in handles {
        let report = h.join().map_err(|_| "a worker panicked".to_string())?;
        ops.extend(report.ops);
        unexpected.extend(report.unexpected);
    }
    if !unexpected.is_empty() {
        return Err(format!("cycle {cycle}: unexpected errors: {unexpected:#?}"));
    }
    Ok((ops, server))
}

/// Runs the loop; the data directory is `workdir/data`.
pub fn run(cfg: &LoopConfig) -> Result<Figures, String> {
    let spec = ServerSpec {
        datadir: cfg.workdir.join("data"),
        config: cfg.settings.clone(),
        env: Vec::new(),
    };
    let mut fig = Figures::default();
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let (server, _) = start(&spec, 0, cfg.seed)?;
    let mut c = server.conn(None);
    for sql in schema() {
        c.query_drop(&sql).map_err(|e| format!("{sql}: {e}"))?;
    }
    drop(c);
    let mut model = Model::default();
    let mut unknown: Vec<Op> = Vec::new();
    let mut server = Some(server);
    for cycle in 0..cfg.cycles {
        let s = match server.take() {
            Some(s) => s,
            None => {
                if rng.gen_range(0..100) < 10 {
                    Server::start_and_kill(&spec, Duration::from_millis(rng.gen_range(0..150)));
                    fig.kills_during_recovery += 1;
                }
                let (s, ms) = start(&spec, cycle, cfg.seed)?;
                fig.restarts += 1;
                fig.recovery_ms_max = fig.recovery_ms_max.max(ms);
                let context = format!(
                    "cycle {cycle} (seed {}, data in {})",
                    cfg.seed,
                    spec.datadir.display()
                );
                fig.unknown_applied += verify(&s, &mut model, &unknown, &context)?;
                assert_no_panic(&s.log(), &context);
                s
            }
        };
        let load = Duration::from_millis(rng.gen_range(cfg.load_ms.0..=cfg.load_ms.1));
        let live_check = cycle % 5 == 4;
        let (ops, live) = load_and_kill(s, &model, &mut rng, cycle, load, live_check)?;
        unknown.clear();
        journal(&cfg.workdir, cycle, &ops);
        for (op, outcome) in ops {
            match outcome {
                Outcome::Acked => {
                    model.apply(&op);
                    fig.acked += 1;
                }
                Outcome::Refused => fig.refused += 1,
                Outcome::Unknown => {
                    unknown.push(op);
                    fig.unknown += 1;
                }
            }
        }
        fig.cycles += 1;
        if let Some(s) = live {
            let context = format!("cycle {cycle}, live (seed {})", cfg.seed);
            if !unknown.is_empty() {
                return Err(format!(
                    "{context}: operations of unknown outcome: {unknown:?}"
                ));
            }
            verify(&s, &mut model, &[], &context)?;
            fig.live_checks += 1;
            s.kill9();
        }
    }
    final_checks(&spec, cfg.seed, &mut model, &unknown, &mut fig)?;
    Ok(fig)
}

/// Appends a cycle's operations and their outcomes to `workdir/ops.log`, the history a failure is
/// diagnosed from (kept with the data directory under `BETULA_CRASH_KEEP`).
fn journal(workdir: &std::path::Path, cycle: usize, ops: &[(Op, Outcome)]) {
    use std::io::Write;
    let text: String = ops
        .iter()
        .map(|(op, outcome)| format!("cycle {cycle} {outcome:?} {op:?}\n"))
        .collect();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(workdir.join("ops.log"));
    if let Ok(mut f) = file {
        let _ = f.write_all(text.as_bytes());
    }
}

/// After the last kill: recover and verify, stop cleanly, start again and verify again.
fn final_checks(
    spec: &ServerSpec,
    seed: u64,
    model: &mut Model,
    unknown: &[Op],
    fig: &mut Figures,
) -> Result<(), String> {
    let (s, _) = start(spec, fig.cycles, seed)?;
    fig.restarts += 1;
    fig.unknown_applied += verify(&s, model, unknown, "after the last kill")?;
    let status = s.stop();
    if !status.is_some_and(|st| st.success()) {
        return Err(format!("clean shutdown failed: {status:?}"));
    }
    let (s, _) = start(spec, fig.cycles, seed)?;
    fig.restarts += 1;
    verify(&s, model, &[], "after a clean shutdown")?;
    assert_no_panic(&s.log(), "crash loop");
    drop(s);
    Ok(())
}

/// The directory a crash loop works in: kept (and printed) when `keep` is set.
pub fn workdir(keep: bool) -> (PathBuf, Option<tempfile::TempDir>) {
    let dir = tempfile::Builder::new()
        .prefix("betula-crash-loop")
        .tempdir()
        .expect("temporary directory");
    if keep {
        let path = dir.keep();
        (path, None)
    } else {
        (dir.path().to_path_buf(), Some(dir))
    }
}
