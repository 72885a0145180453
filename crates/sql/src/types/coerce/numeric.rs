//! Coercion to numbers: integers (with their range), YEAR, DECIMAL(p,s); strings are read as
//! numbers (rules in mod.rs). FLOAT and DOUBLE: real.rs.

use super::Ctx;
use crate::error::sql_error::SqlError;
use crate::types::decimal::{Decimal, DecimalParseError};
use crate::types::temporal::{YEAR_FIRST, YEAR_LAST};
use crate::types::value::{numeric_prefix_len, str_to_f64_prefix, Value};
use crate::types::IntWidth;

/// Reads a string as a number for integer / decimal targets. `Ok(None)` = not a number (already
/// reported, caller stores 0).
fn parse_numeric_str(
    cx: &mut Ctx<'_>,
    v: &Value,
    s: &[u8],
    kind: &'static str,
) -> Result<Option<NumStr>, SqlError> {
    let n = numeric_prefix_len(s);
    if n == 0 {
        let err = cx.incorrect(kind, v);
        cx.fail_or(err, ())?;
        return Ok(None);
    }
    let prefix = std::str::from_utf8(&s[..n]).unwrap_or("0");
    let parsed = match Decimal::parse_prefix(prefix) {
        Ok((d, _)) => NumStr::Dec(d),
        Err(DecimalParseError::Overflow) => NumStr::Huge(str_to_f64_prefix(prefix.as_bytes()).0),
        Err(DecimalParseError::Invalid) => NumStr::Dec(Decimal::ZERO),
    };
    if !s[n..].iter().all(|b| b.is_ascii_whitespace()) {
        let err = cx.truncated();
        cx.fail_or(err, ())?;
    }
    Ok(Some(parsed))
}

enum NumStr {
    Dec(Decimal),
    /// Beyond 38 digits: only its sign and magnitude matter (out of range for every type).
    Huge(f64),
}

pub(super) fn to_int(
    cx: &mut Ctx<'_>,
    v: &Value,
    width: IntWidth,
    unsigned: bool,
) -> Result<Value, SqlError> {
    let n: i128 = match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Decimal(d) => d.round_to_i128(),
        Value::Float(f) => round_double(*f as f64),
        Value::Double(d) => round_double(*d),
        Value::Text(_) | Value::Bytes(_) => {
            let s = v.str_bytes().unwrap_or_default();
            match parse_numeric_str(cx, v, s, "integer")? {
                None => 0,
                Some(NumStr::Dec(d)) => d.round_to_i128(),
                Some(NumStr::Huge(f)) => round_double(f),
            }
        }
        Value::Date(d) => d.as_number() as i128,
        Value::DateTime(dt) => dt.as_number().round() as i128,
        Value::Time(t) => t.as_number().round() as i128,
        Value::Null => 0,
    };
    let (min, max) = if unsigned {
        (0, width.unsigned_max() as i128)
    } else {
        let (a, b) = width.signed_range();
        (a as i128, b as i128)
    };
    let n = if n < min || n > max {
        let err = cx.out_of_range();
        cx.fail_or(err, n.clamp(min, max))?
    } else {
        n
    };
    Ok(if unsigned {
        Value::UInt(n as u64)
    } else {
        Value::Int(n as i64)
    })
}

/// MySQL's double → integer: round half to even; NaN → 0; infinities saturate (then range-checked).
fn round_double(f: f64) -> i128 {
    if f.is_nan() {
        0
    } else {
        f.round_ties_even() as i128
    }
}

pub(super) fn to_year(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let (n, from_str_zero) = match v {
        Value::Text(_) | Value::Bytes(_) => {
            let s = v.str_bytes().unwrap_or_default();
            let t = std::str::from_utf8(s).unwrap_or("").trim();
            let short_zero = !t.is_empty() && t.len() < 4 && t.bytes().all(|b| b == b'0');
            let n = match parse_numeric_str(cx, v, s, "integer")? {
                None => 0,
                Some(NumStr::Dec(d)) => d.round_to_i128(),
                Some(NumStr::Huge(f)) => round_double(f),
            };
            (n, short_zero)
        }
        Value::Int(i) => (*i as i128, false),
        Value::UInt(u) => (*u as i128, false),
        Value::Decimal(d) => (d.round_to_i128(), false),
        Value::Float(f) => (round_double(*f as f64), false),
        Value::Double(d) => (round_double(*d), false),
        Value::Date(d) => (d.year as i128, false),
        Value::DateTime(dt) => (dt.date.year as i128, false),
        Value::Time(_) | Value::Null => (0, false),
    };
    let y = match n {
        0 if from_str_zero => 2000,
        0 => 0,
        1..=69 => 2000 + n,
        70..=99 => 1900 + n,
        n if (i128::from(YEAR_FIRST)..=i128::from(YEAR_LAST)).contains(&n) => n,
        _ => {
            let err = cx.out_of_range();
            cx.fail_or(err, 0)?
        }
    };
    Ok(Value::UInt(y as u64))
}

pub(super) fn to_decimal(
    cx: &mut Ctx<'_>,
    v: &Value,
    precision: u8,
    scale: u8,
    unsigned: bool,
) -> Result<Value, SqlError> {
    let max = Decimal::max_for(precision, scale);
    let clamp = |neg: bool| Value::Decimal(if neg { max.neg() } else { max });
    let d = match v {
        Value::Int(i) => Decimal::from_i64(*i),
        Value::UInt(u) => Decimal::from_u64(*u),
        Value::Decimal(d) => *d,
        Value::Float(_) | Value::Double(_) => {
            let f = v.to_f64_lenient().unwrap_or(0.0);
            match Decimal::from_f64(f) {
                Some(d) => d,
                None => {
                    let err = cx.out_of_range();
                    return cx.fail_or(err, clamp(f < 0.0));
                }
            }
        }
        Value::Text(_) | Value::Bytes(_) => {
            match parse_numeric_str(cx, v, v.str_bytes().unwrap_or_default(), "decimal")? {
                None => Decimal::ZERO,
                Some(NumStr::Dec(d)) => d,
                Some(NumStr::Huge(f)) => {
                    let err = cx.out_of_range();
                    return cx.fail_or(err, clamp(f < 0.0));
                }
            }
        }
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            Decimal::from_f64(v.to_f64_lenient().unwrap_or(0.0)).unwrap_or(Decimal::ZERO)
        }
        Value::Null => Decimal::ZERO,
    };
    let neg = d.is_negative();
    if unsigned && neg {
        let err = cx.out_of_range();
        let zero = Decimal::new(0, scale).unwrap_or(Decimal::ZERO);
        return cx.fail_or(err, Value::Decimal(zero));
    }
    match d.rescale(scale) {
        Some((r, _)) if r.abs() > max => {
            let err = cx.out_of_range();
            cx.fail_or(err, clamp(neg))
        }
        Some((r, inexact)) => {
            if inexact {
                let note = cx.truncated();
                cx.note(note);
            }
            Ok(Value::Decimal(r))
        }
        None => {
            let err = cx.out_of_range();
            cx.fail_or(err, clamp(neg))
        }
    }
}
