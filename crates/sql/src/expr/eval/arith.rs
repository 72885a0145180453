//! Arithmetic and bit operators: `+ - * / DIV %`, unary `-` and `~`, `& | ^ << >>`.
//!
//! Invariants (MySQL's): integer operands give BIGINT, UNSIGNED when either is, with overflow an
//! error (1690); exact operands (integers, DECIMAL) give DECIMAL, `/` with 4 more digits of scale
//! (`div_precision_increment`); a DOUBLE or string operand gives DOUBLE, and a result that is not
//! finite is NULL. Division or modulo by zero is NULL, or its warning or error (div_zero.rs). Bit operators work on 64-bit unsigned
//! values; shifts of 64 or more give 0.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{BinOp, UnOp};
use crate::types::decimal::{pow10, Decimal};
use crate::types::value::Value;

pub fn negate_literal(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => Value::Decimal(Decimal::new(-(*i as i128), 0)?),
        },
        Value::UInt(u) if *u == 1u64 << 63 => Value::Int(i64::MIN),
        Value::UInt(u) => Value::Decimal(Decimal::new(-(*u as i128), 0)?),
        Value::Decimal(d) => Value::Decimal(d.neg()),
        Value::Double(d) => Value::Double(-d),
        _ => return None,
    })
}

fn out_of_range(what: &str) -> DbError {
    DbError::new(
        ErrorCode::DataOutOfRange,
        format!("BIGINT value is out of range in '{what}'"),
    )
}

/// The overflow error of operator `op` (its name is formatted only then).
fn op_out_of_range(op: BinOp) -> DbError {
    out_of_range(&format!("{op:?}"))
}

enum Num {
    I(i128),
    D(Decimal),
    F(f64),
}

fn num(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Num::I(*i as i128),
        Value::UInt(u) => Num::I(*u as i128),
        Value::Decimal(d) => Num::D(*d),
        Value::Text(_) | Value::Bytes(_) | Value::Float(_) | Value::Double(_) => {
            Num::F(v.to_f64_lenient()?)
        }
        Value::Date(d) => Num::I(d.as_number() as i128),
        other => Num::F(other.to_f64_lenient()?),
    })
}

fn is_zero(n: &Num) -> bool {
    match n {
        Num::I(i) => *i == 0,
        Num::D(d) => d.is_zero(),
        Num::F(f) => *f == 0.0,
    }
}

fn dec_of(n: &Num) -> Option<Decimal> {
    match n {
        Num::I(i) => Decimal::new(*i, 0),
        Num::D(d) => Some(*d),
        Num::F(_) => None,
    }
}

fn f_of(n: &Num) -> f64 {
    match n {
        Num::I(i) => *i as f64,
        Num::D(d) => d.to_f64(),
        Num::F(f) => *f,
    }
}

fn int_result(v: i128, what: BinOp, unsigned: bool) -> DbResult<Value> {
    if unsigned {
        if (0..=u64::MAX as i128).contains(&v) {
            return Ok(Value::UInt(v as u64));
        }
        return Err(op_out_of_range(what));
    }
    i64::try_from(v)
        .map(Value::Int)
        .map_err(|_| op_out_of_range(what))
}

fn dec_align(a: Decimal, b: Decimal) -> Option<(i128, i128, u8)> {
    let s = a.scale().max(b.scale());
    let am = a
        .small_mantissa()?
        .checked_mul(pow10((s - a.scale()) as u32))?;
    let bm = b
        .small_mantissa()?
        .checked_mul(pow10((s - b.scale()) as u32))?;
    Some((am, bm, s))
}

pub(super) fn double(v: f64) -> Value {
    if v.is_finite() {
        Value::Double(v)
    } else {
        Value::Null
    }
}

/// `a op b` for the arithmetic operators (+ - * / DIV %).
pub fn arith(op: BinOp, a: &Value, b: &Value) -> DbResult<Value> {
    let (Some(x), Some(y)) = (num(a), num(b)) else {
        return Ok(Value::Null);
    };
    if matches!(op, BinOp::Div | BinOp::IntDiv | BinOp::Mod) && is_zero(&y) {
        return super::div_zero::divided_by_zero();
    }
    let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
    if let (Num::I(i), Num::I(j)) = (&x, &y) {
        return int_arith(op, *i, *j, unsigned);
    }
    if let (Some(da), Some(db)) = (dec_of(&x), dec_of(&y)) {
        if let Some(v) = dec_arith(op, da, db) {
            return Ok(v);
        }
    }
    float_arith(op, f_of(&x), f_of(&y))
}

fn int_arith(op: BinOp, i: i128, j: i128, unsigned: bool) -> DbResult<Value> {
    match op {
        BinOp::Add => int_result(i + j, op, unsigned),
        BinOp::Sub => int_result(i - j, op, unsigned),
        BinOp::Mul => int_result(i * j, op, unsigned),
        BinOp::IntDiv => {
            if j == 0 {
                Ok(Value::Null)
            } else {
                int_result(i / j, op, false)
            }
        }
        BinOp::Mod => {
            if j == 0 {
                Ok(Value::Null)
            } else {
                int_result(i % j, op, false)
            }
        }
        BinOp::Div => {
            if j == 0 {
                return Ok(Value::Null);
            }
            let m = i.checked_mul(10_000).ok_or_else(|| op_out_of_range(op))?;
            Ok(Decimal::new(div_round(m, j), 4)
                .map(Value::Decimal)
                .unwrap_or(Value::Double(i as f64 / j as f64)))
        }
        _ => Ok(Value::Null),
    }
}

