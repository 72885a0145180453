//! Common table expressions: `WITH [RECURSIVE] name [(cols)] AS (query), ...` in front of a
//! query. The names are bound on the session's CTE stack ([`Context::ctes`]) while the query is
//! planned; a table reference with a bound name (unqualified, innermost binding first) becomes
//! a source planned from the CTE's query ([`reference`]).
//!
//! Invariants:
//! * a CTE's query sees the CTEs defined before it (and, when recursive, itself), never the ones
//!   after it, except in WITH RECURSIVE, where it sees the whole clause: the stack is cut back
//!   to [`CteBinding::sees`] while its query is planned;
//! * which elements of WITH RECURSIVE are recursive, and whether MariaDB accepts their recursion
//!   (4005, 4006), is cte_recursion.rs' analysis; mutually recursive elements are not supported
//!   (1235);
//! * a non-recursive CTE is planned at each reference as a derived table; a recursive one
//!   becomes a [`QueryPlan::Recursive`] derived table: its anchors (the UNION's branches that do
//!   not reference it) and its recursive branches, planned with the CTE bound to a working
//!   table the executor fills before each iteration (exec/cte.rs runs it);
//! * the CTE's columns are named by its column list (4002 when the counts differ) or its
//!   query's (anchors') columns, each name once (1060); names in one WITH are unique (4004), at most 64 of them (4003); a
//!   recursive CTE without an anchor is 4005;
//! * an element no reference planned is planned once after the WITH's query, for
//!   the errors of its definition ([`check_unreferenced`]);
//! * an element of WITH RECURSIVE with a `CYCLE ... RESTRICT` clause (parser/cycle_clause.rs)
//!   is planned as a recursive CTE even when it does not reference itself (its branches are
//!   then all anchors), so the clause applies to every row it produces.

use std::sync::{Arc, Mutex};

use sqlparser::ast;

use super::from::{check_unique_columns, From};
use super::query::{plan_query, QueryPlan, RecursivePlan};
use crate::context::cte_scope::{CteBinding, WorkingTable};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;
use crate::result::OutCol;

/// Plans `f` with the CTEs of `with` bound; the stack is as before afterwards, error or not.
pub fn with_ctes<T>(
    cx: &mut Context,
    with: &ast::With,
    f: impl FnOnce(&mut Context) -> DbResult<T>,
) -> DbResult<T> {
    let depth = cx.ctes.len();
    let res = bind(cx, with).and_then(|()| f(cx)).and_then(|v| {
        check_unreferenced(cx, depth)?;
        Ok(v)
    });
    cx.ctes.truncate(depth);
    res
}

