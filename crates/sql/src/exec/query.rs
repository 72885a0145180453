//! Running a whole query: plan it (plan/query.rs), then run the plan ([`run_plan`]); locking
//! reads take the locks their plan needs first (plan/locks.rs); EXPLAIN renders the plan
//! instead of running it.
//!
//! Invariants: a statement is planned once and the rows come from that plan; a locking read
//! (FOR UPDATE / LOCK IN SHARE MODE) reads the latest committed rows, not the transaction's
//! snapshot, as InnoDB does, after locking what its plan may return.

use sqlparser::ast;

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::select::run_select;
use crate::exec::sort::{apply_limit, dedup, sort_keyed};
use crate::expr::eval::{eval, EvalCtx};
use crate::plan::explain::check_no_derived;
use crate::plan::explain_union::union_explain_rows;
use crate::plan::locks::lock_for_plan;
use crate::plan::query::{plan_query, QueryPlan};
use crate::plan::select::SelectPlan;
use crate::result::{OutCol, Output, RowSink};
use crate::types::value::Value;

/// Runs a full query; rows may go to `sink` as they are read ([`Output::Sent`]).
pub fn run_query_to(
    cx: &mut Context,
    q: &ast::Query,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    if !q.locks.is_empty() {
        if q.locks.iter().any(|l| l.nonblock.is_some()) {
            // Waiting (or reading locked rows) instead would silently change the answer.
            return Err(DbError::unsupported("NOWAIT / SKIP LOCKED"));
        }
        return locking_read(cx, q);
    }
    let plan = plan_query(cx, q)?;
    run_plan(cx, &plan, sink)
}

/// Runs a full query and returns its result set.
pub fn run_query(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    run_query_to(cx, q, None)
}

/// The plan of `q` and the rows of the uncorrelated subqueries planning it ran, for EXPLAIN
/// (an enclosing EXPLAIN's subqueries are kept aside meanwhile).
fn plan_explained(cx: &mut Context, q: &ast::Query) -> (DbResult<QueryPlan>, Vec<Vec<Vec<Value>>>) {
    let outer = cx.explained_subqueries.replace(Vec::new());
    let plan = plan_query(cx, q);
    let subqueries = std::mem::replace(&mut cx.explained_subqueries, outer).unwrap_or_default();
    (plan, subqueries)
}

/// EXPLAIN of a query: the rows describing the plan the query would run, then those of each
/// uncorrelated subquery, which planning it ran (its value is part of the plan).
pub fn explain(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    let (plan, subqueries) = plan_explained(cx, q);
    match plan? {
        QueryPlan::Select(s) => {
            check_no_derived(&s)?;
            Ok(crate::plan::explain::explain(
                cx,
                &s,
                subqueries,
                q.with.is_some(),
            ))
        }
        plan => {
            let rows = union_explain_rows(cx, q, &plan, &subqueries)?;
            Ok(crate::plan::explain::explain_output(rows))
        }
    }
}

/// EXPLAIN FORMAT=JSON of a query: MariaDB's document of the plan the query would run
/// (plan/explain_json/); a query whose planning ran subqueries, or that is not one SELECT, is
/// refused.
pub fn explain_json(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    let (plan, subqueries) = plan_explained(cx, q);
    let (QueryPlan::Select(s), ast::SetExpr::Select(sel)) = (plan?, &*q.body) else {
        return Err(DbError::unsupported("EXPLAIN FORMAT=JSON of this query"));
    };
    if !subqueries.is_empty() || q.with.is_some() {
        return Err(DbError::unsupported("EXPLAIN FORMAT=JSON of subqueries"));
    }
    let order = match q.order_by.as_ref().map(|o| &o.kind) {
        Some(ast::OrderByKind::Expressions(list)) => list.as_slice(),
        _ => &[],
    };
    let text = crate::plan::explain_json::Written::of(sel, order);
    crate::plan::explain_json::explain_json(cx, &s, &text)
}

/// EXPLAIN EXTENDED of a query (`text` is its own text): EXPLAIN's rows with MariaDB's
/// `filtered` column, and note 1003 holding the query with its names resolved, as MariaDB
/// prints it (plan/view_text.rs).
pub fn explain_extended(cx: &mut Context, q: &ast::Query, text: &str) -> DbResult<Output> {
    let (plan, subqueries) = plan_explained(cx, q);
    let out = match plan? {
        QueryPlan::Select(s) => {
            check_no_derived(&s)?;
            crate::plan::explain::explain_extended(cx, &s, subqueries, q.with.is_some())
        }
        plan => {
            let rows = union_explain_rows(cx, q, &plan, &subqueries)?;
            crate::plan::explain::extended_output(rows)
        }
    };
    let message = crate::plan::view_text::printed_query(cx, text, q);
    cx.warnings.push(Warning {
        level: WarningLevel::Note,
        code: ErrorCode::Yes,
        message,
    });
    Ok(out)
}

