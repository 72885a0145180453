//! Betula's benchmark suite.
//!
//! - `betula-bench storage`: random then sequential inserts into data several times the cache, settle,
//!   point reads, range scans — for Betula and (with the `rocksdb` feature) RocksDB, with a markdown report
//!   and a per-second CSV in bench/results/.
//! - `betula-bench commit-throughput`: single-row synchronous commits from 1..64 threads (group commit).
//! - `betula-bench sql`: the seed workloads through the MySQL protocol against Betula's server, MariaDB
//!   InnoDB and MyRocks, each started by the suite (docs/benchmarks.md).
//! - `betula-bench spider`: sensor readings sharded behind MariaDB's Spider over three Betula data nodes,
//!   against one Betula server in the same run (docs/sharding.md).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cpu_time;
mod engine;
mod io_stats;
mod machine;
mod peer;
mod report;
mod scenarios;
mod sql;
mod stats;
mod workload;

use clap::{Args, Parser, Subcommand, ValueEnum};
use engine::{BenchResult, DurabilityMode, EngineConfig};
use std::path::PathBuf;
use std::time::Duration;
use workload::keys::{KEY_BYTES, VALUE_BYTES};

#[derive(Parser)]
#[command(name = "betula-bench", about = "Betula's benchmark suite")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

// Parsed once per run: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Insert/read/scan benchmark of the storage engines, side by side.
    Storage(StorageArgs),
    /// Commits per second of single-row synchronous writes at several thread counts.
    CommitThroughput(CommitArgs),
    /// The seed workloads through the MySQL protocol: Betula's server, MariaDB InnoDB, MyRocks.
    Sql(SqlArgs),
    /// Bytes and speed of each codec and level on basement frames (prints a markdown table).
    Codecs(CodecArgs),
    /// An online backup of Betula's server while sensor-stream's clients insert: rows/s before and during
    /// it, and the backup's MB/s.
    BackupDuringStream(scenarios::BackupArgs),
    /// Lag of a Betula replica and of a MariaDB InnoDB replica behind a MariaDB primary running sysbench
    /// oltp_read_write or sensor-stream.
    ReplicaLag(scenarios::ReplicaArgs),
    /// Sensor readings sharded behind MariaDB's Spider over three Betula data nodes, against one Betula
    /// server: insert rate and query latencies.
    Spider(scenarios::SpiderArgs),
}

#[derive(Args)]
struct CodecArgs {
    /// Seed of the rows.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Basement size in KiB (frames are half of it, as the engine cuts them).
    #[arg(long, default_value_t = 32)]
    basement_kib: usize,
}

#[derive(Clone, Copy, ValueEnum)]
enum DurabilityArg {
    Sync,
    Periodic,
    Nosync,
}

#[derive(Args, Clone)]
struct Common {
    /// Engines to run, in order (default: every engine this build has).
    #[arg(long, value_delimiter = ',')]
    engines: Vec<String>,
    /// Cache size in MiB (Betula node cache, RocksDB block cache).
    #[arg(long, default_value_t = 64)]
    cache_mb: u64,
    /// Seed of the key/value stream.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Parent directory of the engines' data directories (emptied per engine).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Where the report goes.
    #[arg(long, default_value = "bench/results")]
    out: PathBuf,
    /// File name stem of the report (default: <date>-storage or <date>-commit-throughput).
    #[arg(long)]
    name: Option<String>,
    /// A note for the report (repeatable), e.g. about other load on the machine.
    #[arg(long)]
    note: Vec<String>,
    /// Print the report instead of writing files.
    #[arg(long)]
    no_write: bool,
}

