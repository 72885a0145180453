//! online-ddl: schema changes on a table being written. C clients run sensor-stream's 1000-row
//! INSERTs into a table of their own (sensor-stream's, named `sensordata_ddl`); at a quarter of the
//! stream time `ALTER TABLE … ADD COLUMN note VARCHAR(16) DEFAULT 'n/a' AFTER sensor_id` (a column in
//! the middle) runs on one more connection, at half of it `ALTER TABLE … DROP COLUMN note`, and at
//! three quarters `ALTER TABLE … ADD INDEX k_data1 (data1), ALGORITHM=INPLACE, LOCK=NONE`, each timed
//! from the client. Figures per ALTER: its milliseconds, the rows/s of the 5 s before it and of the
//! window from its start to its end (at least 1 s, so that a short ALTER is measured over whole
//! batches), and during ÷ before. The stream runs at least the stream time and on until the last
//! ALTER's window has ended (at most [`MAX_EXTRA_SECS`] more), so that an ALTER that outlasts the
//! stream time is still measured against running writers. Afterwards the table must hold every acknowledged row, its original
//! columns, and the index must count every row.

use super::driver;
use super::outcome::{classify, Status};
use super::sensor_stream::{create_sql_for, insert_builder_for};
use super::{fig, rate_figures, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::Server;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const DESCRIPTION: &str = "online-ddl: sensor-stream's C clients insert 1000-row INSERTs into its table (as sensordata_ddl) for the stream time, and on until the last ALTER has ended; at 1/4 of it `ALTER TABLE … ADD COLUMN note VARCHAR(16) DEFAULT 'n/a' AFTER sensor_id`, at 2/4 `ALTER TABLE … DROP COLUMN note`, at 3/4 `ALTER TABLE … ADD INDEX k_data1 (data1), ALGORITHM=INPLACE, LOCK=NONE` run on one more connection, each timed from the client; rows/s in the 5 s before each ALTER and from its start to its end (at least 1 s), during ÷ before";

const TABLE: &str = "sensordata_ddl";

/// Seconds of the window before an ALTER, and the shortest window measured from its start.
const BEFORE_SECS: f64 = 5.0;
const MIN_DURING_SECS: f64 = 1.0;

/// The statements, in order, with the names of their figures.
const ALTERS: [(&str, &str); 3] = [
    (
        "ADD COLUMN (middle)",
        "ALTER TABLE sensordata_ddl ADD COLUMN note VARCHAR(16) DEFAULT 'n/a' AFTER sensor_id",
    ),
    ("DROP COLUMN", "ALTER TABLE sensordata_ddl DROP COLUMN note"),
    (
        "ADD INDEX",
        "ALTER TABLE sensordata_ddl ADD INDEX k_data1 (data1), ALGORITHM=INPLACE, LOCK=NONE",
    ),
];

/// The longest the stream runs past the stream time while the last ALTER is still running.
const MAX_EXTRA_SECS: f64 = 1800.0;

/// Parts of the stream time: ALTER i runs at (i + 1) / PARTS of it.
const PARTS: f64 = ALTERS.len() as f64 + 1.0;

/// One ALTER as it ran: (seconds, rows acknowledged) 5 s before it, at its start, at its end and
/// at the end of its measured window; its milliseconds; its error.
#[derive(Debug, Clone, Default)]
struct Timed {
    marks: [(f64, u64); 4],
    ms: f64,
    error: Option<Status>,
}

fn mark(t0: Instant, rows: &AtomicU64) -> (f64, u64) {
    (t0.elapsed().as_secs_f64(), rows.load(Ordering::Acquire))
}

/// Rows per second between two marks.
fn rate((t1, r1): (f64, u64), (t2, r2): (f64, u64)) -> Option<f64> {
    (t2 > t1).then(|| r2.saturating_sub(r1) as f64 / (t2 - t1))
}

fn sleep_until(t0: Instant, secs: f64) {
    let due = t0 + Duration::from_secs_f64(secs);
    std::thread::sleep(due.saturating_duration_since(Instant::now()));
}

/// Runs `sql` at `at` seconds from `t0`, marking the windows around it.
fn timed_alter(conn: &mut mysql::Conn, sql: &str, at: f64, t0: Instant, rows: &AtomicU64) -> Timed {
    let mut t = Timed::default();
    sleep_until(t0, at - BEFORE_SECS);
    t.marks[0] = mark(t0, rows);
    sleep_until(t0, at);
    t.marks[1] = mark(t0, rows);
    let started = Instant::now();
    if let Err(e) = conn.query_drop(sql) {
        t.error = Some(classify(&e, sql));
    }
    t.ms = started.elapsed().as_secs_f64() * 1000.0;
    t.marks[2] = mark(t0, rows);
    sleep_until(t0, t.marks[1].0 + MIN_DURING_SECS);
    t.marks[3] = mark(t0, rows);
    t
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::OnlineDdl);
    let create = create_sql_for(TABLE, server.kind.table_options());
    let mut conn = match driver::open_table(server, &create) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    let secs = (p.stream_secs as f64).max(PARTS * (BEFORE_SECS + MIN_DURING_SECS));
    let newest = Arc::new(AtomicU64::new(0));
    let builders: Vec<driver::TxSql> = (0..p.clients)
        .map(|_| {
            let mut f = insert_builder_for(TABLE, p.sensors, p.seed, newest.clone());
            Box::new(move |b| vec![f(b)]) as driver::TxSql
        })
        .collect();
    let rows = AtomicU64::new(0);
    let timed: Mutex<Vec<Timed>> = Mutex::new(Vec::new());
    let alters_done = AtomicBool::new(false);
    let t0 = Instant::now();
    let run = std::thread::scope(|s| {
        let (rows, timed, conn, alters_done) = (&rows, &timed, &mut conn, &alters_done);
        s.spawn(move || {
            for (i, (_, sql)) in ALTERS.iter().enumerate() {
                let at = secs * (i + 1) as f64 / PARTS;
                let t = timed_alter(conn, sql, at, t0, rows);
                timed.lock().expect("timed").push(t);
            }
            alters_done.store(true, Ordering::Release);
        });
        // The stream time, and on while the last ALTER (and its measured window) runs.
        let done = || alters_done.load(Ordering::Acquire) && t0.elapsed().as_secs_f64() >= secs;
        driver::run_counting(
            server,
            builders,
            (p.sensors as u64, rows),
            Duration::from_secs_f64(secs + MAX_EXTRA_SECS),
            u64::MAX,
            &done,
        )
    });
    let (per_sec, series) = driver::per_second_series(&run);
    r.series = series;
    r.figures = rate_figures(run.rows, run.secs, &per_sec);
    let timed = timed.into_inner().expect("timed");
    for ((name, _), t) in ALTERS.iter().zip(&timed) {
        alter_figures(&mut r, name, t);
        if let (Some(e), Status::Ok) = (&t.error, &r.status) {
            r.status = e.clone();
        }
    }
    if let Some(st) = run.error {
        r.status = st;
        return r;
    }
    check(&mut conn, run.rows, &mut r);
    r
}

