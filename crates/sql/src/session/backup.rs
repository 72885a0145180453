//! BACKUP TO 'dir' [INCREMENTAL FROM 'base'] [THROTTLE bytes_per_second]: an online backup of the whole
//! server by the storage engine (design.md, "Online backup and restore"), run by the session that asks.
//!
//! Invariants: only root may back up (the RELOAD privilege MariaDB's backup statements need), and only into
//! (and from a base in) a directory under `secure_file_priv` (1290 otherwise, as for LOAD DATA INFILE),
//! so SQL never writes outside the directory the server was started with; one backup runs at a time; its
//! progress is the engine's (SHOW STATUS `Betula_backup_%`), and KILL [QUERY] of its connection cancels it
//! (1317), which leaves the server as it was (BKP7). The result is one row describing the backup.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use betula_storage::{BackupOptions, BackupProgress};

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::BackupStmt;
use crate::result::{OutCol, Output};
use crate::types::value::Value;
use crate::types::{IntWidth, SqlType};

fn refused() -> DbError {
    DbError::new(
        ErrorCode::OptionPreventsStatement,
        "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement",
    )
}

/// `name` resolved under `secure_file_priv` (relative names are taken from there); it need not exist,
/// but its parent must, inside that directory.
fn allowed_path(cx: &Context, name: &str) -> DbResult<PathBuf> {
    let Some(dir) = cx.engine.secure_file_priv.read().clone() else {
        return Err(refused());
    };
    let path = Path::new(name);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    let not_found = |p: &Path, e: std::io::Error| {
        DbError::new(
            ErrorCode::EeFileNotFound,
            format!("File '{}' not found ({e})", p.display()),
        )
    };
    let (Some(parent), Some(last)) = (path.parent(), path.file_name()) else {
        return Err(refused());
    };
    let real_parent = parent.canonicalize().map_err(|e| not_found(parent, e))?;
    let real_dir = dir.canonicalize().map_err(|e| not_found(&dir, e))?;
    let real = real_parent.join(last);
    if !real.starts_with(&real_dir) || real == real_dir {
        return Err(refused());
    }
    Ok(real)
}

pub fn run(cx: &mut Context, stmt: &BackupStmt) -> DbResult<Output> {
    cx.need_root("RELOAD")?;
    let to = allowed_path(cx, &stmt.to)?;
    let base = match &stmt.base {
        Some(b) => Some(allowed_path(cx, b)?),
        None => None,
    };
    let progress = Arc::new(BackupProgress::default());
    *cx.engine.backup.lock() = Some((cx.id, progress.clone()));
    let opts = BackupOptions {
        base,
        throttle_bytes_per_sec: stmt.throttle,
    };
    let done = cx
        .engine
        .store
        .env()
        .backup(&to, &opts, &progress)
        .map_err(|e| match e {
            betula_storage::Error::Cancelled => DbError::new(
                ErrorCode::QueryInterrupted,
                "Query execution was interrupted",
            ),
            betula_storage::Error::InvalidArgument(msg) => {
                DbError::new(ErrorCode::WrongArguments, format!("BACKUP: {msg}"))
            }
            e => DbError::from(e),
        });
    if done.is_err() {
        // Stops showing it as running.
        progress
            .phase
            .store(3, std::sync::atomic::Ordering::Relaxed);
    }
    let done = done?;
    let names = [
        "Backup_id",
        "Base_id",
        "Checkpoint",
        "Begin_lsn",
        "End_lsn",
        "Blocks_copied",
        "Blocks_from_base",
        "Bytes_read",
        "Bytes_written",
        "Seconds",
    ];
    let ty = Some(SqlType::Int {
        width: IntWidth::Big,
        unsigned: true,
    });
    let cols = names.iter().map(|n| OutCol::named(n, ty)).collect();
    let row = vec![
        Value::UInt(done.id),
        Value::UInt(done.base_id),
        Value::UInt(done.checkpoint_seq),
        Value::UInt(done.begin_lsn),
        Value::UInt(done.end_lsn),
        Value::UInt(done.blocks_copied),
        Value::UInt(done.blocks_from_base),
        Value::UInt(done.bytes_read),
        Value::UInt(done.bytes_written),
        Value::UInt(done.elapsed.as_secs()),
    ];
    Ok(Output::Rows {
        cols,
        rows: vec![row],
    })
}
