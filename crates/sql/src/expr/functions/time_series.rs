//! Time-series functions, a Betula extension (docs/mysql-compat.md, "Time-series functions"):
//! `TIME_BUCKET(width, ts [, origin])`, the start of the bucket of `width` that holds `ts`.
//!
//! The width is `INTERVAL n unit` (the compiler turns it into `__TIME_BUCKET_<Unit>(n, ts [, origin])`),
//! text `'n unit'` (`'5 minutes'`, `'1 hour'`; units as INTERVAL's, singular or plural, any case), or a
//! positive integer for integer `ts` (epoch seconds, sequence numbers).
//!
//! Definition (invariants the tests check against a reference computation):
//! * Fixed widths (MICROSECOND to WEEK): buckets are `[origin + k·width, origin + (k+1)·width)` for
//!   every integer `k`; the default origin is 2000-01-03 00:00:00, a Monday at midnight, so days start
//!   at midnight and weeks on Monday.
//! * Calendar widths (MONTH, QUARTER = 3 months, YEAR = 12 months): buckets start at 00:00:00 on the
//!   first day of a month, `n` months apart, counted from the origin's month (default 2000-01-01); an
//!   origin that is not the first of a month at midnight is refused (1210).
//! * Integer: `origin + floor((ts - origin) / width) · width`, origin 0 by default.
//! * The result is a DATETIME (an integer for the integer form); NULL if an argument is NULL, `ts`
//!   is not a date, or the bucket starts outside years 0-9999. A width that is not a positive whole
//!   number of a known unit is refused (1210).

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{text_of, to_datetime};
use crate::types::temporal::{
    day_number, from_day_number, Date, DateTime, MICROS_PER_DAY, MICROS_PER_SEC,
};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["TIME_BUCKET"];

/// A bucket width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    Micros(i64),
    Months(i64),
}

fn refused() -> DbError {
    DbError::new(
        ErrorCode::WrongArguments,
        "Incorrect arguments to TIME_BUCKET",
    )
}

/// The width of `n` units named `unit` (MySQL's INTERVAL unit names, singular or plural, any case).
pub fn width(n: i64, unit: &str) -> DbResult<Width> {
    if n <= 0 {
        return Err(refused());
    }
    let u = unit.to_ascii_uppercase();
    let u = u.strip_suffix('S').unwrap_or(&u);
    let micros: i64 = match u {
        "MICROSECOND" => 1,
        "SECOND" => 1_000_000,
        "MINUTE" => 60_000_000,
        "HOUR" => 3_600_000_000,
        "DAY" => 86_400_000_000,
        "WEEK" => 7 * 86_400_000_000,
        "MONTH" => return Ok(Width::Months(n)),
        "QUARTER" => return n.checked_mul(3).map(Width::Months).ok_or_else(refused),
        "YEAR" => return n.checked_mul(12).map(Width::Months).ok_or_else(refused),
        _ => return Err(refused()),
    };
    n.checked_mul(micros).map(Width::Micros).ok_or_else(refused)
}

/// `'n unit'` as a width.
pub fn parse_width(text: &str) -> DbResult<Width> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let n: i64 = t[..digits].parse().map_err(|_| refused())?;
    width(n, t[digits..].trim())
}

/// A positive whole amount (an INTERVAL's `n`).
fn amount(v: &Value) -> DbResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::UInt(u) => i64::try_from(*u).map_err(|_| refused()),
        Value::Decimal(d) if d.scale() == 0 || d.truncate_to(0) == *d => {
            i64::try_from(d.round_to_i128()).map_err(|_| refused())
        }
        other => text_of(other)
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(refused),
    }
}

/// TIME_BUCKET with a text or integer width.
pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    super::need(name, a, 2, 3)?;
    match &a[0] {
        Value::Int(_) | Value::UInt(_) => integer_bucket(a),
        w => {
            let w = parse_width(&text_of(w).ok_or_else(refused)?)?;
            bucket(w, &a[1], a.get(2))
        }
    }
}

/// `__TIME_BUCKET_<unit>(n, ts [, origin])`: TIME_BUCKET(INTERVAL n unit, ts [, origin]).
pub fn interval_call(unit: &str, a: &[Value]) -> DbResult<Value> {
    if a.len() < 2 || a.len() > 3 {
        return Err(DbError::wrong_args("TIME_BUCKET"));
    }
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    bucket(width(amount(&a[0])?, unit)?, &a[1], a.get(2))
}

fn integer_bucket(a: &[Value]) -> DbResult<Value> {
    let int = |v: &Value| match v {
        Value::Int(i) => Ok(i128::from(*i)),
        Value::UInt(u) => Ok(i128::from(*u)),
        _ => Err(refused()),
    };
    let w = int(&a[0])?;
    if w <= 0 {
        return Err(refused());
    }
    let ts = int(&a[1])?;
    let origin = a.get(2).map(int).transpose()?.unwrap_or(0);
    let start = origin + (ts - origin).div_euclid(w) * w;
    Ok(match i64::try_from(start) {
        Ok(i) => Value::Int(i),
        Err(_) => u64::try_from(start).map(Value::UInt).unwrap_or(Value::Null),
    })
}

/// Microseconds from 0000-01-01 (day number 0's start) to `d`.
fn micros_of(d: &DateTime) -> i64 {
    day_number(d.date) * MICROS_PER_DAY as i64 + d.micros as i64
}

/// The DATETIME `m` microseconds after day number 0's start, if within years 0-9999.
fn datetime_of(m: i64) -> Option<DateTime> {
    let day = m.div_euclid(MICROS_PER_DAY as i64);
    let date = from_day_number(day);
    if date.is_zero() || day_number(date) != day || date.year > 9999 {
        return None;
    }
    let us = m.rem_euclid(MICROS_PER_DAY as i64) as u64;
    let secs = (us / MICROS_PER_SEC) as u32;
    DateTime::new(
        date,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        (us % MICROS_PER_SEC) as u32,
    )
}