fn alter_figures(r: &mut WorkloadResult, name: &str, t: &Timed) {
    let [m0, m1, _, m3] = t.marks;
    let before = rate(m0, m1);
    let during = rate(m1, m3);
    r.figures
        .push(fig(&format!("{name} ms"), Some(t.ms), Better::Lower));
    r.figures.push(fig(
        &format!("rows/s in the 5 s before {name}"),
        before,
        Better::Higher,
    ));
    r.figures.push(fig(
        &format!("rows/s during {name} (≥ 1 s from its start)"),
        during,
        Better::Higher,
    ));
    r.figures.push(fig(
        &format!("during ÷ before, {name}"),
        before.zip(during).map(|(b, d)| d / b),
        Better::Higher,
    ));
}

/// The table holds every acknowledged row and, the column added and dropped, its original columns;
/// the index added counts every row.
fn check(conn: &mut mysql::Conn, acked: u64, r: &mut WorkloadResult) {
    let count: Option<u64> = conn
        .query_first("SELECT COUNT(*) FROM sensordata_ddl")
        .unwrap_or(None);
    let through: Option<u64> = conn
        .query_first("SELECT COUNT(*) FROM sensordata_ddl FORCE INDEX (k_data1) WHERE data1 IS NOT NULL OR data1 IS NULL")
        .unwrap_or(None);
    let cols: Option<u64> = conn
        .query_first(
            "SELECT COUNT(*) FROM information_schema.columns \
             WHERE table_schema = DATABASE() AND table_name = 'sensordata_ddl'",
        )
        .unwrap_or(None);
    if count != Some(acked) || cols != Some(8) || through != count {
        r.status = Status::Failed(format!(
            "CHECK FAILED: {count:?} rows ({acked} acknowledged), {cols:?} columns (8 expected), \
             {through:?} rows through k_data1"
        ));
        return;
    }
    r.notes.push(format!(
        "check: {acked} rows acknowledged and present; the table has its 8 columns again; \
         k_data1 counts them all"
    ));
    let _ = conn.query_drop("DROP TABLE sensordata_ddl");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_rate_their_rows() {
        assert_eq!(rate((1.0, 100), (3.0, 500)), Some(200.0));
        assert_eq!(rate((2.0, 100), (2.0, 100)), None);
        let t = Timed {
            marks: [(0.0, 0), (5.0, 5000), (5.01, 5010), (6.0, 6000)],
            ms: 10.0,
            error: None,
        };
        let mut r = WorkloadResult::new(Workload::OnlineDdl);
        alter_figures(&mut r, "X", &t);
        let v: Vec<Option<f64>> = r.figures.iter().map(|f| f.value).collect();
        assert_eq!(v, vec![Some(10.0), Some(1000.0), Some(1000.0), Some(1.0)]);
    }
}
