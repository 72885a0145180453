//! Coercion to DATE, DATETIME, TIMESTAMP and TIME from strings, numbers and other temporal
//! values; rules in mod.rs.

use super::Ctx;
use crate::error::sql_error::SqlError;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time, MICROS_PER_SEC, TIME_MAX_MICROS};
use crate::types::value::Value;

/// Digits of a number read as a date/datetime: padded to 6, 8, 12 or 14 digits; 0 is the zero
/// date.
fn number_as_datetime(n: u64) -> Option<DateTime> {
    if n == 0 {
        return Some(DateTime::ZERO);
    }
    let s = n.to_string();
    let width = match s.len() {
        0..=6 => 6,
        7..=8 => 8,
        9..=12 => 12,
        13..=14 => 14,
        _ => return None,
    };
    DateTime::parse(&format!("{s:0>width$}"))
}

/// Parses any value as a DATETIME (before fsp rounding); `None` if it is not a valid one.
fn parse_datetime_value(v: &Value) -> Option<DateTime> {
    match v {
        Value::Text(s) => DateTime::parse(s),
        Value::Bytes(b) => DateTime::parse(std::str::from_utf8(b).ok()?),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::DateTime(dt) => Some(*dt),
        Value::Int(i) => number_as_datetime(u64::try_from(*i).ok()?),
        Value::UInt(u) => number_as_datetime(*u),
        Value::Decimal(d) => {
            // The integer part cut, not rounded: its fraction is the seconds' fraction.
            let m = d.small_mantissa()?;
            let unit = crate::types::decimal::pow10(d.scale() as u32);
            let int = u64::try_from(m / unit).ok()?;
            let frac = m.unsigned_abs() % unit as u128;
            let mut dt = number_as_datetime(int)?;
            let us = frac as f64 / crate::types::decimal::pow10(d.scale() as u32) as f64 * 1e6;
            if int >= 100_000_000 {
                dt.micros += us as u64;
            }
            Some(dt)
        }
        Value::Double(_) | Value::Float(_) => {
            let d = Decimal::from_f64(v.to_f64_lenient()?)?;
            parse_datetime_value(&Value::Decimal(d))
        }
        Value::Time(_) | Value::Null => None,
    }
}

/// The zero date under NO_ZERO_DATE: error 1292 in strict mode, else warning 1264; accepted
/// silently without the mode.
fn zero_date(cx: &mut Ctx<'_>, kind: &'static str, v: &Value) -> Result<(), SqlError> {
    if !cx.no_zero_date {
        return Ok(());
    }
    let err = cx.bad_temporal(kind, v);
    let warn = cx.out_of_range();
    cx.fail_or_warn(err, warn, ())
}

pub(super) fn to_date(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let Some(dt) = parse_datetime_value(v) else {
        let err = cx.bad_temporal("date", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, Value::Date(Date::ZERO));
    };
    if dt.date.is_zero() {
        zero_date(cx, "date", v)?;
    }
    if dt.micros != 0 {
        let note = cx.truncated();
        cx.note(note);
    }
    Ok(Value::Date(dt.date))
}

/// TIMESTAMP range in microseconds since the epoch.
const TS_MIN: i64 = MICROS_PER_SEC as i64;
const TS_MAX: i64 = 2_147_483_647 * MICROS_PER_SEC as i64 + 999_999;

pub(super) fn to_datetime(
    cx: &mut Ctx<'_>,
    v: &Value,
    fsp: u8,
    timestamp: bool,
) -> Result<Value, SqlError> {
    let zero = Value::DateTime(DateTime::ZERO);
    let Some(dt) = parse_datetime_value(v).map(|d| d.to_fsp(fsp)) else {
        let err = cx.bad_temporal("datetime", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, zero);
    };
    if dt.date.is_zero() {
        zero_date(cx, "datetime", v)?;
        return Ok(zero);
    }
    if timestamp {
        if cx.time_zone.skipped(dt) {
            // MariaDB: an error in strict mode, else the instant the clocks changed.
            let err = cx.bad_temporal("datetime", v);
            let warn = SqlError::InvalidTimestamp {
                column: cx.col.name.clone(),
                row: cx.row,
            };
            cx.fail_or_warn(err, warn, ())?;
        }
        let utc = cx.time_zone.local_to_utc(dt);
        let us = utc.unix_micros().unwrap_or(0);
        if !(TS_MIN..=TS_MAX).contains(&us) {
            let err = cx.bad_temporal("datetime", v);
            let warn = cx.out_of_range();
            return cx.fail_or_warn(err, warn, zero);
        }
        return Ok(Value::DateTime(utc));
    }
    Ok(Value::DateTime(dt))
}

pub(super) fn to_time(cx: &mut Ctx<'_>, v: &Value, fsp: u8) -> Result<Value, SqlError> {
    let parsed = match v {
        Value::Text(s) => Time::parse(s),
        Value::Bytes(b) => std::str::from_utf8(b).ok().and_then(Time::parse),
        Value::Time(t) => Some(*t),
        Value::DateTime(dt) => Some(Time {
            micros: dt.micros as i64,
        }),
        Value::Date(_) => Some(Time { micros: 0 }),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            let d = match v {
                Value::Decimal(d) => Some(*d),
                _ => Decimal::from_f64(v.to_f64_lenient().unwrap_or(0.0)),
            };
            d.and_then(|d| Time::parse(&d.to_string()))
        }
        Value::Null => None,
    };
    let Some(t) = parsed else {
        let err = cx.bad_temporal("time", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, Value::Time(Time { micros: 0 }));
    };
    let t = t.to_fsp(fsp);
    if t.micros.abs() > TIME_MAX_MICROS {
        let err = cx.bad_temporal("time", v);
        let warn = cx.out_of_range();
        return cx.fail_or_warn(
            err,
            warn,
            Value::Time(Time {
                micros: TIME_MAX_MICROS.copysign_i64(t.micros),
            }),
        );
    }
    Ok(Value::Time(t))
}

trait CopySign {
    fn copysign_i64(self, sign: i64) -> i64;
}
impl CopySign for i64 {
    fn copysign_i64(self, sign: i64) -> i64 {
        if sign < 0 {
            -self
        } else {
            self
        }
    }
}