/// Under EXPLAIN: runs the uncorrelated subquery `q` as a plain run does, keeping its EXPLAIN
/// rows at `slot` of [`Context::explained_subqueries`] (reserved first, so the subqueries it
/// holds take the slots after it); a failed run gives its slot back.
pub fn explain_subquery(cx: &mut Context, q: &ast::Query, slot: usize) -> DbResult<Output> {
    if let Some(list) = cx.explained_subqueries.as_mut() {
        list.push(Vec::new());
    }
    let r = (|| {
        if !q.locks.is_empty() {
            return Err(DbError::unsupported("EXPLAIN of a locking subquery"));
        }
        let plan = plan_query(cx, q)?;
        let rows = match &plan {
            QueryPlan::Select(s) => {
                check_no_derived(s)?;
                crate::plan::explain::subquery_rows(cx, s)
            }
            QueryPlan::Union { .. } => {
                let mut selects = Vec::new();
                if !union_selects(&plan, &mut selects) {
                    return Err(DbError::unsupported("EXPLAIN of this UNION"));
                }
                for s in &selects {
                    check_no_derived(s)?;
                }
                crate::plan::explain::union_rows(cx, &selects)
            }
            _ => return Err(DbError::unsupported("EXPLAIN of this subquery")),
        };
        if let Some(list) = cx.explained_subqueries.as_mut() {
            list[slot] = rows;
        }
        run_plan(cx, &plan, None)
    })();
    if r.is_err() {
        if let Some(list) = cx.explained_subqueries.as_mut() {
            list.truncate(slot);
        }
    }
    r
}

/// The SELECTs of a UNION plan, in order, into `out`; false if one of its parts is not a SELECT
/// (a VALUES list, a recursive CTE).
fn union_selects<'p>(plan: &'p QueryPlan, out: &mut Vec<&'p SelectPlan>) -> bool {
    match plan {
        QueryPlan::Select(s) => {
            out.push(s);
            true
        }
        QueryPlan::Union { left, right, .. } => {
            union_selects(left, out) && union_selects(right, out)
        }
        _ => false,
    }
}

/// EXPLAIN PARTITIONS of a query: EXPLAIN with the partitions each table reads.
pub fn explain_partitions(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    match plan_query(cx, q)? {
        QueryPlan::Select(s) => {
            check_no_derived(&s)?;
            Ok(crate::plan::explain::explain_partitions(cx, &s))
        }
        _ => Err(DbError::unsupported("EXPLAIN of this query")),
    }
}

/// ANALYZE of a query (MariaDB's `ANALYZE SELECT`): runs the plan, drops its rows and returns
/// EXPLAIN's rows for that same plan with what each table really read.
pub fn analyze(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    match plan_query(cx, q)? {
        QueryPlan::Select(s) => {
            check_no_derived(&s)?;
            let (_, stats) = crate::exec::select::run_select_analyzed(cx, &s, None)?;
            Ok(crate::plan::explain::analyzed(cx, &s, &stats))
        }
        _ => Err(DbError::unsupported("ANALYZE of this query")),
    }
}

/// A query's result columns, from its plan: no row is read and no lock taken (a prepared
/// statement describes its result this way).
pub fn describe(cx: &mut Context, q: &ast::Query) -> DbResult<Vec<OutCol>> {
    Ok(plan_query(cx, q)?.columns())
}

fn locking_read(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    let snapshot = cx.snapshot.take();
    let result = (|| {
        let plan = plan_query(cx, q)?;
        lock_for_plan(cx, &plan)?;
        run_plan(cx, &plan, None)
    })();
    cx.snapshot = snapshot;
    result
}

/// Runs a plan.
pub fn run_plan(
    cx: &mut Context,
    plan: &QueryPlan,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    match plan {
        QueryPlan::Select(s) => run_select(cx, s, sink),
        QueryPlan::Union {
            left,
            right,
            distinct,
        } => {
            let mut rows = rows_of(run_plan(cx, left, None)?);
            let left_rows = rows.len();
            rows.extend(rows_of(run_plan(cx, right, None)?));
            let mut cols = plan.columns();
            let (lc, rc) = (left.columns(), right.columns());
            super::union_types::unify(&mut cols, &lc, &rc, &mut rows, left_rows);
            if *distinct {
                let colls: Vec<_> = cols.iter().map(|c| c.collation).collect();
                dedup(&mut rows, &colls);
            }
            Ok(Output::Rows { cols, rows })
        }
        QueryPlan::Values { rows } => Ok(Output::Rows {
            cols: plan.columns(),
            rows: rows.clone(),
        }),
        QueryPlan::Recursive(r) => Ok(Output::Rows {
            cols: plan.columns(),
            rows: crate::exec::cte::run_recursive(cx, r)?,
        }),
        QueryPlan::Working(w) => Ok(Output::Rows {
            cols: w.cols.clone(),
            rows: crate::exec::cte::working_rows(w)?,
        }),
        QueryPlan::Finish {
            input,
            order,
            limit,
            offset,
        } => {
            let (cols, rows) = match run_plan(cx, input, None)? {
                Output::Rows { cols, rows } => (cols, rows),
                _ => (input.columns(), Vec::new()),
            };
            let mut keyed = Vec::with_capacity(rows.len());
            for r in rows {
                let keys = order
                    .iter()
                    .map(|(e, _)| eval(e, &EvalCtx::row(&r)).unwrap_or(Value::Null))
                    .collect();
                keyed.push((keys, r));
            }
            let desc: Vec<bool> = order.iter().map(|(_, d)| *d).collect();
            let scope = crate::result::scope_of(&cols);
            let colls: Vec<_> = order.iter().map(|(e, _)| scope.collation_of(e)).collect();
            let keyed = sort_keyed(cx, keyed, &desc, &colls, *limit, *offset)?;
            let mut rows: Vec<Vec<Value>> = keyed.into_iter().map(|(_, r)| r).collect();
            apply_limit(&mut rows, *limit, *offset);
            Ok(Output::Rows { cols, rows })
        }
    }
}

fn rows_of(out: Output) -> Vec<Vec<Value>> {
    match out {
        Output::Rows { rows, .. } => rows,
        _ => Vec::new(),
    }
}
