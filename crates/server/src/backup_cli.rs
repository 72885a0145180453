//! `betula backup`, `betula restore` and `betula verify` (design.md, "Online backup and restore").
//!
//! `backup` is a client: it connects to a running server, runs `BACKUP TO` there (the server does the
//! copying, into a directory on its own machine under its `secure_file_priv`), and on a second connection
//! reads the backup's progress from SHOW STATUS for a progress bar until the statement ends; Ctrl-C cancels
//! the backup with KILL QUERY. `restore` and `verify` work on directories with no server running: restore
//! checks every checksum of the backup (and of its base chain) while it writes the new data directory, then
//! opens it once, which recovers it to the backup's end LSN; verify reads a data directory whole and lists
//! every problem with its file and block.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use mysql::prelude::Queryable;

/// Where the server is and how to log in.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
}

/// What `betula backup` was asked to do.
#[derive(Debug, Clone)]
pub struct BackupArgs {
    pub server: ServerArgs,
    /// The backup directory, as the server sees it.
    pub to: String,
    pub incremental_from: Option<String>,
    pub throttle: Option<u64>,
    pub progress: bool,
}

fn connect(s: &ServerArgs) -> Result<mysql::Conn, String> {
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some(s.host.clone()))
        .tcp_port(s.port)
        .user(Some(s.user.clone()))
        .pass(s.password.clone());
    mysql::Conn::new(opts).map_err(|e| format!("cannot connect to {}:{}: {e}", s.host, s.port))
}

/// A string literal for SQL.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// The backup's figures from SHOW STATUS: phase, bytes to read, bytes read.
fn poll(conn: &mut mysql::Conn) -> Option<(u64, u64, u64)> {
    let rows: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS LIKE 'Betula_backup%'")
        .ok()?;
    let get = |name: &str| {
        rows.iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    Some((
        get("Betula_backup_phase"),
        get("Betula_backup_bytes_total"),
        get("Betula_backup_bytes_read"),
    ))
}

/// Runs the backup and returns a one-line summary.
pub fn backup(args: BackupArgs) -> Result<String, String> {
    let mut runner = connect(&args.server)?;
    let mut watcher = connect(&args.server)?;
    let runner_id = runner.connection_id();
    let mut sql = format!("BACKUP TO {}", quoted(&args.to));
    if let Some(base) = &args.incremental_from {
        sql += &format!(" INCREMENTAL FROM {}", quoted(base));
    }
    if let Some(rate) = args.throttle {
        sql += &format!(" THROTTLE {rate}");
    }
    let done = Arc::new(AtomicBool::new(false));
    let job = {
        let done = done.clone();
        std::thread::spawn(move || {
            let r: Result<Option<mysql::Row>, _> = runner.query_first(sql);
            done.store(true, Ordering::SeqCst);
            r
        })
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let interrupted = interrupted.clone();
        let _ = ctrlc::set_handler(move || interrupted.store(true, Ordering::SeqCst));
    }
    let bar = if args.progress {
        ProgressBar::new(0)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    let mut killed = false;
    while !done.load(Ordering::SeqCst) {
        if interrupted.load(Ordering::SeqCst) && !killed {
            let _ = watcher.query_drop(format!("KILL QUERY {runner_id}"));
            killed = true;
        }
        if let Some((phase, total, read)) = poll(&mut watcher) {
            bar.set_length(total.max(read));
            bar.set_position(read);
            bar.set_message(match phase {
                1 => "copying",
                2 => "final round",
                _ => "backup",
            });
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bar.finish_and_clear();
    let row = job
        .join()
        .map_err(|_| "the backup thread panicked".to_string())?
        .map_err(|e| format!("BACKUP failed: {e}"))?
        .ok_or("BACKUP returned no row")?;
    let get = |name: &str| row.get::<u64, _>(name).unwrap_or(0);
    Ok(format!(
        "backup {:016x} into {} (checkpoint {}, log to LSN {}): {} blocks copied, {} from the base, {} MB read, {} MB written, {} s",
        get("Backup_id"),
        args.to,
        get("Checkpoint"),
        get("End_lsn"),
        get("Blocks_copied"),
        get("Blocks_from_base"),
        get("Bytes_read") >> 20,
        get("Bytes_written") >> 20,
        get("Seconds")
    ))
}

/// `betula restore`: the backup in `from` (with its base chain) into the new data directory `datadir`, then
/// one open of it (recovery to the backup's end), with the SQL engine so every update function is known.
pub fn restore(
    from: PathBuf,
    datadir: PathBuf,
    env: betula_storage::EnvOptions,
) -> Result<String, String> {
    let vfs = betula_storage::vfs::RealVfs;
    let summary = betula_storage::restore_backup(&vfs, &from, &datadir)
        .map_err(|e| format!("restore failed: {e}"))?;
    let engine = betula_sql::Engine::open(betula_sql::EngineConfig {
        datadir: datadir.clone(),
        env,
        port: 0,
    })
    .map_err(|e| format!("the restored directory does not open: {e}"))?;
    engine
        .checkpoint()
        .map_err(|e| format!("checkpoint after recovery: {e}"))?;
    drop(engine);
    Ok(format!(
        "restored {} into {} ({} backup(s), {} trees, {} blocks, {} MB), recovered to LSN {}",
        from.display(),
        datadir.display(),
        summary.chain,
        summary.trees,
        summary.blocks,
        summary.bytes_written >> 20,
        summary.end_lsn
    ))
}

/// `betula verify`: prints every problem; Err when there is one.
pub fn verify(datadir: PathBuf) -> Result<String, String> {
    let vfs = betula_storage::vfs::RealVfs;
    let report = betula_storage::verify_environment(&vfs, &datadir).map_err(|e| match e {
        betula_storage::Error::Locked(_) => format!(
            "{} is in use by a running server: stop it first, or use CHECK TABLE",
            datadir.display()
        ),
        e => e.to_string(),
    })?;
    let mut out = std::io::stdout();
    for p in &report.problems {
        let _ = writeln!(out, "{p}");
    }
    let line = format!(
        "{}: {} trees, {} blocks ({} MB), {} log records read; {} problem(s)",
        datadir.display(),
        report.trees,
        report.blocks,
        report.block_bytes >> 20,
        report.log_records,
        report.problems.len()
    );
    if report.problems.is_empty() {
        Ok(line)
    } else {
        Err(line)
    }
}
