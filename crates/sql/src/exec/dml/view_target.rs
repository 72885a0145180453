//! Writes naming a view (design.md VIEW6): INSERT, REPLACE, UPDATE and DELETE through a simple
//! view change its base table; anything else naming a view is refused with MariaDB's errors
//! before anything is read or written.
//!
//! A view is updatable here when its body is one SELECT without DISTINCT, GROUP BY, HAVING,
//! LIMIT, window or WITH, over one base table or one such view, whose select list is plain
//! column names (or `*`), each base column at most once, and whose WHERE has no subquery.
//! [`ViewTarget`] is then the base table, the view's columns as base column positions, the
//! conjunction of the WHERE clauses of the view and of the views under it (rows outside it are
//! not touched by UPDATE / DELETE) and what WITH CHECK OPTION requires of every row written
//! (LOCAL: this view's WHERE and the checks of the views under it; CASCADED: every WHERE below).
//!
//! Invariants: a session's temporary table shadows a view of its name (it is the target then);
//! the view's body is read in the view's database; a view that is not updatable is 1288 for
//! UPDATE and DELETE, 1471 for INSERT, REPLACE and LOAD DATA; a written row failing the check
//! option is 1369 and nothing of the statement's rows is kept (the statement fails).

use std::sync::Arc;

use sqlparser::ast;

use crate::catalog::view_def::CheckOption;
use crate::catalog::{TableDef, ViewDef};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::{object_name_parts, BinOp, Expr, Scope};
use crate::plan::view::{invalid, VIEW_NESTING_MAX};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// What the statement does to its target, for the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    Insert,
    Replace,
    Update,
    Delete,
    Load,
}

/// A simple view as the target of a write: its base table and how the view maps onto it.
pub struct ViewTarget {
    /// The view named by the statement.
    pub db: String,
    pub name: String,
    pub base: Arc<TableDef>,
    /// The view's columns in order: (name, position in the base table).
    pub cols: Vec<(String, usize)>,
    /// The rows visible through the view (over a base row).
    pub cond: Option<Expr>,
    /// What WITH CHECK OPTION requires of a written row (over a base row).
    pub check: Option<Expr>,
}

impl ViewTarget {
    /// The base table's row under the view's column names (qualified by `alias`); base columns
    /// the view does not show cannot be named.
    pub fn scope(&self, alias: &str) -> Scope {
        let mut s = self.base.scope(alias);
        for (i, c) in s.cols.iter_mut().enumerate() {
            c.name = match self.cols.iter().find(|(_, b)| *b == i) {
                Some((n, _)) => n.clone(),
                None => format!("\0{}", c.name),
            };
        }
        s
    }

    /// The base position of view column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.cols
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, b)| *b)
    }

    /// 1369 unless `row` (a base row) passes the check option.
    pub fn check_row(&self, row: &[Value]) -> DbResult<()> {
        check(self.check.as_ref(), row, &self.db, &self.name)
    }
}

/// 1369 unless `row` passes `check`.
pub fn check(check: Option<&Expr>, row: &[Value], db: &str, name: &str) -> DbResult<()> {
    match check {
        Some(e) if truth(&eval(e, &EvalCtx::row(row))?) != Some(true) => Err(DbError::new(
            ErrorCode::ViewCheckFailed,
            format!("CHECK OPTION failed `{db}`.`{name}`"),
        )),
        _ => Ok(()),
    }
}

/// The view `db`.`name` as a write's target (None: it is not a view).
pub fn resolve_target(
    cx: &mut Context,
    db: &str,
    name: &str,
    kind: WriteKind,
) -> DbResult<Option<ViewTarget>> {
    if cx.temp.get(db, name).is_some() {
        return Ok(None);
    }
    let Some(view) = cx.engine.catalog.view(db, name) else {
        return Ok(None);
    };
    if kind == WriteKind::Load {
        return Err(refusal(kind, name));
    }
    let saved = cx.db.clone();
    let r = analyze(cx, &view, kind, 0);
    cx.db = saved;
    r.map(Some)
}

/// 1471 (INSERT, REPLACE, LOAD DATA) or 1288 (UPDATE, DELETE) for view `name`.
pub fn refusal(kind: WriteKind, name: &str) -> DbError {
    let what = match kind {
        WriteKind::Insert => "INSERT",
        WriteKind::Replace => "REPLACE",
        WriteKind::Load => "LOAD",
        WriteKind::Update => "UPDATE",
        WriteKind::Delete => "DELETE",
    };
    match kind {
        WriteKind::Update | WriteKind::Delete => DbError::new(
            ErrorCode::NonUpdatableTable,
            format!("The target table {name} of the {what} is not updatable"),
        ),
        _ => DbError::new(
            ErrorCode::NonInsertableTable,
            format!("The target table {name} of the {what} is not insertable-into"),
        ),
    }
}

