//! `betula-bench replica-lag`: how far behind a primary its replicas stay while a workload runs on it.
//! A MariaDB InnoDB primary (`log-bin`, `binlog-format=ROW`) has a Betula replica and, side by side, a
//! MariaDB InnoDB replica (design.md "Replica of a MariaDB or MySQL primary"); a Betula primary
//! (`log_bin = ON`, design.md "Binary log (primary side)") has a MariaDB InnoDB replica and a Betula one.
//! Every replica uses `CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos`. The workload is sysbench
//! oltp_read_write (its table prepared on the primary first; the replicas copy it through replication,
//! and the seconds each needs after the prepare returned are reported) or sensor-stream (its clients'
//! 1000-row INSERTs).
//!
//! Lag is measured four times a second from GTIDs, not from `Seconds_Behind_Master`'s whole seconds: the
//! primary's sequence number (`@@gtid_binlog_pos`) and each replica's (`mysql.gtid_slave_pos`) are read;
//! a replica at sequence `s` at time `t` is `t - (when the primary reached s)` behind, that moment
//! interpolated between the primary's samples (0 when caught up). After the run, each replica's time to
//! catch up is measured, and the table's `COUNT(*), SUM(k), SUM(CRC32(c))` and `CHECKSUM TABLE` compared
//! with the primary's.

use super::sysbench;
use crate::engine::BenchResult;
use crate::peer::{self, EngineKind, Server, StartOptions};
use crate::report::{fmt_num, RunContext};
use mysql::prelude::Queryable;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// What runs on the primary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    Sysbench,
    SensorStream,
}

/// Settings of the run.
#[derive(Debug, Clone)]
pub struct ReplicaRunParams {
    pub load: Load,
    /// The primary's engine: Innodb (MariaDB) or Betula.
    pub primary: EngineKind,
    /// sysbench threads, or sensor-stream clients.
    pub threads: usize,
    pub secs: u64,
    pub table_rows: u64,
    pub seed: u64,
    pub dir: PathBuf,
    pub start: StartOptions,
}

/// The replicas of a `primary`, in report order.
fn replica_kinds(primary: EngineKind) -> [EngineKind; 2] {
    match primary {
        EngineKind::Betula => [EngineKind::Innodb, EngineKind::Betula],
        _ => [EngineKind::Betula, EngineKind::Innodb],
    }
}

/// The name of an engine as a primary or replica in the report.
fn name(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Betula => "betula",
        EngineKind::Innodb => "innodb",
        EngineKind::Rocksdb => "rocksdb",
    }
}
/// Samples per second.
const SAMPLE_MS: u64 = 250;
/// Longest wait for a replica to catch up.
const CATCH_UP_LIMIT: Duration = Duration::from_secs(1800);

/// One sample: seconds from the run's start, the primary's sequence number, each replica's.
#[derive(Debug, Clone, Copy)]
struct Sample {
    t: f64,
    primary: u64,
    replicas: [u64; 2],
}

/// The sequence number of domain 0 in a GTID list (`0-100-57,1-...`).
fn seq_of(list: &str) -> u64 {
    list.split(',')
        .filter_map(|g| {
            let mut p = g.trim().split('-');
            let domain = p.next()?;
            let _server = p.next()?;
            (domain == "0").then(|| p.next()?.parse().ok())?
        })
        .next()
        .unwrap_or(0)
}

fn primary_seq(c: &mut mysql::Conn) -> BenchResult<u64> {
    let pos: Option<String> = c.query_first("SELECT @@GLOBAL.gtid_binlog_pos")?;
    Ok(seq_of(&pos.unwrap_or_default()))
}

fn replica_seq(c: &mut mysql::Conn) -> BenchResult<u64> {
    let seq: Option<Option<u64>> =
        c.query_first("SELECT MAX(seq_no) FROM mysql.gtid_slave_pos WHERE domain_id = 0")?;
    Ok(seq.flatten().unwrap_or(0))
}

