//! `betula-bench backup-during-stream`: an online backup of Betula's server while sensor-stream's clients
//! insert (design.md, "Online backup and restore"). The clients insert throughout; after `fill + before`
//! seconds `BACKUP TO` runs on one more connection, and they stop `after` seconds past its end. Figures:
//! the rows/s of the `before` seconds, of the backup's run and of the `after` seconds (rows acknowledged
//! between the windows' edges), during ÷ before, the backup's bytes read and written, seconds and MB/s
//! (bytes read ÷ the client's wall time of the statement), and the data directory's size; beside them,
//! the rows of every second and whether the backup ran in it, and the backup's whole seconds against the
//! 20 s on either side (the stream's own rate drifts over a long `before` window).

use super::driver;
use super::sensor_stream::{create_sql, insert_builder};
use crate::engine::BenchResult;
use crate::peer::{self, EngineKind, Server, StartOptions};
use crate::report::{fmt_num, RunContext};
use mysql::prelude::Queryable;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Settings of the run.
#[derive(Debug, Clone)]
pub struct BackupRunParams {
    pub clients: usize,
    pub sensors: usize,
    pub seed: u64,
    pub fill_secs: u64,
    pub before_secs: u64,
    pub after_secs: u64,
    /// Bytes per second the backup may read (None: unthrottled).
    pub throttle: Option<u64>,
    /// MB of random text rows loaded into a table of their own before the stream (0: none).
    pub preload_mb: u64,
    pub dir: PathBuf,
    pub start: StartOptions,
}

/// What the backup statement reported, and when it ran (seconds from the second run's start).
#[derive(Debug, Default, Clone)]
struct BackupOutcome {
    started: f64,
    ended: f64,
    bytes_read: u64,
    bytes_written: u64,
    blocks: u64,
    error: Option<String>,
    /// (seconds, rows acknowledged so far) when the `before` window began, when the backup began and
    /// ended, and when the `after` window ended.
    marks: [(f64, u64); 4],
}

/// The moment and the rows acknowledged by then.
fn mark(t0: Instant, rows: &AtomicU64) -> (f64, u64) {
    (t0.elapsed().as_secs_f64(), rows.load(Ordering::Acquire))
}

/// Rows per second between two marks.
fn rate((t1, r1): (f64, u64), (t2, r2): (f64, u64)) -> Option<f64> {
    (t2 > t1).then(|| r2.saturating_sub(r1) as f64 / (t2 - t1))
}

