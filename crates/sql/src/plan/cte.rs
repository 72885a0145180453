//! Common table expressions: `WITH [RECURSIVE] name [(cols)] AS (query), ...` in front of a
//! query. The names are bound on the session's CTE stack ([`Context::ctes`]) while the query is
//! planned; a table reference with a bound name (unqualified, innermost binding first) becomes
//! a source planned from the CTE's query ([`reference`]).
//!
//! Invariants:
//! * a CTE's query sees the CTEs defined before it (and, when recursive, itself), never the ones
//!   after it: the stack is cut back to the binding while its query is planned;
//! * a non-recursive CTE is planned at each reference as a derived table; a recursive one is
//!   computed when it is referenced (planning runs it, as uncorrelated subqueries are run):
//!   the anchors (the UNION's branches that do not reference it) give the first rows, then each
//!   recursive branch runs over the rows the previous iteration added, until an iteration adds
//!   none (UNION DISTINCT drops rows already produced) or `max_recursive_iterations` iterations
//!   have run (then warning 1931, as MariaDB);
//! * the CTE's columns are named by its column list (4002 when the counts differ) or its
//!   query's (anchors') columns; names in one WITH are unique (4004); a recursive CTE without
//!   an anchor is 4005.

use std::sync::Arc;

use sqlparser::ast;

use super::from::From;
use super::query::{plan_query, QueryPlan};
use crate::context::cte_scope::{CteBinding, Materialized};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::aggregate::group_key;
use crate::expr::object_name_parts;
use crate::expr::CompileEnv;
use crate::result::OutCol;
use crate::types::value::Value;

/// Plans `f` with the CTEs of `with` bound; the stack is as before afterwards, error or not.
pub fn with_ctes<T>(
    cx: &mut Context,
    with: &ast::With,
    f: impl FnOnce(&mut Context) -> DbResult<T>,
) -> DbResult<T> {
    let depth = cx.ctes.len();
    let res = bind(cx, with).and_then(|()| f(cx));
    cx.ctes.truncate(depth);
    res
}