/// When (seconds) the primary reached `seq`, interpolated between samples; None before the first.
fn reached_at(samples: &[Sample], seq: u64) -> Option<f64> {
    let i = samples.iter().position(|s| s.primary >= seq)?;
    if i == 0 {
        return Some(samples[0].t);
    }
    let (a, b) = (samples[i - 1], samples[i]);
    let span = (b.primary - a.primary) as f64;
    let frac = if span > 0.0 {
        (seq.saturating_sub(a.primary)) as f64 / span
    } else {
        1.0
    };
    Some(a.t + frac * (b.t - a.t))
}

/// Each sample's lag in seconds for replica `r`.
fn lags(samples: &[Sample], r: usize) -> Vec<f64> {
    samples
        .iter()
        .map(|s| {
            if s.replicas[r] >= s.primary {
                0.0
            } else {
                reached_at(samples, s.replicas[r] + 1).map_or(s.t, |at| (s.t - at).max(0.0))
            }
        })
        .collect()
}

fn percentile(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil().max(1.0) as usize;
    Some(s[rank.min(s.len()) - 1])
}

fn change_master(replica: &Server, primary: &Server) -> BenchResult<()> {
    let mut c = mysql::Conn::new(replica.opts())?;
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root', \
         MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
        primary.port
    ))?;
    c.query_drop("START SLAVE")?;
    Ok(())
}

