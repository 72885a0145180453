//! [`date_add`]: DATE_ADD, DATE_SUB, ADDDATE/SUBDATE with an interval and `d ± INTERVAL n unit`.
//!
//! Invariants: the date is read through [`to_datetime`] (a TIME stays a TIME); a bad or zero
//! date, an amount that is NULL or unreadable, and a result outside years 0..9999 give NULL.
//! Month arithmetic clamps the day to the month's last. A DATE moved by whole days, months or
//! years stays a DATE; by any unit with a time part it becomes a DATETIME.

use super::interval_text::compound_delta;
use crate::expr::eval::{cast, text_of, to_datetime};
use crate::expr::{CastTo, IntervalUnit};
use crate::types::decimal::Decimal;
use crate::types::temporal::{day_number, days_in_month, from_day_number, Date, DateTime, Time};
use crate::types::value::Value;

/// The length of an interval: months (MONTH, QUARTER, YEAR, YEAR_MONTH) or microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Delta {
    Months(i64),
    Micros(i128),
}

/// `d + INTERVAL n unit` (`d - ...` when `sub`).
pub fn date_add(d: &Value, n: &Value, unit: IntervalUnit, sub: bool) -> Value {
    if let Value::Time(t) = d {
        return time_add(*t, n, unit, sub);
    }
    let Some(dt) = to_datetime(d) else {
        return Value::Null;
    };
    if dt.date.is_zero() {
        return Value::Null;
    }
    let r = match delta(n, unit, sub) {
        Some(Delta::Months(m)) => add_months(dt, m),
        Some(Delta::Micros(us)) => add_micros(dt, us),
        None => None,
    };
    match r {
        Some(r) if is_date_only(d) && unit.is_whole_days() => Value::Date(r.date),
        Some(r) => Value::DateTime(r),
        None => Value::Null,
    }
}

/// `t + INTERVAL n unit` of a TIME: a TIME, as in MariaDB, for units up to DAY; NULL for WEEK
/// and the month units and outside the TIME range.
fn time_add(t: Time, n: &Value, unit: IntervalUnit, sub: bool) -> Value {
    if unit == IntervalUnit::Week {
        return Value::Null;
    }
    match delta(n, unit, sub) {
        Some(Delta::Micros(d)) => i64::try_from(d)
            .ok()
            .and_then(|d| Time::from_micros(t.micros.checked_add(d)?))
            .map_or(Value::Null, Value::Time),
        _ => Value::Null,
    }
}

/// The interval `n unit`, negated when `sub`; `None` when it is NULL or out of range.
fn delta(n: &Value, unit: IntervalUnit, sub: bool) -> Option<Delta> {
    let d = if unit.is_compound() {
        compound_delta(&text_of(n)?, unit)?
    } else {
        simple_delta(n, unit)?
    };
    Some(match (d, sub) {
        (Delta::Months(m), true) => Delta::Months(-m),
        (Delta::Micros(us), true) => Delta::Micros(-us),
        (d, false) => d,
    })
}

/// `n` of a simple unit, read as MariaDB reads it: SECOND with a fraction (a DECIMAL with
/// one, a DOUBLE, a string) cut to microseconds; every other amount a whole number, as
/// `CAST(n AS SIGNED)` gives it (a DECIMAL rounded half away from zero, a DOUBLE half to even,
/// a string cut to its integer prefix: `INTERVAL '1.9' MINUTE` is one minute).
fn simple_delta(n: &Value, unit: IntervalUnit) -> Option<Delta> {
    use IntervalUnit as U;
    if unit == U::Second {
        if let Some(us) = fractional_micros(n) {
            return Some(Delta::Micros(us));
        }
    }
    let count = match cast(n, CastTo::Signed) {
        Value::Int(i) => i128::from(i),
        Value::UInt(u) => i128::from(u),
        _ => return None,
    };
    let (months, per) = match unit {
        U::Month => (1, 0),
        U::Quarter => (3, 0),
        U::Year => (12, 0),
        U::Microsecond => (0, 1),
        U::Second => (0, 1_000_000),
        U::Minute => (0, 60_000_000),
        U::Hour => (0, 3_600_000_000),
        U::Day => (0, 86_400_000_000),
        U::Week => (0, 7 * 86_400_000_000),
        _ => return None,
    };
    Some(if months > 0 {
        Delta::Months(i64::try_from(count * months).ok()?)
    } else {
        Delta::Micros(count * per)
    })
}

/// A SECOND amount with a fraction in microseconds, cut toward zero; `None` for an integer.
fn fractional_micros(n: &Value) -> Option<i128> {
    let d = match n {
        Value::Decimal(d) if d.scale() > 0 => *d,
        Value::Double(f) => Decimal::from_f64(*f)?,
        Value::Float(f) => Decimal::from_f64(f64::from(*f))?,
        Value::Text(s) => Decimal::parse_prefix(s).map_or(Decimal::from_i64(0), |(d, _)| d),
        _ => return None,
    };
    let (us, _) = d.truncate_to(6).rescale(6)?;
    us.small_mantissa()
}

/// A DATE argument stays a DATE when whole days, months or years are added.
fn is_date_only(v: &Value) -> bool {
    match v {
        Value::Date(_) => true,
        Value::Text(s) => s.trim().len() <= 10 && !s.contains(':'),
        _ => false,
    }
}

fn add_months(dt: DateTime, months: i64) -> Option<DateTime> {
    let total = (dt.date.year as i64 * 12 + (dt.date.month as i64 - 1)).checked_add(months)?;
    if !(0..=9999 * 12 + 11).contains(&total) {
        return None;
    }
    let (y, m) = ((total / 12) as u32, (total % 12) as u32 + 1);
    let day = (dt.date.day as u32).min(days_in_month(y, m));
    Date::new(y, m, day).map(|date| DateTime {
        date,
        micros: dt.micros,
    })
}

fn add_micros(dt: DateTime, delta: i128) -> Option<DateTime> {
    const DAY: i128 = 86_400_000_000;
    let total = (day_number(dt.date) as i128 * DAY + dt.micros as i128).checked_add(delta)?;
    let days = i64::try_from(total.div_euclid(DAY)).ok()?;
    let micros = total.rem_euclid(DAY) as u64;
    let date = from_day_number(days);
    if day_number(date) != days || date.year > 9999 || date.is_zero() {
        return None;
    }
    Some(DateTime { date, micros })
}
