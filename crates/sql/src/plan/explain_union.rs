//! EXPLAIN of a top-level UNION in MariaDB 10.11's form: each SELECT's rows numbered by the
//! SELECT's place in the statement (1 `PRIMARY`, then `UNION`), then the `UNION RESULT` row
//! reading `<union1,2,...>` when a temporary table puts the rows together (a UNION DISTINCT
//! somewhere, or an ORDER BY over the union, its Extra then `Using filesort`).
//!
//! Invariants: only the forms whose numbering and rows are known to be MariaDB's are answered:
//! a chain of plain SELECTs joined by UNION [ALL | DISTINCT], no WITH clause, no parenthesized
//! UNION (MariaDB makes one a derived table), no derived table and no subquery in any SELECT
//! (they take SELECT numbers and blocks of their own); the rest is refused (1235).

use sqlparser::ast;

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::plan::explain::{has_derived, plan_rows};
use crate::plan::query::QueryPlan;
use crate::plan::select::SelectPlan;
use crate::types::value::Value;

/// The shape of a top-level UNION read from its text.
struct Chain {
    /// SELECTs in the chain.
    selects: usize,
    /// Some UNION is DISTINCT (the default).
    distinct: bool,
}

/// The EXPLAIN rows of `plan`, the plan of the top-level UNION `q`; `subqueries` are the
/// blocks of the uncorrelated subqueries its planning ran (none is answered).
pub fn union_explain_rows(
    cx: &Context,
    q: &ast::Query,
    plan: &QueryPlan,
    subqueries: &[Vec<Vec<Value>>],
) -> DbResult<Vec<Vec<Value>>> {
    let refuse = || DbError::unsupported("EXPLAIN of this UNION");
    if q.with.is_some() || !subqueries.is_empty() {
        return Err(refuse());
    }
    let chain = chain(&q.body).ok_or_else(refuse)?;
    let (input, sorted) = match plan {
        QueryPlan::Finish { input, order, .. } => (&**input, !order.is_empty()),
        p => (p, false),
    };
    let mut selects = Vec::new();
    if !collect(input, &mut selects) || selects.len() != chain.selects {
        return Err(refuse());
    }
    if selects.iter().any(|s| has_derived(s)) {
        return Err(DbError::unsupported("EXPLAIN of a derived table"));
    }
    let mut rows = Vec::new();
    for (k, s) in selects.iter().enumerate() {
        let kind = if k == 0 { "PRIMARY" } else { "UNION" };
        for mut r in plan_rows(cx, s) {
            r[0] = Value::Int(k as i64 + 1);
            r[1] = Value::Text(kind.into());
            rows.push(r);
        }
    }
    if chain.distinct || sorted {
        let ids: Vec<String> = (1..=selects.len()).map(|id| id.to_string()).collect();
        let mut r = vec![
            Value::Null,
            Value::Text("UNION RESULT".into()),
            Value::Text(format!("<union{}>", ids.join(","))),
            Value::Text("ALL".into()),
        ];
        r.extend(vec![Value::Null; 5]);
        r.push(Value::Text(
            if sorted { "Using filesort" } else { "" }.into(),
        ));
        rows.push(r);
    }
    Ok(rows)
}

/// The chain of plain SELECTs joined by UNION that `body` is, if it is one.
fn chain(body: &ast::SetExpr) -> Option<Chain> {
    match body {
        ast::SetExpr::Select(_) => Some(Chain {
            selects: 1,
            distinct: false,
        }),
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            let l = chain(left)?;
            let r = chain(right)?;
            Some(Chain {
                selects: l.selects + r.selects,
                distinct: l.distinct
                    || r.distinct
                    || !matches!(set_quantifier, ast::SetQuantifier::All),
            })
        }
        // a parenthesized SELECT is that SELECT (its own ORDER BY / LIMIT is refused below)
        ast::SetExpr::Query(q)
            if q.with.is_none() && matches!(*q.body, ast::SetExpr::Select(_)) =>
        {
            chain(&q.body)
        }
        _ => None,
    }
}

/// The SELECTs of a UNION plan, in order, into `out`; false if a part is not a SELECT.
fn collect<'p>(plan: &'p QueryPlan, out: &mut Vec<&'p SelectPlan>) -> bool {
    match plan {
        QueryPlan::Select(s) => {
            out.push(s);
            true
        }
        QueryPlan::Union { left, right, .. } => collect(left, out) && collect(right, out),
        _ => false,
    }
}
