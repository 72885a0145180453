//! CAST and the value conversions evaluation shares: [`cast`] (CAST / CONVERT targets),
//! [`text_of`] (a value's text, as CONCAT and text comparisons see it), [`to_datetime`] (a value
//! as DATETIME, as the date functions read their arguments).
//!
//! Also [`member_number`]: an ENUM or SET value as the number MariaDB reads in numeric context.
//!
//! Invariants: a value that does not convert is NULL, never an error or a panic; a string cast to
//! a number reads as cast_text.rs says (an integer from its integer prefix, a DOUBLE saturated,
//! one without a leading number 0, as MariaDB's); a DECIMAL that does not fit DECIMAL(M,D) becomes its largest
//! (or smallest) value, as MariaDB's.

use super::arith::double;
use super::cast_text::{self, Diag};
use crate::error::code::ErrorCode;
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::{CastTo, ZoneShift};
use crate::types::decimal::Decimal;
use crate::types::member_codes::member_code;
use crate::types::temporal::{DateTime, Time, MICROS_PER_SEC};
use crate::types::time_zone::TimeZone;
use crate::types::value::Value;
use crate::types::SqlType;

pub fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.clone()),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => other
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
    }
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Bytes(b) => Some(b.clone()),
        Value::Text(s) => Some(s.clone().into_bytes()),
        other => other.to_text(None),
    }
}

pub fn to_datetime(v: &Value) -> Option<DateTime> {
    match v {
        Value::DateTime(d) => Some(*d),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::Time(t) => crate::types::time_on_date::time_as_datetime(*t),
        Value::Text(s) => DateTime::parse(s.trim()),
        Value::Bytes(b) => DateTime::parse(std::str::from_utf8(b).ok()?.trim()),
        // A number is read as its digits (YYYYMMDDhhmmss.ffffff), a DOUBLE too, as in MariaDB.
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            DateTime::parse(&text_of(v)?)
        }
        _ => None,
    }
}

pub fn cast(v: &Value, to: CastTo) -> Value {
    cast_into(v, to, &mut Diag::default())
}

/// CAST(v AS to) as the CAST expression evaluates it: [`cast`], and MariaDB's warnings for a
/// string that does not read as the number or time it is cast to (the statement's pending
/// warnings, error/pending.rs).
pub fn cast_reporting(v: &Value, to: CastTo) -> Value {
    let mut diag = Diag::default();
    let out = cast_into(v, to, &mut diag);
    if out.is_null() && !v.is_null() {
        if let Some(kind) = temporal_kind(to) {
            diag.0.push(Warning {
                level: WarningLevel::Warning,
                code: ErrorCode::TruncatedWrongValue,
                message: format!(
                    "Incorrect {kind} value: '{}'",
                    text_of(v).unwrap_or_default()
                ),
            });
        }
    }
    for w in diag.0 {
        crate::error::pending::push(w);
    }
    out
}

/// The name MariaDB's 1292 gives a temporal CAST target.
fn temporal_kind(to: CastTo) -> Option<&'static str> {
    match to {
        CastTo::Date | CastTo::DateTime(_) => Some("datetime"),
        CastTo::Time(_) => Some("time"),
        _ => None,
    }
}

fn cast_into(v: &Value, to: CastTo, diag: &mut Diag) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match to {
        CastTo::Signed | CastTo::Unsigned => {
            let unsigned = to == CastTo::Unsigned;
            match v {
                Value::Text(s) => cast_text::integer(s.as_bytes(), unsigned, diag),
                Value::Bytes(b) => cast_text::integer(b, unsigned, diag),
                other => cast_text::number_to_integer(other, unsigned, diag),
            }
        }
        CastTo::Char(n) => match (text_of(v), n) {
            (Some(s), Some(n)) => Value::Text(s.chars().take(n as usize).collect()),
            (Some(s), None) => Value::Text(s),
            (None, _) => Value::Null,
        },
        CastTo::Binary(n) => match (bytes_of(v), n) {
            (Some(mut b), Some(n)) => {
                b.resize(n as usize, 0);
                Value::Bytes(b)
            }
            (Some(b), None) => Value::Bytes(b),
            (None, _) => Value::Null,
        },
        CastTo::Double => match v {
            Value::Text(s) => double(cast_text::double(s.as_bytes(), diag)),
            Value::Bytes(b) => double(cast_text::double(b, diag)),
            _ => v.to_f64_lenient().map(double).unwrap_or(Value::Null),
        },
        CastTo::Decimal(p, s) => {
            let d = match v {
                Value::Decimal(d) => Some(*d),
                Value::Int(i) => Some(Decimal::from_i64(*i)),
                Value::UInt(u) => Some(Decimal::from_u64(*u)),
                // A string's numeric prefix; one without digits is 0, as MariaDB reads it.
                Value::Text(t) => Some(cast_text::decimal(t.as_bytes(), diag)),
                Value::Bytes(b) => Some(cast_text::decimal(b, diag)),
                other => other.to_f64_lenient().and_then(Decimal::from_f64),
            };
            match d.and_then(|d| d.rescale(s)) {
                Some((d, _)) if d.fits(p, s) => Value::Decimal(d),
                Some((d, _)) => Value::Decimal(if d.is_negative() {
                    Decimal::max_for(p, s).neg()
                } else {
                    Decimal::max_for(p, s)
                }),
                None => Value::Null,
            }
        }
        CastTo::Date | CastTo::DateTime(_) | CastTo::Time(_) => {
            let out = temporal(v, to);
            if !out.is_null() || !matches!(v, Value::Text(_) | Value::Bytes(_)) {
                return out;
            }
            // A string with something after its date or time: the value read so far (1292).
            let text = text_of(v).unwrap_or_default();
            let Some(head) = cast_text::temporal_prefix(&text) else {
                return out;
            };
            let out = temporal(&Value::Text(head.to_string()), to);
            if !out.is_null() {
                diag.truncated_temporal(temporal_name(to), &text);
            }
            out
        }
    }
}

