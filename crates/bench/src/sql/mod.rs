//! `betula-bench sql`: the seed workloads (shared/bench/peers) run through the MySQL protocol against
//! servers the suite starts itself — Betula, MariaDB InnoDB, MariaDB MyRocks — with one report.

pub mod backup_during;
pub mod ballast;
pub mod clustering_range;
pub mod compression;
pub mod driver;
pub mod drop_partition;
pub mod hot_reads;
pub mod iibench;
pub mod log_data;
pub mod maintained_rollup;
pub mod metrics_scrape;
pub mod online_ddl;
pub mod outcome;
pub mod plots;
pub mod reads_during;
pub mod replica_lag;
pub mod report;
pub mod retention;
pub mod rollup_events;
pub mod sensor_data;
pub mod sensor_load;
pub mod sensor_stream;
pub mod spider;
pub mod sysbench;
pub mod table_size;
pub mod upsert_rollup;

use crate::engine::BenchResult;
use crate::peer::{self, EngineKind, StartOptions};
use outcome::Status;
use std::path::PathBuf;
use std::time::Duration;

/// The workloads of the suite (the peer baselines' W1..W4 and the write-optimized ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// W1: LOAD DATA LOCAL INFILE of the sensor CSV.
    SensorLoad,
    /// W2: 4 clients × 1000-row INSERTs in arrival order.
    SensorStream,
    /// W4: per-sensor queries on recent data of the sensor-stream table.
    HotReads,
    /// W3: sysbench oltp_insert / oltp_point_select / oltp_read_write at several thread counts.
    Sysbench,
    /// Per-minute roll-up with INSERT ... ON DUPLICATE KEY UPDATE.
    UpsertRollup,
    /// iibench: inserts into a table with 3 secondary indexes.
    Iibench,
    /// Retention: insert at full speed while keeping the newest N rows (DELETE vs DROP PARTITION).
    Retention,
    /// The sensor load once per compression codec of each engine.
    Compression,
    /// DROP PARTITION of a partition holding N rows, timed.
    DropPartition,
    /// A 100k-row range through a clustering secondary key vs a plain one.
    ClusteringRange,
    /// ADD COLUMN (middle) and DROP COLUMN while sensor-stream's clients insert.
    OnlineDdl,
}

