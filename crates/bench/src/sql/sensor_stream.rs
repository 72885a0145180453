//! sensor-stream (peer W2): concurrent time-series ingest into `sensordata_w2`, PK (sensor_id, ts), with
//! rows arriving in (ts, sensor_id) order, so every 1000-row INSERT touches 1000 places of the PK.
//! Figures: rows/s, per-second steadiness, bytes on disk and bytes written by the server; afterwards
//! COUNT(*) and MAX(ts) are checked against what was acknowledged. While the clients write, one more
//! connection times W4's queries on the newest data (`reads_during`).

use super::driver::{self, BatchRun, BatchSql};
use super::outcome::classify;
use super::reads_during::Reads;
use super::sensor_data::{batch_ts, values_sql, SensorStream};
use super::{fig, rate_figures, Better, Figure, SqlParams, StreamState, Workload, WorkloadResult};
use crate::cpu_time::share_of_one_core;
use crate::peer::Server;
use crate::stats;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const TABLE: &str = "sensordata_w2";

pub fn create_sql(table_options: &str) -> String {
    create_sql_for(TABLE, table_options)
}

/// sensor-stream's table under another name (online-ddl).
pub fn create_sql_for(table: &str, table_options: &str) -> String {
    format!(
        "CREATE TABLE {table} (ts DATETIME NOT NULL, sensor_id INT NOT NULL, data1 DOUBLE, data2 DOUBLE, \
         data3 DOUBLE, data4 DOUBLE, data5 DOUBLE, data6 DOUBLE, PRIMARY KEY (sensor_id, ts)){table_options}"
    )
}

pub fn insert_builder(sensors: usize, seed: u64, newest: Arc<AtomicU64>) -> BatchSql {
    insert_builder_for(TABLE, sensors, seed, newest)
}

/// sensor-stream's INSERTs into `table`.
pub fn insert_builder_for(
    table: &'static str,
    sensors: usize,
    seed: u64,
    newest: Arc<AtomicU64>,
) -> BatchSql {
    let mut data = SensorStream::new(sensors, seed);
    Box::new(move |b| {
        newest.fetch_max(b, Ordering::AcqRel);
        data.skip_to(b);
        let readings = data.next_step();
        format!(
            "INSERT INTO {table} (ts,sensor_id,data1,data2,data3,data4,data5,data6) VALUES {}",
            values_sql(b, readings)
        )
    })
}

/// Mean of the last `n` per-second values (or of all when fewer).
pub fn tail_mean(per_sec: &[u64], n: usize) -> Option<f64> {
    let tail = &per_sec[per_sec.len().saturating_sub(n)..];
    (!tail.is_empty()).then(|| tail.iter().sum::<u64>() as f64 / tail.len() as f64)
}

/// Divides, keeping "unknown" unknown.
pub fn per(a: Option<u64>, b: u64) -> Option<f64> {
    a.and_then(|a| stats::ratio(a as f64, b as f64))
}

/// Runs sensor-stream against `server`: the result, and the batches acknowledged when the
/// stream ended without error.
pub fn run(server: &Server, p: &SqlParams) -> (WorkloadResult, Option<StreamState>) {
    let mut r = WorkloadResult::new(Workload::SensorStream);
    let create = create_sql(server.kind.table_options());
    let mut conn = match driver::open_table(server, &create) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return (r, None);
        }
    };
    let du0 = server.datadir_bytes();
    let (run, mut reads) = stream(server, p);
    let du1 = server.datadir_bytes();
    let (per_sec, series) = driver::per_second_series(&run);
    r.series = series;
    r.figures = ingest_figures(&run, &per_sec, du0, du1);
    read_figures(&mut r, &mut reads);
    if let Some(st) = run.error {
        r.status = st;
        return (r, None);
    }
    check_contents(&mut conn, &run.batches, run.rows, &mut r);
    let cpu_per_sec = run.server_cpu_secs.and_then(|c| stats::ratio(c, run.secs));
    r.figures
        .extend(super::metrics_scrape::figures(server, cpu_per_sec));
    (
        r,
        Some(StreamState {
            batches: run.batches,
        }),
    )
}

/// The clients' inserts for `p.stream_secs` while one more connection times the queries on the
/// newest data.
fn stream(server: &Server, p: &SqlParams) -> (BatchRun, Reads) {
    let newest = Arc::new(AtomicU64::new(0));
    let builders = (0..p.clients)
        .map(|_| insert_builder(p.sensors, p.seed, newest.clone()))
        .collect();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| super::reads_during::read_loop(server, p.sensors, &newest, &stop));
        let run = driver::run(
            server,
            builders,
            p.sensors as u64,
            Duration::from_secs(p.stream_secs),
        );
        stop.store(true, Ordering::Release);
        let reads = reader.join().unwrap_or_default();
        (run, reads)
    })
}

