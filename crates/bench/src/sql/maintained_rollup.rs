//! upsert-rollup's third part, on Betula only (CREATE ROLLUP is a Betula extension): the same
//! readings written as base rows, first into a table without a roll-up, then into a table with a
//! per-minute roll-up the engine keeps (`GROUP BY sensor_id, TIME_BUCKET('1 minute', ts)`,
//! COUNT(*) and SUM(data1)) — the seed's roll-up with no application upserts. C clients each send
//! 1000-row multi-row INSERTs (one second of all sensors, as sensor-stream), autocommit, for the
//! workload's duration each. While the roll-up's stream runs, one more connection reads one
//! sensor's per-minute rows of the last day from the roll-up every 100 ms ([`rollup_query`];
//! random sensor, seed 7; the stream's data spans less than a day, so every minute of it is in
//! range). Figures: base rows/s of both and their ratio, the query's p50/p99; afterwards the
//! roll-up's SUM(count_star) and COUNT(*) are checked against the rows acknowledged and the
//! base table's GROUP BY.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::driver::{self, BatchSql};
use super::outcome::{classify, Status};
use super::sensor_data::{datetime, values_sql, SensorStream, START_EPOCH};
use super::{fig, Better, Figure, SqlParams};
use crate::peer::{EngineKind, Server};

/// The base table without a roll-up, the one with, and its roll-up.
pub const PLAIN: &str = "sensordata_nr";
pub const BASE: &str = "sensordata_mr";
pub const ROLLUP: &str = "sensordata_mr_minute";

pub fn create_sql(table: &str, table_options: &str) -> String {
    format!(
        "CREATE TABLE {table} (ts DATETIME NOT NULL, sensor_id INT NOT NULL, data1 DOUBLE, \
         data2 DOUBLE, data3 DOUBLE, data4 DOUBLE, data5 DOUBLE, data6 DOUBLE, \
         PRIMARY KEY (sensor_id, ts)){table_options}"
    )
}

pub fn rollup_sql() -> String {
    format!(
        "CREATE ROLLUP {ROLLUP} ON {BASE} GROUP BY sensor_id, TIME_BUCKET('1 minute', ts) AS minute \
         AGGREGATE COUNT(*), SUM(data1)"
    )
}

/// The last day of sensor `s`'s per-minute rows, NOW = a day after the stream's first second.
pub fn rollup_query(s: u64) -> String {
    let now = datetime(START_EPOCH + 86_400);
    format!("SELECT * FROM {ROLLUP} WHERE sensor_id = {s} AND minute > '{now}' - INTERVAL 1 DAY")
}