/// DECIMAL arithmetic; `None` when the result does not fit (the caller computes in DOUBLE).
fn dec_arith(op: BinOp, da: Decimal, db: Decimal) -> Option<Value> {
    match op {
        BinOp::Add | BinOp::Sub => {
            let (am, bm, s) = dec_align(da, db)?;
            let m = if op == BinOp::Add {
                am.checked_add(bm)?
            } else {
                am.checked_sub(bm)?
            };
            Decimal::new(m, s).map(Value::Decimal)
        }
        BinOp::Mul => {
            let s = da.scale() + db.scale();
            if s > 30 {
                return None;
            }
            let m = da.small_mantissa()?.checked_mul(db.small_mantissa()?)?;
            Decimal::new(m, s).map(Value::Decimal)
        }
        BinOp::Div => {
            if db.is_zero() {
                return Some(Value::Null);
            }
            let s = (da.scale() + 4).min(30);
            // a/b at scale s: a.m * 10^(s - a.s + b.s) / b.m
            let shift = s as u32 + db.scale() as u32 - da.scale() as u32;
            let num = da.small_mantissa()?.checked_mul(pow10(shift))?;
            Decimal::new(div_round(num, db.small_mantissa()?), s).map(Value::Decimal)
        }
        BinOp::Mod => {
            if db.is_zero() {
                return Some(Value::Null);
            }
            let (am, bm, s) = dec_align(da, db)?;
            Decimal::new(am % bm, s).map(Value::Decimal)
        }
        BinOp::IntDiv => {
            if db.is_zero() {
                return Some(Value::Null);
            }
            let (am, bm, _) = dec_align(da, db)?;
            i64::try_from(am / bm).ok().map(Value::Int)
        }
        _ => None,
    }
}

fn float_arith(op: BinOp, f: f64, g: f64) -> DbResult<Value> {
    // A finite result beyond DOUBLE's range is 1690, as MariaDB's (never NULL).
    let finite = |v: f64| {
        if v.is_infinite() && f.is_finite() && g.is_finite() {
            Err(DbError::new(
                ErrorCode::DataOutOfRange,
                format!("DOUBLE value is out of range in '{op:?}'"),
            ))
        } else {
            Ok(double(v))
        }
    };
    Ok(match op {
        BinOp::Add => finite(f + g)?,
        BinOp::Sub => finite(f - g)?,
        BinOp::Mul => finite(f * g)?,
        BinOp::Div => {
            if g == 0.0 {
                Value::Null
            } else {
                finite(f / g)?
            }
        }
        BinOp::Mod => {
            if g == 0.0 {
                Value::Null
            } else {
                double(f % g)
            }
        }
        BinOp::IntDiv => {
            if g == 0.0 {
                Value::Null
            } else {
                let q = (f / g).trunc();
                if q.abs() < 9.2e18 {
                    Value::Int(q as i64)
                } else {
                    return Err(op_out_of_range(op));
                }
            }
        }
        _ => Value::Null,
    })
}

fn div_round(n: i128, d: i128) -> i128 {
    let q = n / d;
    let r = n % d;
    if r.abs() * 2 >= d.abs() {
        if (n < 0) != (d < 0) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

fn as_u64_bits(v: &Value) -> Option<u64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as u64),
        Value::UInt(u) => Some(*u),
        other => other.to_f64_lenient().map(|f| f.round() as i64 as u64),
    }
}

/// Unary `-` and `~` of an evaluated operand (NOT is logic.rs's).
pub(super) fn unary(op: UnOp, v: &Value) -> DbResult<Value> {
    Ok(match op {
        UnOp::Not => super::logic::not(v),
        UnOp::Neg => match v {
            Value::Null => Value::Null,
            Value::Int(i) => match i.checked_neg() {
                Some(n) => Value::Int(n),
                None => return Err(out_of_range("-")),
            },
            other => match negate_literal(other) {
                Some(n) => n,
                None => double(-other.to_f64_lenient().unwrap_or(0.0)),
            },
        },
        UnOp::BitNot => match as_u64_bits(v) {
            Some(u) => Value::UInt(!u),
            None => Value::Null,
        },
    })
}

/// `& | ^ << >>` over 64-bit unsigned values.
pub(super) fn bits(op: BinOp, x: &Value, y: &Value) -> Value {
    match (as_u64_bits(x), as_u64_bits(y)) {
        (Some(x), Some(y)) => Value::UInt(match op {
            BinOp::BitAnd => x & y,
            BinOp::BitOr => x | y,
            BinOp::BitXor => x ^ y,
            BinOp::Shl => x.checked_shl(y.min(64) as u32).unwrap_or(0),
            _ => x.checked_shr(y.min(64) as u32).unwrap_or(0),
        }),
        _ => Value::Null,
    }
}
