//! What `RETENTION = n unit` asks of a table's partitions at a given moment ([`plan`]): which
//! partitions have expired and which must be added ahead of the clock (design.md "Retention";
//! the server's thread that carries the plan out is context/retention.rs).
//!
//! A retention applies to a table partitioned `BY RANGE (TO_DAYS(c))`, `TO_SECONDS(c)`,
//! `UNIX_TIMESTAMP(c)` or `BY RANGE COLUMNS(c)` with `c` a DATE, DATETIME or TIMESTAMP column
//! ([`check`]). Bounds of new partitions are the partition function evaluated at instants
//! aligned to the unit (midnight, the hour, Monday, the first of the month), so they are exactly
//! what a user would write.
//!
//! Invariants: RET2 (a partition is planned for dropping only when its upper bound is at or
//! below the function's value at `now - retention`, and never the last one); new bounds are
//! strictly above the last bound, in increasing order.

use super::{Method, PartBound, Partitioning, Retention, RetentionUnit};
use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::types::temporal::{day_number, days_in_month, from_day_number, Date, DateTime};
use crate::types::value::Value;
use crate::types::SqlType;

/// Partitions ahead of the one holding `now` that the thread keeps.
pub const AHEAD: u32 = 2;

const MICROS_PER_HOUR: u64 = 3_600_000_000;

/// The error for a RETENTION on a table it cannot apply to.
pub fn retention_needs_range() -> DbError {
    DbError::new(
        ErrorCode::IllegalHaCreateOption,
        "RETENTION needs a table partitioned BY RANGE (TO_DAYS(c)), RANGE (TO_SECONDS(c)), \
         RANGE (UNIX_TIMESTAMP(c)) or RANGE COLUMNS(c) over a DATE, DATETIME or TIMESTAMP column c",
    )
}

/// The temporal column of a partitioning a retention applies to.
pub fn column(p: &Partitioning, t: &TableDef) -> Option<usize> {
    if p.method != Method::Range || p.columns.len() != 1 {
        return None;
    }
    let c = p.columns[0];
    let ty = t.columns[c].sql_type;
    let temporal = matches!(
        ty,
        SqlType::Date | SqlType::DateTime { .. } | SqlType::Timestamp { .. }
    );
    let quoted = crate::catalog::create_table::quote_ident(&t.columns[c].name);
    let ok = match &p.func {
        None => p.columns_form && temporal,
        Some(f) => {
            ["to_days", "to_seconds", "unix_timestamp"]
                .iter()
                .any(|name| f.text == format!("{name}({quoted})"))
                && temporal
        }
    };
    ok.then_some(c)
}

/// Refuses a retention `p` cannot carry, and an HOUR retention over day numbers.
pub fn check(p: &Partitioning, t: &TableDef, r: Retention) -> DbResult<()> {
    let c = column(p, t).ok_or_else(retention_needs_range)?;
    let by_days = p
        .func
        .as_ref()
        .is_some_and(|f| f.text.starts_with("to_days"))
        || t.columns[c].sql_type == SqlType::Date;
    if r.amount == 0 || (by_days && r.unit == RetentionUnit::Hour) {
        return Err(retention_needs_range());
    }
    Ok(())
}

/// What the retention asks for now.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// Partitions (indexes into `parts`) whose rows have all expired.
    pub drop: Vec<usize>,
    /// New partitions to add at the top: (name, bound), bounds increasing.
    pub add: Vec<(String, PartBound)>,
}

/// The start of the unit holding `t`.
fn align(t: DateTime, unit: RetentionUnit) -> DateTime {
    match unit {
        RetentionUnit::Hour => DateTime {
            date: t.date,
            micros: t.micros / MICROS_PER_HOUR * MICROS_PER_HOUR,
        },
        RetentionUnit::Day => DateTime::from_date(t.date),
        RetentionUnit::Week => {
            // Day number 0 (0000-03-01) is a Wednesday; Monday is two days earlier.
            let n = day_number(t.date);
            DateTime::from_date(from_day_number(n - (n + 2).rem_euclid(7)))
        }
        RetentionUnit::Month => DateTime::from_date(Date {
            year: t.date.year,
            month: t.date.month,
            day: 1,
        }),
    }
}