/// The default origins: a Monday at midnight for fixed widths, a year's start for calendar ones.
fn default_origin(w: Width) -> DateTime {
    let day = match w {
        Width::Micros(_) => 3,
        Width::Months(_) => 1,
    };
    DateTime::from_date(Date::new(2000, 1, day).expect("a valid date"))
}

/// The start of `ts`'s bucket of width `w` from `origin` (NULL for a value that is not a date).
pub fn bucket(w: Width, ts: &Value, origin: Option<&Value>) -> DbResult<Value> {
    let Some(t) = to_datetime(ts).filter(|d| !d.date.is_zero()) else {
        return Ok(Value::Null);
    };
    let o = match origin {
        Some(v) => match to_datetime(v).filter(|d| !d.date.is_zero()) {
            Some(o) => o,
            None => return Err(refused()),
        },
        None => default_origin(w),
    };
    let start = match w {
        Width::Micros(width) => {
            let (t, o) = (micros_of(&t), micros_of(&o));
            datetime_of(o + (t - o).div_euclid(width) * width)
        }
        Width::Months(n) => {
            if o.date.day != 1 || o.micros != 0 {
                return Err(refused());
            }
            let month = |d: &DateTime| i64::from(d.date.year) * 12 + i64::from(d.date.month) - 1;
            let k = month(&o) + (month(&t) - month(&o)).div_euclid(n) * n;
            u32::try_from(k.div_euclid(12))
                .ok()
                .and_then(|y| Date::new(y, k.rem_euclid(12) as u32 + 1, 1))
                .filter(|d| d.year <= 9999)
                .map(DateTime::from_date)
        }
    };
    Ok(start.map(Value::DateTime).unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> Value {
        Value::DateTime(DateTime::parse(s).unwrap())
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn buckets_of_fixed_and_calendar_widths() {
        let b = |w: &str, ts: &str| call("TIME_BUCKET", &[text(w), dt(ts)]).unwrap();
        assert_eq!(
            b("5 minutes", "2024-03-05 10:07:59.5"),
            dt("2024-03-05 10:05:00")
        );
        assert_eq!(
            b("1 HOUR", "2024-03-05 10:07:59"),
            dt("2024-03-05 10:00:00")
        );
        assert_eq!(b("1 day", "2024-03-05 10:07:59"), dt("2024-03-05 00:00:00"));
        // weeks start on Monday: 2024-03-04 is one
        assert_eq!(
            b("1 week", "2024-03-10 23:59:59"),
            dt("2024-03-04 00:00:00")
        );
        assert_eq!(
            b("1 month", "2024-03-31 23:00:00"),
            dt("2024-03-01 00:00:00")
        );
        assert_eq!(
            b("1 quarter", "2024-08-15 00:00:00"),
            dt("2024-07-01 00:00:00")
        );
        assert_eq!(
            b("2 years", "2025-06-01 00:00:00"),
            dt("2024-01-01 00:00:00")
        );
        assert_eq!(
            b("1 second", "1999-12-31 23:59:59.9"),
            dt("1999-12-31 23:59:59")
        );
        let with_origin = call(
            "TIME_BUCKET",
            &[
                text("15 minutes"),
                dt("2024-03-05 10:07:00"),
                dt("2024-01-01 00:05:00"),
            ],
        )
        .unwrap();
        assert_eq!(with_origin, dt("2024-03-05 10:05:00"));
        assert_eq!(
            interval_call("Minute", &[Value::Int(10), dt("2024-03-05 10:07:00")]).unwrap(),
            dt("2024-03-05 10:00:00")
        );
        let zero = Value::DateTime(DateTime::ZERO);
        assert_eq!(
            call("TIME_BUCKET", &[text("1 day"), zero]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("TIME_BUCKET", &[text("1 day"), text("not a date")]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn integer_buckets_floor_towards_minus_infinity() {
        let b = |w: i64, ts: i64, o: Option<i64>| {
            let mut a = vec![Value::Int(w), Value::Int(ts)];
            a.extend(o.map(Value::Int));
            call("TIME_BUCKET", &a).unwrap()
        };
        assert_eq!(b(60, 125, None), Value::Int(120));
        assert_eq!(b(60, -1, None), Value::Int(-60));
        assert_eq!(b(60, 125, Some(10)), Value::Int(70));
    }

    #[test]
    fn bad_widths_and_origins_are_refused() {
        for w in [
            "0 minutes",
            "-5 minutes",
            "5 fortnights",
            "minutes",
            "",
            "1.5 hours",
        ] {
            let e = call("TIME_BUCKET", &[text(w), dt("2024-01-01")]).unwrap_err();
            assert_eq!(e.code, ErrorCode::WrongArguments, "{w}");
        }
        let e = call("TIME_BUCKET", &[Value::Int(0), Value::Int(5)]).unwrap_err();
        assert_eq!(e.code, ErrorCode::WrongArguments);
        let e = call("TIME_BUCKET", &[Value::Int(5), dt("2024-01-01")]).unwrap_err();
        assert_eq!(
            e.code,
            ErrorCode::WrongArguments,
            "integer width, temporal ts"
        );
        let e = call(
            "TIME_BUCKET",
            &[text("1 month"), dt("2024-01-01"), dt("2024-01-02")],
        )
        .unwrap_err();
        assert_eq!(
            e.code,
            ErrorCode::WrongArguments,
            "calendar origin not on the 1st"
        );
    }
}
