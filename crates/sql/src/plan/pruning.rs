//! Partition pruning: the partitions of a partitioned table that may hold rows satisfying a
//! statement's conditions ([`prune`], design.md PRT6).
//!
//! Read: conjuncts `col = c`, `col IN (c, ...)`, `col < c` (and `<=`, `>`, `>=`, BETWEEN) and
//! `col IS NULL` with constant `c` on the columns of the partition function. Then:
//! * every function column limited to a few values (at most 256 combinations; an integer range
//!   of at most 64 values counts as its values): the partitions those rows would go to, for any
//!   method;
//! * RANGE over a bare column or a non-decreasing function of it (TO_DAYS, TO_SECONDS,
//!   UNIX_TIMESTAMP, YEAR): the partitions between the function's values at the range's ends;
//! * RANGE COLUMNS and LIST COLUMNS: a range on the first column against the bounds' first
//!   values; LIST over such a function: the partitions listing a value in the range.
//!
//! Invariant: the result is a superset of the partitions holding matching rows: a bound that
//! does not convert exactly to the column's type is dropped (the range widens), anything not
//! understood keeps every partition, and the rows read are still checked against the whole
//! condition.

use std::cmp::Ordering;

use crate::catalog::create_table::quote_ident;
use crate::catalog::partition::{int_value, Method, PartBound, Partitioning};
use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Expr;
use crate::plan::access::{conds_for, exact, Cond};
use crate::types::value::{cmp_nulls_first, Value};
use crate::types::SqlType;

/// The values one function column may take under the conditions.
#[derive(Debug, Clone)]
enum Allowed {
    /// These values only (an empty list: no row matches).
    Points(Vec<Value>),
    /// Values in [lo, hi] (inclusive; `None`: unbounded).
    Range(Option<Value>, Option<Value>),
    Any,
}

/// Most tuples enumerated, and most values of an integer range enumerated.
const MAX_TUPLES: usize = 256;
const MAX_SPAN: i128 = 64;

/// The partitions of `t` (whose columns start at `offset` in the flat row) that may hold rows
/// satisfying `conj`, ascending; `None`: every partition (or the table is not partitioned).
pub fn prune(t: &TableDef, offset: usize, conj: &[Expr]) -> Option<Vec<usize>> {
    let p = t.partitioning.as_deref()?;
    let allowed: Vec<Allowed> = p
        .columns
        .iter()
        .map(|&c| allowed_for(t, c, offset + c, conj))
        .collect();
    if let Some(parts) = by_points(t, p, &allowed) {
        return Some(parts);
    }
    let first = allowed.first()?;
    let (lo, hi) = match first {
        Allowed::Range(lo, hi) => (lo.clone(), hi.clone()),
        _ => return None,
    };
    match (p.method, p.columns_form) {
        (Method::Range, false) | (Method::List, false) => by_function_range(t, p, lo, hi),
        (Method::Range, true) | (Method::List, true) => Some(by_first_column(p, lo, hi)),
        _ => None,
    }
}

fn eval_const(e: &Expr) -> Option<Value> {
    eval(e, &EvalCtx::default()).ok()
}

/// What `conj` allows for table column `col` (flat position `flat`).
fn allowed_for(t: &TableDef, col: usize, flat: usize, conj: &[Expr]) -> Allowed {
    let c = &t.columns[col];
    let is_col = |e: &Expr| matches!(e, Expr::Col(x) if *x == flat);
    if conj
        .iter()
        .any(|e| matches!(e, Expr::IsNull(a, false) if is_col(a)))
    {
        return Allowed::Points(vec![Value::Null]);
    }
    let conds = conds_for(flat, conj, &|e| e.is_const());
    let exact_of = |e: &Expr| -> Option<Option<Value>> {
        let v = eval_const(e)?;
        if v.is_null() {
            return Some(None); // `col = NULL` holds for no row
        }
        exact(c, &v).map(Some)
    };
    if let Some(Cond::Eq(e)) = conds.iter().find(|d| matches!(d, Cond::Eq(_))) {
        return match exact_of(e) {
            Some(v) => Allowed::Points(v.into_iter().collect()),
            None => Allowed::Any,
        };
    }
    if let Some(Cond::In(list)) = conds.iter().find(|d| matches!(d, Cond::In(_))) {
        let mut vals = Vec::new();
        for e in list {
            match exact_of(e) {
                Some(v) => vals.extend(v),
                None => return Allowed::Any,
            }
        }
        return Allowed::Points(vals);
    }
    let (mut lo, mut hi) = (None, None);
    for d in &conds {
        match d {
            Cond::Lower(e, _) if lo.is_none() => lo = exact_of(e).flatten(),
            Cond::Upper(e, _) if hi.is_none() => hi = exact_of(e).flatten(),
            _ => {}
        }
    }
    if lo.is_none() && hi.is_none() {
        return Allowed::Any;
    }
    small_int_range(c.sql_type, &lo, &hi).unwrap_or(Allowed::Range(lo, hi))
}

/// An integer range of at most [`MAX_SPAN`] values, as its values.
fn small_int_range(ty: SqlType, lo: &Option<Value>, hi: &Option<Value>) -> Option<Allowed> {
    if !matches!(ty, SqlType::Int { .. }) {
        return None;
    }
    let (a, b) = (int_value(lo.as_ref()?)?, int_value(hi.as_ref()?)?);
    if b < a {
        return Some(Allowed::Points(vec![]));
    }
    if b - a >= MAX_SPAN {
        return None;
    }
    let unsigned = matches!(lo, Some(Value::UInt(_)));
    Some(Allowed::Points(
        (a..=b)
            .map(|v| {
                if unsigned {
                    Value::UInt(v as u64)
                } else {
                    Value::Int(v as i64)
                }
            })
            .collect(),
    ))
}

