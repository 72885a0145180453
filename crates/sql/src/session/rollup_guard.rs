//! What other statements may do to roll-ups and to their base tables (design.md RUP1, RUP6;
//! docs/time-series.md), checked before a statement runs.
//!
//! * INSERT, REPLACE, UPDATE, DELETE and LOAD DATA into a roll-up: 1288 (multi-table UPDATE and
//!   DELETE check their targets where they are resolved, exec/multi_table.rs).
//! * LOAD DATA into a table with roll-ups: 1235 (its bulk paths write no messages).
//! * ALTER TABLE, CREATE / DROP INDEX, DISCARD / IMPORT TABLESPACE of a roll-up or of a table
//!   with roll-ups (but ALTER TABLE ... RETENTION alone on a base table), TRUNCATE of a roll-up
//!   and RENAME of a table with roll-ups: 1235 (DROP ROLLUP first). TRUNCATE of a base table empties its roll-ups too, DROP TABLE drops them
//!   (ddl/tables.rs).

use sqlparser::ast;

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;
use crate::parser::multi_table::MultiTable;
use crate::parser::statement::Statement;

/// Whether `parts` names a roll-up, and whether it names a table with roll-ups.
fn kind(cx: &Context, parts: &[String]) -> DbResult<(bool, bool)> {
    let (db, t) = cx.resolve_table_name(parts)?;
    if cx.temp.get(&db, &t).is_some() {
        return Ok((false, false));
    }
    let is_rollup = cx
        .engine
        .catalog
        .table(&db, &t)
        .is_some_and(|d| d.rollup.is_some());
    let has = !cx.engine.catalog.rollups_of(&db, &t).is_empty();
    Ok((is_rollup, has))
}

/// 1288 for a write into a roll-up.
pub fn not_updatable(table: &str, what: &str) -> DbError {
    DbError::new(
        ErrorCode::NonUpdatableTable,
        format!("The target table {table} of the {what} is not updatable"),
    )
}

fn refuse_dml(cx: &Context, parts: &[String], what: &str) -> DbResult<()> {
    if kind(cx, parts)?.0 {
        return Err(not_updatable(parts.last().map_or("", String::as_str), what));
    }
    Ok(())
}

fn refuse_ddl(cx: &Context, parts: &[String], what: &str, base_too: bool) -> DbResult<()> {
    let (is_rollup, has) = kind(cx, parts)?;
    if is_rollup || (base_too && has) {
        return Err(DbError::unsupported(format!(
            "{what} of a roll-up or of a table with roll-ups (DROP ROLLUP first)"
        )));
    }
    Ok(())
}

/// The one table a single-table DELETE deletes from.
fn delete_target(d: &ast::Delete) -> Option<Vec<String>> {
    if !d.tables.is_empty() {
        return None;
    }
    let (ast::FromTable::WithFromKeyword(t) | ast::FromTable::WithoutKeyword(t)) = &d.from;
    match t.as_slice() {
        [one] if one.joins.is_empty() => match &one.relation {
            ast::TableFactor::Table { name, .. } => Some(object_name_parts(name)),
            _ => None,
        },
        _ => None,
    }
}

/// Refuses what `stmt` may not do to roll-ups and their base tables.
pub fn check(cx: &Context, stmt: &Statement) -> DbResult<()> {
    match stmt {
        Statement::Sql(s) => match &**s {
            ast::Statement::Insert(i) => match &i.table {
                ast::TableObject::TableName(n) => refuse_dml(cx, &object_name_parts(n), "INSERT"),
                _ => Ok(()),
            },
            ast::Statement::Update(u) => match &u.table.relation {
                ast::TableFactor::Table { name, .. } if u.table.joins.is_empty() => {
                    refuse_dml(cx, &object_name_parts(name), "UPDATE")
                }
                _ => Ok(()),
            },
            ast::Statement::Delete(d) => match delete_target(d) {
                Some(t) => refuse_dml(cx, &t, "DELETE"),
                None => Ok(()),
            },
            _ => Ok(()),
        },
        Statement::Insert(f) => refuse_dml(cx, &f.table, "INSERT"),
        Statement::Load(l) => {
            refuse_dml(cx, &l.table, "LOAD")?;
            if kind(cx, &l.table)?.1 {
                return Err(DbError::unsupported("LOAD DATA into a table with roll-ups"));
            }
            Ok(())
        }
        Statement::MultiTable(MultiTable::Update { update, .. }) => match &update.table.relation {
            ast::TableFactor::Table { name, .. } if update.table.joins.is_empty() => {
                refuse_dml(cx, &object_name_parts(name), "UPDATE")
            }
            _ => Ok(()),
        },
        Statement::MultiTable(MultiTable::Delete { delete, .. }) => match delete_target(delete) {
            Some(t) => refuse_dml(cx, &t, "DELETE"),
            None => Ok(()),
        },
        Statement::MultiTable(MultiTable::MultiDelete { targets, .. }) => {
            for t in targets {
                refuse_dml(cx, t, "DELETE")?;
            }
            Ok(())
        }
        Statement::Truncate { table } => refuse_ddl(cx, table, "TRUNCATE", false),
        // RETENTION alone changes no column a roll-up reads; expiry leaves roll-ups (RET6).
        Statement::AlterTable { table, ops, .. } => {
            let base_too = !ops
                .iter()
                .all(crate::parser::alter::AlterOp::is_retention_or_lock);
            refuse_ddl(cx, table, "ALTER TABLE", base_too)
        }
        Statement::Tablespace { table, .. } => refuse_ddl(cx, table, "TABLESPACE", true),
        Statement::CreateIndex { table, .. } => refuse_ddl(cx, table, "CREATE INDEX", true),
        Statement::DropIndex { table, .. } => refuse_ddl(cx, table, "DROP INDEX", true),
        Statement::RenameTables(pairs) => {
            for (from, _) in pairs {
                if kind(cx, from)?.1 {
                    return Err(DbError::unsupported(
                        "RENAME TABLE of a table with roll-ups (DROP ROLLUP first)",
                    ));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