/// Plans each CTE bound from `first` on that no reference planned, as MariaDB
/// prepares an unreferenced WITH element: an unknown column or table, a wrong column list
/// (4002) or a column named twice (1060) in its definition is the statement's error. Errors
/// that only running its uncorrelated subqueries gives (which planning runs, MariaDB's prepare
/// does not) are not reported; EXPLAIN shows no rows for it.
fn check_unreferenced(cx: &mut Context, first: usize) -> DbResult<()> {
    for idx in first..cx.ctes.len() {
        if cx.ctes[idx].referenced || cx.ctes[idx].working.is_some() {
            continue;
        }
        let explained = cx.explained_subqueries.take();
        let plan = plan_cte(cx, idx);
        cx.explained_subqueries = explained;
        match plan {
            Err(e) if is_definition_error(&e) => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Whether `e` is an error MariaDB finds preparing a query (names and shapes).
fn is_definition_error(e: &DbError) -> bool {
    matches!(
        e.code,
        ErrorCode::BadFieldError
            | ErrorCode::NoSuchTable
            | ErrorCode::NonUniqError
            | ErrorCode::DupFieldname
            | ErrorCode::WithColWrongList
            | ErrorCode::WrongNumberOfColumnsInSelect
    )
}

/// The most elements one WITH clause may have (MariaDB's: one bit each in a 64-bit map).
const MAX_WITH_ELEMENTS: usize = 64;

fn bind(cx: &mut Context, with: &ast::With) -> DbResult<()> {
    let first = cx.ctes.len();
    if with.cte_tables.len() > MAX_WITH_ELEMENTS {
        return Err(DbError::new(
            ErrorCode::TooManyDefinitionsInWithClause,
            "Too many WITH elements in WITH clause",
        ));
    }
    for (i, cte) in with.cte_tables.iter().enumerate() {
        let name = &cte.alias.name.value;
        if with.cte_tables[..i]
            .iter()
            .any(|b| b.alias.name.value == *name)
        {
            return Err(DbError::new(
                ErrorCode::DupQueryName,
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
    }
    let elements = match with.recursive {
        true => super::cte_recursion::analyse(with)?,
        false => vec![Default::default(); with.cte_tables.len()],
    };
    if elements.iter().any(|e| e.mutual) {
        return Err(DbError::unsupported("mutually recursive WITH elements"));
    }
    for (i, (cte, element)) in with.cte_tables.iter().zip(elements).enumerate() {
        let name = cte.alias.name.value.clone();
        let cycle = crate::parser::cycle_clause::columns(cte).unwrap_or_default();
        let recursive = with.recursive && (!cycle.is_empty() || element.recursive);
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
            cycle,
            working: None,
            sees: match with.recursive {
                true => first + with.cte_tables.len(),
                false => first + i,
            },
            referenced: false,
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
    cx.ctes[idx].referenced = true;
    let b = cx.ctes[idx].clone();
    if let Some(w) = &b.working {
        let cols = w.cols.clone();
        from.push_derived(alias, &cols, QueryPlan::Working(w.clone()), left, on);
        return Ok(());
    }
    let (plan, cols) = plan_cte(cx, idx)?;
    from.push_derived(alias, &cols, plan, left, on);
    Ok(())
}

/// The plan of CTE `idx` (not a working table) and its columns, named.
fn plan_cte(cx: &mut Context, idx: usize) -> DbResult<(QueryPlan, Vec<OutCol>)> {
    let b = cx.ctes[idx].clone();
    let plan = if b.recursive {
        let tail = cx.ctes.split_off(b.sees.max(idx + 1));
        let plan = plan_recursive(cx, idx);
        cx.ctes[idx].working = None;
        cx.ctes.extend(tail);
        plan?
    } else {
        let tail = cx.ctes.split_off(b.sees);
        let plan = plan_query(cx, &b.query);
        cx.ctes.extend(tail);
        plan?
    };
    let cols = renamed(&b, plan.columns())?;
    Ok((plan, cols))
}

/// `cols` named by the CTE's column list, if it has one (4002 when the counts differ); 1060
/// when a name is then given twice, as for a derived table.
fn renamed(b: &CteBinding, mut cols: Vec<OutCol>) -> DbResult<Vec<OutCol>> {
    if b.columns.is_empty() {
        check_unique_columns(&cols)?;
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
    check_unique_columns(&cols)?;
    Ok(cols)
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

/// Plans `body`; checks its column count against `n` (1222).
fn plan_branch(cx: &mut Context, body: &ast::SetExpr, n: Option<usize>) -> DbResult<QueryPlan> {
    let plan = plan_query(cx, &query_of(body))?;
    if n.is_some_and(|n| n != plan.columns().len()) {
        return Err(DbError::new(
            ErrorCode::WrongNumberOfColumnsInSelect,
            "The used SELECT statements have a different number of columns",
        ));
    }
    Ok(plan)
}

/// The plan of recursive CTE `idx`: its anchors, then its recursive branches planned with the
/// CTE bound to a working table.
fn plan_recursive(cx: &mut Context, idx: usize) -> DbResult<QueryPlan> {
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
    // The element's own WITH (`r AS (WITH f AS (...) SELECT ... UNION ...)`) is bound around
    // its branches.
    match &b.query.with {
        Some(with) => with_ctes(cx, with, |cx| {
            plan_branches(cx, idx, (anchors, recs), distinct)
        }),
        None => plan_branches(cx, idx, (anchors, recs), distinct),
    }
}

/// The anchors and recursive branches of recursive CTE `idx`, planned.
fn plan_branches(
    cx: &mut Context,
    idx: usize,
    (anchors, recs): (Vec<&ast::SetExpr>, Vec<&ast::SetExpr>),
    distinct: bool,
) -> DbResult<QueryPlan> {
    let b = cx.ctes[idx].clone();
    // Bound before the anchors are planned: a reference from a subquery in an expression (run
    // while planning) reads no rows yet and is refused (4008), never answered as empty.
    let rows = Arc::new(Mutex::new(None));
    cx.ctes[idx].working = Some(WorkingTable {
        name: b.name.clone(),
        cols: Vec::new(),
        rows: rows.clone(),
    });
    let mut anchor_plans = Vec::new();
    for a in anchors {
        let n = anchor_plans.first().map(|p: &QueryPlan| p.columns().len());
        anchor_plans.push(plan_branch(cx, a, n)?);
    }
    let working = WorkingTable {
        name: b.name.clone(),
        cols: renamed(&b, anchor_plans[0].columns())?,
        rows,
    };
    cx.ctes[idx].working = Some(working.clone());
    let mut steps = Vec::new();
    for r in recs {
        steps.push(plan_branch(cx, r, Some(working.cols.len()))?);
    }
    let cycle = cycle_columns(&b.cycle, &working.cols)?;
    Ok(QueryPlan::Recursive(Box::new(RecursivePlan {
        anchors: anchor_plans,
        steps,
        distinct,
        cycle,
        working,
    })))
}

/// The positions of a CYCLE clause's columns among the CTE's (names compared exactly, as
/// MariaDB does): 1060 for a column named twice, 1054 for one the CTE does not have.
fn cycle_columns(names: &[String], cols: &[OutCol]) -> DbResult<Vec<usize>> {
    let mut out = Vec::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(DbError::dup_field(n));
        }
        match cols.iter().position(|c| c.name == *n) {
            Some(p) => out.push(p),
            None => return Err(DbError::bad_field(n, "CYCLE clause")),
        }
    }
    Ok(out)
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
