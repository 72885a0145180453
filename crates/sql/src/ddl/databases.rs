//! CREATE, ALTER and DROP DATABASE.
//!
//! Invariants: only root creates or drops a database; `information_schema` always exists and is
//! never created or dropped; a database is dropped after every table in it (ddl ordering:
//! tables.rs), and the session's current database is cleared when it is the one dropped.

use crate::catalog::charset_clause;
use crate::catalog::create_table::check_name;
use crate::catalog::DatabaseDef;
use crate::context::Context;
use crate::ddl::tables::drop_tables;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::DatabaseOptions;
use crate::result::Output;

/// CREATE DATABASE [IF NOT EXISTS] db [options]: the character set and collation default to the
/// session's `collation_server`.
pub fn create_database(
    cx: &mut Context,
    db: &str,
    if_not_exists: bool,
    options: &DatabaseOptions,
) -> DbResult<Output> {
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
    let def = DatabaseDef {
        collation: charset_clause::resolve(
            options.charset.as_deref(),
            options.collate.as_deref(),
            cx.server_collation(),
        )?,
        comment: options.comment.clone(),
    };
    cx.engine.catalog.put_db(db, def)?;
    Ok(Output::done(1))
}

/// ALTER DATABASE [db] options: the defaults of tables created from now on (existing tables
/// keep theirs, as in MariaDB).
pub fn alter_database(
    cx: &mut Context,
    db: Option<&str>,
    options: &DatabaseOptions,
) -> DbResult<Output> {
    let db = match db {
        Some(d) => d.to_string(),
        None => cx.db.clone().ok_or_else(DbError::no_db)?,
    };
    let Some(mut def) = cx.engine.catalog.db(&db) else {
        return Err(DbError::bad_db(&db));
    };
    cx.need_root("ALTER")?;
    if options.charset.is_some() || options.collate.is_some() {
        def.collation = charset_clause::resolve(
            options.charset.as_deref(),
            options.collate.as_deref(),
            cx.server_collation(),
        )?;
    }
    if let Some(c) = &options.comment {
        def.comment = Some(c.clone());
    }
    cx.engine.catalog.put_db(&db, def)?;
    if cx.db.as_deref() == Some(db.as_str()) {
        cx.refresh_database_charset();
    }
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
    let views = crate::ddl::views::drop_database_views(cx, db)?;
    // RTN1: the database's routines go before its own entry.
    for r in cx.engine.catalog.routines(db) {
        cx.engine.catalog.remove_routine(&r.db, r.kind, &r.name)?;
    }
    cx.warnings.clear();
    cx.engine.catalog.drop_db(db)?;
    if cx.db.as_deref() == Some(db) {
        cx.db = None;
    }
    Ok(Output::done((names.len() + views) as u64))
}
