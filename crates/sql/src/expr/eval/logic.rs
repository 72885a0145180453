//! Logic: AND, OR, XOR, NOT, IS [NOT] TRUE/FALSE, and CASE, over SQL's three truth values
//! (NULL = unknown).
//!
//! Invariants: AND and OR evaluate their right side only when the left does not decide (`0 AND
//! x`, `1 OR x` never evaluate `x`); CASE evaluates the WHEN conditions in order up to the first
//! that holds and only the chosen result. A truth value is 1, 0 or NULL.

use std::cmp::Ordering;

use super::{compare, eval, truth, EvalCtx};
use crate::error::db_error::DbResult;
use crate::expr::{BinOp, Expr};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// 1, 0 or NULL.
pub(super) fn bool_val(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

pub(super) fn not(v: &Value) -> Value {
    bool_val(truth(v).map(|b| !b))
}

/// `a AND b`, `a OR b`, `a XOR b`.
pub(super) fn logical(op: BinOp, a: &Expr, b: &Expr, cx: &EvalCtx<'_>) -> DbResult<Value> {
    let x = truth(&eval(a, cx)?);
    Ok(match op {
        BinOp::And => {
            if x == Some(false) {
                return Ok(Value::Int(0));
            }
            let y = truth(&eval(b, cx)?);
            bool_val(match (x, y) {
                (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            })
        }
        BinOp::Or => {
            if x == Some(true) {
                return Ok(Value::Int(1));
            }
            let y = truth(&eval(b, cx)?);
            bool_val(match (x, y) {
                (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            })
        }
        _ => {
            let y = truth(&eval(b, cx)?);
            bool_val(x.zip(y).map(|(x, y)| x != y))
        }
    })
}

/// `v IS [NOT] TRUE` (`want` = true) / `IS [NOT] FALSE`: never NULL.
pub(super) fn is_true(v: &Value, want: bool, neg: bool) -> Value {
    let t = truth(v);
    Value::Int(((t == Some(want)) != neg) as i64)
}

/// `CASE [op] WHEN w THEN r ... [ELSE el] END`.
pub(super) fn case(
    op: Option<&Expr>,
    whens: &[(Expr, Expr)],
    el: Option<&Expr>,
    coll: Collation,
    cx: &EvalCtx<'_>,
) -> DbResult<Value> {
    let base = match op {
        Some(o) => Some(eval(o, cx)?),
        None => None,
    };
    for (w, r) in whens {
        let wv = eval(w, cx)?;
        let hit = match &base {
            Some(b) => compare(b, &wv, coll) == Some(Ordering::Equal),
            None => truth(&wv) == Some(true),
        };
        if hit {
            return eval(r, cx);
        }
    }
    match el {
        Some(e) => eval(e, cx),
        None => Ok(Value::Null),
    }
}
