//! SHOW and DESCRIBE: their grammar into [`ShowStatement`] (executed by session/show/).
//!
//! ```text
//! SHOW [FULL] [GLOBAL | SESSION | LOCAL] what [LIKE 'pattern'] [WHERE expr]
//! DESCRIBE | DESC | EXPLAIN table [column | 'pattern']
//! ```
//!
//! Invariants: names are kept as written (resolved against the current database by the
//! executor); LIKE is read where MySQL allows it, WHERE after any form but those that swallow
//! their tail (SHOW TRIGGERS / EVENTS / OPEN TABLES); the WHERE condition is read by sqlparser
//! (only the expression: text after it is not checked, as before).

use crate::expr::dialect::dialect;
use sqlparser::ast;
use sqlparser::parser::Parser;

use crate::error::db_error::{DbError, DbResult};
use crate::parser::tokens::{expect_end, syntax, Cursor};

/// One SHOW statement (DESCRIBE is SHOW COLUMNS with a column pattern).
#[derive(Debug, Clone)]
pub struct ShowStatement {
    pub what: Show,
    /// `WHERE expr` over the result's columns.
    pub filter: Option<Box<ast::Expr>>,
}

/// What is shown; `like` is the LIKE pattern on the first column.
#[derive(Debug, Clone, PartialEq)]
pub enum Show {
    Databases {
        like: Option<String>,
    },
    /// `db`: FROM / IN (the current database if `None`).
    Tables {
        full: bool,
        db: Option<String>,
        like: Option<String>,
    },
    TableStatus {
        db: Option<String>,
        like: Option<String>,
    },
    /// SHOW [FULL] COLUMNS and DESCRIBE (`like` is then the column name or pattern).
    Columns {
        full: bool,
        table: Vec<String>,
        like: Option<String>,
    },
    Indexes {
        table: Vec<String>,
    },
    CreateDatabase {
        name: String,
    },
    CreateTable {
        table: Vec<String>,
    },
    CreateView {
        table: Vec<String>,
    },
    CreateUser {
        user: String,
        host: String,
    },
    Variables {
        global: bool,
        like: Option<String>,
    },
    /// SHOW [GLOBAL | SESSION] STATUS: `global` shows the server's counters, else the session's.
    Status {
        global: bool,
        like: Option<String>,
    },
    /// SHOW WARNINGS (`errors_only`: SHOW ERRORS).
    Warnings {
        errors_only: bool,
    },
    Processlist,
    Engines,
    EngineStatus {
        name: String,
    },
    /// SHOW GRANTS [FOR user]: `(name, host)`, `None` for the session's own account.
    Grants {
        user: Option<(String, String)>,
    },
    Collations {
        like: Option<String>,
    },
    Charsets {
        like: Option<String>,
    },
    Plugins,
    /// SLAVE / REPLICA ...: empty (Betula is not a replica).
    Replication,
    /// SHOW MASTER STATUS / SHOW BINLOG STATUS.
    MasterStatus,
    /// SHOW BINARY LOGS / SHOW MASTER LOGS.
    BinaryLogs,
    /// SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count].
    BinlogEvents {
        file: Option<String>,
        from: Option<u64>,
        limit: Option<(u64, u64)>,
    },
    /// TRIGGERS / EVENTS / OPEN TABLES: empty.
    Triggers,
    /// SHOW {PROCEDURE | FUNCTION} STATUS [LIKE 'pattern'].
    Routines {
        kind: crate::catalog::routine_def::RoutineKind,
        like: Option<String>,
    },
    /// SHOW CREATE {FUNCTION | PROCEDURE} [db.]name.
    CreateRoutine {
        kind: crate::catalog::routine_def::RoutineKind,
        name: Vec<String>,
    },
}

fn like(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    if c.kw("LIKE") {
        return Ok(Some(c.string().ok_or_else(|| syntax(c))?));
    }
    Ok(None)
}

/// `FROM db` / `IN db`, if present.
fn from_db(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    if c.kw("FROM") || c.kw("IN") {
        return Ok(Some(c.name().ok_or_else(|| syntax(c))?));
    }
    Ok(None)
}

/// `{FROM | IN} t [{FROM | IN} db]` (the table's parts).
fn from_table(c: &mut Cursor<'_>) -> DbResult<Vec<String>> {
    if !(c.kw("FROM") || c.kw("IN")) {
        return Err(syntax(c));
    }
    let mut parts = c.qualified().ok_or_else(|| syntax(c))?;
    if c.kw("FROM") || c.kw("IN") {
        let db = c.name().ok_or_else(|| syntax(c))?;
        parts = vec![db, parts.pop().unwrap_or_default()];
    }
    Ok(parts)
}

