//! The grammar of the account statements (executed by ddl/users.rs):
//!
//! ```text
//! CREATE USER [IF NOT EXISTS] user [IDENTIFIED [WITH plugin] [BY 'pw']] [, ...]
//! DROP USER [IF EXISTS] user [, ...]
//! ALTER USER [IF EXISTS] user [IDENTIFIED [WITH plugin] [BY 'pw']] ...
//! SET PASSWORD [FOR user] = 'pw'
//! GRANT privileges ON {db.* | db.t | * | *.* | t} TO user ...
//! REVOKE privileges ON ... FROM user ...
//! ```
//!
//! A user is `name`, `'name'@'host'` or `name@host` (host `%` when absent). Invariants: the
//! privilege list is skipped (grants are database-level: docs/mysql-compat.md); the tail after
//! the user of ALTER USER, SET PASSWORD, GRANT and REVOKE (`WITH GRANT OPTION`, ...) is ignored,
//! as before.

use crate::error::db_error::DbResult;
use crate::parser::statement::Statement;
use crate::parser::tokens::{syntax, Cursor};

/// `'name'@'host'`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserName {
    pub name: String,
    pub host: String,
}

/// A user of CREATE USER and the password it is given.
#[derive(Debug, Clone, PartialEq)]
pub struct NewUser {
    pub user: UserName,
    pub password: Option<String>,
}

/// What GRANT / REVOKE name after ON.
#[derive(Debug, Clone, PartialEq)]
pub enum GrantOn {
    /// `db.*` or `db.t`: the database.
    Database(String),
    /// `*`: the current database, or every database without one.
    Current,
    /// `t` (a table of the current database): the current database.
    CurrentTable,
}

/// What a GRANT's privilege list says of replication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replication {
    /// It names no replication privilege.
    None,
    /// It names REPLICATION SLAVE (or REPLICA) among others.
    Also,
    /// It names only REPLICATION privileges (SLAVE / REPLICA / CLIENT): no database access.
    Only,
}

impl Replication {
    fn of(words: &[String]) -> Replication {
        let privs: Vec<String> = words
            .split(|w| w == ",")
            .map(|p| p.join(" "))
            .filter(|p| !p.is_empty())
            .collect();
        let is_repl = |p: &str| p.starts_with("REPLICATION ") || p.starts_with("BINLOG ");
        let slave = privs
            .iter()
            .any(|p| p == "REPLICATION SLAVE" || p == "REPLICATION REPLICA");
        match (slave, privs.iter().all(|p| is_repl(p))) {
            (false, true) if !privs.is_empty() => Replication::Only,
            (false, _) => Replication::None,
            (true, true) => Replication::Only,
            (true, false) => Replication::Also,
        }
    }
}

fn user(c: &mut Cursor<'_>) -> DbResult<UserName> {
    let (name, host) = c.user().ok_or_else(|| syntax(c))?;
    Ok(UserName { name, host })
}

/// `IDENTIFIED [WITH plugin] [BY 'pw']`: the password if BY is given.
fn identified(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    let mut pw = None;
    if c.kw("IDENTIFIED") {
        if c.kw("WITH") {
            c.name();
        }
        if c.kw("BY") {
            pw = Some(c.string().ok_or_else(|| syntax(c))?);
        }
    }
    Ok(pw)
}

/// After `CREATE USER`.
pub fn parse_create_user(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    let mut users = Vec::new();
    loop {
        let user = user(c)?;
        let password = identified(c)?;
        users.push(NewUser { user, password });
        if !c.sym(',') {
            break;
        }
    }
    Ok(Statement::CreateUser {
        if_not_exists,
        users,
    })
}

/// After `DROP USER`.
pub fn parse_drop_user(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let mut users = Vec::new();
    loop {
        users.push(user(c)?);
        if !c.sym(',') {
            break;
        }
    }
    Ok(Statement::DropUser { if_exists, users })
}

/// After `ALTER USER`.
pub fn parse_alter_user(c: &mut Cursor<'_>) -> DbResult<Statement> {
    c.kws(&["IF", "EXISTS"]);
    let user = user(c)?;
    let password = identified(c)?;
    Ok(Statement::AlterUser { user, password })
}

/// After `SET` when PASSWORD follows.
pub fn parse_set_password(c: &mut Cursor<'_>) -> DbResult<Statement> {
    c.kw("PASSWORD");
    let user = if c.kw("FOR") {
        Some(user(c)?.name)
    } else {
        None
    };
    if !c.sym('=') {
        return Err(syntax(c));
    }
    let password = c.string().ok_or_else(|| syntax(c))?;
    Ok(Statement::SetPassword { user, password })
}

/// After `GRANT` (`revoke` false) or `REVOKE` (true).
pub fn parse_grant(c: &mut Cursor<'_>, revoke: bool) -> DbResult<Statement> {
    let mut words = Vec::new();
    while !c.at_end() && !c.kw("ON") {
        words.push(c.peek_kw().unwrap_or(",").to_string());
        c.pos += 1;
    }
    let replication = Replication::of(&words);
    c.kw("TABLE");
    let first = if c.sym('*') {
        "*".to_string()
    } else {
        c.name().ok_or_else(|| syntax(c))?
    };
    let on = if c.sym('.') {
        if !c.sym('*') {
            c.name().ok_or_else(|| syntax(c))?;
        }
        GrantOn::Database(first)
    } else if first == "*" {
        GrantOn::Current
    } else {
        GrantOn::CurrentTable
    };
    if !(c.kw("TO") || c.kw("FROM")) {
        return Err(syntax(c));
    }
    let user = user(c)?;
    Ok(Statement::Grant {
        on,
        user,
        revoke,
        replication,
    })
}