#[derive(Args)]
struct StorageArgs {
    #[command(flatten)]
    common: Common,
    /// Rows per insert phase (N random, then N sequential). Default: raw data ≈ 6× the cache.
    #[arg(long)]
    rows: Option<u64>,
    /// Writer (and point-reader) threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Rows per write batch; each batch is one commit.
    #[arg(long, default_value_t = 100)]
    batch: usize,
    #[arg(long, value_enum, default_value = "sync")]
    durability: DurabilityArg,
    /// Log sync interval for `--durability periodic`.
    #[arg(long, default_value_t = 1000)]
    sync_interval_ms: u64,
    /// Point reads after the inserts.
    #[arg(long, default_value_t = 200_000)]
    reads: u64,
    /// Range scans after the point reads.
    #[arg(long, default_value_t = 1000)]
    scans: u64,
    /// Rows per range scan.
    #[arg(long, default_value_t = 100)]
    scan_rows: usize,
    /// Keep the data directories.
    #[arg(long)]
    keep: bool,
    /// Betula basement size in KiB (default: the engine's default tree options).
    #[arg(long)]
    betula_basement_kib: Option<u32>,
    /// Betula node codec (none, lz4, snappy, zlib, zstd, lzma; default: the engine's default).
    #[arg(long)]
    betula_codec: Option<String>,
    /// Betula codec level (0 = the codec's default; zstd: 1-19, negative for its fast levels).
    #[arg(long, allow_hyphen_values = true)]
    betula_level: Option<i8>,
    /// Retired log segments Betula keeps to write over (default: the engine's default).
    #[arg(long)]
    betula_wal_recycle: Option<usize>,
}

#[derive(Args)]
struct CommitArgs {
    #[command(flatten)]
    common: Common,
    /// Thread counts to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16,64")]
    threads: Vec<usize>,
    /// Seconds per point.
    #[arg(long, default_value_t = 5.0)]
    secs: f64,
}

#[derive(Args)]
struct SqlArgs {
    #[command(flatten)]
    common: Common,
    /// Workloads, in order: sensor-load, sensor-stream, hot-reads (after sensor-stream), sysbench,
    /// upsert-rollup, iibench, retention, compression; drop-partition, clustering-range and online-ddl
    /// are not in the default list.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sensor-load,sensor-stream,hot-reads,sysbench,upsert-rollup,iibench,retention,compression"
    )]
    workloads: Vec<String>,
    /// Quick mode (about 15 minutes for three engines, 1 GiB caches). Without it: full mode (64 MiB caches,
    /// data ≥ 10× the cache, about an hour). docs/benchmarks.md lists every size of both modes.
    #[arg(long)]
    quick: bool,
    /// Connections of the ingest workloads.
    #[arg(long, default_value_t = 4)]
    clients: usize,
    /// Sensors = rows per INSERT.
    #[arg(long, default_value_t = 1000)]
    sensors: usize,
    /// Seconds of sensor-stream (overrides the mode).
    #[arg(long)]
    duration: Option<u64>,
    /// Seconds of upsert-rollup (overrides the mode).
    #[arg(long)]
    upsert_duration: Option<u64>,
    /// Timed runs per hot-reads query (overrides the mode).
    #[arg(long)]
    query_runs: Option<usize>,
    /// Rows of the sensor-load CSV (overrides the mode).
    #[arg(long)]
    load_rows: Option<u64>,
    /// Rows sysbench prepares (overrides the mode).
    #[arg(long)]
    sysbench_rows: Option<u64>,
    /// Seconds per sysbench run (overrides the mode).
    #[arg(long)]
    sysbench_secs: Option<u64>,
    /// sysbench thread counts.
    #[arg(long, value_delimiter = ',', default_value = "1,8,32")]
    sysbench_threads: Vec<usize>,
    /// iibench's time cap in seconds (overrides the mode).
    #[arg(long)]
    iibench_duration: Option<u64>,
    /// iibench runs until the datadir has grown by this many times the cache (or the time cap).
    #[arg(long, default_value_t = 10)]
    iibench_cache_factor: u64,
    /// Seconds per retention variant (overrides the mode).
    #[arg(long)]
    retention_duration: Option<u64>,
    /// Rows retention keeps (overrides the mode).
    #[arg(long)]
    retention_keep: Option<u64>,
    /// Rows per compression setting (overrides the mode).
    #[arg(long)]
    compression_rows: Option<u64>,
    /// Compression settings to run, by codec name (e.g. `zstd,lzma`; default: every one).
    #[arg(long, value_delimiter = ',')]
    compression_codecs: Vec<String>,
    /// Table options appended to Betula's sensor-load table (e.g. `ROW_FORMAT=TOKUDB_SMALL`).
    #[arg(long, default_value = "")]
    betula_load_options: String,
    /// Rows in the partition drop-partition drops (overrides the mode).
    #[arg(long)]
    drop_rows: Option<u64>,
    /// Rows of the clustering-range table (at least 1M; rounded up to a power of two).
    #[arg(long, default_value_t = 1_000_000)]
    clustering_rows: u64,
    /// The `betula` binary (default: next to this one, i.e. the same target directory).
    #[arg(long)]
    betula_bin: Option<PathBuf>,
    /// Keep the servers' data directories.
    #[arg(long)]
    keep: bool,
    /// A `key=value` line added to Betula's config file (repeatable), e.g. `read_block_size=16K`.
    #[arg(long = "betula-set")]
    betula_set: Vec<String>,
    /// A `key = value` line added to MariaDB's `[mariadbd]` section (repeatable, InnoDB and
    /// MyRocks), e.g. `log-bin = mariadb-bin`.
    #[arg(long = "mariadb-set")]
    mariadb_set: Vec<String>,
}

