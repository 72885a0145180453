//! The timed multi-client write driver of the ingest workloads: C connections, client i sends batches
//! i, i+C, i+2C, … (each one autocommitted statement) until the deadline, while the calling thread samples
//! at every whole second the rows acknowledged and the server's bytes written (`peer::Server::write_bytes`). A batch is one autocommitted
//! statement, or (`run_tx`) several statements in one explicit transaction; either is retried (and counted)
//! when the server reports a deadlock (1213) or a lock wait timeout (1205).

use super::outcome::{classify, Status};
use crate::peer::Server;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Builds the statement of batch `b` for one client (each client owns its own builder).
pub type BatchSql = Box<dyn FnMut(u64) -> String + Send>;

/// Builds the statements of transaction `b` for one client.
pub type TxSql = Box<dyn FnMut(u64) -> Vec<String> + Send>;

/// Attempts of one transaction before its error counts.
const TX_ATTEMPTS: u32 = 20;

/// What a timed run produced.
#[derive(Debug, Default)]
pub struct BatchRun {
    /// Rows acknowledged by second i+1.
    pub row_marks: Vec<u64>,
    /// Server bytes written since the start, by second i+1 (empty when no counter is readable).
    pub write_marks: Vec<u64>,
    /// Rows acknowledged in all.
    pub rows: u64,
    pub secs: f64,
    /// Batches acknowledged, sorted.
    pub batches: Vec<u64>,
    /// The first error any client got (the run stops at it).
    pub error: Option<Status>,
    /// Server bytes written over the whole run, between two settled counts (`Server::write_bytes_settled`).
    pub server_write_bytes: Option<u64>,
    /// CPU seconds of this (client) process and of the server process over the run.
    pub client_cpu_secs: Option<f64>,
    pub server_cpu_secs: Option<f64>,
    /// Batches retried after a deadlock or lock wait timeout.
    pub retries: u64,
    /// Whether `run_until`'s condition ended the run before the deadline.
    pub stopped_early: bool,
}

/// Connects and creates the workload's table; a failure comes back as the workload's status.
pub fn open_table(server: &Server, create: &str) -> Result<mysql::Conn, Status> {
    let mut conn =
        mysql::Conn::new(server.opts()).map_err(|e| Status::Failed(format!("connect: {e}")))?;
    conn.query_drop(create).map_err(|e| classify(&e, create))?;
    Ok(conn)
}

/// One point of a report's series: second, rows in it, server bytes written in it.
pub type SeriesPoint = (u64, u64, Option<u64>);

/// Rows acknowledged per second, and the report's series.
pub fn per_second_series(run: &BatchRun) -> (Vec<u64>, Vec<SeriesPoint>) {
    let per_sec = crate::stats::per_second(&run.row_marks);
    let write_per_sec = crate::stats::per_second(&run.write_marks);
    let series = per_sec
        .iter()
        .enumerate()
        .map(|(i, &n)| (i as u64 + 1, n, write_per_sec.get(i).copied()))
        .collect();
    (per_sec, series)
}

pub fn run(
    server: &Server,
    builders: Vec<BatchSql>,
    rows_per_batch: u64,
    duration: Duration,
) -> BatchRun {
    run_limited(server, builders, rows_per_batch, duration, u64::MAX)
}

/// One client sending batches 0..n in order (no deadline).
pub fn run_batches(server: &Server, builder: BatchSql, rows_per_batch: u64, n: u64) -> BatchRun {
    run_limited(
        server,
        vec![builder],
        rows_per_batch,
        Duration::from_secs(u64::MAX / 4),
        n,
    )
}

/// `run`, with every client also stopping before batch `limit`.
pub fn run_limited(
    server: &Server,
    builders: Vec<BatchSql>,
    rows_per_batch: u64,
    duration: Duration,
    limit: u64,
) -> BatchRun {
    let txs = builders
        .into_iter()
        .map(|mut f| Box::new(move |b| vec![f(b)]) as TxSql)
        .collect();
    run_tx(server, txs, rows_per_batch, duration, limit)
}

/// A deadlock (1213) or lock wait timeout (1205): the server rolled the statement or transaction back and
/// an application would retry it.
fn retryable(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1213 || m.code == 1205)
}

/// Runs one batch: a single autocommitted statement, or BEGIN, the statements, COMMIT; either is retried
/// from the start on 1213/1205, up to TX_ATTEMPTS times. Returns the failing statement and error.
fn exec_batch(
    conn: &mut mysql::Conn,
    stmts: &[String],
    retries: &AtomicU64,
) -> Result<(), (String, mysql::Error)> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let res = if stmts.len() == 1 {
            conn.query_drop(&stmts[0])
                .map_err(|e| (stmts[0].clone(), e))
        } else {
            let mut res = conn
                .query_drop("BEGIN")
                .map_err(|e| ("BEGIN".to_string(), e));
            for sql in stmts {
                if res.is_err() {
                    break;
                }
                res = conn.query_drop(sql).map_err(|e| (sql.clone(), e));
            }
            if res.is_ok() {
                res = conn
                    .query_drop("COMMIT")
                    .map_err(|e| ("COMMIT".to_string(), e));
            }
            if res.is_err() {
                let _ = conn.query_drop("ROLLBACK");
            }
            res
        };
        match res {
            Ok(()) => return Ok(()),
            Err((sql, e)) => {
                if !retryable(&e) || attempt >= TX_ATTEMPTS {
                    return Err((sql, e));
                }
                retries.fetch_add(1, Ordering::AcqRel);
            }
        }
    }
}

