//! The grammar of the foreign server statements (executed by ddl/servers.rs):
//!
//! ```text
//! CREATE [OR REPLACE] SERVER [IF NOT EXISTS] name FOREIGN DATA WRAPPER w OPTIONS (...)
//! ALTER SERVER name OPTIONS (...)
//! DROP SERVER [IF EXISTS] name
//! ```
//!
//! Invariants: option names are MariaDB's (upper case here; an unknown one is 1064), values are
//! strings except PORT (a number below 65536); a repeated option keeps its last value; each
//! statement must end after its grammar.

use crate::error::db_error::DbResult;
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, syntax, Cursor};

/// The options MariaDB accepts in OPTIONS (...).
const OPTIONS: [&str; 7] = [
    "HOST", "DATABASE", "USER", "PASSWORD", "SOCKET", "OWNER", "PORT",
];

/// A foreign server statement.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerStmt {
    Create {
        or_replace: bool,
        if_not_exists: bool,
        name: String,
        wrapper: String,
        options: Vec<(String, String)>,
    },
    Alter {
        name: String,
        options: Vec<(String, String)>,
    },
    Drop {
        if_exists: bool,
        name: String,
    },
}

/// After `CREATE [OR REPLACE] SERVER`.
pub fn parse_create(c: &mut Cursor<'_>, or_replace: bool) -> DbResult<Statement> {
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    let name = c.name().ok_or_else(|| syntax(c))?;
    if !c.kws(&["FOREIGN", "DATA", "WRAPPER"]) {
        return Err(syntax(c));
    }
    let wrapper = c.name().ok_or_else(|| syntax(c))?;
    let options = options(c)?;
    expect_end(c)?;
    Ok(Statement::Server(ServerStmt::Create {
        or_replace,
        if_not_exists,
        name,
        wrapper,
        options,
    }))
}

/// After `ALTER SERVER`.
pub fn parse_alter(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let name = c.name().ok_or_else(|| syntax(c))?;
    let options = options(c)?;
    expect_end(c)?;
    Ok(Statement::Server(ServerStmt::Alter { name, options }))
}

/// After `DROP SERVER`.
pub fn parse_drop(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let name = c.name().ok_or_else(|| syntax(c))?;
    expect_end(c)?;
    Ok(Statement::Server(ServerStmt::Drop { if_exists, name }))
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