fn context(common: &Common, dir: &std::path::Path) -> report::RunContext {
    let (date, time) = machine::now_utc();
    // Quote arguments the shell would split, so the recorded command can be pasted back.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| {
            if a.is_empty()
                || a.contains(|c: char| c.is_whitespace() || "'\"$`\\;&|()<>*?".contains(c))
            {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a
            }
        })
        .collect();
    report::RunContext {
        command: format!("betula-bench {}", args.join(" ")),
        date,
        time,
        revision: machine::git_revision(),
        cpu: machine::cpu(),
        memory: machine::memory(),
        kernel: machine::kernel(),
        filesystem: machine::filesystem(dir),
        load_before: machine::loadavg(),
        load_after: String::new(),
        proc_io: io_stats::ProcIo::available(),
        notes: common.note.clone(),
    }
}

fn engines(common: &Common) -> Vec<String> {
    if common.engines.is_empty() {
        engine::available().into_iter().map(String::from).collect()
    } else {
        common.engines.clone()
    }
}

fn data_dir(common: &Common) -> BenchResult<PathBuf> {
    let dir = common
        .dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("betula-bench"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn write_out(common: &Common, stem: &str, files: &[(&str, String)]) -> BenchResult<()> {
    if common.no_write {
        for (_, text) in files {
            println!("{text}");
        }
        return Ok(());
    }
    std::fs::create_dir_all(&common.out)?;
    for (ext, text) in files {
        let path = common.out.join(format!("{stem}.{ext}"));
        std::fs::write(&path, text)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Betula tree options from the storage command's overrides (None: the engine's defaults).
fn betula_tree_options(
    basement_kib: Option<u32>,
    codec: Option<&str>,
    level: Option<i8>,
) -> BenchResult<Option<betula_storage::TreeOptions>> {
    if basement_kib.is_none() && codec.is_none() && level.is_none() {
        return Ok(None);
    }
    let mut t = betula_storage::TreeOptions::default();
    if let Some(kib) = basement_kib {
        t.basement_size_bytes = kib << 10;
    }
    if let Some(name) = codec {
        t.codec =
            betula_storage::Codec::parse(name).ok_or_else(|| format!("unknown codec {name:?}"))?;
    }
    if let Some(level) = level {
        t.level = level;
    }
    Ok(Some(t))
}

fn storage(a: StorageArgs) -> BenchResult<()> {
    let cache_bytes = a.common.cache_mb << 20;
    let rows = a
        .rows
        .unwrap_or(6 * cache_bytes / (2 * (KEY_BYTES + VALUE_BYTES) as u64));
    let dir = data_dir(&a.common)?;
    io_stats::watch_device(&dir);
    let p = workload::storage::StorageParams {
        rows,
        engine: EngineConfig {
            cache_bytes,
            durability: match a.durability {
                DurabilityArg::Sync => DurabilityMode::Sync,
                DurabilityArg::Periodic => {
                    DurabilityMode::Periodic(Duration::from_millis(a.sync_interval_ms))
                }
                DurabilityArg::Nosync => DurabilityMode::NoSync,
            },
            betula_tree: betula_tree_options(
                a.betula_basement_kib,
                a.betula_codec.as_deref(),
                a.betula_level,
            )?,
            betula_wal_recycle: a.betula_wal_recycle,
        },
        threads: a.threads.max(1),
        batch: a.batch.max(1),
        seed: a.common.seed,
        reads: a.reads,
        scans: a.scans,
        scan_rows: a.scan_rows,
        dir: dir.clone(),
        keep: a.keep,
    };
    let mut ctx = context(&a.common, &dir);
    let mut runs = Vec::new();
    for name in engines(&a.common) {
        runs.push(workload::storage::run_engine(&name, &p)?);
    }
    ctx.load_after = machine::loadavg();
    let stem = a
        .common
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-storage", ctx.date));
    let csv_name = format!("{stem}.csv");
    let md = report::storage_markdown(&ctx, &p, &runs, &csv_name);
    let csv = report::storage_csv(&runs);
    write_out(&a.common, &stem, &[("md", md), ("csv", csv)])
}

fn commit_throughput(a: CommitArgs) -> BenchResult<()> {
    let dir = data_dir(&a.common)?;
    let p = workload::commit::CommitParams {
        thread_counts: a.threads.clone(),
        secs: a.secs,
        cache_bytes: a.common.cache_mb << 20,
        seed: a.common.seed,
        dir: dir.clone(),
    };
    let mut ctx = context(&a.common, &dir);
    let mut points = Vec::new();
    for name in engines(&a.common) {
        for &t in &p.thread_counts {
            let pt = workload::commit::run_point(&name, t.max(1), &p)?;
            eprintln!(
                "[{name}] {t} threads: {:.0} commits/s",
                pt.commits_per_sec()
            );
            points.push(pt);
        }
    }
    ctx.load_after = machine::loadavg();
    let stem = a
        .common
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-commit-throughput", ctx.date));
    let md = report::commit_markdown(&ctx, p.secs, &points);
    write_out(&a.common, &stem, &[("md", md)])
}

fn sql_suite(a: SqlArgs) -> BenchResult<()> {
    let engines = if a.common.engines.is_empty() {
        vec!["betula".to_string(), "innodb".into(), "rocksdb".into()]
    } else {
        a.common.engines.clone()
    };
    let engines = engines
        .iter()
        .map(|e| {
            peer::EngineKind::parse(e)
                .ok_or_else(|| format!("unknown engine '{e}' (betula, innodb, rocksdb)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let workloads = a
        .workloads
        .iter()
        .map(|w| sql::Workload::parse(w).ok_or_else(|| format!("unknown workload '{w}'")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(h) = workloads.iter().position(|w| *w == sql::Workload::HotReads) {
        if !workloads[..h].contains(&sql::Workload::SensorStream) {
            return Err(
                "hot-reads reads the table sensor-stream fills: list sensor-stream before it"
                    .into(),
            );
        }
    }
    let betula_bin = match a.betula_bin.clone() {
        Some(b) => b,
        None => std::env::current_exe()?.with_file_name("betula"),
    };
    let dir = a
        .common
        .dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("betula-bench-sql"));
    std::fs::create_dir_all(&dir)?;
    // Servers' bytes written come from the disk under the data directories (io_stats, peer::Server).
    io_stats::watch_device(&dir);
    let p = sql::SqlParams {
        engines,
        workloads,
        quick: a.quick,
        clients: a.clients.max(1),
        sensors: a.sensors.max(1),
        stream_secs: a.duration.unwrap_or(if a.quick { 60 } else { 300 }),
        upsert_secs: a.upsert_duration.unwrap_or(if a.quick { 20 } else { 120 }),
        query_runs: a.query_runs.unwrap_or(if a.quick { 200 } else { 1000 }),
        query_warmup: if a.quick { 20 } else { 50 },
        load_rows: a
            .load_rows
            .unwrap_or(if a.quick { 1_000_000 } else { 12_000_000 }),
        sysbench_rows: a
            .sysbench_rows
            .unwrap_or(if a.quick { 100_000 } else { 2_000_000 }),
        sysbench_secs: a.sysbench_secs.unwrap_or(if a.quick { 6 } else { 30 }),
        sysbench_threads: a.sysbench_threads.clone(),
        iibench_secs: a.iibench_duration.unwrap_or(if a.quick { 30 } else { 600 }),
        iibench_cache_factor: a.iibench_cache_factor,
        retention_secs: a
            .retention_duration
            .unwrap_or(if a.quick { 15 } else { 60 }),
        retention_keep: a
            .retention_keep
            .unwrap_or(if a.quick { 200_000 } else { 2_000_000 }),
        compression_rows: a
            .compression_rows
            .unwrap_or(if a.quick { 100_000 } else { 500_000 }),
        compression_codecs: a.compression_codecs.clone(),
        betula_load_options: a.betula_load_options.clone(),
        drop_rows: a
            .drop_rows
            .unwrap_or(if a.quick { 1_000_000 } else { 10_000_000 }),
        clustering_rows: a.clustering_rows,
        seed: a.common.seed,
        dir: dir.clone(),
        keep: a.keep,
        start: peer::StartOptions {
            betula_bin,
            // --cache-mb's default (64, shared with the other subcommands) means "the mode's cache" here.
            cache_bytes: match (a.common.cache_mb, a.quick) {
                (64, true) => 1 << 30,
                (mb, _) => mb << 20,
            },
            betula_settings: a.betula_set.clone(),
            mariadb_settings: a.mariadb_set.clone(),
        },
    };
    let mut ctx = context(&a.common, &dir);
    let mut runs = Vec::new();
    for &e in &p.engines {
        runs.push(sql::run_engine(e, &p)?);
    }
    ctx.load_after = machine::loadavg();
    let stem = a
        .common
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-sql", ctx.date));
    let csv_name = format!("{stem}.csv");
    let plots = if a.common.no_write {
        Err("--no-write".to_string())
    } else {
        std::fs::create_dir_all(&a.common.out)?;
        sql::plots::write(&a.common.out, &stem, &runs)
    };
    let md = sql::report::markdown(&ctx, &p, &runs, &csv_name, &plots);
    let csv = sql::report::csv(&runs);
    write_out(&a.common, &stem, &[("md", md), ("csv", csv)])
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Storage(a) => storage(a),
        Cmd::CommitThroughput(a) => commit_throughput(a),
        Cmd::Sql(a) => sql_suite(a),
        Cmd::BackupDuringStream(a) => scenarios::backup_during_stream(a),
        Cmd::ReplicaLag(a) => scenarios::replica_lag(a),
        Cmd::Spider(a) => scenarios::spider(a),
        Cmd::Codecs(a) => {
            let tree = betula_storage::TreeOptions {
                basement_size_bytes: (a.basement_kib.clamp(1, 4096) << 10) as u32,
                ..Default::default()
            };
            print!("{}", workload::codecs::run(a.seed, &tree));
            Ok(())
        }
    };
    if let Err(e) = r {
        eprintln!("betula-bench: {e}");
        std::process::exit(1);
    }
}
