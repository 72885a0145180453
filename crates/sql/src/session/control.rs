//! Statements about the connection and the server rather than data: USE, KILL, FLUSH,
//! CHECKPOINT and LOCK / UNLOCK TABLES.
//!
//! Invariants: FLUSH and CHECKPOINT write a checkpoint of the storage engine (whatever FLUSH
//! names); LOCK / UNLOCK TABLES are accepted and do nothing (row locks and the schema lock
//! already isolate statements); KILL of a known connection is refused (1235), of an unknown one
//! answers 1094.

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
    Err(DbError::unsupported("KILL"))
}
