//! Statements about the connection and the server rather than data: USE, KILL, FLUSH and
//! CHECKPOINT (FLUSH TABLES and the table locks are locking.rs's).
//!
//! Invariants: FLUSH and CHECKPOINT write a checkpoint of the storage engine (whatever FLUSH
//! names); KILL [QUERY] of the connection running a backup cancels the backup (it ends with 1317),
//! KILL of any other known connection is refused (1235), of an unknown one answers 1094.

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

pub fn use_db(cx: &mut Context, db: &str) -> DbResult<Output> {
    cx.use_db(db)?;
    Ok(Output::done(0))
}

pub fn checkpoint(cx: &mut Context) -> DbResult<Output> {
    cx.engine.store.env().checkpoint()?;
    Ok(Output::done(0))
}

pub fn kill(cx: &mut Context, id: u64) -> DbResult<Output> {
    if !cx.engine.processes.lock().contains_key(&id) {
        return Err(DbError::new(
            ErrorCode::NoSuchThread,
            format!("Unknown thread id: {id}"),
        ));
    }
    if let Some((conn, progress)) = &*cx.engine.backup.lock() {
        if *conn == id && progress.phase.load(std::sync::atomic::Ordering::Relaxed) < 3 {
            cx.need_root("SUPER")?;
            progress
                .cancel
                .store(true, std::sync::atomic::Ordering::Relaxed);
            return Ok(Output::done(0));
        }
    }
    Err(DbError::unsupported("KILL"))
}