/// `t` moved by `n` units (negative: back).
pub(crate) fn shift(t: DateTime, unit: RetentionUnit, n: i64) -> DateTime {
    match unit {
        RetentionUnit::Hour => {
            let total = day_number(t.date) * 24 + (t.micros / MICROS_PER_HOUR) as i64 + n;
            DateTime {
                date: from_day_number(total.div_euclid(24)),
                micros: total.rem_euclid(24) as u64 * MICROS_PER_HOUR + t.micros % MICROS_PER_HOUR,
            }
        }
        RetentionUnit::Day | RetentionUnit::Week => {
            let days = if unit == RetentionUnit::Week {
                7 * n
            } else {
                n
            };
            DateTime {
                date: from_day_number(day_number(t.date) + days),
                micros: t.micros,
            }
        }
        RetentionUnit::Month => {
            let m = i64::from(t.date.year) * 12 + i64::from(t.date.month) - 1 + n;
            let (year, month) = (m.div_euclid(12) as u32, m.rem_euclid(12) as u32 + 1);
            let day = u32::from(t.date.day).min(days_in_month(year, month));
            DateTime {
                date: Date {
                    year: year as u16,
                    month: month as u8,
                    day: day as u8,
                },
                micros: t.micros,
            }
        }
    }
}

/// The bound a partition ending at instant `t` has: the function's value there (or the
/// column's value, for RANGE COLUMNS).
fn bound_at(p: &Partitioning, t: &TableDef, c: usize, at: DateTime) -> DbResult<PartBound> {
    let col = &t.columns[c];
    let v = if col.sql_type == SqlType::Date {
        Value::Date(at.date)
    } else {
        Value::DateTime(at)
    };
    match &p.func {
        None => Ok(PartBound::ColumnsLessThan(vec![Some(v)])),
        Some(f) => {
            let mut row = vec![Value::Null; t.columns.len()];
            row[c] = v;
            let x = eval(&f.expr, &EvalCtx::row(&row))?;
            Ok(PartBound::IntLessThan(super::int_value(&x)))
        }
    }
}

/// Whether bound `a` is at or below bound `b` (MAXVALUE above all).
fn at_or_below(p: &Partitioning, a: &PartBound, b: &PartBound) -> bool {
    match (a, b) {
        (PartBound::IntLessThan(Some(x)), PartBound::IntLessThan(Some(y))) => x <= y,
        (PartBound::ColumnsLessThan(x), PartBound::ColumnsLessThan(y)) => {
            !p.cmp_bound_pair(x, y).is_gt()
        }
        (_, PartBound::IntLessThan(None)) => true,
        _ => false,
    }
}

fn name_for(at: DateTime, unit: RetentionUnit) -> String {
    let d = at.date;
    match unit {
        RetentionUnit::Hour => format!(
            "p{:04}{:02}{:02}{:02}",
            d.year,
            d.month,
            d.day,
            at.micros / MICROS_PER_HOUR
        ),
        RetentionUnit::Month => format!("p{:04}{:02}", d.year, d.month),
        _ => format!("p{:04}{:02}{:02}", d.year, d.month, d.day),
    }
}

/// What the retention of `t` asks for at instant `now` (in the column's terms: UTC for
/// TIMESTAMP and UNIX_TIMESTAMP, the server's clock otherwise).
pub fn plan(t: &TableDef, now: DateTime) -> DbResult<Plan> {
    let Some(p) = &t.partitioning else {
        return Ok(Plan {
            drop: vec![],
            add: vec![],
        });
    };
    let (Some(r), Some(c)) = (t.retention, column(p, t)) else {
        return Ok(Plan {
            drop: vec![],
            add: vec![],
        });
    };
    let cutoff = bound_at(p, t, c, shift(now, r.unit, -i64::from(r.amount)))?;
    let last = p.parts.len() - 1;
    let drop = (0..last)
        .filter(|&i| at_or_below(p, &p.parts[i].bound, &cutoff))
        .collect();
    let top = p
        .parts
        .iter()
        .rev()
        .map(|d| &d.bound)
        .find(|b| !is_max(b))
        .cloned();
    let base = align(now, r.unit);
    let mut add = Vec::new();
    let mut prev = top;
    for j in 1..=i64::from(AHEAD) + 1 {
        let b = bound_at(p, t, c, shift(base, r.unit, j))?;
        if prev.as_ref().is_some_and(|pb| at_or_below(p, &b, pb)) {
            continue;
        }
        let mut name = name_for(shift(base, r.unit, j - 1), r.unit);
        while p.position(&name).is_some() || add.iter().any(|(n, _)| *n == name) {
            name.push('x');
        }
        prev = Some(b.clone());
        add.push((name, b));
    }
    Ok(Plan { drop, add })
}

/// A MAXVALUE bound.
pub fn is_max(b: &PartBound) -> bool {
    match b {
        PartBound::IntLessThan(None) => true,
        PartBound::ColumnsLessThan(v) => v.iter().all(Option::is_none),
        _ => false,
    }
}