/// The view's body as a target (the session's database is the view's while this runs; the
/// caller restores it).
fn analyze(
    cx: &mut Context,
    view: &ViewDef,
    kind: WriteKind,
    depth: usize,
) -> DbResult<ViewTarget> {
    if depth >= VIEW_NESTING_MAX {
        return Err(DbError::new(
            ErrorCode::ViewRecursive,
            format!("`{}`.`{}` contains view recursion", view.db, view.name),
        ));
    }
    let refuse = || refusal(kind, &view.name);
    let q = crate::parser::views::parse_select(&view.select).map_err(|_| invalid(view))?;
    let s = crate::parser::views::simple_select(&q).ok_or_else(refuse)?;
    let ast::TableFactor::Table { name, alias, .. } = &s.from[0].relation else {
        return Err(refuse());
    };
    cx.db = Some(view.db.clone());
    let (bdb, bname) = cx.resolve_table_name(&object_name_parts(name))?;
    // The invoker's rights on the base table's database, as for reads (docs/mysql-compat.md).
    cx.check_db_access(&bdb)?;
    let alias = alias
        .as_ref()
        .map_or(bname.clone(), |a| a.name.value.clone());
    let inner = match cx.engine.catalog.view(&bdb, &bname) {
        Some(v) if cx.temp.get(&bdb, &bname).is_none() => analyze(cx, &v, kind, depth + 1)?,
        _ => {
            let base = cx.get_table(&bdb, &bname).map_err(|_| invalid(view))?;
            if base.temporary.is_some() || base.rollup.is_some() {
                return Err(refuse());
            }
            identity(base)
        }
    };
    cx.db = Some(view.db.clone());
    let scope = inner.scope(&alias);
    let mut cols = select_list(&scope, &inner, &s.projection).ok_or_else(refuse)?;
    if !view.columns.is_empty() {
        if view.columns.len() != cols.len() {
            return Err(invalid(view));
        }
        for (c, n) in cols.iter_mut().zip(&view.columns) {
            c.0 = n.clone();
        }
    }
    if (1..cols.len()).any(|i| cols[..i].iter().any(|p| p.1 == cols[i].1)) {
        return Err(refuse());
    }
    let own = match &s.selection {
        Some(w) if crate::parser::views::has_subquery(w) => return Err(refuse()),
        Some(w) => Some(cx.compile(&scope, w, "WHERE")?),
        None => None,
    };
    let check = match view.check {
        CheckOption::None => inner.check.clone(),
        CheckOption::Local => and(inner.check.clone(), own.clone()),
        CheckOption::Cascaded => and(inner.cond.clone(), own.clone()),
    };
    Ok(ViewTarget {
        db: view.db.clone(),
        name: view.name.clone(),
        base: inner.base.clone(),
        cols,
        cond: and(inner.cond, own),
        check,
    })
}

/// A base table as a target of its own: every column, every row.
fn identity(base: Arc<TableDef>) -> ViewTarget {
    ViewTarget {
        db: base.db.clone(),
        name: base.name.clone(),
        cols: base
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect(),
        base,
        cond: None,
        check: None,
    }
}

/// The select list as (name, base position): plain column names, with or without an alias,
/// and `*`; None for anything else.
fn select_list(
    scope: &Scope,
    inner: &ViewTarget,
    items: &[ast::SelectItem],
) -> Option<Vec<(String, usize)>> {
    let mut out = Vec::new();
    for item in items {
        let (e, alias) = match item {
            ast::SelectItem::UnnamedExpr(e) => (e, None),
            ast::SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                out.extend(inner.cols.iter().cloned());
                continue;
            }
            _ => return None,
        };
        let parts: Vec<String> = match e {
            ast::Expr::Identifier(i) => vec![i.value.clone()],
            ast::Expr::CompoundIdentifier(ids) => ids.iter().map(|i| i.value.clone()).collect(),
            _ => return None,
        };
        let (table, name) = match parts.as_slice() {
            [n] => (None, n),
            [t, n] => (Some(t.as_str()), n),
            [_, t, n] => (Some(t.as_str()), n),
            _ => return None,
        };
        let i = scope.resolve(None, table, name, "field list").ok()??;
        out.push((alias.unwrap_or_else(|| name.clone()), i));
    }
    Some(out)
}

fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Expr::Binary(
            BinOp::And,
            Box::new(a),
            Box::new(b),
            Collation::default(),
        )),
        (a, b) => a.or(b),
    }
}

/// The conjunction of two optional conditions (for callers adding a view's condition).
pub fn both(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    and(a, b)
}
