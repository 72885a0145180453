//! The plan of a whole query: a SELECT block, a UNION of two plans, a VALUES list, or ORDER BY /
//! LIMIT over another plan's result ([`QueryPlan`]), built by [`plan_query`] before any row is
//! read. Derived tables in FROM hold their own `QueryPlan` (from.rs); WITH binds its common table
//! expressions while the query is planned (cte.rs).
//!
//! Invariants: a plan's result columns ([`QueryPlan::columns`]) are known without running it, so
//! a prepared statement describes its result from the plan alone; both sides of a UNION have the
//! same number of columns (1222 otherwise), and a UNION's columns are named and typed after its
//! left side.

use sqlparser::ast;

use super::select::{limit_of, order_of, plan_select, SelectPlan};
use crate::context::cte_scope::WorkingTable;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{Expr, Scope};
use crate::result::{scope_of, OutCol};
use crate::types::value::Value;

/// A planned recursive CTE ([`QueryPlan::Recursive`]).
pub struct RecursivePlan {
    pub anchors: Vec<QueryPlan>,
    pub steps: Vec<QueryPlan>,
    /// UNION (DISTINCT): a row already produced is not produced again.
    pub distinct: bool,
    /// CYCLE ... RESTRICT: positions of the columns whose values, equal to those of a row
    /// produced before (NULLs equal), keep a row from being produced (empty: no clause).
    pub cycle: Vec<usize>,
    /// The CTE's columns and the table its recursive branches read.
    pub working: WorkingTable,
}

/// A planned query.
pub enum QueryPlan {
    Select(Box<SelectPlan>),
    /// UNION [ALL | DISTINCT] of two plans.
    Union {
        left: Box<QueryPlan>,
        right: Box<QueryPlan>,
        /// UNION (DISTINCT, the default): duplicate rows are removed.
        distinct: bool,
    },
    /// A VALUES list, evaluated when planned.
    Values {
        rows: Vec<Vec<Value>>,
    },
    /// A recursive CTE (cte.rs): the anchors' rows, then the recursive branches run over the
    /// rows the previous iteration added (put in `working` before each run) until none are
    /// added or `max_recursive_iterations` is reached.
    Recursive(Box<RecursivePlan>),
    /// The working table of a recursive CTE, as a reference in a recursive branch reads it.
    Working(WorkingTable),
    /// ORDER BY (by position or by result column) and LIMIT over another plan's result.
    Finish {
        input: Box<QueryPlan>,
        order: Vec<(Expr, bool)>,
        limit: Option<u64>,
        offset: u64,
    },
}

impl QueryPlan {
    /// The result set's columns.
    pub fn columns(&self) -> Vec<OutCol> {
        match self {
            QueryPlan::Select(s) => s.columns.clone(),
            // A column's collation is the first side's, or the second's where the first has
            // only the default (a literal): `SELECT bin_col UNION SELECT 'a'` keeps _bin.
            QueryPlan::Union { left, right, .. } => left
                .columns()
                .into_iter()
                .zip(
                    right
                        .columns()
                        .into_iter()
                        .map(Some)
                        .chain(std::iter::repeat(None)),
                )
                .map(|(c, r)| OutCol {
                    collation: match r {
                        Some(r) if c.collation.is_default() => r.collation,
                        _ => c.collation,
                    },
                    ..OutCol::named(&c.name, c.ty)
                })
                .collect(),
            QueryPlan::Values { rows } => {
                let n = rows.first().map_or(0, Vec::len);
                (0..n)
                    .map(|i| OutCol::named(&format!("column_{i}"), None))
                    .collect()
            }
            QueryPlan::Finish { input, .. } => input.columns(),
            QueryPlan::Recursive(r) => r.working.cols.clone(),
            QueryPlan::Working(w) => w.cols.clone(),
        }
    }

    /// Every SELECT block of the plan, derived tables' included (a locking read locks what
    /// they all read).
    pub fn selects(&self) -> Vec<&SelectPlan> {
        let mut out = Vec::new();
        self.collect_selects(&mut out);
        out
    }