/// After `SHOW`.
pub fn parse_show(c: &mut Cursor<'_>) -> DbResult<ShowStatement> {
    let full = c.kw("FULL");
    let global = c.kw("GLOBAL");
    c.kw("SESSION");
    c.kw("LOCAL");
    let word = c.peek_kw().unwrap_or("").to_string();
    c.pos += 1;
    let what = match word.as_str() {
        "DATABASES" | "SCHEMAS" => Show::Databases { like: like(c)? },
        "TABLES" => {
            let db = from_db(c)?;
            Show::Tables {
                full,
                db,
                like: like(c)?,
            }
        }
        "COLUMNS" | "FIELDS" => {
            let table = from_table(c)?;
            Show::Columns {
                full,
                table,
                like: like(c)?,
            }
        }
        "INDEX" | "INDEXES" | "KEYS" => Show::Indexes {
            table: from_table(c)?,
        },
        "CREATE" => show_create(c)?,
        "TABLE" => {
            if !c.kw("STATUS") {
                return Err(syntax(c));
            }
            let db = from_db(c)?;
            Show::TableStatus { db, like: like(c)? }
        }
        "VARIABLES" => Show::Variables {
            global,
            like: like(c)?,
        },
        "STATUS" => Show::Status {
            global,
            like: like(c)?,
        },
        "WARNINGS" | "ERRORS" => Show::Warnings {
            errors_only: word == "ERRORS",
        },
        "PROCESSLIST" => Show::Processlist,
        "ENGINES" => Show::Engines,
        "ENGINE" => {
            let name = c.name().unwrap_or_default();
            c.kw("STATUS");
            Show::EngineStatus { name }
        }
        "GRANTS" => Show::Grants {
            user: if !c.kw("FOR") {
                None
            } else if c.kw("CURRENT_USER") {
                if c.sym('(') && !c.sym(')') {
                    return Err(syntax(c));
                }
                None
            } else {
                Some(c.user().ok_or_else(|| syntax(c))?)
            },
        },
        "COLLATION" => Show::Collations { like: like(c)? },
        "CHARACTER" | "CHARSET" => {
            c.kw("SET");
            Show::Charsets { like: like(c)? }
        }
        "PLUGINS" => Show::Plugins,
        "MASTER" if c.kw("STATUS") => Show::MasterStatus,
        "MASTER" | "BINARY" if c.kw("LOGS") => Show::BinaryLogs,
        "BINLOG" if c.kw("STATUS") => Show::MasterStatus,
        "BINLOG" => crate::parser::binlog::show_events(c)?,
        "SLAVE" | "REPLICA" | "MASTER" | "BINARY" => {
            while c.name().is_some() {}
            Show::Replication
        }
        "TRIGGERS" | "EVENTS" | "OPEN" => {
            while !c.at_end() {
                c.pos += 1;
            }
            Show::Triggers
        }
        "PROCEDURE" | "FUNCTION" => {
            if !c.kw("STATUS") {
                return Err(syntax(c));
            }
            let kind = if word == "FUNCTION" {
                crate::catalog::routine_def::RoutineKind::Function
            } else {
                crate::catalog::routine_def::RoutineKind::Procedure
            };
            Show::Routines {
                kind,
                like: like(c)?,
            }
        }
        _ => return Err(syntax(c)),
    };
    let filter = if c.kw("WHERE") {
        let e = Parser::new(dialect())
            .try_with_sql(c.rest())?
            .parse_expr()?;
        Some(Box::new(e))
    } else {
        expect_end(c)?;
        None
    };
    Ok(ShowStatement { what, filter })
}

/// After `SHOW CREATE`.
fn show_create(c: &mut Cursor<'_>) -> DbResult<Show> {
    if c.kw("DATABASE") || c.kw("SCHEMA") {
        c.kws(&["IF", "NOT", "EXISTS"]);
        let name = c.name().ok_or_else(|| syntax(c))?;
        Ok(Show::CreateDatabase { name })
    } else if c.kw("TABLE") {
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        Ok(Show::CreateTable { table })
    } else if c.kw("VIEW") {
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        Ok(Show::CreateView { table })
    } else if c.kw("FUNCTION") || c.kw("PROCEDURE") {
        let kind = if c.toks_back(1) == Some("FUNCTION") {
            crate::catalog::routine_def::RoutineKind::Function
        } else {
            crate::catalog::routine_def::RoutineKind::Procedure
        };
        let name = c.qualified().ok_or_else(|| syntax(c))?;
        Ok(Show::CreateRoutine { kind, name })
    } else if c.kw("USER") {
        let (user, host) = c.user().ok_or_else(|| syntax(c))?;
        Ok(Show::CreateUser { user, host })
    } else {
        Err(DbError::unsupported("SHOW CREATE of this object"))
    }
}

/// After `DESCRIBE` / `DESC` / `EXPLAIN` (of a table): `table [column_or_pattern]`.
pub fn parse_describe(c: &mut Cursor<'_>) -> DbResult<ShowStatement> {
    let table = c.qualified().ok_or_else(|| syntax(c))?;
    let like = c.name();
    expect_end(c)?;
    Ok(ShowStatement {
        what: Show::Columns {
            full: false,
            table,
            like,
        },
        filter: None,
    })
}
