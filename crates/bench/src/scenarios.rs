//! The subcommands that each start their own servers for one scenario and write one report:
//! `backup-during-stream`, `replica-lag` and `spider` (their runs are in sql/). What they share:
//! the `betula` binary next to this one unless given, the cache from `--cache-mb`, the run context
//! and the report's name `<date>-<scenario>` unless `--name` is given.

use crate::engine::BenchResult;
use crate::peer::{EngineKind, StartOptions};
use crate::{context, data_dir, io_stats, report, sql, write_out, Common};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReplicaArgs {
    #[command(flatten)]
    pub common: Common,
    /// What runs on the primary: sysbench (oltp_read_write) or sensor-stream.
    #[arg(long, default_value = "sysbench")]
    pub load: String,
    /// sysbench threads (sensor-stream clients) on the primary.
    #[arg(long, default_value_t = 8)]
    pub threads: usize,
    /// Seconds the workload runs on the primary.
    #[arg(long, default_value_t = 60)]
    pub secs: u64,
    /// Rows sysbench prepares (sysbench only).
    #[arg(long, default_value_t = 100_000)]
    pub table_rows: u64,
    /// The primary: innodb (MariaDB; replicas Betula and InnoDB) or betula (replicas MariaDB
    /// InnoDB and Betula).
    #[arg(long, default_value = "innodb")]
    pub primary: String,
    /// The `betula` binary (default: next to this one).
    #[arg(long)]
    pub betula_bin: Option<PathBuf>,
}

#[derive(Args)]
pub struct SpiderArgs {
    #[command(flatten)]
    pub common: Common,
    /// Inserting connections.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Sensors = rows per INSERT.
    #[arg(long, default_value_t = 100)]
    pub sensors: usize,
    /// Rows inserted into each target (whole statements).
    #[arg(long, default_value_t = 500_000)]
    pub rows: u64,
    /// Timed executions of each query per target.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// The `betula` binary (default: next to this one).
    #[arg(long)]
    pub betula_bin: Option<PathBuf>,
}

#[derive(Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub common: Common,
    /// Inserting connections.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Sensors = rows per INSERT.
    #[arg(long, default_value_t = 1000)]
    pub sensors: usize,
    /// Seconds of inserts before the measured run (the data the backup copies).
    #[arg(long, default_value_t = 300)]
    pub fill: u64,
    /// Seconds of inserts measured before the backup starts.
    #[arg(long, default_value_t = 30)]
    pub before: u64,
    /// Seconds of inserts after the backup's budget.
    #[arg(long, default_value_t = 10)]
    pub after: u64,
    /// The backup's throttle in bytes per second.
    #[arg(long)]
    pub throttle: Option<u64>,
    /// MB of rows of random text loaded (LOAD DATA) into a table of their own before the stream, so the
    /// backup copies a large data directory.
    #[arg(long, default_value_t = 0)]
    pub preload_mb: u64,
    /// The `betula` binary (default: next to this one).
    #[arg(long)]
    pub betula_bin: Option<PathBuf>,
}

/// What every scenario starts from: its data directory, the servers' start options, the run context.
fn setup(
    common: &Common,
    betula_bin: &Option<PathBuf>,
) -> BenchResult<(PathBuf, StartOptions, report::RunContext)> {
    let dir = data_dir(common)?;
    let betula_bin = match betula_bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()?.with_file_name("betula"),
    };
    let start = StartOptions {
        betula_bin,
        cache_bytes: common.cache_mb << 20,
        betula_settings: Vec::new(),
        mariadb_settings: Vec::new(),
    };
    let ctx = context(common, &dir);
    Ok((dir, start, ctx))
}

/// Writes the report files under `--name`, or `<date>-<scenario>`.
fn finish(
    common: &Common,
    ctx: &report::RunContext,
    scenario: &str,
    files: &[(&str, String)],
) -> BenchResult<()> {
    let stem = common
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{scenario}", ctx.date));
    write_out(common, &stem, files)
}

pub fn backup_during_stream(a: BackupArgs) -> BenchResult<()> {
    let (dir, start, mut ctx) = setup(&a.common, &a.betula_bin)?;
    io_stats::watch_device(&dir);
    let p = sql::backup_during::BackupRunParams {
        clients: a.clients.max(1),
        sensors: a.sensors.max(1),
        seed: a.common.seed,
        fill_secs: a.fill,
        before_secs: a.before,
        after_secs: a.after,
        throttle: a.throttle,
        preload_mb: a.preload_mb,
        dir,
        start,
    };
    let (md, csv) = sql::backup_during::run(&p, &mut ctx)?;
    finish(
        &a.common,
        &ctx,
        "backup-during-stream",
        &[("md", md), ("csv", csv)],
    )
}

pub fn replica_lag(a: ReplicaArgs) -> BenchResult<()> {
    let load = match a.load.as_str() {
        "sysbench" => sql::replica_lag::Load::Sysbench,
        "sensor-stream" => sql::replica_lag::Load::SensorStream,
        other => return Err(format!("--load {other}: sysbench or sensor-stream").into()),
    };
    let primary = match a.primary.as_str() {
        "innodb" => EngineKind::Innodb,
        "betula" => EngineKind::Betula,
        other => return Err(format!("--primary {other}: innodb or betula").into()),
    };
    let (dir, start, mut ctx) = setup(&a.common, &a.betula_bin)?;
    let p = sql::replica_lag::ReplicaRunParams {
        load,
        primary,
        threads: a.threads.max(1),
        secs: a.secs.max(1),
        table_rows: a.table_rows.max(1),
        seed: a.common.seed,
        dir,
        start,
    };
    let (md, csv) = sql::replica_lag::run(&p, &mut ctx)?;
    finish(&a.common, &ctx, "replica-lag", &[("md", md), ("csv", csv)])
}

pub fn spider(a: SpiderArgs) -> BenchResult<()> {
    let (dir, start, mut ctx) = setup(&a.common, &a.betula_bin)?;
    let p = sql::spider::SpiderParams {
        clients: a.clients.max(1),
        sensors: a.sensors.max(1),
        rows: a.rows.max(1),
        queries: a.queries.max(1),
        dir,
        start,
    };
    let md = sql::spider::run(&p, &mut ctx)?;
    finish(&a.common, &ctx, "spider", &[("md", md)])
}