/// The partitions of every combination of the columns' values, when each column has a few.
fn by_points(t: &TableDef, p: &Partitioning, allowed: &[Allowed]) -> Option<Vec<usize>> {
    let mut tuples: Vec<Vec<Value>> = vec![vec![]];
    for a in allowed {
        let Allowed::Points(vals) = a else {
            return None;
        };
        let mut next = Vec::new();
        for tuple in &tuples {
            for v in vals {
                let mut t2 = tuple.clone();
                t2.push(v.clone());
                next.push(t2);
            }
        }
        if next.len() > MAX_TUPLES {
            return None;
        }
        tuples = next;
    }
    let mut parts = Vec::new();
    for tuple in tuples {
        let mut row = vec![Value::Null; t.columns.len()];
        for (&c, v) in p.columns.iter().zip(tuple) {
            row[c] = v;
        }
        // A row no partition takes cannot exist.
        if let Ok(i) = p.part_of(&row) {
            parts.push(i);
        }
    }
    parts.sort_unstable();
    parts.dedup();
    Some(parts)
}

/// The function's value on a row whose only set column is `c` = `v`.
fn function_at(t: &TableDef, p: &Partitioning, v: &Value) -> Option<i128> {
    let f = p.func.as_ref()?;
    let mut row = vec![Value::Null; t.columns.len()];
    row[p.columns[0]] = v.clone();
    int_value(&eval(&f.expr, &EvalCtx::row(&row)).ok()?)
}

/// Whether the function never decreases as its one column grows.
fn non_decreasing(t: &TableDef, p: &Partitioning) -> bool {
    let (Some(f), [c]) = (&p.func, p.columns.as_slice()) else {
        return false;
    };
    let q = quote_ident(&t.columns[*c].name);
    f.text == q
        || ["to_days", "to_seconds", "unix_timestamp", "year"]
            .iter()
            .any(|name| f.text == format!("{name}({q})"))
}

/// RANGE / LIST over a non-decreasing function: the partitions holding function values
/// between its values at the range's ends.
fn by_function_range(
    t: &TableDef,
    p: &Partitioning,
    lo: Option<Value>,
    hi: Option<Value>,
) -> Option<Vec<usize>> {
    if !non_decreasing(t, p) {
        return None;
    }
    let flo = match &lo {
        Some(v) => Some(function_at(t, p, v)?),
        None => None,
    };
    let fhi = match &hi {
        Some(v) => Some(function_at(t, p, v)?),
        None => None,
    };
    let within = |v: i128| flo.is_none_or(|a| v >= a) && fhi.is_none_or(|b| v <= b);
    if p.method == Method::List {
        return Some(
            p.parts
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    matches!(&d.bound, PartBound::IntIn(l) if l.iter().flatten().any(|v| within(*v)))
                })
                .map(|(i, _)| i)
                .collect(),
        );
    }
    let last = p.parts.len() - 1;
    let start = match flo {
        None => 0,
        Some(v) => match p.int_part_of(Some(v)) {
            Some(i) => i,
            None => return Some(vec![]),
        },
    };
    let end = fhi.map_or(last, |v| p.int_part_of(Some(v)).unwrap_or(last));
    Some((start..=end.max(start).min(last)).collect())
}

/// RANGE COLUMNS / LIST COLUMNS: the partitions whose first-column values can fall in [lo, hi].
fn by_first_column(p: &Partitioning, lo: Option<Value>, hi: Option<Value>) -> Vec<usize> {
    let cmp = |a: &Value, b: &Value| cmp_nulls_first(a, b, p.collation(0));
    let ge_lo = |v: &Value| lo.as_ref().is_none_or(|l| cmp(v, l) != Ordering::Less);
    let le_hi = |v: &Value| hi.as_ref().is_none_or(|h| cmp(v, h) != Ordering::Greater);
    let mut out = Vec::new();
    let mut prev: Option<&Value> = None;
    for (i, d) in p.parts.iter().enumerate() {
        let keep = match &d.bound {
            PartBound::ColumnsLessThan(b) => {
                let top_ok = b[0].as_ref().is_none_or(&ge_lo);
                let bottom_ok = prev.is_none_or(&le_hi);
                prev = b[0].as_ref().or(prev);
                top_ok && bottom_ok
            }
            PartBound::ColumnsIn(l) => l.iter().any(|tuple| ge_lo(&tuple[0]) && le_hi(&tuple[0])),
            _ => true,
        };
        if keep {
            out.push(i);
        }
    }
    out
}

/// The partitions a `PARTITION (p, ...)` list of table `t` names, ascending (`None` for an
/// empty list): 1747 on a table that is not partitioned, 1735 for an unknown name.
pub fn selection(t: &TableDef, names: &[String]) -> DbResult<Option<Vec<usize>>> {
    if names.is_empty() {
        return Ok(None);
    }
    let Some(p) = &t.partitioning else {
        return Err(DbError::new(
            ErrorCode::PartitionClauseOnNonpartitioned,
            "PARTITION () clause on non partitioned table",
        ));
    };
    let mut out = Vec::new();
    for n in names {
        let i = p.position(n).ok_or_else(|| {
            DbError::new(
                ErrorCode::UnknownPartition,
                format!("Unknown partition '{n}' in table '{}'", t.name),
            )
        })?;
        out.push(i);
    }
    out.sort_unstable();
    out.dedup();
    Ok(Some(out))
}
