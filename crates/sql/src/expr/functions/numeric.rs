//! Numeric functions: ABS, SIGN, ROUND, TRUNCATE, FLOOR/CEIL, MOD, POW, SQRT, EXP, LN/LOG,
//! SIN/COS/TAN/COT, ASIN/ACOS/ATAN/ATAN2, DEGREES/RADIANS, PI, BIT_COUNT.
//!
//! Invariants: exact arguments (integers, DECIMAL) give exact results where MariaDB's do (ROUND
//! and TRUNCATE of a DECIMAL stay DECIMAL, MOD is the `%` operator); approximate ones give DOUBLE;
//! a result that is not finite (SQRT(-1), LN(0), overflow) is NULL.

use super::{int, need};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::arith;
use crate::expr::BinOp;
use crate::types::decimal::Decimal;
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &[
    "ABS",
    "ROUND",
    "TRUNCATE",
    "FLOOR",
    "CEIL",
    "CEILING",
    "MOD",
    "SIGN",
    "POW",
    "POWER",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG10",
    "LOG2",
    "PI",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "DEGREES",
    "RADIANS",
    "COT",
    "BIT_COUNT",
];

/// True for the functions of this family: they read their arguments as numbers (an ENUM column
/// gives its member number there) and give a number.
pub fn reads_numbers(name: &str) -> bool {
    NAMES.contains(&name)
}

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    if name == "ATAN" || name == "ATAN2" {
        need(name, a, 1, 2)?;
    }
    Ok(match name {
        // The set bits of the argument's 64 bits (a negative number in two's complement).
        "BIT_COUNT" => {
            need(name, a, 1, 1)?;
            let bits = match &a[0] {
                Value::UInt(u) => *u,
                other => int(other).unwrap_or(0) as u64,
            };
            Value::Int(i64::from(bits.count_ones()))
        }
        "ABS" => match &a[0] {
            Value::Int(i) => match i.checked_abs() {
                Some(v) => Value::Int(v),
                None => {
                    return Err(DbError::new(
                        ErrorCode::DataOutOfRange,
                        format!("BIGINT value is out of range in 'abs({i})'"),
                    ))
                }
            },
            Value::UInt(u) => Value::UInt(*u),
            Value::Decimal(d) => Value::Decimal(d.abs()),
            v => Value::Double(v.to_f64_lenient().unwrap_or(0.0).abs()),
        },
        "SIGN" => Value::Int(match a[0].to_f64_lenient().unwrap_or(0.0) {
            f if f > 0.0 => 1,
            f if f < 0.0 => -1,
            _ => 0,
        }),
        "ROUND" => {
            need(name, a, 1, 2)?;
            round_value(&a[0], a.get(1).and_then(int).unwrap_or(0), false)
        }
        "TRUNCATE" => {
            need(name, a, 2, 2)?;
            round_value(&a[0], int(&a[1]).unwrap_or(0), true)
        }
        "FLOOR" | "CEIL" | "CEILING" => match &a[0] {
            Value::Int(_) | Value::UInt(_) => a[0].clone(),
            Value::Decimal(d) => {
                let f = d.to_f64();
                let r = if name == "FLOOR" { f.floor() } else { f.ceil() };
                Value::Int(r as i64)
            }
            v => {
                let f = v.to_f64_lenient().unwrap_or(0.0);
                Value::Double(if name == "FLOOR" { f.floor() } else { f.ceil() })
            }
        },
        "MOD" => {
            need(name, a, 2, 2)?;
            arith(BinOp::Mod, &a[0], &a[1])?
        }
        "POW" | "POWER" => {
            need(name, a, 2, 2)?;
            let r = a[0]
                .to_f64_lenient()
                .unwrap_or(0.0)
                .powf(a[1].to_f64_lenient().unwrap_or(0.0));
            finite(r)
        }
        "SQRT" | "EXP" | "LN" | "LOG" | "LOG10" | "LOG2" | "SIN" | "COS" => {
            let f = a[0].to_f64_lenient().unwrap_or(0.0);
            finite(match name {
                "SQRT" => f.sqrt(),
                "EXP" => f.exp(),
                "LN" | "LOG" if a.len() == 1 => f.ln(),
                "LOG" => a[1].to_f64_lenient().unwrap_or(0.0).ln() / f.ln(),
                "LOG10" => f.log10(),
                "LOG2" => f.log2(),
                "SIN" => f.sin(),
                _ => f.cos(),
            })
        }
        "ATAN" | "ATAN2" if a.len() == 2 => {
            let y = a[0].to_f64_lenient().unwrap_or(0.0);
            finite(y.atan2(a[1].to_f64_lenient().unwrap_or(0.0)))
        }
        "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "DEGREES" | "RADIANS" => {
            need(name, a, 1, 1)?;
            let f = a[0].to_f64_lenient().unwrap_or(0.0);
            finite(match name {
                "TAN" => f.tan(),
                "ASIN" => f.asin(),
                "ACOS" => f.acos(),
                "ATAN" | "ATAN2" => f.atan(),
                "DEGREES" => f.to_degrees(),
                _ => f.to_radians(),
            })
        }
        "COT" => {
            need(name, a, 1, 1)?;
            let t = a[0].to_f64_lenient().unwrap_or(0.0).tan();
            if t == 0.0 {
                let arg = crate::expr::eval::text_of(&a[0]).unwrap_or_default();
                return Err(DbError::new(
                    ErrorCode::DataOutOfRange,
                    format!("DOUBLE value is out of range in 'cot({arg})'"),
                ));
            }
            finite(1.0 / t)
        }
        "PI" => Value::Double(std::f64::consts::PI),
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

fn finite(r: f64) -> Value {
    if r.is_finite() {
        Value::Double(r)
    } else {
        Value::Null
    }
}

/// ROUND / TRUNCATE of `v` to `d` decimals (negative `d`: to tens, hundreds, ...).
fn round_value(v: &Value, d: i64, truncate: bool) -> Value {
    match v {
        Value::Int(_) | Value::UInt(_) if d >= 0 => v.clone(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            let dec = match v {
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::from_u64(*u),
                Value::Decimal(x) => *x,
                _ => return Value::Null,
            };
            let d = d.clamp(-30, 30);
            if d >= 0 {
                let s = d as u8;
                if truncate {
                    return Value::Decimal(dec.truncate_to(s));
                }
                match dec.rescale(s.min(dec.scale().max(s))) {
                    Some((x, _)) => Value::Decimal(x),
                    None => Value::Null,
                }
            } else {
                let p = 10f64.powi((-d) as i32);
                let f = dec.to_f64() / p;
                let r = if truncate { f.trunc() } else { f.round() } * p;
                Value::Int(r as i64)
            }
        }
        other => match other.to_f64_lenient() {
            Some(f) => {
                let p = 10f64.powi(d.clamp(-300, 300) as i32);
                let x = f * p;
                let r = if truncate {
                    x.trunc()
                } else {
                    round_half_even_away(x)
                };
                Value::Double(r / p)
            }
            None => Value::Null,
        },
    }
}

fn round_half_even_away(x: f64) -> f64 {
    // MySQL rounds DOUBLE with rint (half to even).
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        let t = x.trunc();
        if t % 2.0 == 0.0 {
            t
        } else {
            r
        }
    } else {
        r
    }
}
