//! Foreign server definitions: `CREATE [OR REPLACE] SERVER [IF NOT EXISTS] name FOREIGN DATA
//! WRAPPER w OPTIONS (...)`, `ALTER SERVER name OPTIONS (...)`, `DROP SERVER [IF EXISTS] name`
//! (grammar: parser/servers.rs).
//!
//! MariaDB keeps these in mysql.servers for FEDERATED and CONNECT tables, which name one in their
//! CONNECTION option. Betula has no such engines: a table's CONNECTION is kept and shown, never
//! used, and the definitions are kept (in the catalog, so they survive restarts) for scripts and
//! dumps that create them. Names compare case-insensitively, as in MariaDB.
//!
//! Invariant: ALTER SERVER changes only the options it names; the wrapper stays.

use crate::catalog::ServerDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::servers::ServerStmt;
use crate::result::Output;

/// Runs a CREATE / ALTER / DROP SERVER statement (only root may).
pub fn run(cx: &mut Context, stmt: ServerStmt) -> DbResult<Output> {
    cx.need_root("SUPER, FEDERATED ADMIN")?;
    match stmt {
        ServerStmt::Create {
            or_replace,
            if_not_exists,
            name,
            wrapper,
            options,
        } => create(cx, or_replace, if_not_exists, name, wrapper, options),
        ServerStmt::Alter { name, options } => alter(cx, &name, options),
        ServerStmt::Drop { if_exists, name } => drop(cx, if_exists, &name),
    }
}

fn create(
    cx: &mut Context,
    or_replace: bool,
    if_not_exists: bool,
    name: String,
    wrapper: String,
    options: Vec<(String, String)>,
) -> DbResult<Output> {
    if cx.engine.catalog.server(&name).is_some() && !or_replace {
        let err = DbError::new(
            ErrorCode::ForeignServerExists,
            format!("The foreign server, {name}, you are trying to create already exists"),
        );
        if if_not_exists {
            cx.warn(err.code, err.message);
            return Ok(Output::done(0));
        }
        return Err(err);
    }
    cx.engine.catalog.put_server(ServerDef {
        name,
        wrapper,
        options,
    })?;
    Ok(Output::done(1))
}

fn alter(cx: &mut Context, name: &str, changes: Vec<(String, String)>) -> DbResult<Output> {
    let mut def = cx
        .engine
        .catalog
        .server(name)
        .ok_or_else(|| missing(name))?;
    for (k, v) in changes {
        match def.options.iter_mut().find(|(o, _)| *o == k) {
            Some(slot) => slot.1 = v,
            None => def.options.push((k, v)),
        }
    }
    cx.engine.catalog.put_server(def)?;
    Ok(Output::done(1))
}

fn drop(cx: &mut Context, if_exists: bool, name: &str) -> DbResult<Output> {
    if !cx.engine.catalog.drop_server(name)? {
        if if_exists {
            let err = missing(name);
            cx.warn(err.code, err.message);
            return Ok(Output::done(0));
        }
        return Err(missing(name));
    }
    Ok(Output::done(1))
}

fn missing(name: &str) -> DbError {
    DbError::new(
        ErrorCode::ForeignServerDoesntExist,
        format!("The foreign server name you are trying to reference does not exist. Data source error:  {name}"),
    )
}