/// The figures of the ingest: rows, rates, datadir growth, bytes written, retries, CPU.
fn ingest_figures(
    run: &BatchRun,
    per_sec: &[u64],
    du0: Option<u64>,
    du1: Option<u64>,
) -> Vec<Figure> {
    let rows = run.rows;
    let mut figures = vec![
        fig("rows acknowledged", Some(rows as f64), Better::Higher),
        fig("seconds", Some(run.secs), Better::Neither),
    ];
    figures.extend(rate_figures(rows, run.secs, per_sec));
    figures.extend([
        fig("rows/s, last 60 s", tail_mean(per_sec, 60), Better::Higher),
        fig(
            "datadir bytes before (du)",
            du0.map(|v| v as f64),
            Better::Lower,
        ),
        fig(
            "datadir bytes after (du)",
            du1.map(|v| v as f64),
            Better::Lower,
        ),
        fig(
            "datadir growth, bytes/row",
            match (du0, du1) {
                (Some(a), Some(b)) => per(Some(b.saturating_sub(a)), rows),
                _ => None,
            },
            Better::Lower,
        ),
        fig(
            "server bytes written",
            run.server_write_bytes.map(|v| v as f64),
            Better::Lower,
        ),
        fig(
            "server bytes written/row",
            per(run.server_write_bytes, rows),
            Better::Lower,
        ),
        fig(
            "statements retried (deadlock, lock wait)",
            Some(run.retries as f64),
            Better::Lower,
        ),
        fig(
            "server CPU, % of one core",
            run.server_cpu_secs
                .and_then(|c| share_of_one_core(c, run.secs)),
            Better::Neither,
        ),
        fig(
            "server CPU µs/row",
            run.server_cpu_secs
                .and_then(|c| stats::ratio(c * 1e6, rows as f64)),
            Better::Lower,
        ),
        fig(
            "client CPU, % of one core",
            run.client_cpu_secs
                .and_then(|c| share_of_one_core(c, run.secs)),
            Better::Neither,
        ),
    ]);
    figures
}

/// The latency figures and notes of the reads during the stream.
fn read_figures(r: &mut WorkloadResult, reads: &mut Reads) {
    for (name, l) in reads.summary() {
        r.figures.push(fig(
            &format!("{name}: p50 ms"),
            l.map(|l| l.p50_us / 1000.0),
            Better::Lower,
        ));
        r.figures.push(fig(
            &format!("{name}: p99 ms"),
            l.map(|l| l.p99_us / 1000.0),
            Better::Lower,
        ));
        if let Some(l) = l {
            // Plot label: the workload name already says "sensor-stream".
            let short = name.replace("during the stream: ", "during: ");
            r.latencies
                .push((short, l.p50_us / 1000.0, l.p99_us / 1000.0));
            r.notes
                .push(format!("{name}: {} queries, one every 100 ms", l.count));
        }
    }
    if let Some(e) = &reads.error {
        r.notes
            .push(format!("reads during the stream stopped: {e}"));
    }
}

/// Checks that the table holds exactly what was acknowledged (`rows` rows, the newest of
/// `batches` last); the outcome goes to `r`'s notes.
fn check_contents(conn: &mut mysql::Conn, batches: &[u64], rows: u64, r: &mut WorkloadResult) {
    let count_sql = format!("SELECT COUNT(*) FROM {TABLE}");
    match conn.query_first::<u64, _>(&count_sql) {
        Ok(Some(n)) if n == rows => r
            .notes
            .push(format!("check: COUNT(*) = {n} = rows acknowledged")),
        Ok(n) => r.notes.push(format!(
            "CHECK FAILED: COUNT(*) = {n:?}, rows acknowledged = {rows}"
        )),
        Err(e) => r.notes.push(format!(
            "check COUNT(*) not possible: {}",
            classify(&e, &count_sql).label()
        )),
    }
    let newest = batches.last().copied();
    let max_sql = format!("SELECT CAST(MAX(ts) AS CHAR) FROM {TABLE} WHERE sensor_id = 1");
    match (conn.query_first::<Option<String>, _>(&max_sql), newest) {
        (Ok(Some(Some(ts))), Some(b)) if ts == batch_ts(b) => r.notes.push(format!(
            "check: MAX(ts) of sensor 1 = {ts} = newest batch acknowledged"
        )),
        (Ok(got), _) => r.notes.push(format!(
            "CHECK FAILED: MAX(ts) of sensor 1 = {got:?}, newest batch acknowledged = {:?}",
            newest.map(batch_ts)
        )),
        (Err(e), _) => r.notes.push(format!(
            "check MAX(ts) not possible: {}",
            classify(&e, &max_sql).label()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_mean_of_last_values() {
        assert_eq!(tail_mean(&[10, 20, 30, 40], 2), Some(35.0));
        assert_eq!(tail_mean(&[10, 20], 60), Some(15.0));
        assert_eq!(tail_mean(&[], 60), None);
    }

    #[test]
    fn per_row() {
        assert_eq!(per(Some(1000), 10), Some(100.0));
        assert_eq!(per(None, 10), None);
        assert_eq!(per(Some(5), 0), None);
    }

    #[test]
    fn builder_sends_its_batch() {
        let newest = Arc::new(AtomicU64::new(0));
        let mut b = insert_builder(3, 42, newest.clone());
        let s = b(5);
        assert!(s.starts_with("INSERT INTO sensordata_w2 (ts,sensor_id,"));
        assert_eq!(s.matches("'2024-01-01 00:00:05'").count(), 3);
        assert!(s.contains(",3,"));
        assert_eq!(newest.load(Ordering::Acquire), 5);
        assert!(
            create_sql(" ENGINE=InnoDB").ends_with("PRIMARY KEY (sensor_id, ts)) ENGINE=InnoDB")
        );
    }
}
