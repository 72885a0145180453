//! The grammar of the account statements (executed by ddl/users.rs):
//!
//! ```text
//! CREATE USER [IF NOT EXISTS] user [auth] [, user [auth] ...] [REQUIRE {NONE | SSL}]
//! DROP USER [IF EXISTS] user [, ...]
//! ALTER USER [IF EXISTS] user [auth] [, user [auth] ...] [REQUIRE {NONE | SSL}]
//! RENAME USER user TO user [, ...]
//! SET PASSWORD [FOR user] = {PASSWORD('pw') | 'stored form'}
//! GRANT privileges ON {db.* | db.t | * | *.* | t} TO user ...
//! REVOKE privileges ON ... FROM user ...
//! auth: IDENTIFIED BY 'pw' | IDENTIFIED BY PASSWORD 'stored'
//!     | IDENTIFIED {VIA | WITH} plugin [{USING | AS} {'stored' | PASSWORD('pw')} | BY 'pw']
//! ```
//!
//! A user is `name`, `'name'@'host'` or `name@host` (host `%` when absent). Invariants: the
//! privilege list is skipped (grants are database-level: docs/mysql-compat.md); REQUIRE X509,
//! ISSUER, SUBJECT and CIPHER are refused (1235, design.md ACC8); the tail after the users of
//! CREATE / ALTER USER (resource and password options), of GRANT and REVOKE (`WITH GRANT OPTION`,
//! ...) is ignored, as before.

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::parser::tokens::{syntax, Cursor};

/// `'name'@'host'`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserName {
    pub name: String,
    pub host: String,
}

/// How a statement gives an account's password.
#[derive(Debug, Clone, PartialEq)]
pub enum Credential {
    /// None given (`IDENTIFIED VIA plugin` alone): the empty password.
    Empty,
    /// In clear (`BY 'pw'`, `USING PASSWORD('pw')`): stored as the plugin's form of it.
    Clear(String),
    /// The stored form itself (`BY PASSWORD '*hex'`, `USING | AS 'form'`, `SET PASSWORD = 'form'`).
    Stored(String),
}

/// An `IDENTIFIED ...` clause: the plugin it names (else the account's, or native) and the
/// password.
#[derive(Debug, Clone, PartialEq)]
pub struct Identified {
    pub plugin: Option<String>,
    pub credential: Credential,
}

/// A user of CREATE / ALTER USER and how it is identified.
#[derive(Debug, Clone, PartialEq)]
pub struct NewUser {
    pub user: UserName,
    pub auth: Option<Identified>,
}

/// `REQUIRE NONE` (false) or `REQUIRE SSL` (true).
pub type RequireSsl = Option<bool>;

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

/// `PASSWORD('pw')`: the password.
fn password_call(c: &mut Cursor<'_>) -> DbResult<String> {
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let pw = c.string().ok_or_else(|| syntax(c))?;
    if !c.sym(')') {
        return Err(syntax(c));
    }
    Ok(pw)
}

/// What follows `IDENTIFIED`.
fn identified(c: &mut Cursor<'_>) -> DbResult<Identified> {
    if c.kw("BY") {
        let credential = if c.kw("PASSWORD") {
            Credential::Stored(c.string().ok_or_else(|| syntax(c))?)
        } else {
            Credential::Clear(c.string().ok_or_else(|| syntax(c))?)
        };
        return Ok(Identified {
            plugin: None,
            credential,
        });
    }
    if !(c.kw("VIA") || c.kw("WITH")) {
        return Err(syntax(c));
    }
    let plugin = c.name().or_else(|| c.string()).ok_or_else(|| syntax(c))?;
    let credential = if c.kw("USING") || c.kw("AS") {
        if c.kw("PASSWORD") {
            Credential::Clear(password_call(c)?)
        } else {
            Credential::Stored(c.string().ok_or_else(|| syntax(c))?)
        }
    } else if c.kw("BY") {
        Credential::Clear(c.string().ok_or_else(|| syntax(c))?)
    } else {
        Credential::Empty
    };
    if c.kw("OR") {
        return Err(DbError::unsupported("IDENTIFIED VIA ... OR ..."));
    }
    Ok(Identified {
        plugin: Some(plugin),
        credential,
    })
}

/// `user [IDENTIFIED ...] [, ...]`.
fn users_with_auth(c: &mut Cursor<'_>) -> DbResult<Vec<NewUser>> {
    let mut users = Vec::new();
    loop {
        let user = user(c)?;
        let auth = if c.kw("IDENTIFIED") {
            Some(identified(c)?)
        } else {
            None
        };
        users.push(NewUser { user, auth });
        if !c.sym(',') {
            break;
        }
    }
    Ok(users)
}

/// `[REQUIRE {NONE | SSL}]`; the certificate requirements are refused (design.md ACC8).
fn require(c: &mut Cursor<'_>) -> DbResult<RequireSsl> {
    if !c.kw("REQUIRE") {
        return Ok(None);
    }
    if c.kw("NONE") {
        Ok(Some(false))
    } else if c.kw("SSL") {
        Ok(Some(true))
    } else if let Some(w) = c
        .peek_kw()
        .filter(|w| ["X509", "ISSUER", "SUBJECT", "CIPHER"].contains(w))
    {
        Err(DbError::unsupported(format!("REQUIRE {w}")))
    } else {
        Err(syntax(c))
    }
}

/// After `CREATE USER`.
pub fn parse_create_user(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    let users = users_with_auth(c)?;
    let require = require(c)?;
    Ok(Statement::CreateUser {
        if_not_exists,
        users,
        require,
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
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let users = users_with_auth(c)?;
    let require = require(c)?;
    Ok(Statement::AlterUser {
        if_exists,
        users,
        require,
    })
}

/// After `RENAME USER`.
pub fn parse_rename_user(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let mut pairs = Vec::new();
    loop {
        let from = user(c)?;
        if !c.kw("TO") {
            return Err(syntax(c));
        }
        pairs.push((from, user(c)?));
        if !c.sym(',') {
            break;
        }
    }
    Ok(Statement::RenameUsers(pairs))
}

/// After `SET` when PASSWORD follows.
pub fn parse_set_password(c: &mut Cursor<'_>) -> DbResult<Statement> {
    c.kw("PASSWORD");
    let user = if c.kw("FOR") { Some(user(c)?) } else { None };
    if !c.sym('=') {
        return Err(syntax(c));
    }
    let credential = if c.kw("PASSWORD") {
        Credential::Clear(password_call(c)?)
    } else {
        Credential::Stored(c.string().ok_or_else(|| syntax(c))?)
    };
    Ok(Statement::SetPassword { user, credential })
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
