//! `betula-bench spider`: sensor readings sharded by sensor_id behind MariaDB's Spider engine over three
//! Betula data nodes (docs/sharding.md), side by side with one Betula server used directly, in the same
//! run. Both targets get the same rows, so their answers can be compared. Figures per target: rows/s
//! of multi-row INSERTs from several clients, then p50/p99 latency of a recent-data range query (one
//! sensor, the newest minute) and of an aggregate (per-sensor COUNT/AVG/MAX over the newest minute).
//! Checked: COUNT(*) equals the rows acknowledged on each target, the aggregate and one range query
//! give the same answer on both, and each data node holds only its shard.
//!
//! The front is a private MariaDB (peer::mariadb, InnoDB settings) that loads `ha_spider` with
//! `INSTALL SONAME`; the data nodes and the reference are `betula serve` with the suite's settings.

use crate::engine::BenchResult;
use crate::peer::{self, client_opts, EngineKind, Server, StartOptions};
use crate::report::{fmt_num, RunContext};
use crate::stats;
use mysql::prelude::Queryable;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Data nodes behind the front.
pub const NODES: usize = 3;

const COLUMNS: &str = "(sensor_id INT NOT NULL, ts DATETIME NOT NULL, value DOUBLE NOT NULL, \
                       PRIMARY KEY (sensor_id, ts))";

/// Settings of the run.
#[derive(Debug, Clone)]
pub struct SpiderParams {
    pub clients: usize,
    /// Sensors = rows per INSERT (one reading of every sensor per statement).
    pub sensors: usize,
    /// Rows inserted into each target (rounded up to whole statements).
    pub rows: u64,
    /// Timed executions of each query.
    pub queries: usize,
    pub dir: PathBuf,
    pub start: StartOptions,
}

/// The figures of one target.
#[derive(Debug, Default)]
struct TargetRun {
    name: String,
    rows: u64,
    secs: f64,
    /// The aggregate's and one range query's rows, rendered, to compare the targets.
    answers: Vec<String>,
    range: Option<stats::Latency>,
    aggregate: Option<stats::Latency>,
}

/// The statement inserting every sensor's reading of second `step`.
fn insert_sql(step: u64, sensors: usize) -> String {
    let mut sql = String::from("INSERT INTO readings (sensor_id, ts, value) VALUES ");
    for s in 0..sensors {
        if s > 0 {
            sql.push(',');
        }
        let v = ((s as u64 * 31 + step * 7) % 1000) as f64 / 8.0;
        let _ = write!(
            sql,
            "({s},'2025-01-01 00:00:00' + INTERVAL {step} SECOND,{v})"
        );
    }
    sql
}

/// Statements (steps) of the insert phase.
fn steps(p: &SpiderParams) -> u64 {
    p.rows.div_ceil(p.sensors as u64).max(1)
}

