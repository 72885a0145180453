//! Which statements the binary log records as DDL, and the text it records (design.md BLG6):
//! CREATE TABLE as the table's definition (`SHOW CREATE TABLE` without its or its partitions'
//! ENGINE clauses, so a replica makes it in its default engine, without RETENTION, which
//! MariaDB does not know, and without any SELECT, whose rows are logged as rows); DROP TABLE as `DROP TABLE IF EXISTS` of the permanent tables named; the other
//! database and table DDL as written, CREATE / ALTER VIEW as the view's definition (`CREATE OR
//! REPLACE ALGORITHM=... DEFINER=... VIEW ...`, so a replica gets the definer and options too), DROP VIEW
//! as written. Statements on temporary tables, accounts and servers
//! are not logged.

use sqlparser::ast;

use crate::catalog::create_table::render_create;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::parser::alter::AlterOp;
use crate::parser::statement::Statement;

/// What to log once the statement succeeded.
pub(super) enum DdlLog {
    /// The statement's own text, in the current database.
    Text,
    /// The created table's definition.
    CreateTable(Vec<String>),
    /// The created or altered view's definition (its SHOW CREATE VIEW text, in its database).
    CreateView(Vec<String>),
    /// These permanent tables were dropped.
    DropTables(Vec<(String, String)>),
}

fn names(n: &ast::ObjectName) -> Vec<String> {
    n.0.iter()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .collect()
}

/// Whether `parts` names one of the session's temporary tables.
fn is_temp(cx: &Context, parts: &[String]) -> bool {
    cx.resolve_table_name(parts)
        .is_ok_and(|(db, t)| cx.temp.get(&db, &t).is_some())
}

/// What `stmt` will log if it succeeds (None: nothing, or no binary log).
pub(super) fn plan(cx: &Context, stmt: &Statement) -> Option<DdlLog> {
    cx.engine.binlog()?;
    let create =
        |ct: &ast::CreateTable| (!ct.temporary).then(|| DdlLog::CreateTable(names(&ct.name)));
    match stmt {
        Statement::Sql(s) => match &**s {
            ast::Statement::CreateTable(ct) => create(ct),
            _ => None,
        },
        Statement::CreateTableWith { table, .. } => create(table),
        Statement::CreateDatabase { .. }
        | Statement::AlterDatabase { .. }
        | Statement::DropDatabase { .. }
        | Statement::DropViews { .. } => Some(DdlLog::Text),
        Statement::CreateView(v) => Some(DdlLog::CreateView(v.name.clone())),
        Statement::DropTables {
            temporary: true, ..
        } => None,
        Statement::DropTables { names, .. } => {
            let keep: Vec<(String, String)> = names
                .iter()
                .filter(|n| !is_temp(cx, n))
                .filter_map(|n| cx.resolve_table_name(n).ok())
                .collect();
            (!keep.is_empty()).then_some(DdlLog::DropTables(keep))
        }
        // RET7: RETENTION is Betula's own; the changes it makes are logged as they happen.
        Statement::AlterTable { ops, .. } if ops.iter().all(AlterOp::is_retention_or_lock) => None,
        Statement::Truncate { table }
        | Statement::AlterTable { table, .. }
        | Statement::CreateIndex { table, .. }
        | Statement::DropIndex { table, .. } => (!is_temp(cx, table)).then_some(DdlLog::Text),
        Statement::RenameTables(pairs) => {
            (!pairs.iter().any(|(from, _)| is_temp(cx, from))).then_some(DdlLog::Text)
        }
        _ => None,
    }
}

fn quote(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// Logs a statement that succeeded as `plan` said.
pub(super) fn log(cx: &Context, plan: DdlLog) -> DbResult<()> {
    let cur = cx.db.clone().unwrap_or_default();
    match plan {
        DdlLog::Text => cx.binlog_ddl(&cur, &cx.cur_sql),
        DdlLog::CreateTable(parts) => {
            let (db, name) = cx.resolve_table_name(&parts)?;
            let def = cx.engine.catalog.get_table(&db, &name)?;
            let mut text = render_create(&def);
            if let Some(r) = def.retention {
                // RET7: a replica does not know the option.
                text = text.replacen(&format!(" RETENTION={r}"), "", 1);
            }
            let engine = def.engine.as_deref().unwrap_or("Betula");
            // The table's and each partition's ENGINE clause: the replica uses its default.
            let text = text
                .replacen(&format!(" ENGINE={engine}"), "", 1)
                .replace(&format!(" ENGINE = {engine}"), "");
            cx.binlog_ddl(&db, &text)
        }
        DdlLog::CreateView(parts) => {
            let (db, name) = cx.resolve_table_name(&parts)?;
            match cx.engine.catalog.view(&db, &name) {
                Some(v) => cx.binlog_ddl(
                    &db,
                    &v.create_text(&v.select, false)
                        .replacen("CREATE ", "CREATE OR REPLACE ", 1),
                ),
                // CREATE VIEW IF NOT EXISTS of a name a table holds: nothing was made.
                None => Ok(()),
            }
        }
        DdlLog::DropTables(tables) => {
            let list: Vec<String> = tables
                .iter()
                .map(|(d, t)| format!("{}.{}", quote(d), quote(t)))
                .collect();
            cx.binlog_ddl(&cur, &format!("DROP TABLE IF EXISTS {}", list.join(", ")))
        }
    }
}
