//! CREATE DATABASE and DROP DATABASE.
//!
//! Invariants: only root creates or drops a database; `information_schema` always exists and is
//! never created or dropped; a database is dropped after every table in it (ddl ordering:
//! tables.rs), and the session's current database is cleared when it is the one dropped.

use crate::catalog::create_table::check_name;
use crate::context::Context;
use crate::ddl::tables::drop_tables;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

/// CREATE DATABASE [IF NOT EXISTS] db.
pub fn create_database(cx: &mut Context, db: &str, if_not_exists: bool) -> DbResult<Output> {
    check_name(db)?;
    if db.eq_ignore_ascii_case("information_schema") || cx.engine.catalog.has_db(db) {
        if if_not_exists {
            cx.warn(
                ErrorCode::DbCreateExists,
                format!("Can't create database '{db}'; database exists"),
            );
            return Ok(Output::done(0));
        }
        return Err(DbError::db_exists(db));
    }
    cx.need_root("CREATE")?;
    cx.engine.catalog.create_db(db)?;
    Ok(Output::done(1))
}

/// DROP DATABASE [IF EXISTS] db: its tables, then the database.
pub fn drop_database(cx: &mut Context, db: &str, if_exists: bool) -> DbResult<Output> {
    if !cx.engine.catalog.has_db(db) {
        if if_exists {
            cx.warn(
                ErrorCode::DbDropExists,
                format!("Can't drop database '{db}'; database doesn't exist"),
            );
            return Ok(Output::done(0));
        }
        return Err(DbError::db_drop_missing(db));
    }
    cx.need_root("DROP")?;
    let tables = cx.engine.catalog.tables(db);
    let names: Vec<Vec<String>> = tables
        .iter()
        .map(|t| vec![t.db.clone(), t.name.clone()])
        .collect();
    drop_tables(cx, &names, true, false)?;
    cx.warnings.clear();
    cx.engine.catalog.drop_db(db)?;
    if cx.db.as_deref() == Some(db) {
        cx.db = None;
    }
    Ok(Output::done(names.len() as u64))
}