/// Inserts every step from `clients` connections (client c sends steps c, c+C, ...); rows
/// acknowledged and seconds.
fn insert_phase(port: u16, p: &SpiderParams) -> BenchResult<(u64, f64)> {
    let rows = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let steps = steps(p);
    let handles: Vec<_> = (0..p.clients)
        .map(|c| {
            let (rows, stop) = (rows.clone(), stop.clone());
            let (clients, sensors) = (p.clients as u64, p.sensors);
            std::thread::spawn(move || -> Result<(), String> {
                let mut conn = mysql::Conn::new(client_opts(port, Some("bench")))
                    .map_err(|e| e.to_string())?;
                let mut step = c as u64;
                while step < steps && !stop.load(Ordering::Acquire) {
                    if let Err(e) = conn.query_drop(insert_sql(step, sensors)) {
                        stop.store(true, Ordering::Release);
                        return Err(format!("insert step {step}: {e}"));
                    }
                    rows.fetch_add(sensors as u64, Ordering::AcqRel);
                    step += clients;
                }
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "insert client panicked")??;
    }
    let secs = t0.elapsed().as_secs_f64();
    Ok((rows.load(Ordering::Acquire), secs))
}

/// Times `n` executions of `make(i)`'s statement, reading every row.
fn time_query(
    conn: &mut mysql::Conn,
    n: usize,
    make: impl Fn(usize) -> String,
) -> BenchResult<Option<stats::Latency>> {
    let mut nanos = Vec::with_capacity(n);
    for i in 0..n {
        let sql = make(i);
        let t = Instant::now();
        let rows: Vec<mysql::Row> = conn.query(&sql)?;
        nanos.push(t.elapsed().as_nanos() as u64);
        if rows.is_empty() {
            return Err(format!("no rows: {sql}").into());
        }
    }
    Ok(stats::latency(&mut nanos))
}

/// The insert phase, the timed queries and the COUNT(*) check against one target.
fn run_target(name: &str, port: u16, p: &SpiderParams) -> BenchResult<TargetRun> {
    eprintln!(
        "[spider] {name}: inserting {} rows",
        steps(p) * p.sensors as u64
    );
    let (rows, secs) = insert_phase(port, p)?;
    let mut conn = mysql::Conn::new(client_opts(port, Some("bench")))?;
    let count: u64 = conn
        .query_first("SELECT COUNT(*) FROM readings")?
        .unwrap_or(0);
    if count != rows {
        return Err(format!("{name}: COUNT(*) = {count}, {rows} rows acknowledged").into());
    }
    let since = (steps(p) - 1).saturating_sub(60);
    let from = format!("'2025-01-01 00:00:00' + INTERVAL {since} SECOND");
    eprintln!("[spider] {name}: {} timed queries of each kind", p.queries);
    let sensors = p.sensors;
    let range = time_query(&mut conn, p.queries, |i| {
        format!(
            "SELECT ts, value FROM readings WHERE sensor_id = {} AND ts >= {from} ORDER BY ts",
            (i * 7919) % sensors
        )
    })?;
    let aggregate_sql = format!(
        "SELECT sensor_id, COUNT(*), AVG(value), MAX(value) FROM readings \
         WHERE ts >= {from} GROUP BY sensor_id"
    );
    let aggregate = time_query(&mut conn, p.queries, |_| aggregate_sql.clone())?;
    let mut answers = Vec::new();
    for sql in [
        format!("{aggregate_sql} ORDER BY sensor_id"),
        format!("SELECT ts, value FROM readings WHERE sensor_id = 1 AND ts >= {from} ORDER BY ts"),
    ] {
        let rows: Vec<mysql::Row> = conn.query(sql)?;
        answers.extend(rows.into_iter().map(|r| format!("{:?}", r.unwrap())));
    }
    Ok(TargetRun {
        name: name.into(),
        rows,
        secs,
        answers,
        range,
        aggregate,
    })
}

/// Creates `bench.readings` on the nodes and the reference, and the Spider table on the front.
fn set_up(front: &Server, nodes: &[Server], single: &Server) -> BenchResult<()> {
    for s in nodes.iter().chain(std::iter::once(single)) {
        mysql::Conn::new(s.opts())?.query_drop(format!("CREATE TABLE readings {COLUMNS}"))?;
    }
    let mut f = mysql::Conn::new(front.opts())?;
    f.query_drop("INSTALL SONAME 'ha_spider'").map_err(|e| {
        format!("INSTALL SONAME 'ha_spider': {e} (apt-get install -y mariadb-plugin-spider)")
    })?;
    let mut parts = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        f.query_drop(format!(
            "CREATE SERVER node{i} FOREIGN DATA WRAPPER mysql OPTIONS \
             (HOST '127.0.0.1', PORT {}, USER 'root', DATABASE 'bench')",
            n.port
        ))?;
        parts.push(format!("PARTITION p{i} COMMENT='srv \"node{i}\"'"));
    }
    f.query_drop(format!(
        "CREATE TABLE readings {COLUMNS} ENGINE=SPIDER COMMENT='wrapper \"mysql\", table \"readings\"' \
         PARTITION BY HASH (sensor_id) ({})",
        parts.join(", ")
    ))?;
    Ok(())
}

/// Each node holds only sensors of its hash partition; the rows on the nodes add up to `total`.
fn check_shards(nodes: &[Server], total: u64) -> BenchResult<()> {
    let mut held = 0;
    for (i, n) in nodes.iter().enumerate() {
        let mut c = mysql::Conn::new(n.opts())?;
        let (rows, stray): (u64, u64) = c
            .query_first(format!(
                "SELECT COUNT(*), COALESCE(SUM(sensor_id % {NODES} <> {i}), 0) FROM readings"
            ))?
            .unwrap_or((0, 1));
        if stray != 0 {
            return Err(format!("node {i} holds {stray} rows of another shard").into());
        }
        held += rows;
    }
    if held != total {
        return Err(format!("the nodes hold {held} rows, {total} acknowledged").into());
    }
    Ok(())
}

/// Runs the benchmark; its markdown report.
pub fn run(p: &SpiderParams, ctx: &mut RunContext) -> BenchResult<String> {
    let mut nodes = Vec::new();
    for i in 0..NODES {
        nodes.push(peer::start(
            EngineKind::Betula,
            &p.dir.join(format!("node{i}")),
            &p.start,
        )?);
    }
    let single = peer::start(EngineKind::Betula, &p.dir.join("single"), &p.start)?;
    let front = peer::start(EngineKind::Innodb, &p.dir.join("front"), &p.start)?;
    let result = set_up(&front, &nodes, &single).and_then(|()| {
        let spider = run_target("spider + 3 betula nodes", front.port, p)?;
        check_shards(&nodes, spider.rows)?;
        let one = run_target("one betula server", single.port, p)?;
        if spider.answers != one.answers {
            return Err(
                "the aggregate or the range query answers differently through Spider".into(),
            );
        }
        Ok((spider, one))
    });
    ctx.load_after = crate::machine::loadavg();
    let versions = (front.version.clone(), single.version.clone());
    let grace = Duration::from_secs(60);
    for s in nodes.into_iter().chain([single, front]) {
        s.stop(grace)?;
    }
    let (spider, one) = result?;
    Ok(markdown(p, ctx, &versions, &[spider, one]))
}

fn fmt_latency(l: &Option<stats::Latency>) -> String {
    match l {
        Some(l) => format!(
            "{} / {}",
            fmt_num(l.p50_us / 1000.0),
            fmt_num(l.p99_us / 1000.0)
        ),
        None => "n/a".into(),
    }
}

fn markdown(
    p: &SpiderParams,
    ctx: &RunContext,
    versions: &(String, String),
    runs: &[TargetRun],
) -> String {
    let mut out = String::from("# Spider over three Betula data nodes vs one Betula server\n\n");
    crate::report::context(&mut out, ctx);
    let _ = writeln!(
        out,
        "\n- Front: {} with ha_spider; data nodes and reference: {}\n- {} clients, {} rows per INSERT \
         (one reading per sensor), {} rows per target; {} timed executions of each query\n- \
         Table: `readings {COLUMNS}`, behind Spider `PARTITION BY HASH (sensor_id)` over {NODES} nodes\n",
        versions.0,
        versions.1,
        p.clients,
        p.sensors,
        steps(p) * p.sensors as u64,
        p.queries
    );
    out.push_str(
        "| target | rows inserted | rows/s | range query p50 / p99 (ms) | aggregate p50 / p99 (ms) |\n\
         |---|---|---|---|---|\n",
    );
    for r in runs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.name,
            fmt_num(r.rows as f64),
            fmt_num(r.rows as f64 / r.secs.max(1e-9)),
            fmt_latency(&r.range),
            fmt_latency(&r.aggregate)
        );
    }
    out.push_str(
        "\nRange query: `SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= <newest - 60 s> \
         ORDER BY ts`. Aggregate: `SELECT sensor_id, COUNT(*), AVG(value), MAX(value) FROM readings \
         WHERE ts >= <newest - 60 s> GROUP BY sensor_id` (Spider reads the rows from every node and \
         groups them on the front). Checked after the run: COUNT(*) equals the rows acknowledged on \
         both targets, the aggregate and the range query of sensor 1 give the same rows on both, and \
         every data node holds only its shard.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_has_one_row_per_sensor() {
        let sql = insert_sql(5, 3);
        assert!(sql.starts_with("INSERT INTO readings (sensor_id, ts, value) VALUES (0,"));
        assert_eq!(sql.matches("INTERVAL 5 SECOND").count(), 3);
        assert!(sql.contains("(2,'2025-01-01 00:00:00' + INTERVAL 5 SECOND,"));
    }
}