/// Runs [`rollup_query`] every 100 ms until `stop`: latencies (ns), or the first error.
fn query_loop(server: &Server, sensors: usize, stop: &AtomicBool) -> Result<Vec<u64>, String> {
    let mut conn = mysql::Conn::new(server.opts()).map_err(|e| format!("connect: {e}"))?;
    let mut rng = StdRng::seed_from_u64(7);
    let mut nanos = Vec::new();
    while !stop.load(Ordering::Acquire) {
        let sql = rollup_query(rng.gen_range(1..=sensors as u64));
        let t = Instant::now();
        conn.query::<mysql::Row, _>(&sql)
            .map_err(|e| classify(&e, &sql).label())?;
        nanos.push(t.elapsed().as_nanos() as u64);
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(nanos)
}

fn builder(table: &'static str, sensors: usize, seed: u64) -> BatchSql {
    let mut data = SensorStream::new(sensors, seed);
    Box::new(move |b| {
        data.skip_to(b);
        format!(
            "INSERT INTO {table} (ts, sensor_id, data1, data2, data3, data4, data5, data6) VALUES {}",
            values_sql(b, data.next_step())
        )
    })
}

/// What one stream did: rows, seconds, and the roll-up query's latencies (ns) when it ran.
struct Streamed {
    rows: u64,
    secs: f64,
    query_nanos: Option<Result<Vec<u64>, String>>,
}

/// One timed stream into `table` (created first, then `after_create` run, which makes the
/// roll-up and starts the query loop beside the stream).
fn stream(
    server: &Server,
    p: &SqlParams,
    table: &'static str,
    after_create: Option<&str>,
) -> Result<Streamed, Status> {
    let mut conn = driver::open_table(server, &create_sql(table, server.kind.table_options()))?;
    if let Some(sql) = after_create {
        conn.query_drop(sql).map_err(|e| classify(&e, sql))?;
    }
    let builders = (0..p.clients)
        .map(|_| builder(table, p.sensors, p.seed))
        .collect();
    let stop = AtomicBool::new(false);
    let (run, query_nanos) = std::thread::scope(|s| {
        let reader = after_create.map(|_| s.spawn(|| query_loop(server, p.sensors, &stop)));
        let run = driver::run(
            server,
            builders,
            p.sensors as u64,
            Duration::from_secs(p.upsert_secs),
        );
        stop.store(true, Ordering::Release);
        let nanos = reader.map(|r| r.join().unwrap_or_else(|_| Err("reader panicked".into())));
        (run, nanos)
    });
    match run.error {
        Some(st) => Err(st),
        None => Ok(Streamed {
            rows: run.rows,
            secs: run.secs,
            query_nanos,
        }),
    }
}

/// The check of the roll-up after the stream: a note.
fn check(server: &Server, rows: u64) -> String {
    let q = format!(
        "SELECT (SELECT CAST(SUM(count_star) AS SIGNED) FROM {ROLLUP}), (SELECT COUNT(*) FROM {ROLLUP}), \
         (SELECT COUNT(*) FROM (SELECT sensor_id, TIME_BUCKET('1 minute', ts) AS m FROM {BASE} \
         GROUP BY sensor_id, m) g)"
    );
    let got = mysql::Conn::new(server.opts())
        .and_then(|mut c| c.query_first::<(Option<i64>, u64, u64), _>(&q));
    match got {
        Ok(Some((Some(sum), groups, expected))) if sum as u64 == rows && groups == expected => {
            format!("maintained roll-up: check: SUM(count_star) = {sum} = base rows acknowledged; {groups} groups = the base table's GROUP BY")
        }
        Ok(got) => format!(
            "maintained roll-up: CHECK FAILED: (SUM(count_star), groups, GROUP BY groups) = {got:?}; rows acknowledged = {rows}"
        ),
        Err(e) => format!("maintained roll-up: check not possible: {}", classify(&e, &q).label()),
    }
}

/// Figures and notes of the third part, and its status.
pub fn run(server: &Server, p: &SqlParams) -> (Vec<Figure>, Vec<String>, Status) {
    if server.kind != EngineKind::Betula {
        return (Vec::new(), Vec::new(), Status::Ok);
    }
    eprintln!(
        "[{}] upsert-rollup: base rows with and without a maintained roll-up",
        server.kind.name()
    );
    let plain = match stream(server, p, PLAIN, None) {
        Ok(r) => r,
        Err(st) => return (Vec::new(), Vec::new(), st),
    };
    let with = match stream(server, p, BASE, Some(&rollup_sql())) {
        Ok(r) => r,
        Err(st) => return (Vec::new(), Vec::new(), st),
    };
    let rate = |s: &Streamed| (s.secs > 0.0).then(|| s.rows as f64 / s.secs);
    let (a, b) = (rate(&plain), rate(&with));
    let mut notes = vec![check(server, with.rows)];
    let latency = match with.query_nanos {
        Some(Ok(mut nanos)) => crate::stats::latency(&mut nanos),
        Some(Err(e)) => {
            notes.push(format!("maintained roll-up: query during the stream: {e}"));
            None
        }
        None => None,
    };
    let mut figures = vec![
        fig(
            "maintained roll-up: base rows/s without a roll-up",
            a,
            Better::Higher,
        ),
        fig(
            "maintained roll-up: base rows/s with the roll-up",
            b,
            Better::Higher,
        ),
        fig(
            "maintained roll-up: with / without",
            a.zip(b).filter(|(a, _)| *a > 0.0).map(|(a, b)| b / a),
            Better::Higher,
        ),
    ];
    figures.extend([
        fig(
            "maintained roll-up: last day per minute of one sensor during the stream, p50 ms",
            latency.map(|l| l.p50_us / 1e3),
            Better::Lower,
        ),
        fig(
            "maintained roll-up: last day per minute of one sensor during the stream, p99 ms",
            latency.map(|l| l.p99_us / 1e3),
            Better::Lower,
        ),
    ]);
    if let Some(l) = latency {
        notes.push(format!(
            "maintained roll-up: {} queries during the stream: `{}`",
            l.count,
            rollup_query(1)
        ));
    }
    (figures, notes, Status::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements() {
        assert!(create_sql(BASE, "").contains("PRIMARY KEY (sensor_id, ts)"));
        assert!(rollup_sql().starts_with("CREATE ROLLUP sensordata_mr_minute ON sensordata_mr"));
        let mut b = builder(BASE, 2, 1);
        let s = b(3);
        assert!(
            s.starts_with("INSERT INTO sensordata_mr (ts, sensor_id, data1"),
            "{s}"
        );
        assert_eq!(s.matches("),(").count(), 1);
        assert!(rollup_query(7)
            .ends_with("WHERE sensor_id = 7 AND minute > '2024-01-02 00:00:00' - INTERVAL 1 DAY"));
    }
}