/// The name MariaDB's truncation warning gives a temporal CAST target.
fn temporal_name(to: CastTo) -> &'static str {
    match to {
        CastTo::Date => "date",
        CastTo::Time(_) => "time",
        _ => "datetime",
    }
}

/// CAST of `v` to DATE, DATETIME or TIME (NULL when it does not read as one).
fn temporal(v: &Value, to: CastTo) -> Value {
    match to {
        CastTo::Date => to_datetime(v)
            .map(|d| Value::Date(d.date))
            .unwrap_or(Value::Null),
        CastTo::DateTime(fsp) => to_datetime(v)
            .map(|d| d.to_fsp(fsp))
            .map(Value::DateTime)
            .unwrap_or(Value::Null),
        CastTo::Time(fsp) => match time_value(v) {
            Value::Time(t) => Value::Time(t.to_fsp(fsp)),
            other => other,
        },
        _ => Value::Null,
    }
}

/// `v` read as a TIME (NULL when it does not read as one).
fn time_value(v: &Value) -> Value {
    match v {
        Value::Time(t) => Value::Time(*t),
        Value::DateTime(d) => Time::from_micros(d.micros as i64)
            .map(Value::Time)
            .unwrap_or(Value::Null),
        other => text_of(other)
            .and_then(|s| {
                // a datetime string casts to its time of day (as in MySQL)
                Time::parse(s.trim()).or_else(|| {
                    DateTime::parse(s.trim()).and_then(|d| Time::from_micros(d.micros as i64))
                })
            })
            .map(Value::Time)
            .unwrap_or(Value::Null),
    }
}

pub fn micros_per_sec() -> u64 {
    MICROS_PER_SEC
}

/// The member number of ENUM value `v` (bitmask of SET value `v`) of a column of type `ty` with
/// `members`, as a DOUBLE: MariaDB computes with a string-typed column as DOUBLE (`k / 2` is 1
/// for the second member, AVG(k) has no decimals). A value that is not one of the column's (or
/// not text) is returned as it is.
pub(super) fn member_number(v: Value, ty: SqlType, members: &[String]) -> Value {
    let Value::Text(s) = &v else {
        return v;
    };
    match member_code(ty, members, s) {
        Some(n) => Value::Double(n as f64),
        None => v,
    }
}

/// [`Expr::InZone`](crate::expr::Expr::InZone): a date and time moved between UTC and `tz`;
/// anything that is not one passes unchanged (a key bound then widens the range).
pub(super) fn in_zone(v: Value, tz: TimeZone, shift: ZoneShift) -> Value {
    if tz.is_utc() {
        return v;
    }
    let Some(dt) = to_datetime(&v) else {
        return v;
    };
    Value::DateTime(match shift {
        ZoneShift::ToLocal => tz.utc_to_local(dt),
        ZoneShift::ToUtc => tz.local_to_utc(dt),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cast_to_decimal_by_their_leading_number() {
        let dec = |s: &str, p, sc| match cast(&Value::Text(s.into()), CastTo::Decimal(p, sc)) {
            Value::Decimal(d) => d.to_string(),
            other => format!("{other:?}"),
        };
        assert_eq!(dec("abc", 10, 0), "0");
        assert_eq!(dec("", 4, 1), "0.0");
        assert_eq!(dec("12abc", 5, 2), "12.00");
        assert_eq!(dec(" 1e2x", 6, 1), "100.0");
        assert_eq!(dec("-7.25 apples", 6, 2), "-7.25");
        let b = cast(&Value::Bytes(b"x".to_vec()), CastTo::Decimal(3, 0));
        assert!(matches!(b, Value::Decimal(d) if d.to_string() == "0"));
        assert_eq!(cast(&Value::Null, CastTo::Decimal(3, 0)), Value::Null);
    }
}
