//! Control-flow functions: IF, IFNULL/NVL, COALESCE, NULLIF, ISNULL, GREATEST, LEAST, and
//! INTERVAL(N, N1, ...) (written so, sqlparser reads it as `__INTERVAL` from mariadb_forms.rs).
//!
//! Invariants: IF, IFNULL, NVL and COALESCE evaluate their arguments lazily ([`eval_lazy`]): the
//! branch not taken is never evaluated, so its errors do not surface (as in MariaDB). They, NULLIF
//! and ISNULL see NULL arguments; GREATEST and LEAST are NULL when any argument is, compare
//! numbers mixed with strings as DOUBLE, and texts under the default collation.

use super::need;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Expr;
use crate::types::collation::Collation;
use crate::types::value::{sql_cmp, Value};

pub(super) const NAMES: &[&str] = &[
    "IF", "IFNULL", "COALESCE", "NVL", "NULLIF", "ISNULL", "GREATEST", "LEAST", "INTERVAL",
];

/// The lazily evaluated functions over unevaluated `args`; `None` for any other call.
pub fn eval_lazy(name: &str, args: &[Expr], cx: &EvalCtx<'_>) -> Option<DbResult<Value>> {
    match name {
        "IF" if args.len() == 3 => Some((|| {
            let c = truth(&eval(&args[0], cx)?) == Some(true);
            eval(&args[if c { 1 } else { 2 }], cx)
        })()),
        "IFNULL" | "COALESCE" | "NVL" => Some((|| {
            for a in args {
                let v = eval(a, cx)?;
                if !v.is_null() {
                    return Ok(v);
                }
            }
            Ok(Value::Null)
        })()),
        _ => None,
    }
}

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    Ok(match name {
        "NULLIF" => {
            need(name, a, 2, 2)?;
            if sql_cmp(&a[0], &a[1], Collation::default()) == Some(std::cmp::Ordering::Equal) {
                Value::Null
            } else {
                a[0].clone()
            }
        }
        "ISNULL" => {
            need(name, a, 1, 1)?;
            Value::Int(a[0].is_null() as i64)
        }
        "IF" => {
            need(name, a, 3, 3)?;
            if truth(&a[0]) == Some(true) {
                a[1].clone()
            } else {
                a[2].clone()
            }
        }
        "IFNULL" | "COALESCE" | "NVL" => a
            .iter()
            .find(|v| !v.is_null())
            .cloned()
            .unwrap_or(Value::Null),
        "GREATEST" => greatest(a, std::cmp::Ordering::Greater),
        "LEAST" => greatest(a, std::cmp::Ordering::Less),
        "INTERVAL" => interval(a),
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// INTERVAL(N, N1, N2, ...): the number of Ni before the first one greater than N (MariaDB's
/// linear scan, so the Ni need not be sorted; a NULL Ni reads as 0); -1 if N is NULL.
fn interval(a: &[Value]) -> Value {
    let num = |v: &Value| v.to_f64_lenient().unwrap_or(0.0);
    let Some((n, bounds)) = a.split_first().filter(|(n, _)| !n.is_null()) else {
        return Value::Int(-1);
    };
    let n = num(n);
    let before = bounds.iter().take_while(|b| num(b) <= n).count();
    Value::Int(before as i64)
}

/// GREATEST (`want` = Greater) or LEAST (Less); NULL when any argument is NULL. As MariaDB:
/// a temporal argument makes the comparison temporal (min_max_temporal.rs);
/// numbers mixed with strings compare (and come back) as DOUBLE; integers mixed with decimals
/// come back as DECIMAL with the largest scale.
fn greatest(a: &[Value], want: std::cmp::Ordering) -> Value {
    if a.iter().any(Value::is_null) {
        return Value::Null;
    }
    if let Some(v) = super::min_max_temporal::temporal_extreme(a, want) {
        return v;
    }
    let is_number = |v: &Value| {
        matches!(
            v,
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Float(_) | Value::Double(_)
        )
    };
    let is_string = |v: &Value| matches!(v, Value::Text(_) | Value::Bytes(_));
    if a.iter().any(is_number) && a.iter().any(is_string) {
        let nums: Vec<f64> = a
            .iter()
            .map(|v| v.to_f64_lenient().unwrap_or(0.0))
            .collect();
        let mut best = nums[0];
        for &n in &nums[1..] {
            if n.partial_cmp(&best) == Some(want) {
                best = n;
            }
        }
        return Value::Double(best);
    }
    let mut best = a[0].clone();
    for v in &a[1..] {
        if sql_cmp(v, &best, Collation::default()) == Some(want) {
            best = v.clone();
        }
    }
    let scale = a
        .iter()
        .filter_map(|v| match v {
            Value::Decimal(d) => Some(d.scale()),
            _ => None,
        })
        .max();
    match (scale, &best) {
        (Some(s), Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) => {
            let d = match &best {
                Value::Int(i) => crate::types::decimal::Decimal::from_i64(*i),
                Value::UInt(u) => crate::types::decimal::Decimal::from_u64(*u),
                Value::Decimal(d) => *d,
                _ => return best,
            };
            d.rescale(s).map_or(best, |(d, _)| Value::Decimal(d))
        }
        _ => best,
    }
}
