//! Building and moving times: MAKETIME, ADDTIME and SUBTIME.
//!
//! Rules (MariaDB 10.11):
//! * MAKETIME(h, m, s): a TIME of `h` hours (negative: a negative time), `m` minutes and `s`
//!   seconds (a fraction kept to the microsecond, the rest dropped); NULL when `m` or the whole
//!   seconds are outside 0..=59 or `s` is negative; clamped to ±838:59:59.
//! * ADDTIME(t, d) / SUBTIME(t, d): `d` is a duration (`[-][D ]HH:MM:SS[.f]`, a number
//!   `HHMMSS[.f]`, a TIME); `t` a DATETIME (or text that reads as a date and a time) gives a
//!   DATETIME, NULL outside years 0..=9999; `t` a TIME (or text that reads as one) gives a TIME
//!   clamped to ±838:59:59. A `d` that reads as a date and a time is NULL.
//!
//! Refused (1235) rather than answered differently: a DATE or date-only text as `t` (MariaDB
//! reads `'2020-01-01'` as the time `00:20:20` with a warning).
//! Not raised: MariaDB's warnings 1292 for clamped values and unreadable arguments.

use super::{int, need};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::temporal::MICROS_PER_DAY;
use crate::types::temporal::{day_number, from_day_number, DateTime, Time, TIME_MAX_MICROS};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["MAKETIME", "ADDTIME", "SUBTIME"];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    match name {
        "MAKETIME" => {
            need(name, a, 3, 3)?;
            Ok(maketime(&a[0], &a[1], &a[2]))
        }
        "ADDTIME" | "SUBTIME" => {
            need(name, a, 2, 2)?;
            let Some(d) = duration(&a[1]) else {
                return Ok(Value::Null);
            };
            let d = if name == "SUBTIME" { -d } else { d };
            add(&a[0], d)
        }
        other => Err(DbError::no_function(&other.to_ascii_lowercase())),
    }
}

fn maketime(h: &Value, m: &Value, s: &Value) -> Value {
    let (Some(h), Some(m)) = (int(h), int(m)) else {
        return Value::Null;
    };
    let Some(sec_us) = text_of(s).and_then(|t| seconds_micros(&t)) else {
        return Value::Null;
    };
    if !(0..=59).contains(&m) || sec_us >= 60_000_000 {
        return Value::Null;
    }
    let hours = i128::from(h.unsigned_abs());
    let total = (hours * 3600 + i128::from(m) * 60) * 1_000_000 + i128::from(sec_us);
    let us = total.min(i128::from(TIME_MAX_MICROS)) as i64;
    clamped_time(if h < 0 { -us } else { us })
}

/// Seconds written as `S[.f]` in microseconds (digits past the sixth dropped); `None` for a
/// negative or unreadable value.
fn seconds_micros(t: &str) -> Option<i64> {
    let t = t.trim();
    if t.starts_with('-') {
        return None;
    }
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let whole: i64 = whole.parse().ok()?;
    let digits: String = frac
        .chars()
        .take_while(char::is_ascii_digit)
        .take(6)
        .collect();
    let frac_us = format!("{digits:0<6}").parse::<i64>().ok()?;
    whole.checked_mul(1_000_000)?.checked_add(frac_us)
}

/// The duration ADDTIME adds, in microseconds.
fn duration(v: &Value) -> Option<i64> {
    match v {
        Value::Time(t) => Some(t.micros),
        Value::Date(_) | Value::DateTime(_) => None,
        other => {
            let s = text_of(other)?;
            let s = s.trim();
            if s.trim_start_matches('-').contains('-') {
                return None;
            }
            Time::parse(s).map(|t| t.micros)
        }
    }
}

