//! The grammar of the DDL statements Betula reads itself (CREATE TABLE is sqlparser's):
//!
//! ```text
//! CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] db ...
//! DROP {DATABASE | SCHEMA} [IF EXISTS] db
//! CREATE [UNIQUE] [CLUSTERING] INDEX name ON t (key parts) [index options]
//! DROP INDEX name ON t ...
//! DROP [TEMPORARY] TABLE[S] [IF EXISTS] t [, t ...] [RESTRICT] [CASCADE]
//! TRUNCATE [TABLE] t
//! RENAME TABLE a TO b [, c TO d ...]
//! ALTER [ONLINE] [IGNORE] TABLE t ops          (ops: alter.rs)
//! CREATE / ALTER / DROP USER, SERVER           (users.rs, servers.rs)
//! CREATE / DROP ROLLUP                         (rollup.rs)
//! CREATE / ALTER / DROP VIEW                   (views.rs)
//! CREATE / DROP FUNCTION, PROCEDURE            (routines.rs)
//! ```
//!
//! Invariant: as before, the tail after CREATE DATABASE's name (its character set options), DROP
//! INDEX's table, TRUNCATE's table and RENAME's last pair is ignored; CREATE INDEX and DROP TABLE
//! must end where their grammar does.

use crate::catalog::routine_def::RoutineKind;
use crate::error::db_error::DbResult;
use crate::parser::statement::{DatabaseOptions, Statement};
use crate::parser::tokens::{expect_end, syntax, Cursor};
use crate::parser::{alter, rollup, routines, servers, users, views};

/// After `CREATE`.
pub fn parse_create(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if routines::is_routine_statement(c.src) {
        return routines::parse_create(c);
    }
    if views::is_view_statement(c.src) {
        let or_replace = c.kws(&["OR", "REPLACE"]);
        return views::parse_create(c, or_replace, false);
    }
    let or_replace = c.kws(&["OR", "REPLACE"]);
    if c.kw("SERVER") {
        return servers::parse_create(c, or_replace);
    }
    if or_replace {
        return Err(syntax(c));
    }
    if c.kw("DATABASE") || c.kw("SCHEMA") {
        let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
        let name = c.name().ok_or_else(|| syntax(c))?;
        let options = database_options(c)?;
        return Ok(Statement::CreateDatabase {
            name,
            if_not_exists,
            options,
        });
    }
    if c.kw("USER") {
        return users::parse_create_user(c);
    }
    if c.kw("ROLLUP") {
        return rollup::parse_create(c);
    }
    // TokuDB's CREATE [UNIQUE] CLUSTERING INDEX (also CLUSTERING UNIQUE).
    let mut clustering = alter::clustering_word(c, &["INDEX", "UNIQUE"]);
    let unique = c.kw("UNIQUE");
    clustering |= alter::clustering_word(c, &["INDEX"]);
    if !c.kw("INDEX") {
        return Err(syntax(c));
    }
    let name = c.name().ok_or_else(|| syntax(c))?;
    if !c.kw("ON") {
        return Err(syntax(c));
    }
    let table = c.qualified().ok_or_else(|| syntax(c))?;
    let mut spec = alter::index_columns(c)?;
    spec.clustering |= clustering;
    expect_end(c)?;
    Ok(Statement::CreateIndex {
        name,
        table,
        spec,
        unique,
    })
}

