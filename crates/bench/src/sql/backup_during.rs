//! `betula-bench backup-during-stream`: an online backup of Betula's server while sensor-stream's clients
//! insert (design.md, "Online backup and restore"). The clients insert throughout; after `fill + before`
//! seconds `BACKUP TO` runs on one more connection, and they stop `after` seconds past its end. Figures: the rows/s of the seconds before the
//! backup, of the whole seconds during it, their ratio, the backup's bytes read and written, seconds and
//! MB/s (bytes read ÷ the client's wall time of the statement), and the data directory's size.

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
}

fn run_backup(server: &Server, to: &str, throttle: Option<u64>, t0: Instant) -> BackupOutcome {
    let mut out = BackupOutcome {
        started: t0.elapsed().as_secs_f64(),
        ..Default::default()
    };
    let sql = match throttle {
        Some(r) => format!("BACKUP TO '{to}' THROTTLE {r}"),
        None => format!("BACKUP TO '{to}'"),
    };
    let row: Result<Option<mysql::Row>, _> =
        mysql::Conn::new(server.opts()).and_then(|mut c| c.query_first(sql));
    out.ended = t0.elapsed().as_secs_f64();
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

/// Mean of `per_sec` over the whole seconds inside [from, to).
fn mean_between(per_sec: &[u64], from: f64, to: f64) -> Option<f64> {
    let (a, b) = (
        from.ceil() as usize,
        (to.floor() as usize).min(per_sec.len()),
    );
    (b > a).then(|| per_sec[a..b].iter().sum::<u64>() as f64 / (b - a) as f64)
}

/// Runs the benchmark and returns its markdown report.
pub fn run(p: &BackupRunParams, ctx: &mut RunContext) -> BenchResult<String> {
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
    let to = backups.join("full").display().to_string();
    let t0 = Instant::now();
    eprintln!(
        "[backup] inserting for {} s before the backup",
        p.fill_secs + p.before_secs
    );
    // One run of the clients throughout (their batches number the rows' timestamps); it stops `after`
    // seconds past the backup's end.
    let stream = std::thread::scope(|s| {
        let (o, srv, to, du) = (outcome.clone(), &server, to.clone(), datadir.clone());
        let wait = Duration::from_secs(p.fill_secs + p.before_secs);
        s.spawn(move || {
            std::thread::sleep(wait);
            du.store(srv.datadir_bytes().unwrap_or(0), Ordering::SeqCst);
            eprintln!("[backup] BACKUP TO {to}");
            let done = run_backup(srv, &to, p.throttle, t0);
            *o.lock().expect("outcome") = Some(done);
        });
        let finished = || {
            outcome
                .lock()
                .expect("outcome")
                .as_ref()
                .is_some_and(|b| t0.elapsed().as_secs_f64() > b.ended + p.after_secs as f64)
        };
        driver::run_until(
            &server,
            builders,
            p.sensors as u64,
            Duration::from_secs(24 * 3600),
            u64::MAX,
            &finished,
        )
    });
    let b = outcome.lock().expect("outcome").clone().unwrap_or_default();
    let datadir = datadir.load(Ordering::SeqCst);
    server.stop(Duration::from_secs(180))?;
    let (per_sec, _) = driver::per_second_series(&stream);
    let before = mean_between(&per_sec, b.started - p.before_secs as f64, b.started);
    let during = mean_between(&per_sec, b.started, b.ended);
    let after = mean_between(&per_sec, b.ended, b.ended + p.after_secs as f64);
    let secs = b.ended - b.started;
    ctx.load_after = crate::machine::loadavg();
    let rates = [before, during, after];
    Ok(markdown(p, ctx, &stream, datadir, &b, rates, secs))
}

fn markdown(
    p: &BackupRunParams,
    ctx: &RunContext,
    stream: &driver::BatchRun,
    datadir: u64,
    b: &BackupOutcome,
    [before, during, after]: [Option<f64>; 3],
    secs: f64,
) -> String {
    let n = |v: Option<f64>| v.map_or("n/a".into(), fmt_num);
    let mb = |v: u64| v as f64 / 1e6;
    let rows = [
        ("rows inserted (whole run)", Some(stream.rows as f64)),
        (
            "data directory when the backup began, MB",
            Some(mb(datadir)),
        ),
        ("rows/s before the backup (mean of whole seconds)", before),
        ("rows/s during the backup (mean of whole seconds)", during),
        ("during ÷ before", before.zip(during).map(|(a, d)| d / a)),
        ("rows/s after the backup (mean of whole seconds)", after),
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
        "\n{} clients × {}-row INSERTs (sensor-stream's), {} s of filling, then {} s before BACKUP TO and {} s \
         after it; throttle {}; Betula cache {} MiB, sync at commit.\n\n| figure | value |\n|---|---|\n",
        p.clients,
        p.sensors,
        p.fill_secs,
        p.before_secs,
        p.after_secs,
        p.throttle.map_or("none".into(), |t| format!("{t} B/s")),
        p.start.cache_bytes >> 20
    ));
    for (name, v) in rows {
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
    fn whole_seconds_between_two_moments() {
        let per_sec = [10, 20, 30, 40, 50];
        assert_eq!(super::mean_between(&per_sec, 1.2, 3.9), Some(30.0));
        assert_eq!(super::mean_between(&per_sec, 3.5, 3.9), None);
        assert_eq!(super::mean_between(&per_sec, 0.0, 99.0), Some(30.0));
    }
}