/// Seconds until every replica's sequence reaches the primary's (None for one that did not).
fn catch_up(primary: &Server, replicas: &[&Server; 2]) -> BenchResult<Vec<Option<f64>>> {
    let target = primary_seq(&mut mysql::Conn::new(primary.opts())?)?;
    let t0 = Instant::now();
    let mut done: Vec<Option<f64>> = vec![None; replicas.len()];
    let mut conns = replicas
        .iter()
        .map(|r| mysql::Conn::new(r.opts()))
        .collect::<Result<Vec<_>, _>>()?;
    while done.iter().any(Option::is_none) && t0.elapsed() < CATCH_UP_LIMIT {
        for (i, c) in conns.iter_mut().enumerate() {
            if done[i].is_none() && replica_seq(c)? >= target {
                done[i] = Some(t0.elapsed().as_secs_f64());
            }
            if done[i].is_none() {
                stopped(c, name(replicas[i].kind))?;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(done)
}

/// An error when the replica stopped (SHOW SLAVE STATUS shows an SQL error and the SQL side is off).
fn stopped(c: &mut mysql::Conn, name: &str) -> BenchResult<()> {
    let row: Option<mysql::Row> = c.query_first("SHOW SLAVE STATUS")?;
    let Some(row) = row else {
        return Err(format!("{name}: no replica").into());
    };
    let running: Option<String> = row.get("Slave_SQL_Running");
    let error: Option<String> = row.get("Last_SQL_Error");
    if running.as_deref() == Some("No") {
        return Err(format!("{name} replica stopped: {}", error.unwrap_or_default()).into());
    }
    Ok(())
}

fn sysbench_args(primary: &Server, p: &ReplicaRunParams, cmd: &str) -> Vec<String> {
    let table = sysbench::Table {
        rows: p.table_rows,
        secs: p.secs,
        seed: p.seed,
    };
    sysbench::args_for(primary, &table, "oltp_read_write", p.threads, cmd)
}

fn run_sysbench(args: &[String]) -> BenchResult<String> {
    let out = Command::new("sysbench").args(args).output()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!(
            "sysbench {}: {}{}",
            args.last().map_or("", |s| s.as_str()),
            text,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(text)
}

/// The query whose answer must be equal on the primary and the replicas.
fn content_sql(load: Load) -> &'static str {
    match load {
        Load::Sysbench => {
            "SELECT CAST(COUNT(*) AS CHAR), CAST(SUM(k) AS CHAR), CAST(SUM(CRC32(c)) AS CHAR) \
             FROM bench.sbtest1"
        }
        Load::SensorStream => {
            "SELECT CAST(COUNT(*) AS CHAR), CAST(SUM(sensor_id) AS CHAR), \
             CAST(SUM(CRC32(CONCAT(ts, data1))) AS CHAR) FROM bench.sensordata_w2"
        }
    }
}

/// The table CHECKSUM TABLE reads.
fn table_of(load: Load) -> &'static str {
    match load {
        Load::Sysbench => "bench.sbtest1",
        Load::SensorStream => "bench.sensordata_w2",
    }
}

fn content(s: &Server, load: Load) -> BenchResult<String> {
    let mut c = mysql::Conn::new(s.opts())?;
    let row: Option<(String, String, String)> = c.query_first(content_sql(load))?;
    let sum: Option<(String, Option<u64>)> =
        c.query_first(format!("CHECKSUM TABLE {}", table_of(load)))?;
    let sum = sum
        .and_then(|(_, v)| v)
        .map_or("NULL".into(), |v| v.to_string());
    Ok(row.map_or("none".into(), |(a, b, c)| {
        format!("{a}/{b}/{c}, checksum {sum}")
    }))
}

/// What the workload did: its description for the report, and its rows/s (sensor-stream).
struct Done {
    what: String,
    rows_per_sec: Option<f64>,
}

/// sensor-stream's rows per INSERT.
const SENSORS: usize = 1000;

/// sysbench's table, prepared on the primary (sysbench only).
fn prepare(primary: &Server, p: &ReplicaRunParams) -> BenchResult<()> {
    match p.load {
        Load::Sysbench => {
            eprintln!("[replica-lag] sysbench prepare ({} rows)", p.table_rows);
            run_sysbench(&sysbench_args(primary, p, "prepare"))?;
        }
        Load::SensorStream => {
            super::driver::open_table(primary, &super::sensor_stream::create_sql(" ENGINE=InnoDB"))
                .map_err(|e| format!("create table: {e:?}"))?;
        }
    }
    Ok(())
}

/// Runs the workload on the primary to its end.
fn drive(primary: &Server, p: &ReplicaRunParams) -> BenchResult<Done> {
    eprintln!(
        "[replica-lag] {:?}: {} clients, {} s",
        p.load, p.threads, p.secs
    );
    Ok(match p.load {
        Load::Sysbench => {
            let s = sysbench::parse_output(&run_sysbench(&sysbench_args(primary, p, "run"))?);
            Done {
                what: format!(
                    "sysbench oltp_read_write, {} rows prepared, then {} threads for {} s \
                     (`--db-ps-mode=auto`): {} TPS, {} transactions",
                    p.table_rows,
                    p.threads,
                    p.secs,
                    s.tps.map_or("n/a".into(), fmt_num),
                    s.transactions.map_or("n/a".into(), |t| t.to_string())
                ),
                rows_per_sec: None,
            }
        }
        Load::SensorStream => {
            let newest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
            let builders: Vec<super::driver::BatchSql> = (0..p.threads)
                .map(|_| super::sensor_stream::insert_builder(SENSORS, p.seed, newest.clone()))
                .collect();
            let run = super::driver::run(
                primary,
                builders,
                SENSORS as u64,
                Duration::from_secs(p.secs),
            );
            if let Some(e) = run.error {
                return Err(format!("sensor-stream on the primary: {e:?}").into());
            }
            let rate = run.rows as f64 / run.secs.max(1e-9);
            Done {
                what: format!(
                    "sensor-stream, {} clients × {SENSORS}-row INSERTs for {} s: {} rows in {:.1} s, {} rows/s",
                    p.threads,
                    p.secs,
                    run.rows,
                    run.secs,
                    fmt_num(rate)
                ),
                rows_per_sec: Some(rate),
            }
        }
    })
}

/// Samples the primary's and the replicas' sequence numbers until `stop`.
fn sample(
    opts: [mysql::Opts; 3],
    stop: &std::sync::atomic::AtomicBool,
) -> BenchResult<Vec<Sample>> {
    let [po, bo, io] = opts;
    let mut pc = mysql::Conn::new(po)?;
    let mut rc = [mysql::Conn::new(bo)?, mysql::Conn::new(io)?];
    let t0 = Instant::now();
    let mut samples = Vec::new();
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let primary = primary_seq(&mut pc)?;
        let replicas = [replica_seq(&mut rc[0])?, replica_seq(&mut rc[1])?];
        samples.push(Sample {
            t: t0.elapsed().as_secs_f64(),
            primary,
            replicas,
        });
        std::thread::sleep(Duration::from_millis(SAMPLE_MS));
    }
    Ok(samples)
}

/// What the run measured.
struct Measured {
    prepare_catch_up: Vec<Option<f64>>,
    run_catch_up: Vec<Option<f64>>,
    samples: Vec<Sample>,
    done: Done,
    contents: [String; 3],
}

/// Starts the primary of kind `p.primary`, its binary log on (server id 100).
fn start_primary(p: &ReplicaRunParams) -> BenchResult<Server> {
    let mut o = p.start.clone();
    match p.primary {
        EngineKind::Betula => o
            .betula_settings
            .extend(["log_bin = ON".to_string(), "server_id = 100".to_string()]),
        _ => {
            o.mariadb_settings = vec![
                "log-bin = primary-bin".into(),
                "server-id = 100".into(),
                "binlog-format = ROW".into(),
            ]
        }
    }
    peer::start(p.primary, &p.dir.join("primary"), &o)
}

/// Starts a replica of kind `kind` (not yet following; MariaDB's server id 3, Betula's 1).
fn start_replica(p: &ReplicaRunParams, kind: EngineKind) -> BenchResult<Server> {
    let mut o = p.start.clone();
    if kind != EngineKind::Betula {
        o.mariadb_settings = vec!["server-id = 3".into()];
    }
    peer::start(kind, &p.dir.join(name(kind)), &o)
}

/// Runs the benchmark; its markdown report and per-sample series (CSV).
pub fn run(p: &ReplicaRunParams, ctx: &mut RunContext) -> BenchResult<(String, String)> {
    let primary = start_primary(p)?;
    let [k0, k1] = replica_kinds(p.primary);
    let (r0, r1) = (start_replica(p, k0)?, start_replica(p, k1)?);
    change_master(&r0, &primary)?;
    change_master(&r1, &primary)?;
    let replicas = [&r0, &r1];
    prepare(&primary, p)?;
    let prepare_catch_up = catch_up(&primary, &replicas)?;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let opts = [primary.opts(), r0.opts(), r1.opts()];
    let (done, samples) = std::thread::scope(|s| {
        let sampler = s.spawn(|| sample(opts, &stop));
        let done = drive(&primary, p);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        (done, sampler.join())
    });
    let done = done?;
    let samples = samples.map_err(|_| "sampler panicked")??;
    let run_catch_up = catch_up(&primary, &replicas)?;
    let contents = [
        content(&primary, p.load)?,
        content(&r0, p.load)?,
        content(&r1, p.load)?,
    ];
    ctx.load_after = crate::machine::loadavg();
    let m = Measured {
        prepare_catch_up,
        run_catch_up,
        samples,
        done,
        contents,
    };
    let md = markdown(p, ctx, &m, &primary);
    for s in [primary, r0, r1] {
        s.stop(Duration::from_secs(120))?;
    }
    Ok((md, series_csv(&m.samples, [k0, k1])))
}

fn series_csv(samples: &[Sample], kinds: [EngineKind; 2]) -> String {
    let (lb, li) = (lags(samples, 0), lags(samples, 1));
    let [a, b] = kinds.map(name);
    let mut s = format!("seconds,primary_seq,{a}_seq,{b}_seq,{a}_lag_s,{b}_lag_s\n");
    for (i, x) in samples.iter().enumerate() {
        s.push_str(&format!(
            "{:.2},{},{},{},{:.3},{:.3}\n",
            x.t, x.primary, x.replicas[0], x.replicas[1], lb[i], li[i]
        ));
    }
    s
}

fn markdown(p: &ReplicaRunParams, ctx: &RunContext, m: &Measured, primary: &Server) -> String {
    let n = |v: Option<f64>| v.map_or("n/a".into(), fmt_num);
    let [a, b] = replica_kinds(p.primary).map(name);
    let (title, how, replicas) = match p.primary {
        EngineKind::Betula => (
            "a Betula primary",
            "Betula, `log_bin = ON` (ROW events, the log durable with each commit)",
            "MariaDB InnoDB and Betula",
        ),
        _ => (
            "a MariaDB primary",
            "MariaDB InnoDB, `log-bin`, `binlog-format=ROW`",
            "Betula and MariaDB InnoDB",
        ),
    };
    let mut s = format!("# Replica lag behind {title}\n\n");
    crate::report::context(&mut s, ctx);
    s.push_str(&format!(
        "\nPrimary: {how} (`{}`), sync at commit; on it {}. \
         Replicas: {replicas}, `MASTER_USE_GTID=slave_pos`, caches {} MiB.\n\n\
         | figure | {a} replica | {b} replica |\n|---|---|---|\n",
        primary.version,
        m.done.what,
        p.start.cache_bytes >> 20,
    ));
    let lag: Vec<Vec<f64>> = (0..2).map(|r| lags(&m.samples, r)).collect();
    // Rows applied per second over the run and its catch-up, against the primary's rate.
    // (The replica applied the run's rows in the run's seconds plus its catch-up.)
    let applied = |r: usize| {
        m.done.rows_per_sec?;
        let run = m.samples.last()?.t;
        Some(run / (run + m.run_catch_up[r]?))
    };
    let rows: [(&str, [Option<f64>; 2]); 7] = [
        (
            "seconds to catch up after the table was made (sysbench: `prepare`)",
            [m.prepare_catch_up[0], m.prepare_catch_up[1]],
        ),
        (
            "rows/s applied over the run and its catch-up ÷ the primary's rows/s (sensor-stream)",
            [applied(0), applied(1)],
        ),
        (
            "lag during the run, median (s)",
            [percentile(&lag[0], 50.0), percentile(&lag[1], 50.0)],
        ),
        (
            "lag during the run, p99 (s)",
            [percentile(&lag[0], 99.0), percentile(&lag[1], 99.0)],
        ),
        (
            "lag during the run, max (s)",
            [percentile(&lag[0], 100.0), percentile(&lag[1], 100.0)],
        ),
        (
            "transactions behind at the run's end",
            [0, 1].map(|r| {
                m.samples
                    .last()
                    .map(|x| x.primary.saturating_sub(x.replicas[r]) as f64)
            }),
        ),
        (
            "seconds to catch up after the run",
            [m.run_catch_up[0], m.run_catch_up[1]],
        ),
    ];
    for (name, v) in rows {
        s.push_str(&format!("| {name} | {} | {} |\n", n(v[0]), n(v[1])));
    }
    let same = |i: usize| {
        if m.contents[i] == m.contents[0] {
            "equal".to_string()
        } else {
            format!(
                "DIFFERS: {} vs the primary's {}",
                m.contents[i], m.contents[0]
            )
        }
    };
    s.push_str(&format!(
        "| table content (`{}` and CHECKSUM TABLE) against the primary's | {} | {} |\n",
        content_sql(p.load),
        same(1),
        same(2)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_of_domain_zero() {
        assert_eq!(seq_of("0-100-57"), 57);
        assert_eq!(seq_of("1-2-3,0-100-9"), 9);
        assert_eq!(seq_of(""), 0);
    }

    #[test]
    fn lag_is_the_time_since_the_primary_reached_the_next_transaction() {
        let s = |t: f64, primary: u64, r: u64| Sample {
            t,
            primary,
            replicas: [r, primary],
        };
        // The primary commits 100 transactions a second; the replica trails by 50 (0.5 s).
        let samples = [
            s(0.0, 0, 0),
            s(1.0, 100, 50),
            s(2.0, 200, 150),
            s(3.0, 300, 300),
        ];
        let l = lags(&samples, 0);
        assert!((l[1] - 0.49).abs() < 1e-9, "{l:?}");
        assert!((l[2] - 0.49).abs() < 1e-9, "{l:?}");
        assert_eq!(l[3], 0.0);
        assert_eq!(lags(&samples, 1), vec![0.0; 4]);
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 50.0), Some(2.0));
        let csv = series_csv(&samples, replica_kinds(EngineKind::Betula));
        assert!(csv.starts_with("seconds,primary_seq,innodb_seq,betula_seq,"));
    }
}
