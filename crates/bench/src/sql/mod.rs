//! `betula-bench sql`: the seed workloads (shared/bench/peers) run through the MySQL protocol against
//! servers the suite starts itself — Betula, MariaDB InnoDB, MariaDB MyRocks — with one report.

pub mod driver;
pub mod hot_reads;
pub mod outcome;
pub mod report;
pub mod sensor_data;
pub mod sensor_stream;
pub mod upsert_rollup;

use crate::engine::BenchResult;
use crate::peer::{self, EngineKind, StartOptions};
use outcome::Status;
use std::path::PathBuf;
use std::time::Duration;

/// The workloads of the peer baselines (W1..W4) and the roll-up one; not all are implemented yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// W2: 4 clients × 1000-row INSERTs in arrival order.
    SensorStream,
    /// W4: per-sensor queries on recent data of the sensor-stream table.
    HotReads,
    /// Per-minute roll-up with INSERT ... ON DUPLICATE KEY UPDATE.
    UpsertRollup,
    /// W1: LOAD DATA of the 20M-row CSV.
    BulkLoad,
    /// W3: sysbench-like OLTP.
    Oltp,
}

pub const ALL: [Workload; 5] = [
    Workload::SensorStream,
    Workload::HotReads,
    Workload::UpsertRollup,
    Workload::BulkLoad,
    Workload::Oltp,
];

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::SensorStream => "sensor-stream",
            Workload::HotReads => "hot-reads",
            Workload::UpsertRollup => "upsert-rollup",
            Workload::BulkLoad => "bulk-load",
            Workload::Oltp => "oltp",
        }
    }

    pub fn parse(s: &str) -> Option<Workload> {
        ALL.into_iter().find(|w| w.name() == s.trim())
    }

    pub fn implemented(self) -> bool {
        matches!(
            self,
            Workload::SensorStream | Workload::HotReads | Workload::UpsertRollup
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            Workload::SensorStream => "W2: CREATE TABLE sensordata_w2 (PK (sensor_id, ts)); C clients each send 1000-row multi-row INSERTs in arrival order (one ts across 1000 sensors per INSERT, client i sends batches i, i+C, …), autocommit, for a fixed duration",
            Workload::HotReads => "W4 on the sensor-stream table, one connection: `SELECT * … WHERE sensor_id=? AND ts > NOW - INTERVAL 60 SECOND` and `SELECT AVG(data1), MAX(data1) … WHERE sensor_id=? AND ts >= NOW - INTERVAL 1 HOUR`, NOW = newest ts, random sensor per run (seed 7), warm-up runs first",
            Workload::UpsertRollup => "per-minute roll-up table sensor_rollup (PK (sensor_id, minute)); C clients each send 1000-row `INSERT … ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), sum1 = sum1 + VALUES(sum1)` (one second of readings of all sensors into its minute), autocommit, for a fixed duration",
            Workload::BulkLoad => "W1: LOAD DATA of the 20M-row sensor CSV",
            Workload::Oltp => "W3: sysbench oltp_insert / point_select / read_write",
        }
    }
}

/// Settings of a suite run.
#[derive(Debug, Clone)]
pub struct SqlParams {
    pub engines: Vec<EngineKind>,
    pub workloads: Vec<Workload>,
    pub quick: bool,
    pub clients: usize,
    pub sensors: usize,
    pub stream_secs: u64,
    pub upsert_secs: u64,
    pub query_runs: usize,
    pub query_warmup: usize,
    pub seed: u64,
    pub dir: PathBuf,
    pub keep: bool,
    pub start: StartOptions,
}

/// Whether a bigger or a smaller figure is the better one (for reading ratios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    Neither,
}

/// One reported number.
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: String,
    pub value: Option<f64>,
    pub better: Better,
}

pub fn fig(name: &str, value: Option<f64>, better: Better) -> Figure {
    Figure {
        name: name.to_string(),
        value,
        better,
    }
}

/// The rate figures every ingest workload reports: average rows/s, and the median and worst 1-second
/// windows with their ratio (the steadiness that checkpoint stalls show up in).
pub fn rate_figures(rows: u64, secs: f64, per_sec: &[u64]) -> Vec<Figure> {
    let steady = crate::stats::steadiness(per_sec);
    vec![
        fig(
            "rows/s (average)",
            crate::stats::ratio(rows as f64, secs),
            Better::Higher,
        ),
        fig(
            "rows/s, median 1-s window",
            steady.map(|s| s.median),
            Better::Higher,
        ),
        fig(
            "rows/s, worst 1-s window",
            steady.map(|s| s.worst),
            Better::Higher,
        ),
        fig("worst ÷ median", steady.map(|s| s.ratio), Better::Higher),
    ]
}

/// One workload on one server.
#[derive(Debug, Clone)]
pub struct WorkloadResult {
    pub workload: Workload,
    pub status: Status,
    pub figures: Vec<Figure>,
    /// Per-second samples: (second, rows in that second, server bytes written in that second).
    pub series: Vec<(u64, u64, Option<u64>)>,
    pub notes: Vec<String>,
}

impl WorkloadResult {
    pub fn new(workload: Workload) -> WorkloadResult {
        WorkloadResult {
            workload,
            status: Status::Ok,
            figures: Vec::new(),
            series: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Everything about one server.
#[derive(Debug, Clone)]
pub struct EngineResult {
    pub engine: EngineKind,
    pub version: String,
    pub config: String,
    /// Set when the server could not be started (then no workload ran).
    pub start_error: Option<String>,
    pub results: Vec<WorkloadResult>,
}

/// What sensor-stream leaves for hot-reads: the batches (timestamps) acknowledged.
#[derive(Debug, Clone, Default)]
pub struct StreamState {
    pub batches: Vec<u64>,
}

pub fn run_engine(kind: EngineKind, p: &SqlParams) -> BenchResult<EngineResult> {
    let root = p.dir.join(kind.name());
    eprintln!("[{}] starting in {}", kind.name(), root.display());
    let mut er = EngineResult {
        engine: kind,
        version: String::new(),
        config: String::new(),
        start_error: None,
        results: Vec::new(),
    };
    let server = match peer::start(kind, &root, &p.start) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("[{}] cannot start: {e}", kind.name());
            er.start_error = Some(e.to_string());
            return Ok(er);
        }
    };
    er.version = server.version.clone();
    er.config = server.config.clone();
    let mut stream: Option<StreamState> = None;
    for &w in &p.workloads {
        eprintln!("[{}] {}", kind.name(), w.name());
        let r = match w {
            Workload::SensorStream => {
                let (r, st) = sensor_stream::run(&server, p);
                stream = st;
                r
            }
            Workload::HotReads => hot_reads::run(&server, p, stream.as_ref()),
            Workload::UpsertRollup => upsert_rollup::run(&server, p),
            other => {
                let mut r = WorkloadResult::new(other);
                r.status = Status::NotImplemented;
                r
            }
        };
        eprintln!("[{}] {}: {}", kind.name(), w.name(), r.status.label());
        er.results.push(r);
    }
    server.stop(Duration::from_secs(180))?;
    if !p.keep {
        let _ = std::fs::remove_dir_all(&root);
    }
    Ok(er)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_names_round_trip() {
        for w in ALL {
            assert_eq!(Workload::parse(w.name()), Some(w));
        }
        assert_eq!(Workload::parse("nope"), None);
        assert!(Workload::SensorStream.implemented());
        assert!(!Workload::BulkLoad.implemented());
    }
}