fn add(t: &Value, d: i64) -> DbResult<Value> {
    Ok(match t {
        Value::Time(x) => clamped_time(x.micros.saturating_add(d)),
        Value::DateTime(x) => shifted(x, d),
        Value::Date(_) => return Err(refused()),
        other => {
            let Some(s) = text_of(other) else {
                return Ok(Value::Null);
            };
            let s = s.trim();
            let dated = s.trim_start_matches('-').contains('-');
            match (dated, Time::parse(s), DateTime::parse(s)) {
                (false, Some(x), _) => clamped_time(x.micros.saturating_add(d)),
                (true, _, Some(x)) if s.contains(' ') || s.contains('T') => shifted(&x, d),
                (true, _, Some(_)) => return Err(refused()),
                _ => Value::Null,
            }
        }
    })
}

/// `x` moved by `d` microseconds; NULL outside years 0..=9999.
fn shifted(x: &DateTime, d: i64) -> Value {
    let at = i128::from(day_number(x.date)) * i128::from(MICROS_PER_DAY)
        + i128::from(x.micros)
        + i128::from(d);
    let day = at.div_euclid(i128::from(MICROS_PER_DAY));
    let micros = at.rem_euclid(i128::from(MICROS_PER_DAY)) as u64;
    if day < 0 || day > i128::from(day_number(last_day())) {
        return Value::Null;
    }
    Value::DateTime(DateTime {
        date: from_day_number(day as i64),
        micros,
    })
}

fn last_day() -> crate::types::temporal::Date {
    crate::types::temporal::Date {
        year: 9999,
        month: 12,
        day: 31,
    }
}

/// A TIME clamped to ±838:59:59.
fn clamped_time(us: i64) -> Value {
    Time::from_micros(us.clamp(-TIME_MAX_MICROS, TIME_MAX_MICROS))
        .map(Value::Time)
        .unwrap_or(Value::Null)
}

fn refused() -> DbError {
    DbError::unsupported("ADDTIME of a date without a time")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;

    fn shown(v: Value) -> String {
        match v {
            Value::Time(t) => t.format(if t.micros % 1_000_000 == 0 { 0 } else { 6 }),
            Value::DateTime(d) => d.format(0),
            Value::Null => "NULL".into(),
            other => format!("{other:?}"),
        }
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn addtime_moves_datetimes_and_times() {
        let f = |n: &str, a: &str, b: &str| shown(call(n, &[t(a), t(b)]).unwrap());
        assert_eq!(
            f("ADDTIME", "2020-01-01 10:00:00", "01:30:00"),
            "2020-01-01 11:30:00"
        );
        assert_eq!(
            f("ADDTIME", "2020-01-01 23:00:00", "2 01:00:00"),
            "2020-01-04 00:00:00"
        );
        assert_eq!(f("ADDTIME", "10:00:00", "-11:00:00"), "-01:00:00");
        assert_eq!(f("ADDTIME", "838:00:00", "1:00:00"), "838:59:59");
        assert_eq!(f("ADDTIME", "10:00:00", "2020-01-01 01:00:00"), "NULL");
        assert_eq!(
            f("SUBTIME", "2020-01-01 00:00:00", "00:00:01"),
            "2019-12-31 23:59:59"
        );
        assert_eq!(
            call("ADDTIME", &[t("2020-01-01"), t("01:00")])
                .unwrap_err()
                .code,
            ErrorCode::NotSupportedYet
        );
    }

    #[test]
    fn maketime_builds_a_time_or_null() {
        let m = |h: i64, mi: i64, s: Value| shown(maketime(&Value::Int(h), &Value::Int(mi), &s));
        assert_eq!(m(10, 30, Value::Int(15)), "10:30:15");
        assert_eq!(m(-1, 5, Value::Int(6)), "-01:05:06");
        assert_eq!(m(900, 0, Value::Int(0)), "838:59:59");
        assert_eq!(m(1, 60, Value::Int(0)), "NULL");
        assert_eq!(m(1, 2, Value::Int(60)), "NULL");
        assert_eq!(m(1, -2, Value::Int(3)), "NULL");
        assert_eq!(m(1, 2, t("3.123456789")), "01:02:03.123456");
    }
}
