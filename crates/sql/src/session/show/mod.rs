//! SHOW and DESCRIBE (grammar: parser/show.rs): what is shown, by family —
//!
//! | module | shows |
//! | --- | --- |
//! | `schema` | databases, tables, table status, columns, indexes, CREATE DATABASE / TABLE |
//! | `server` | variables, status, warnings, processes, engines, collations, character sets, and the empty lists of what Betula does not have |
//! | `engine_status` | SHOW ENGINE ... STATUS: the engine's report in sections |
//! | `accounts` | grants, CREATE USER |
//! | `views` | CREATE VIEW (also SHOW CREATE TABLE of a view), columns of a view |
//!
//! Invariants: results have text columns (`Output::text`), except SHOW TABLE STATUS
//! (information_schema's typed columns); LIKE compares the first column (MySQL's pattern
//! rules, case-insensitive); WHERE is evaluated over the result's columns by name.

mod accounts;
mod binlog;
pub mod engine_status;
mod schema;
mod server;
mod views;

use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::expr::eval::{eval, like_match, truth, EvalCtx};
use crate::parser::show::{Show, ShowStatement};
use crate::result::scope_of;
use crate::result::Output;
use crate::types::value::Value;

pub use schema::show_columns;

/// Runs a SHOW statement.
pub fn run(cx: &mut Context, stmt: &ShowStatement) -> DbResult<Output> {
    let out = match &stmt.what {
        Show::Databases { like } => schema::databases(cx, like),
        Show::Tables { full, db, like } => schema::tables(cx, *full, db.as_deref(), like)?,
        Show::TableStatus { db, like } => schema::table_status(cx, db.as_deref(), like)?,
        Show::Columns { full, table, like } => {
            let (db, tn) = cx.resolve_table_name(table)?;
            show_columns(cx, &db, &tn, *full, like.as_deref())?
        }
        Show::Indexes { table } => schema::indexes(cx, table)?,
        Show::CreateDatabase { name } => schema::create_database(cx, name)?,
        Show::CreateTable { table } => schema::create_table(cx, table)?,
        Show::CreateView { table } => views::create_view(cx, table)?,
        Show::CreateUser { user, host } => accounts::create_user(cx, user, host)?,
        Show::Grants { user } => accounts::grants(cx, user.as_ref())?,
        Show::Variables { global, like } => server::variables(cx, *global, like),
        Show::Status { global, like } => server::status(cx, *global, like),
        Show::Warnings { errors_only } => server::warnings(cx, *errors_only),
        Show::Processlist => server::processlist(cx),
        Show::Engines => server::engines(),
        Show::EngineStatus { name } => engine_status::engine_status(cx, name),
        Show::Collations { like } => server::collations(like),
        Show::Charsets { like } => server::charsets(like),
        Show::Plugins => Output::text(&["Name", "Status", "Type", "Library", "License"], vec![]),
        Show::Replication => Output::text(&["File", "Position"], vec![]),
        Show::MasterStatus => binlog::master_status(cx)?,
        Show::BinaryLogs => binlog::binary_logs(cx)?,
        Show::BinlogEvents { file, from, limit } => {
            binlog::binlog_events(cx, file.as_deref(), *from, *limit)?
        }
        Show::Triggers => Output::text(
            &["Trigger", "Event", "Table", "Statement", "Timing"],
            vec![],
        ),
        Show::Routines { kind, like } => crate::routine::show::status(cx, *kind, like)?,
        Show::CreateRoutine { kind, name } => crate::routine::show::show_create(cx, *kind, name)?,
    };
    match &stmt.filter {
        Some(e) => where_filter(cx, out, e),
        None => Ok(out),
    }
}

/// A text value.
fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// Whether `s` matches the LIKE pattern (no pattern: everything matches).
fn matches(pat: &Option<String>, s: &str) -> bool {
    pat.as_ref().is_none_or(|p| like_match(s, p, '\\', true))
}

/// The first column of a row as text (for LIKE).
fn first_text(r: &[Value]) -> String {
    crate::expr::eval::text_of(&r[0]).unwrap_or_default()
}

/// Applies `WHERE e` over a result's columns.
fn where_filter(cx: &mut Context, out: Output, e: &sqlparser::ast::Expr) -> DbResult<Output> {
    let Output::Rows { cols, rows } = out else {
        return Ok(out);
    };
    let scope = scope_of(&cols);
    let ex = cx.compile(&scope, e, "WHERE")?;
    let mut kept = Vec::new();
    for r in rows {
        if truth(&eval(&ex, &EvalCtx::row(&r))?) == Some(true) {
            kept.push(r);
        }
    }
    Ok(Output::Rows { cols, rows: kept })
}
