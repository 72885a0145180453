//! Completing an inserted row: each column's value from what the statement gave (a value,
//! DEFAULT, or nothing), defaults, DEFAULT CURRENT_TIMESTAMP, AUTO_INCREMENT, coercion, then
//! the generated columns (generated.rs).
//!
//! Invariants: AUTO_INCREMENT values follow InnoDB's series `offset + k * increment`, and the
//! counter moves past every explicit value stored; a generated value the column cannot hold is
//! an error in every SQL mode.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::types::coerce::{coerce_to_column, coerce_to_table_column};
use crate::types::value::Value;
use crate::types::SqlType;

pub use crate::parser::fast_insert::Slot;

/// Builds, defaults and coerces one row.
pub(crate) fn complete_row(
    cx: &mut Context,
    t: &TableDef,
    slots: Vec<Slot>,
    rownum: u64,
    strict: bool,
    first_id: &mut Option<u64>,
    warnings: &mut Vec<Warning>,
) -> DbResult<Vec<Value>> {
    let mode = cx.coerce_mode(strict);
    let mut row = Vec::with_capacity(t.columns.len());
    // Read only for a 0 into an AUTO_INCREMENT column (sql_mode is text to search).
    let zero_is_value = || {
        cx.sql_modes()
            .has(crate::types::sql_mode::Modes::NO_AUTO_VALUE_ON_ZERO)
    };
    for (i, (c, s)) in t.columns.iter().zip(slots).enumerate() {
        if t.generated[i].is_some() {
            // Computed below, once every column it may read is set.
            if matches!(s, Slot::Val(_) | Slot::Num(_)) {
                super::value_for_generated(t, i, strict, warnings)?;
            }
            row.push(Value::Null);
            continue;
        }
        let s = match s {
            Slot::Num(n) => Slot::Val(match c.sql_type {
                SqlType::Double { .. } | SqlType::Float { .. } => Value::Double(n.to_f64()),
                _ => n.value()?,
            }),
            s => s,
        };
        let v = match s {
            // MariaDB: NULL into a TIMESTAMP NOT NULL column stores the current time
            Slot::Val(Value::Null)
                if !c.nullable && matches!(c.sql_type, SqlType::Timestamp { .. }) =>
            {
                coerce_to_column(&Value::DateTime(cx.now), c, rownum, mode, warnings)?
            }
            Slot::Val(v)
                if !(c.auto_increment && (v.is_null() || (is_zero(&v) && !zero_is_value()))) =>
            {
                let v = coerce_to_table_column(&v, c, (&t.db, &t.name), rownum, mode, warnings)?;
                if c.auto_increment {
                    let n = match &v {
                        Value::Int(i) if *i > 0 => *i as u64,
                        Value::UInt(u) => *u,
                        _ => 0,
                    };
                    if n > 0 {
                        let (inc, off) = auto_inc_vars(cx);
                        let next = auto_inc_after(n, inc, off);
                        t.counters.auto_inc.fetch_max(next, Ordering::SeqCst);
                    }
                }
                v
            }
            _ if c.auto_increment => {
                let (inc, off) = auto_inc_vars(cx);
                let id = next_auto_id(&t.counters.auto_inc, inc, off);
                // A generated value the column cannot hold is an error in every SQL mode
                // (MariaDB's HA_ERR_AUTOINC_ERANGE).
                let strict = crate::types::coerce::SqlMode::utc(true);
                let v = coerce_to_column(&Value::UInt(id), c, rownum, strict, warnings)?;
                if first_id.is_none() {
                    *first_id = Some(id);
                }
                v
            }
            _ if t.default_now[i] => {
                coerce_to_column(&Value::DateTime(cx.now), c, rownum, mode, warnings)?
            }
            _ => match &c.default {
                Some(d) => d.clone(),
                None if c.nullable => Value::Null,
                None => {
                    if strict {
                        return Err(DbError::no_default(&c.name));
                    }
                    // Once per column and statement, as MariaDB reports it (not per row).
                    let message = format!("Field '{}' doesn't have a default value", c.name);
                    let known = warnings
                        .iter()
                        .any(|w| w.code == ErrorCode::NoDefaultForField && w.message == message);
                    if !known {
                        warnings.push(Warning {
                            level: crate::error::sql_error::WarningLevel::Warning,
                            code: ErrorCode::NoDefaultForField,
                            message,
                        });
                    }
                    c.implicit_value()
                }
            },
        };
        row.push(v);
    }
    // Persisted before the commit that stores the row (design.md AIC1).
    cx.engine.auto_inc_moved(t);
    super::compute_generated(t, &mut row, rownum, mode, warnings)?;
    super::check_row(t, &row)?;
    if let Some((e, db, name)) = &cx.view_check {
        super::view_target::check(Some(e), &row, db, name)?;
    }
    Ok(row)
}

/// auto_increment_increment (1..=65535) and auto_increment_offset, with an offset above the
/// increment counted as 0 (MySQL documents such an offset as ignored; InnoDB computes with 0).
fn auto_inc_vars(cx: &Context) -> (u64, u64) {
    let inc = cx.int_var("auto_increment_increment").clamp(1, 65_535);
    let off = cx.int_var("auto_increment_offset");
    (inc, if off > inc { 0 } else { off })
}

/// The next AUTO_INCREMENT value: the smallest `offset + k * increment` (k >= 0, at least 1) at
/// or above the counter. The counter moves to [`auto_inc_after`] it.
fn next_auto_id(counter: &AtomicU64, inc: u64, off: u64) -> u64 {
    let mut cur = counter.load(Ordering::SeqCst);
    loop {
        let from = cur.max(1);
        let id = if from <= off {
            off.max(1)
        } else {
            off.saturating_add((from - off).div_ceil(inc).saturating_mul(inc))
        };
        match counter.compare_exchange(
            cur,
            auto_inc_after(id, inc, off),
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
            Ok(_) => return id,
            Err(now) => cur = now,
        }
    }
}

/// The counter after value `v` was stored, as InnoDB keeps it (`innobase_next_autoinc`): `v`
/// rounded down to the series `offset + k * increment`, plus one increment. So after 200, 500,
/// 800 with increment 300 and offset 200 the next value is 1100, also if the increment changes
/// before the next insert (1100 with increment 50).
pub fn auto_inc_after(v: u64, inc: u64, off: u64) -> u64 {
    let d = v.abs_diff(off);
    (d - d % inc).saturating_add(off).saturating_add(inc)
}

/// An integer 0 (which draws an AUTO_INCREMENT value unless NO_AUTO_VALUE_ON_ZERO).
fn is_zero(v: &Value) -> bool {
    matches!(v, Value::Int(0) | Value::UInt(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_increment_follows_innodb_series() {
        // storage_engine/autoinc_vars: increment 1 then 300 (offset 200), then 50.
        let c = AtomicU64::new(1);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 1, 0)).collect();
        assert_eq!(ids, [1, 2, 3]);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 300, 200)).collect();
        assert_eq!(ids, [200, 500, 800]);
        // The last value plus one increment (800 + 300).
        assert_eq!(c.load(Ordering::SeqCst), 800 + 300);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 50, 0)).collect();
        assert_eq!(ids, [800 + 300, 1150, 1150 + 50]);
        // Defaults: the counter is the last value + 1.
        assert_eq!(auto_inc_after(41, 1, 1), 42);
        // An explicit value below the offset (InnoDB's rounding).
        assert_eq!(auto_inc_after(1, 10, 5), 15);
    }
}
