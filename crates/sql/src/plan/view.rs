//! Views in queries: a table reference naming a view becomes a derived table planned from the
//! view's stored SELECT (design.md VIEW3, VIEW5); CREATE / ALTER VIEW check a SELECT the same way
//! (VIEW4, [`check_body`]).
//!
//! Invariants: the body is planned with the view's database as the current database and with an
//! empty CTE stack, and the session's database, CTE stack and view chain are as before afterwards,
//! error or not; a view already on the chain is 1462; errors naming a missing table, column or
//! function while a stored body is planned are reported as 1356 naming the view.

use sqlparser::ast;

use std::sync::Arc;

use super::from::{From, SrcKind};
use super::query::{plan_query, QueryPlan};
use crate::catalog::{TableDef, ViewDef};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::OutCol;

/// How deep views may nest inside views (VIEW5).
pub const VIEW_NESTING_MAX: usize = 64;

/// A reference to `view` as source `alias` of `from`.
pub fn reference(
    cx: &mut Context,
    view: &ViewDef,
    alias: String,
    from: &mut From,
    left: bool,
    on: Option<ast::Expr>,
) -> DbResult<()> {
    let (plan, cols) = plan_view(cx, view)?;
    let offset = from.scope.cols.len();
    from.push_derived(alias, &cols, plan, left, on);
    // A view's column keeps NOT NULL (DESCRIBE and information_schema of a view over it show
    // it, as MariaDB does), unless the view is the inner side of a LEFT JOIN.
    if !left {
        for (sc, c) in from.scope.cols[offset..].iter_mut().zip(&cols) {
            sc.flags |= c.flags & crate::types::column_flag::NOT_NULL;
        }
    }
    Ok(())
}

/// The plan of `view`'s stored body and its columns (named by its column list).
pub fn plan_view(cx: &mut Context, view: &ViewDef) -> DbResult<(QueryPlan, Vec<OutCol>)> {
    let query = crate::parser::views::parse_select(&view.select).map_err(|_| invalid(view))?;
    let plan = check_body(cx, (&view.db, &view.name), &view.select, &query).map_err(|e| {
        if stands_for_invalid(e.code) {
            invalid(view)
        } else {
            e
        }
    })?;
    let cols = named_columns(plan.columns(), &view.columns)?;
    Ok((plan, cols))
}

/// The base tables `view`'s body reads through FROM (views in it expanded, derived tables
/// included; not those only a subquery in an expression reads): what LOCK TABLES of a view locks.
pub fn base_tables(cx: &mut Context, view: &ViewDef) -> DbResult<Vec<Arc<TableDef>>> {
    let (plan, _) = plan_view(cx, view)?;
    let mut out: Vec<Arc<TableDef>> = Vec::new();
    for s in plan.selects() {
        for src in &s.from.sources {
            if let SrcKind::Table(t) = &src.kind {
                if !out.iter().any(|o| o.db == t.db && o.name == t.name) {
                    out.push(t.clone());
                }
            }
        }
    }
    Ok(out)
}

/// information_schema.COLUMNS' rows of every view the user may see, its body planned now; a
/// view that does not plan (1356) is left out with that warning, as MariaDB does.
pub fn column_rows(cx: &mut Context) -> DbResult<Vec<Vec<crate::types::value::Value>>> {
    let mut rows = Vec::new();
    for db in cx.engine.catalog.databases() {
        if cx.check_db_access(&db).is_err() {
            continue;
        }
        for v in cx.engine.catalog.views(&db) {
            match plan_view(cx, &v) {
                Ok((_, cols)) => {
                    rows.extend(crate::infoschema::view_column_rows(&v.db, &v.name, &cols))
                }
                Err(e) if e.code == ErrorCode::ViewInvalid => cx.warn(e.code, e.message),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(rows)
}

/// Plans `query`, parsed from `text`, as the body of view `db`.`name` (VIEW3's environment; the
/// view on the chain, so a body naming it again is 1462). Select items without an alias are
/// named after `text` (the statement's text is the one their spans point into).
pub fn check_body(
    cx: &mut Context,
    (db, name): (&str, &str),
    text: &str,
    query: &ast::Query,
) -> DbResult<QueryPlan> {
    let key = (db.to_string(), name.to_string());
    if cx.view_chain.contains(&key) || cx.view_chain.len() >= VIEW_NESTING_MAX {
        let (odb, oname) = cx.view_chain.first().cloned().unwrap_or(key);
        return Err(DbError::new(
            ErrorCode::ViewRecursive,
            format!("`{odb}`.`{oname}` contains view recursion"),
        ));
    }
    let saved_db = cx.db.replace(db.to_string());
    let saved_ctes = std::mem::take(&mut cx.ctes);
    let saved_sql = std::mem::replace(&mut cx.cur_sql, text.to_string());
    cx.view_chain.push(key);
    let res = plan_query(cx, query);
    cx.view_chain.pop();
    cx.cur_sql = saved_sql;
    cx.ctes = saved_ctes;
    cx.db = saved_db;
    res
}

/// `cols` renamed by a view's column list (1353 when the counts differ); names must be unique
/// (1060).
pub fn named_columns(mut cols: Vec<OutCol>, names: &[String]) -> DbResult<Vec<OutCol>> {
    if !names.is_empty() {
        if names.len() != cols.len() {
            return Err(DbError::new(
                ErrorCode::ViewWrongList,
                "View's SELECT and view's field list have different column counts",
            ));
        }
        for (c, n) in cols.iter_mut().zip(names) {
            c.name = n.clone();
        }
    }
    for (i, c) in cols.iter().enumerate() {
        if cols[..i]
            .iter()
            .any(|p| p.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(DbError::new(
                ErrorCode::DupFieldname,
                format!("Duplicate column name '{}'", c.name),
            ));
        }
    }
    Ok(cols)
}

/// Errors a body that was valid when created gives once what it names is gone.
fn stands_for_invalid(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::NoSuchTable
            | ErrorCode::BadFieldError
            | ErrorCode::BadDbError
            | ErrorCode::SpDoesNotExist
            | ErrorCode::WrongObject
            | ErrorCode::ViewWrongList
            | ErrorCode::DupFieldname
            | ErrorCode::NonUniqError
    )
}

/// 1356 for `view`.
pub fn invalid(view: &ViewDef) -> DbError {
    DbError::new(
        ErrorCode::ViewInvalid,
        format!(
            "View '{}.{}' references invalid table(s) or column(s) or function(s) or \
             definer/invoker of view lack rights to use them",
            view.db, view.name
        ),
    )
}
