//! upsert-rollup: a per-minute roll-up table kept by `INSERT … ON DUPLICATE KEY UPDATE`. Each statement
//! carries one second of readings of every sensor (cnt 1, sum1 = data1) into that second's minute, so the
//! first statement of a minute inserts and the other 59 update the same rows — from C clients at once.
//! Afterwards SUM(cnt) is checked against the rows acknowledged. Then the second half runs (the seed's
//! event schema with 4-insert transactions and two roll-ups, `rollup_events`), its figures prefixed,
//! and on Betula a third (base rows with and without a roll-up the engine keeps, `maintained_rollup`).

use super::driver::{self, BatchSql};
use super::outcome::{classify, Status};
use super::sensor_data::{datetime, SensorStream, START_EPOCH};
use super::{cost_figures, fig, rate_figures, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::Server;
use mysql::prelude::Queryable;
use std::fmt::Write as _;
use std::time::Duration;

pub const TABLE: &str = "sensor_rollup";

pub fn create_sql(table_options: &str) -> String {
    format!(
        "CREATE TABLE {TABLE} (sensor_id INT NOT NULL, minute DATETIME NOT NULL, cnt BIGINT NOT NULL, \
         sum1 DOUBLE NOT NULL, PRIMARY KEY (sensor_id, minute)){table_options}"
    )
}

/// The minute (as 'YYYY-MM-DD HH:MM:00') that second `b` of the stream falls in.
pub fn minute_of(b: u64) -> String {
    datetime(START_EPOCH + (b / 60 * 60) as i64)
}

pub fn upsert_sql(b: u64, readings: &[[f64; 6]]) -> String {
    let minute = minute_of(b);
    let mut s = format!("INSERT INTO {TABLE} (sensor_id, minute, cnt, sum1) VALUES ");
    for (i, r) in readings.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "({},'{minute}',1,{:.2})", i + 1, r[0]);
    }
    s.push_str(" ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), sum1 = sum1 + VALUES(sum1)");
    s
}

fn builder(sensors: usize, seed: u64) -> BatchSql {
    let mut data = SensorStream::new(sensors, seed);
    Box::new(move |b| {
        data.skip_to(b);
        upsert_sql(b, data.next_step())
    })
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::UpsertRollup);
    let create = create_sql(server.kind.table_options());
    let mut conn = match driver::open_table(server, &create) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    let builders = (0..p.clients).map(|_| builder(p.sensors, p.seed)).collect();
    let run = driver::run(
        server,
        builders,
        p.sensors as u64,
        Duration::from_secs(p.upsert_secs),
    );
    let (per_sec, series) = driver::per_second_series(&run);
    r.series = series;
    let rows = run.rows;
    r.figures = vec![fig("rows upserted", Some(rows as f64), Better::Higher)];
    r.figures.extend(rate_figures(rows, run.secs, &per_sec));
    r.figures.extend(cost_figures(&run, rows));
    if let Some(st) = run.error {
        r.status = st;
        return r;
    }
    let sum_sql = format!("SELECT CAST(SUM(cnt) AS SIGNED), COUNT(*) FROM {TABLE}");
    let minutes = run
        .batches
        .iter()
        .map(|b| b / 60)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    match conn.query_first::<(Option<i64>, u64), _>(&sum_sql) {
        Ok(Some((Some(sum), n))) if sum as u64 == rows && n == (minutes * p.sensors) as u64 => r.notes.push(format!(
            "check: SUM(cnt) = {sum} = rows upserted; COUNT(*) = {n} = {minutes} minutes × {} sensors",
            p.sensors
        )),
        Ok(got) => r.notes.push(format!(
            "CHECK FAILED: (SUM(cnt), COUNT(*)) = {got:?}; expected ({rows}, {})",
            minutes * p.sensors
        )),
        Err(e) => r.notes.push(format!("check SUM(cnt) not possible: {}", classify(&e, &sum_sql).label())),
    }
    eprintln!("[{}] upsert-rollup: events tx", server.kind.name());
    let (figs, per_sec, notes, st) = super::rollup_events::run(server, p);
    r.figures.extend(figs);
    r.notes.extend(notes);
    r.notes.push("per-second series (CSV, plot): rows upserted by the 1000-row upserts, then events rows of the transactions".into());
    let t0 = r.series.len() as u64;
    r.series.extend(
        per_sec
            .iter()
            .enumerate()
            .map(|(i, &n)| (t0 + i as u64 + 1, n, None)),
    );
    let (figs, notes, st3) = super::maintained_rollup::run(server, p);
    r.figures.extend(figs);
    r.notes.extend(notes);
    if st3 != Status::Ok && st == Status::Ok {
        r.status = match st3 {
            Status::NotSupported(m) => Status::NotSupported(format!("maintained roll-up: {m}")),
            Status::Failed(m) => Status::Failed(format!("maintained roll-up: {m}")),
            Status::Ok => Status::Ok,
        };
    }
    if st != Status::Ok {
        r.status = match st {
            Status::NotSupported(m) => Status::NotSupported(format!("events tx: {m}")),
            Status::Failed(m) => Status::Failed(format!("events tx: {m}")),
            Status::Ok => Status::Ok,
        };
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_and_statement() {
        assert_eq!(minute_of(0), "2024-01-01 00:00:00");
        assert_eq!(minute_of(59), "2024-01-01 00:00:00");
        assert_eq!(minute_of(60), "2024-01-01 00:01:00");
        assert_eq!(minute_of(3725), "2024-01-01 01:02:00");
        let s = upsert_sql(
            61,
            &[
                [20.456, 0.0, 0.0, 0.0, 0.0, 0.0],
                [19.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ],
        );
        assert_eq!(
            s,
            "INSERT INTO sensor_rollup (sensor_id, minute, cnt, sum1) VALUES (1,'2024-01-01 00:01:00',1,20.46),\
             (2,'2024-01-01 00:01:00',1,19.00) ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), sum1 = sum1 + VALUES(sum1)"
        );
    }
}
