//! Foreign server definitions: `CREATE [OR REPLACE] SERVER [IF NOT EXISTS] name FOREIGN DATA
//! WRAPPER w OPTIONS (...)`, `ALTER SERVER name OPTIONS (...)`, `DROP SERVER [IF EXISTS] name`.
//!
//! MariaDB keeps these in mysql.servers for FEDERATED and CONNECT tables, which name one in their
//! CONNECTION option. Betula has no such engines: a table's CONNECTION is kept and shown, never
//! used, and the definitions are kept (in the catalog, so they survive restarts) for scripts and
//! dumps that create them. Names compare case-insensitively, as in MariaDB.
//!
//! Invariant: ALTER SERVER changes only the options it names; the wrapper stays.

use crate::catalog::ServerDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::Output;
use crate::parser::tokens::Cursor;
use crate::session::admin::{expect_end, need_root, syntax};

/// The options MariaDB accepts in OPTIONS (...).
const OPTIONS: [&str; 7] = [
    "HOST", "DATABASE", "USER", "PASSWORD", "SOCKET", "OWNER", "PORT",
];

/// After `CREATE [OR REPLACE] SERVER`.
pub fn create(cx: &mut Context, c: &mut Cursor<'_>, or_replace: bool) -> DbResult<Output> {
    need_root(cx, "SUPER, FEDERATED ADMIN")?;
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    let name = c.name().ok_or_else(|| syntax(c))?;
    if !c.kws(&["FOREIGN", "DATA", "WRAPPER"]) {
        return Err(syntax(c));
    }
    let wrapper = c.name().ok_or_else(|| syntax(c))?;
    let options = options(c)?;
    expect_end(c)?;
    if cx.engine.catalog.server(&name).is_some() && !or_replace {
        let err = DbError::new(
            1476,
            "HY000",
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

/// After `ALTER SERVER`.
pub fn alter(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    need_root(cx, "SUPER, FEDERATED ADMIN")?;
    let name = c.name().ok_or_else(|| syntax(c))?;
    let changes = options(c)?;
    expect_end(c)?;
    let mut def = cx
        .engine
        .catalog
        .server(&name)
        .ok_or_else(|| missing(&name))?;
    for (k, v) in changes {
        match def.options.iter_mut().find(|(o, _)| *o == k) {
            Some(slot) => slot.1 = v,
            None => def.options.push((k, v)),
        }
    }
    cx.engine.catalog.put_server(def)?;
    Ok(Output::done(1))
}

/// After `DROP SERVER`.
pub fn drop(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    need_root(cx, "SUPER, FEDERATED ADMIN")?;
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let name = c.name().ok_or_else(|| syntax(c))?;
    expect_end(c)?;
    if !cx.engine.catalog.drop_server(&name)? {
        if if_exists {
            let err = missing(&name);
            cx.warn(err.code, err.message);
            return Ok(Output::done(0));
        }
        return Err(missing(&name));
    }
    Ok(Output::done(1))
}

fn missing(name: &str) -> DbError {
    DbError::new(
        1477,
        "HY000",
        format!("The foreign server name you are trying to reference does not exist. Data source error:  {name}"),
    )
}

/// `OPTIONS (name value, ...)`: values are strings, PORT a number.
fn options(c: &mut Cursor<'_>) -> DbResult<Vec<(String, String)>> {
    if !c.kw("OPTIONS") || !c.sym('(') {
        return Err(syntax(c));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    loop {
        let key = c
            .name()
            .map(|k| k.to_ascii_uppercase())
            .filter(|k| OPTIONS.contains(&k.as_str()))
            .ok_or_else(|| syntax(c))?;
        let value = if key == "PORT" {
            c.name().filter(|v| v.parse::<u16>().is_ok())
        } else {
            c.string()
        }
        .ok_or_else(|| syntax(c))?;
        out.retain(|(k, _)| *k != key);
        out.push((key, value));
        if c.sym(')') {
            return Ok(out);
        }
        if !c.sym(',') {
            return Err(syntax(c));
        }
    }
}