pub const ALL: [Workload; 11] = [
    Workload::SensorLoad,
    Workload::SensorStream,
    Workload::HotReads,
    Workload::Sysbench,
    Workload::UpsertRollup,
    Workload::Iibench,
    Workload::Retention,
    Workload::Compression,
    Workload::DropPartition,
    Workload::ClusteringRange,
    Workload::OnlineDdl,
];

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::SensorLoad => "sensor-load",
            Workload::SensorStream => "sensor-stream",
            Workload::HotReads => "hot-reads",
            Workload::Sysbench => "sysbench",
            Workload::UpsertRollup => "upsert-rollup",
            Workload::Iibench => "iibench",
            Workload::Retention => "retention",
            Workload::Compression => "compression",
            Workload::DropPartition => "drop-partition",
            Workload::ClusteringRange => "clustering-range",
            Workload::OnlineDdl => "online-ddl",
        }
    }

    pub fn parse(s: &str) -> Option<Workload> {
        match s.trim() {
            "bulk-load" => Some(Workload::SensorLoad),
            "oltp" => Some(Workload::Sysbench),
            t => ALL.into_iter().find(|w| w.name() == t),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Workload::SensorLoad => sensor_load::DESCRIPTION,
            Workload::SensorStream => "W2: CREATE TABLE sensordata_w2 (PK (sensor_id, ts)); C clients each send 1000-row multi-row INSERTs in arrival order (one ts across 1000 sensors per INSERT, client i sends batches i, i+C, …), autocommit, for a fixed duration; meanwhile one more connection runs W4's two queries (alternately, every 100 ms, random sensor, NOW = newest second being written): the \"during the stream\" latencies",
            Workload::HotReads => "W4 on the sensor-stream table right after sensor-stream, one connection: `SELECT * … WHERE sensor_id=? AND ts > NOW - INTERVAL 60 SECOND` and `SELECT AVG(data1), MAX(data1) … WHERE sensor_id=? AND ts >= NOW - INTERVAL 1 HOUR`, NOW = newest ts, random sensor per run (seed 7), warm-up runs first",
            Workload::Sysbench => sysbench::DESCRIPTION,
            Workload::UpsertRollup => "(1) per-minute roll-up table sensor_rollup (PK (sensor_id, minute)); C clients each send 1000-row `INSERT … ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), sum1 = sum1 + VALUES(sum1)` (one second of readings of all sensors into its minute), autocommit, for a fixed duration; (2) \"events tx\": the event schema events (PK (hid, mid, id)), C clients run transactions of 4 single-row INSERTs plus 2 roll-up upserts (per (hid, hour) and per (hid, mid), `cnt = cnt + VALUES(cnt)`), deadlocks retried, for the same duration; (3) Betula only: the readings as 1000-row base INSERTs (PK (sensor_id, ts)) into a table without a roll-up, then into one with a maintained per-minute roll-up (CREATE ROLLUP ... COUNT(*), SUM(data1)), the same duration each: base rows/s of both and their ratio, and the p50/p99 of one sensor's last day of per-minute rows read from the roll-up every 100 ms during the second",
            Workload::Iibench => iibench::DESCRIPTION,
            Workload::Retention => retention::DESCRIPTION,
            Workload::Compression => compression::DESCRIPTION,
            Workload::DropPartition => drop_partition::DESCRIPTION,
            Workload::ClusteringRange => clustering_range::DESCRIPTION,
            Workload::OnlineDdl => online_ddl::DESCRIPTION,
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
    /// sensor-load: rows of the CSV (sensors × seconds).
    pub load_rows: u64,
    /// sysbench: rows prepared, seconds per test, thread counts.
    pub sysbench_rows: u64,
    pub sysbench_secs: u64,
    pub sysbench_threads: Vec<usize>,
    /// iibench: time cap in seconds, and the datadir ÷ cache it runs to.
    pub iibench_secs: u64,
    pub iibench_cache_factor: u64,
    /// retention: seconds per variant, rows kept.
    pub retention_secs: u64,
    pub retention_keep: u64,
    /// compression: rows loaded per codec.
    pub compression_rows: u64,
    /// compression: the codecs run (empty: all).
    pub compression_codecs: Vec<String>,
    /// sensor-load: table options appended to Betula's table (empty: none).
    pub betula_load_options: String,
    /// drop-partition: rows in the partition dropped.
    pub drop_rows: u64,
    /// clustering-range: rows of the table (rounded up to a power of two).
    pub clustering_rows: u64,
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

/// The cost figures of a timed ingest run: retries, server bytes written and CPU per row, the client's CPU.
pub fn cost_figures(run: &driver::BatchRun, rows: u64) -> Vec<Figure> {
    vec![
        fig(
            "statements retried (deadlock, lock wait)",
            Some(run.retries as f64),
            Better::Lower,
        ),
        fig(
            "server bytes written/row",
            sensor_stream::per(run.server_write_bytes, rows),
            Better::Lower,
        ),
        fig(
            "server CPU µs/row",
            run.server_cpu_secs
                .and_then(|c| crate::stats::ratio(c * 1e6, rows as f64)),
            Better::Lower,
        ),
        fig(
            "client CPU, % of one core",
            run.client_cpu_secs
                .and_then(|c| crate::cpu_time::share_of_one_core(c, run.secs)),
            Better::Neither,
        ),
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
    /// Latency percentiles for the plot: (what, p50 ms, p99 ms).
    pub latencies: Vec<(String, f64, f64)>,
    /// Allocated bytes of the server's data directory right after the workload.
    pub datadir_after: Option<u64>,
    pub notes: Vec<String>,
}

impl WorkloadResult {
    pub fn new(workload: Workload) -> WorkloadResult {
        WorkloadResult {
            workload,
            status: Status::Ok,
            figures: Vec::new(),
            series: Vec::new(),
            latencies: Vec::new(),
            datadir_after: None,
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
            Workload::SensorLoad => sensor_load::run(&server, p),
            Workload::Sysbench => sysbench::run(&server, p),
            Workload::Iibench => iibench::run(&server, p),
            Workload::Retention => retention::run(&server, p),
            Workload::Compression => compression::run(&server, p),
            Workload::DropPartition => drop_partition::run(&server, p),
            Workload::ClusteringRange => clustering_range::run(&server, p),
            Workload::OnlineDdl => online_ddl::run(&server, p),
        };
        let mut r = r;
        r.datadir_after = server.datadir_bytes();
        r.figures.push(fig(
            "datadir after the workload ÷ cache",
            r.datadir_after
                .and_then(|d| crate::stats::ratio(d as f64, p.start.cache_bytes as f64)),
            Better::Neither,
        ));
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
        assert_eq!(Workload::parse("bulk-load"), Some(Workload::SensorLoad));
        assert_eq!(Workload::parse("oltp"), Some(Workload::Sysbench));
        for w in ALL {
            assert!(!w.describe().is_empty());
        }
    }
}