fn run_backup(
    server: &Server,
    to: &str,
    throttle: Option<u64>,
    t0: Instant,
    rows: &AtomicU64,
) -> BackupOutcome {
    let mut out = BackupOutcome::default();
    let sql = match throttle {
        Some(r) => format!("BACKUP TO '{to}' THROTTLE {r}"),
        None => format!("BACKUP TO '{to}'"),
    };
    let conn = mysql::Conn::new(server.opts());
    out.marks[1] = mark(t0, rows);
    out.started = out.marks[1].0;
    let row: Result<Option<mysql::Row>, _> = conn.and_then(|mut c| c.query_first(sql));
    out.marks[2] = mark(t0, rows);
    out.ended = out.marks[2].0;
    match row {
        Ok(Some(r)) => {
            out.bytes_read = r.get("Bytes_read").unwrap_or(0);
            out.bytes_written = r.get("Bytes_written").unwrap_or(0);
            out.blocks = r.get("Blocks_copied").unwrap_or(0);
        }
        Ok(None) => out.error = Some("BACKUP returned no row".into()),
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// Runs the benchmark and returns its markdown report and its per-second series (CSV).
pub fn run(p: &BackupRunParams, ctx: &mut RunContext) -> BenchResult<(String, String)> {
    let root = p.dir.join("betula");
    let backups = p.dir.join("backups");
    if backups.exists() {
        std::fs::remove_dir_all(&backups)?;
    }
    std::fs::create_dir_all(&backups)?;
    let mut start = p.start.clone();
    start
        .betula_settings
        .push(format!("secure_file_priv = {}", backups.display()));
    let server = peer::start(EngineKind::Betula, &root, &start)?;
    let preload = if p.preload_mb > 0 {
        eprintln!("[backup] loading {} MB of ballast rows", p.preload_mb);
        Some(super::ballast::load(
            &server,
            "ballast",
            p.preload_mb,
            p.seed,
        )?)
    } else {
        None
    };
    driver::open_table(&server, &create_sql(server.kind.table_options()))
        .map_err(|e| format!("create table: {e:?}"))?;
    let newest = Arc::new(AtomicU64::new(0));
    let builders: Vec<driver::TxSql> = (0..p.clients)
        .map(|_| {
            let mut f = insert_builder(p.sensors, p.seed, newest.clone());
            Box::new(move |b| vec![f(b)]) as driver::TxSql
        })
        .collect();
    let outcome = Arc::new(Mutex::new(None::<BackupOutcome>));
    let datadir = Arc::new(AtomicU64::new(0));
    let rows = AtomicU64::new(0);
    let to = backups.join("full").display().to_string();
    let t0 = Instant::now();
    eprintln!(
        "[backup] inserting for {} s before the backup",
        p.fill_secs + p.before_secs
    );
    // One run of the clients throughout (their batches number the rows' timestamps); it stops once the
    // `after` window past the backup's end is measured. The rates are read from the rows acknowledged
    // at the windows' edges.
    let stream = std::thread::scope(|s| {
        let (o, srv, to, du, rows) = (outcome.clone(), &server, to.clone(), datadir.clone(), &rows);
        s.spawn(move || {
            let until = |secs: u64| {
                let due = t0 + Duration::from_secs(secs);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            };
            until(p.fill_secs);
            let first = mark(t0, rows);
            until(p.fill_secs + p.before_secs);
            du.store(srv.datadir_bytes().unwrap_or(0), Ordering::SeqCst);
            eprintln!("[backup] BACKUP TO {to}");
            let mut done = run_backup(srv, &to, p.throttle, t0, rows);
            std::thread::sleep(Duration::from_secs(p.after_secs));
            done.marks[0] = first;
            done.marks[3] = mark(t0, rows);
            *o.lock().expect("outcome") = Some(done);
        });
        let finished = || outcome.lock().expect("outcome").is_some();
        driver::run_counting(
            &server,
            builders,
            (p.sensors as u64, rows),
            Duration::from_secs(24 * 3600),
            u64::MAX,
            &finished,
        )
    });
    let b = outcome.lock().expect("outcome").clone().unwrap_or_default();
    let datadir = datadir.load(Ordering::SeqCst);
    server.stop(Duration::from_secs(180))?;
    let (per_sec, _) = driver::per_second_series(&stream);
    let [m0, m1, m2, m3] = b.marks;
    let (before, during, after) = (rate(m0, m1), rate(m1, m2), rate(m2, m3));
    let secs = b.ended - b.started;
    ctx.load_after = crate::machine::loadavg();
    let rates = [before, during, after];
    let m = Measured {
        stream: &stream,
        preload,
        datadir,
        backup: &b,
        adjacent: adjacent_ratio(&per_sec, &b, ADJACENT_SECS),
    };
    Ok((markdown(p, ctx, &m, rates, secs), series_csv(&per_sec, &b)))
}

/// Seconds on either side of the backup its rate is compared with.
const ADJACENT_SECS: usize = 20;

/// Rows/s in the seconds wholly inside the backup ÷ the mean of the rows/s of the `span` seconds before
/// it and of those after it (the run's last, partial second left out); None when either side is short.
fn adjacent_ratio(per_sec: &[u64], b: &BackupOutcome, span: usize) -> Option<f64> {
    let (first, end) = (b.started.ceil() as usize, b.ended.floor() as usize);
    let complete = per_sec.len().saturating_sub(1);
    if end <= first || first < span || end + span > complete {
        return None;
    }
    let avg = |r: std::ops::Range<usize>| {
        let n = r.len() as f64;
        per_sec[r].iter().sum::<u64>() as f64 / n
    };
    let around = (avg(first - span..first) + avg(end..end + span)) / 2.0;
    (around > 0.0).then(|| avg(first..end) / around)
}

/// Rows acknowledged in each second of the run, and whether the backup ran in it (wholly or in part).
fn series_csv(per_sec: &[u64], b: &BackupOutcome) -> String {
    let mut s = "second,rows,backup\n".to_string();
    for (i, rows) in per_sec.iter().enumerate() {
        let (from, to) = (i as f64, i as f64 + 1.0);
        let during = if from >= b.started && to <= b.ended {
            "whole"
        } else if to > b.started && from < b.ended {
            "part"
        } else {
            ""
        };
        s.push_str(&format!("{i},{rows},{during}\n"));
    }
    s
}

/// What a run measured besides the rates.
struct Measured<'a> {
    stream: &'a driver::BatchRun,
    /// The ballast load's rows and seconds.
    preload: Option<(u64, f64)>,
    datadir: u64,
    backup: &'a BackupOutcome,
    /// [`adjacent_ratio`] of the run.
    adjacent: Option<f64>,
}

fn markdown(
    p: &BackupRunParams,
    ctx: &RunContext,
    m: &Measured<'_>,
    [before, during, after]: [Option<f64>; 3],
    secs: f64,
) -> String {
    let (stream, datadir, b) = (m.stream, m.datadir, m.backup);
    let n = |v: Option<f64>| v.map_or("n/a".into(), fmt_num);
    let mb = |v: u64| v as f64 / 1e6;
    let rows = [
        (
            "ballast rows loaded first",
            m.preload.map(|(r, _)| r as f64),
        ),
        ("ballast load seconds", m.preload.map(|(_, s)| s)),
        ("rows inserted (whole run)", Some(stream.rows as f64)),
        (
            "data directory when the backup began, MB",
            Some(mb(datadir)),
        ),
        ("rows/s before the backup (its `before` window)", before),
        ("rows/s during the backup", during),
        ("during ÷ before", before.zip(during).map(|(a, d)| d / a)),
        ("rows/s after the backup (its `after` window)", after),
        (
            "rows/s in the backup's whole seconds ÷ the 20 s on either side",
            m.adjacent,
        ),
        ("backup seconds (client wall time)", Some(secs)),
        ("backup MB read", Some(mb(b.bytes_read))),
        ("backup MB written", Some(mb(b.bytes_written))),
        ("backup blocks copied", Some(b.blocks as f64)),
        (
            "backup MB/s read",
            (secs > 0.0).then(|| mb(b.bytes_read) / secs),
        ),
    ];
    let mut s = "# Online backup during sensor-stream\n\n".to_string();
    crate::report::context(&mut s, ctx);
    s.push_str(&format!(
        "\n{}{} clients × {}-row INSERTs (sensor-stream's), {} s of filling, then {} s before BACKUP TO and {} s \
         after it; throttle {}; Betula cache {} MiB, sync at commit.\n\n| figure | value |\n|---|---|\n",
        if p.preload_mb > 0 {
            format!(
                "First {} MB of 1000-character random text rows loaded into a table of their own \
                 (`LOAD DATA LOCAL`), then ",
                p.preload_mb
            )
        } else {
            String::new()
        },
        p.clients,
        p.sensors,
        p.fill_secs,
        p.before_secs,
        p.after_secs,
        p.throttle.map_or("none".into(), |t| format!("{t} B/s")),
        p.start.cache_bytes >> 20
    ));
    // The ballast rows only when there was a ballast.
    for (name, v) in rows
        .into_iter()
        .filter(|(name, _)| m.preload.is_some() || !name.starts_with("ballast"))
    {
        s.push_str(&format!("| {name} | {} |\n", n(v)));
    }
    if let Some(e) = &b.error {
        s.push_str(&format!("\nThe backup failed: {e}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_per_second_between_two_marks() {
        assert_eq!(super::rate((1.0, 100), (3.0, 500)), Some(200.0));
        assert_eq!(super::rate((2.0, 100), (2.0, 100)), None);
    }

    #[test]
    fn adjacent_ratio_compares_the_backup_seconds_with_both_sides() {
        use super::{adjacent_ratio, BackupOutcome};
        // 20 s at 100, 4 s of backup at 60, 20 s at 80, a partial last second.
        let mut per_sec = vec![100; 20];
        per_sec.extend([60; 4]);
        per_sec.extend([80; 20]);
        per_sec.push(5);
        let b = BackupOutcome {
            started: 19.6,
            ended: 24.2,
            ..Default::default()
        };
        // Whole seconds 20..24 (60 each) against 0..20 (100) and 24..44 (80).
        let r = adjacent_ratio(&per_sec, &b, 20).unwrap();
        assert!((r - 60.0 / 90.0).abs() < 1e-9, "{r}");
        // Too little after it.
        per_sec.truncate(40);
        assert_eq!(adjacent_ratio(&per_sec, &b, 20), None);
        // A backup shorter than one whole second.
        let short = BackupOutcome {
            started: 20.2,
            ended: 20.9,
            ..Default::default()
        };
        assert_eq!(adjacent_ratio(&per_sec, &short, 5), None);
    }
}
