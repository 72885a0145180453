//! The binary log's statements: FLUSH [BINARY] LOGS, PURGE {BINARY | MASTER} LOGS, RESET
//! MASTER (the log itself is binlog/log.rs). Only root runs them.
//!
//! With the binary log off (`log_bin` OFF), as in MariaDB: FLUSH LOGS and PURGE do nothing and
//! succeed (PURGE's argument is not read), RESET MASTER is 1186.

use std::time::{Duration, SystemTime};

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Scope;
use crate::parser::binlog::BinlogStmt;
use crate::result::Output;
use crate::types::value::Value;

/// 1381: a statement that needs `log_bin`.
pub fn no_binlog() -> DbError {
    DbError::new(
        ErrorCode::NoBinaryLogging,
        "You are not using binary logging",
    )
}

pub fn run(cx: &mut Context, stmt: &BinlogStmt) -> DbResult<Output> {
    cx.need_root("RELOAD")?;
    let log = cx.engine.binlog().cloned();
    match stmt {
        BinlogStmt::FlushLogs => {
            if let Some(log) = log {
                log.flush_logs()?;
            }
            cx.engine.store.env().checkpoint()?;
        }
        BinlogStmt::ResetMaster => log
            .ok_or_else(|| {
                DbError::new(
                    ErrorCode::FlushMasterBinlogClosed,
                    "Binlog closed, cannot RESET MASTER",
                )
            })?
            .reset()?,
        BinlogStmt::PurgeTo(_) | BinlogStmt::PurgeBefore(_) if log.is_none() => {}
        BinlogStmt::PurgeTo(file) => {
            let log = log.ok_or_else(no_binlog)?;
            if !log.files().0.iter().any(|f| &f.name == file) {
                return Err(DbError::new(
                    ErrorCode::UnknownTargetBinlog,
                    "Target log not found in binlog index",
                ));
            }
            log.purge_where(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().as_ref() < file.as_str())
            })?;
        }
        BinlogStmt::PurgeBefore(e) => {
            let log = log.ok_or_else(no_binlog)?;
            let v = eval(
                &cx.compile(&Scope::default(), e, "PURGE")?,
                &EvalCtx::default(),
            )?;
            let local = match v {
                Value::DateTime(d) => d,
                Value::Date(d) => crate::types::temporal::DateTime::from_date(d),
                Value::Text(s) => crate::types::temporal::DateTime::parse(&s).ok_or_else(|| {
                    DbError::new(
                        ErrorCode::WrongArguments,
                        "Incorrect arguments to PURGE LOGS BEFORE",
                    )
                })?,
                _ => {
                    return Err(DbError::new(
                        ErrorCode::WrongArguments,
                        "Incorrect arguments to PURGE LOGS BEFORE",
                    ))
                }
            };
            let micros = cx
                .time_zone
                .local_to_utc(local)
                .unix_micros()
                .unwrap_or(0)
                .max(0) as u64;
            let cutoff = SystemTime::UNIX_EPOCH + Duration::from_micros(micros);
            log.purge_where(|p| {
                std::fs::metadata(p)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < cutoff)
            })?;
        }
    }
    Ok(Output::done(0))
}
