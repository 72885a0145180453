//! Transaction control statements: BEGIN / START TRANSACTION, COMMIT, ROLLBACK [TO SAVEPOINT],
//! SAVEPOINT and RELEASE SAVEPOINT, over the Context's transaction (context/transaction.rs,
//! which owns the invariants).

use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::result::Output;

pub fn begin(cx: &mut Context) -> DbResult<Output> {
    cx.begin()?;
    Ok(Output::done(0))
}

pub fn commit(cx: &mut Context) -> DbResult<Output> {
    cx.commit()?;
    Ok(Output::done(0))
}

/// ROLLBACK, or ROLLBACK TO SAVEPOINT `to` (the transaction stays open).
pub fn rollback(cx: &mut Context, to: Option<&str>) -> DbResult<Output> {
    match to {
        Some(name) => cx.rollback_to_savepoint(name)?,
        None => cx.rollback(),
    }
    Ok(Output::done(0))
}

pub fn savepoint(cx: &mut Context, name: &str) -> DbResult<Output> {
    cx.savepoint(name);
    Ok(Output::done(0))
}

pub fn release(cx: &mut Context, name: &str) -> DbResult<Output> {
    cx.release_savepoint(name)?;
    Ok(Output::done(0))
}