    fn collect_selects<'a>(&'a self, out: &mut Vec<&'a SelectPlan>) {
        match self {
            QueryPlan::Select(s) => {
                out.push(s);
                for src in &s.from.sources {
                    if let super::from::SrcKind::Derived(sub) = &src.kind {
                        sub.collect_selects(out);
                    }
                }
            }
            QueryPlan::Union { left, right, .. } => {
                left.collect_selects(out);
                right.collect_selects(out);
            }
            QueryPlan::Values { .. } | QueryPlan::Working(_) => {}
            QueryPlan::Finish { input, .. } => input.collect_selects(out),
            QueryPlan::Recursive(r) => {
                for p in r.anchors.iter().chain(&r.steps) {
                    p.collect_selects(out);
                }
            }
        }
    }
}

/// Plans a full query (SELECT, UNION, VALUES, a parenthesized query).
pub fn plan_query(cx: &mut Context, q: &ast::Query) -> DbResult<QueryPlan> {
    match &q.with {
        Some(w) => super::cte::with_ctes(cx, w, |cx| plan_query_body(cx, q)),
        None => plan_query_body(cx, q),
    }
}

/// A query without its WITH clause (bound by the caller).
fn plan_query_body(cx: &mut Context, q: &ast::Query) -> DbResult<QueryPlan> {
    let (limit, offset) = limit_of(cx, q)?;
    let order = order_of(q)?;
    match &*q.body {
        ast::SetExpr::Select(sel) => Ok(QueryPlan::Select(Box::new(plan_select(
            cx, sel, &order, limit, offset,
        )?))),
        ast::SetExpr::Query(inner) => {
            let input = plan_query(cx, inner)?;
            finish(cx, input, &order, limit, offset)
        }
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            let left = plan_branch(cx, left)?;
            let right = plan_branch(cx, right)?;
            if left.columns().len() != right.columns().len() {
                return Err(DbError::new(
                    ErrorCode::WrongNumberOfColumnsInSelect,
                    "The used SELECT statements have a different number of columns",
                ));
            }
            let union = QueryPlan::Union {
                left: Box::new(left),
                right: Box::new(right),
                distinct: !matches!(set_quantifier, ast::SetQuantifier::All),
            };
            finish(cx, union, &order, limit, offset)
        }
        ast::SetExpr::Values(v) => {
            let values = plan_values(cx, v)?;
            finish(cx, values, &order, limit, offset)
        }
        other => Err(DbError::unsupported(format!("query {other}"))),
    }
}

/// One side of a set operation (its own ORDER BY / LIMIT belong to a parenthesized query).
fn plan_branch(cx: &mut Context, e: &ast::SetExpr) -> DbResult<QueryPlan> {
    match e {
        ast::SetExpr::Select(sel) => Ok(QueryPlan::Select(Box::new(plan_select(
            cx,
            sel,
            &[],
            None,
            0,
        )?))),
        ast::SetExpr::Query(q) => plan_query(cx, q),
        other => {
            let q = ast::Query {
                with: None,
                body: Box::new(other.clone()),
                order_by: None,
                limit_clause: None,
                fetch: None,
                locks: vec![],
                for_clause: None,
                settings: None,
                format_clause: None,
                pipe_operators: vec![],
            };
            plan_query(cx, &q)
        }
    }
}

fn plan_values(cx: &mut Context, v: &ast::Values) -> DbResult<QueryPlan> {
    let scope = Scope::default();
    let mut rows = Vec::new();
    for r in &v.rows {
        let mut out = Vec::new();
        for e in &r.content {
            let ex = cx.compile(&scope, e, "SELECT")?;
            out.push(eval(&ex, &EvalCtx::default())?);
        }
        rows.push(out);
    }
    Ok(QueryPlan::Values { rows })
}

/// ORDER BY / LIMIT over `input`'s result: an ORDER BY item is a result column's position or an
/// expression over the result columns.
fn finish(
    cx: &mut Context,
    input: QueryPlan,
    order: &[ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
) -> DbResult<QueryPlan> {
    if order.is_empty() && limit.is_none() && offset == 0 {
        return Ok(input);
    }
    let cols = input.columns();
    let scope = scope_of(&cols);
    let mut keys = Vec::new();
    for o in order {
        let e = match &o.expr {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) => {
                    let p: usize = n.parse().unwrap_or(0);
                    if p == 0 || p > cols.len() {
                        return Err(DbError::bad_field(n, "ORDER BY"));
                    }
                    Expr::Col(p - 1)
                }
                _ => cx.compile(&scope, &o.expr, "ORDER BY")?,
            },
            _ => cx.compile(&scope, &o.expr, "ORDER BY")?,
        };
        keys.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
    }
    Ok(QueryPlan::Finish {
        input: Box::new(input),
        order: keys,
        limit,
        offset,
    })
}