fn bind(cx: &mut Context, with: &ast::With) -> DbResult<()> {
    let first = cx.ctes.len();
    for cte in &with.cte_tables {
        let name = cte.alias.name.value.clone();
        if cx.ctes[first..].iter().any(|b| b.name == name) {
            return Err(DbError::new(
                ErrorCode::DupQueryName,
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
        let recursive = with.recursive && set_references(&cte.query.body, &name);
        cx.ctes.push(CteBinding {
            columns: cte
                .alias
                .columns
                .iter()
                .map(|c| c.name.value.clone())
                .collect(),
            query: Arc::new((*cte.query).clone()),
            name,
            recursive,
            working: None,
        });
    }
    Ok(())
}

/// The innermost CTE bound under `name`.
pub fn lookup(cx: &Context, name: &str) -> Option<usize> {
    cx.ctes.iter().rposition(|b| b.name == name)
}

/// A table reference to CTE `idx`, as source `alias` of `from`.
pub fn reference(
    cx: &mut Context,
    idx: usize,
    alias: String,
    from: &mut From,
    left: bool,
    on: Option<ast::Expr>,
) -> DbResult<()> {
    let b = cx.ctes[idx].clone();
    if let Some(w) = &b.working {
        from.push_rows(alias, &w.cols, w.rows.clone(), left, on);
        return Ok(());
    }
    if b.recursive {
        let m = materialize_recursive(cx, idx)?;
        from.push_rows(alias, &m.cols, m.rows, left, on);
        return Ok(());
    }
    let tail = cx.ctes.split_off(idx);
    let plan = plan_query(cx, &b.query);
    cx.ctes.extend(tail);
    let plan = plan?;
    let cols = renamed(&b, plan.columns())?;
    from.push_derived(alias, &cols, plan, left, on);
    Ok(())
}

/// `cols` named by the CTE's column list, if it has one.
fn renamed(b: &CteBinding, mut cols: Vec<OutCol>) -> DbResult<Vec<OutCol>> {
    if b.columns.is_empty() {
        return Ok(cols);
    }
    if b.columns.len() != cols.len() {
        return Err(DbError::new(
            ErrorCode::WithColWrongList,
            "WITH column list and SELECT field list have different column counts",
        ));
    }
    for (c, n) in cols.iter_mut().zip(&b.columns) {
        c.name = n.clone();
    }
    Ok(cols)
}

fn materialize_recursive(cx: &mut Context, idx: usize) -> DbResult<Materialized> {
    let tail = cx.ctes.split_off(idx + 1);
    let res = fixpoint(cx, idx);
    cx.ctes[idx].working = None;
    cx.ctes.extend(tail);
    res
}

/// A query whose body is `body`, without ORDER BY or LIMIT.
fn query_of(body: &ast::SetExpr) -> ast::Query {
    ast::Query {
        with: None,
        body: Box::new(body.clone()),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}

/// Plans and runs `body`; checks its column count against `n` (1222).
fn run_branch(cx: &mut Context, body: &ast::SetExpr, n: Option<usize>) -> DbResult<Materialized> {
    let plan: QueryPlan = plan_query(cx, &query_of(body))?;
    let cols = plan.columns();
    if n.is_some_and(|n| n != cols.len()) {
        return Err(DbError::new(
            ErrorCode::WrongNumberOfColumnsInSelect,
            "The used SELECT statements have a different number of columns",
        ));
    }
    // Run through the session, as an uncorrelated subquery is (plan is below exec).
    let rows = cx.subquery(&query_of(body))?;
    Ok(Materialized { cols, rows })
}

fn fixpoint(cx: &mut Context, idx: usize) -> DbResult<Materialized> {
    let b = cx.ctes[idx].clone();
    if b.query.order_by.is_some() || b.query.limit_clause.is_some() {
        return Err(DbError::unsupported(
            "ORDER BY / LIMIT in a recursive WITH element",
        ));
    }
    let mut branches = Vec::new();
    let mut distinct = false;
    flatten_union(&b.query.body, &mut branches, &mut distinct);
    let (recs, anchors): (Vec<_>, Vec<_>) = branches
        .into_iter()
        .partition(|s| set_references(s, &b.name));
    if anchors.is_empty() {
        return Err(DbError::new(
            ErrorCode::RecursiveWithoutAnchors,
            format!("No anchors for recursive WITH element '{}'", b.name),
        ));
    }
    let mut cols: Option<Vec<OutCol>> = None;
    let mut result = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut keep = |rows: Vec<Vec<Value>>, out: &mut Vec<Vec<Value>>| {
        for r in rows {
            if !distinct || seen.insert(group_key(&r, &[])) {
                out.push(r);
            }
        }
    };
    for a in anchors {
        let m = run_branch(cx, a, cols.as_ref().map(Vec::len))?;
        cols.get_or_insert(m.cols);
        keep(m.rows, &mut result);
    }
    let cols = renamed(&b, cols.unwrap_or_default())?;
    let max = max_iterations(cx);
    let mut working = result.clone();
    let mut iterations = 0u64;
    while !working.is_empty() {
        if iterations >= max {
            cx.warn(
                ErrorCode::QueryResultIncomplete,
                format!("Query execution was interrupted. The query exceeded max_recursive_iterations = {max}. The query result may be incomplete"),
            );
            break;
        }
        iterations += 1;
        cx.ctes[idx].working = Some(Arc::new(Materialized {
            cols: cols.clone(),
            rows: std::mem::take(&mut working),
        }));
        for r in &recs {
            let m = run_branch(cx, r, Some(cols.len()))?;
            keep(m.rows, &mut working);
        }
        cx.check_interrupted()?;
        result.extend(working.iter().cloned());
    }
    Ok(Materialized { cols, rows: result })
}

/// `max_recursive_iterations` (MariaDB's default 1000).
fn max_iterations(cx: &Context) -> u64 {
    match cx.vars.get("max_recursive_iterations") {
        Some(Value::Int(i)) => (*i).max(0) as u64,
        Some(Value::UInt(u)) => *u,
        _ => 1000,
    }
}

/// The branches of a UNION chain; `distinct` is set if any UNION of it is DISTINCT.
fn flatten_union<'a>(e: &'a ast::SetExpr, out: &mut Vec<&'a ast::SetExpr>, distinct: &mut bool) {
    match e {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            *distinct |= !matches!(set_quantifier, ast::SetQuantifier::All);
            flatten_union(left, out, distinct);
            flatten_union(right, out, distinct);
        }
        other => out.push(other),
    }
}

/// Whether `e` reads a table named `name` (FROM clauses, joins, derived tables, nested queries).
fn set_references(e: &ast::SetExpr, name: &str) -> bool {
    match e {
        ast::SetExpr::Select(s) => s.from.iter().any(|twj| {
            factor_references(&twj.relation, name)
                || twj
                    .joins
                    .iter()
                    .any(|j| factor_references(&j.relation, name))
        }),
        ast::SetExpr::Query(q) => set_references(&q.body, name),
        ast::SetExpr::SetOperation { left, right, .. } => {
            set_references(left, name) || set_references(right, name)
        }
        _ => false,
    }
}

fn factor_references(f: &ast::TableFactor, name: &str) -> bool {
    match f {
        ast::TableFactor::Table { name: n, .. } => {
            let parts = object_name_parts(n);
            parts.len() == 1 && parts[0] == name
        }
        ast::TableFactor::Derived { subquery, .. } => set_references(&subquery.body, name),
        ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            factor_references(&table_with_joins.relation, name)
                || table_with_joins
                    .joins
                    .iter()
                    .any(|j| factor_references(&j.relation, name))
        }
        _ => false,
    }
}