/// After `DROP`.
pub fn parse_drop(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if c.kw("DATABASE") || c.kw("SCHEMA") {
        let if_exists = c.kws(&["IF", "EXISTS"]);
        let name = c.name().ok_or_else(|| syntax(c))?;
        return Ok(Statement::DropDatabase { name, if_exists });
    }
    if c.kw("USER") {
        return users::parse_drop_user(c);
    }
    if c.kw("SERVER") {
        return servers::parse_drop(c);
    }
    if c.kw("ROLLUP") {
        return rollup::parse_drop(c);
    }
    if c.kw("VIEW") {
        return views::parse_drop(c);
    }
    if c.kw("FUNCTION") {
        return routines::parse_drop(c, RoutineKind::Function);
    }
    if c.kw("PROCEDURE") {
        return routines::parse_drop(c, RoutineKind::Procedure);
    }
    if c.kw("INDEX") {
        let name = c.name().ok_or_else(|| syntax(c))?;
        if !c.kw("ON") {
            return Err(syntax(c));
        }
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        return Ok(Statement::DropIndex { name, table });
    }
    let temporary = c.kw("TEMPORARY");
    if !c.kw("TABLE") && !c.kw("TABLES") {
        return Err(syntax(c));
    }
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let names = super::admin::table_names(c)?;
    c.kw("RESTRICT");
    c.kw("CASCADE");
    expect_end(c)?;
    Ok(Statement::DropTables {
        names,
        if_exists,
        temporary,
    })
}

/// After `TRUNCATE`.
pub fn parse_truncate(c: &mut Cursor<'_>) -> DbResult<Statement> {
    c.kw("TABLE");
    let table = c.qualified().ok_or_else(|| syntax(c))?;
    Ok(Statement::Truncate { table })
}

/// After `RENAME`.
pub fn parse_rename(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if c.kw("USER") {
        return users::parse_rename_user(c);
    }
    if !c.kw("TABLE") {
        return Err(syntax(c));
    }
    let mut pairs = Vec::new();
    loop {
        let from = c.qualified().ok_or_else(|| syntax(c))?;
        if !c.kw("TO") {
            return Err(syntax(c));
        }
        let to = c.qualified().ok_or_else(|| syntax(c))?;
        pairs.push((from, to));
        if !c.sym(',') {
            break;
        }
    }
    Ok(Statement::RenameTables(pairs))
}

/// After `ALTER`.
pub fn parse_alter(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if views::is_view_statement(c.src) {
        return views::parse_create(c, false, true);
    }
    if c.kw("DATABASE") || c.kw("SCHEMA") {
        let starts_options = ["DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "COMMENT"];
        let name = match c.peek_kw() {
            Some(k) if starts_options.contains(&k) => None,
            _ => Some(c.name().ok_or_else(|| syntax(c))?),
        };
        let options = database_options(c)?;
        if options == DatabaseOptions::default() {
            return Err(syntax(c));
        }
        return Ok(Statement::AlterDatabase { name, options });
    }
    if c.kw("USER") {
        return users::parse_alter_user(c);
    }
    if c.kw("SERVER") {
        return servers::parse_alter(c);
    }
    let online = c.kw("ONLINE");
    c.kw("IGNORE");
    if !c.kw("TABLE") {
        return Err(syntax(c));
    }
    let table = c.qualified().ok_or_else(|| syntax(c))?;
    // DISCARD / IMPORT TABLESPACE stand alone (locks.rs's family: moving a table between servers).
    for (kw, import) in [("DISCARD", false), ("IMPORT", true)] {
        if c.kws(&[kw, "TABLESPACE"]) {
            expect_end(c)?;
            return Ok(Statement::Tablespace { table, import });
        }
    }
    let ops = alter::parse_ops(c)?;
    Ok(Statement::AlterTable { table, ops, online })
}

/// `[DEFAULT] {CHARACTER SET | CHARSET} [=] cs`, `[DEFAULT] COLLATE [=] c` and `COMMENT [=] 's'`
/// of CREATE / ALTER DATABASE, to the end of the statement.
fn database_options(c: &mut Cursor<'_>) -> DbResult<DatabaseOptions> {
    let mut o = DatabaseOptions::default();
    while !c.at_end() {
        c.kw("DEFAULT");
        if c.kws(&["CHARACTER", "SET"]) || c.kw("CHARSET") {
            c.sym('=');
            o.charset = Some(c.name().ok_or_else(|| syntax(c))?);
        } else if c.kw("COLLATE") {
            c.sym('=');
            o.collate = Some(c.name().ok_or_else(|| syntax(c))?);
        } else if c.kw("COMMENT") {
            c.sym('=');
            o.comment = Some(c.string().ok_or_else(|| syntax(c))?);
        } else {
            return Err(syntax(c));
        }
    }
    Ok(o)
}
