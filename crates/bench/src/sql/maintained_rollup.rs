//! upsert-rollup's third part, on Betula only (CREATE ROLLUP is a Betula extension): the same
//! readings written as base rows, first into a table without a roll-up, then into a table with a
//! per-minute roll-up the engine keeps (`GROUP BY sensor_id, TIME_BUCKET('1 minute', ts)`,
//! COUNT(*) and SUM(data1)) — the seed's roll-up with no application upserts. C clients each send
//! 1000-row multi-row INSERTs (one second of all sensors, as sensor-stream), autocommit, for the
//! workload's duration each. Figures: base rows/s of both and their ratio; afterwards the
//! roll-up's SUM(count_star) and COUNT(*) are checked against the rows acknowledged and the
//! base table's GROUP BY.

use std::time::Duration;

use mysql::prelude::Queryable;

use super::driver::{self, BatchSql};
use super::outcome::{classify, Status};
use super::sensor_data::{values_sql, SensorStream};
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

/// One timed stream into `table` (created first, then `after_create` run): (rows, seconds).
fn stream(
    server: &Server,
    p: &SqlParams,
    table: &'static str,
    after_create: Option<&str>,
) -> Result<(u64, f64), Status> {
    let mut conn = driver::open_table(server, &create_sql(table, server.kind.table_options()))?;
    if let Some(sql) = after_create {
        conn.query_drop(sql).map_err(|e| classify(&e, sql))?;
    }
    let builders = (0..p.clients)
        .map(|_| builder(table, p.sensors, p.seed))
        .collect();
    let run = driver::run(
        server,
        builders,
        p.sensors as u64,
        Duration::from_secs(p.upsert_secs),
    );
    match run.error {
        Some(st) => Err(st),
        None => Ok((run.rows, run.secs)),
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
    let rate = |(rows, secs): (u64, f64)| (secs > 0.0).then(|| rows as f64 / secs);
    let (a, b) = (rate(plain), rate(with));
    let figures = vec![
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
    (figures, vec![check(server, with.0)], Status::Ok)
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
    }
}