/// The general driver: every client's batch `b` is the statement list its builder returns.
pub fn run_tx(
    server: &Server,
    builders: Vec<TxSql>,
    rows_per_batch: u64,
    duration: Duration,
    limit: u64,
) -> BatchRun {
    run_until(server, builders, rows_per_batch, duration, limit, &|| false)
}

/// `run_tx`, also stopping every client once `done()` (asked once a second) says so.
pub fn run_until(
    server: &Server,
    builders: Vec<TxSql>,
    rows_per_batch: u64,
    duration: Duration,
    limit: u64,
    done: &(dyn Fn() -> bool + Sync),
) -> BatchRun {
    let rows = AtomicU64::new(0);
    run_counting(
        server,
        builders,
        (rows_per_batch, &rows),
        duration,
        limit,
        done,
    )
}

/// [`run_until`], counting the rows acknowledged in `rows` (its second half) as they are, so that a
/// caller can read the count at moments of its own.
pub fn run_counting(
    server: &Server,
    builders: Vec<TxSql>,
    (rows_per_batch, rows): (u64, &AtomicU64),
    duration: Duration,
    limit: u64,
    done: &(dyn Fn() -> bool + Sync),
) -> BatchRun {
    let retries = AtomicU64::new(0);
    let clients = builders.len() as u64;
    let stop = AtomicBool::new(false);
    let finished = AtomicU64::new(0);
    let error: Mutex<Option<Status>> = Mutex::new(None);
    let batches: Mutex<Vec<u64>> = Mutex::new(Vec::new());
    let opts = server.opts();
    let wb0 = server.write_bytes_settled();
    let ccpu0 = crate::cpu_time::self_cpu_secs();
    let scpu0 = crate::cpu_time::pid_cpu_secs(server.pid());
    let mut out = BatchRun::default();
    let start = Instant::now();
    std::thread::scope(|s| {
        for (i, mut build) in builders.into_iter().enumerate() {
            let (rows, stop, error, batches, finished, opts, retries) = (
                rows,
                &stop,
                &error,
                &batches,
                &finished,
                opts.clone(),
                &retries,
            );
            s.spawn(move || {
                let mut mine = Vec::new();
                let fail = |st: Status| {
                    let mut e = error.lock().unwrap();
                    if e.is_none() {
                        *e = Some(st);
                    }
                    stop.store(true, Ordering::Release);
                };
                match mysql::Conn::new(opts) {
                    Ok(mut conn) => {
                        let mut b = i as u64;
                        while !stop.load(Ordering::Acquire)
                            && b < limit
                            && start.elapsed() < duration
                        {
                            let stmts = build(b);
                            if let Err((sql, e)) = exec_batch(&mut conn, &stmts, retries) {
                                fail(classify(&e, &sql));
                                break;
                            }
                            rows.fetch_add(rows_per_batch, Ordering::AcqRel);
                            mine.push(b);
                            b += clients;
                        }
                    }
                    Err(e) => fail(Status::Failed(format!("connect: {e}"))),
                }
                batches.lock().unwrap().extend(mine);
                finished.fetch_add(1, Ordering::AcqRel);
            });
        }
        // Sampler: at each whole second until every client is done.
        let mut next = 1u64;
        while finished.load(Ordering::Acquire) < clients {
            let due = start + Duration::from_secs(next);
            let now = Instant::now();
            if now < due {
                std::thread::sleep((due - now).min(Duration::from_millis(50)));
                continue;
            }
            out.row_marks.push(rows.load(Ordering::Acquire));
            if let (Some(w0), Some(w)) = (wb0, server.write_bytes()) {
                out.write_marks.push(w.saturating_sub(w0));
            }
            if !out.stopped_early && done() {
                out.stopped_early = true;
                stop.store(true, Ordering::Release);
            }
            next += 1;
        }
    });
    out.secs = start.elapsed().as_secs_f64();
    out.retries = retries.load(Ordering::Acquire);
    out.rows = rows.load(Ordering::Acquire);
    out.error = error.into_inner().unwrap();
    let mut b = batches.into_inner().unwrap();
    b.sort_unstable();
    out.batches = b;
    out.server_write_bytes = match (wb0, server.write_bytes_settled()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    out.client_cpu_secs = match (ccpu0, crate::cpu_time::self_cpu_secs()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    out.server_cpu_secs = match (scpu0, crate::cpu_time::pid_cpu_secs(server.pid())) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    out
}
