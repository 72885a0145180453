//! hot-reads (peer W4) on the table sensor-stream filled: per-sensor queries on the newest data, one
//! connection, text protocol with literal values, latency = send + fetch of every row. Each run's row count
//! of the 60-second query is checked against the batches sensor-stream had acknowledged.

use super::outcome::{classify, Status};
use super::sensor_data::batch_ts;
use super::sensor_stream::TABLE;
use super::{fig, Better, SqlParams, StreamState, Workload, WorkloadResult};
use crate::peer::Server;
use crate::stats;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

/// Rows `WHERE ts > NOW - INTERVAL secs SECOND` must return for one sensor (every batch holds one row per
/// sensor): the acknowledged batches after `newest - secs`. `batches` is sorted.
pub fn expected_rows_after(batches: &[u64], newest: u64, secs: u64) -> usize {
    let after = newest as i64 - secs as i64;
    batches.len() - batches.partition_point(|&b| (b as i64) <= after)
}

struct Query {
    name: &'static str,
    sql: Box<dyn Fn(u64) -> String>,
    expect_rows: Option<usize>,
}

pub fn run(server: &Server, p: &SqlParams, stream: Option<&StreamState>) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::HotReads);
    let Some(stream) = stream.filter(|s| !s.batches.is_empty()) else {
        r.status = Status::Failed(
            "no data: hot-reads reads the table sensor-stream fills, and sensor-stream did not run \
             (or stored nothing) on this server"
                .into(),
        );
        return r;
    };
    let newest = *stream.batches.last().unwrap();
    let now = batch_ts(newest);
    let queries = [
        Query {
            name: "last 60 s, one sensor (SELECT *)",
            sql: Box::new({
                let now = now.clone();
                move |s| {
                    format!("SELECT * FROM {TABLE} WHERE sensor_id = {s} AND ts > '{now}' - INTERVAL 60 SECOND")
                }
            }),
            expect_rows: Some(expected_rows_after(&stream.batches, newest, 60)),
        },
        Query {
            name: "last hour AVG+MAX, one sensor",
            sql: Box::new({
                let now = now.clone();
                move |s| {
                    format!("SELECT AVG(data1), MAX(data1) FROM {TABLE} WHERE sensor_id = {s} AND ts >= '{now}' - INTERVAL 1 HOUR")
                }
            }),
            expect_rows: Some(1),
        },
    ];
    let mut conn = match mysql::Conn::new(server.opts()) {
        Ok(c) => c,
        Err(e) => {
            r.status = Status::Failed(format!("connect: {e}"));
            return r;
        }
    };
    let mut rng = StdRng::seed_from_u64(7);
    r.notes.push(format!(
        "NOW = {now} (newest ts acknowledged); {} warm-up + {} timed runs per query",
        p.query_warmup, p.query_runs
    ));
    for q in &queries {
        let mut nanos = Vec::with_capacity(p.query_runs);
        let mut wrong = 0usize;
        let mut example = String::new();
        for i in 0..p.query_warmup + p.query_runs {
            let sensor = rng.gen_range(1..=p.sensors as u64);
            let sql = (q.sql)(sensor);
            let t = Instant::now();
            let rows = match conn.query::<mysql::Row, _>(&sql) {
                Ok(rows) => rows,
                Err(e) => {
                    r.status = classify(&e, &sql);
                    return r;
                }
            };
            let dt = t.elapsed().as_nanos() as u64;
            if i >= p.query_warmup {
                nanos.push(dt);
            }
            if q.expect_rows.is_some_and(|n| n != rows.len()) {
                wrong += 1;
                if example.is_empty() {
                    example = format!("sensor {sensor}: {} rows", rows.len());
                }
            }
        }
        let l = stats::latency(&mut nanos);
        r.figures.push(fig(
            &format!("{}: p50 ms", q.name),
            l.map(|l| l.p50_us / 1000.0),
            Better::Lower,
        ));
        r.figures.push(fig(
            &format!("{}: p99 ms", q.name),
            l.map(|l| l.p99_us / 1000.0),
            Better::Lower,
        ));
        if let Some(l) = l {
            r.latencies
                .push((q.name.to_string(), l.p50_us / 1000.0, l.p99_us / 1000.0));
        }
        let expect = q.expect_rows.unwrap_or(0);
        if wrong == 0 {
            r.notes.push(format!(
                "check: `{}` returned {expect} row(s) every run",
                q.name
            ));
        } else {
            r.notes.push(format!(
                "CHECK FAILED: `{}` returned a row count other than {expect} in {wrong} of {} runs (e.g. {example})",
                q.name,
                p.query_warmup + p.query_runs
            ));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_rows_count_acknowledged_batches_in_the_window() {
        let all: Vec<u64> = (0..200).collect();
        // ts > NOW - 60 s: batches 140..=199.
        assert_eq!(expected_rows_after(&all, 199, 60), 60);
        // Gaps (a client that had not caught up) are not expected.
        let gappy: Vec<u64> = (0..200).filter(|b| *b != 197 && *b != 150).collect();
        assert_eq!(expected_rows_after(&gappy, 199, 60), 58);
        // A window longer than the data: every batch.
        let short: Vec<u64> = (0..30).collect();
        assert_eq!(expected_rows_after(&short, 29, 60), 30);
        assert_eq!(expected_rows_after(&short, 29, 3600), 30);
    }
}
