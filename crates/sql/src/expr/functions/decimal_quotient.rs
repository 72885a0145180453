//! The two internal functions of a DECIMAL division inside a longer arithmetic expression
//! (`1/3*3`), which MariaDB computes with more digits than it shows (compile/division.rs writes
//! them):
//!
//! * `__DIV_PRECISE(a, b)`: `a / b` as MariaDB's `decimal_div` computes it: with `s1`, `s2` the
//!   operands' scales rounded up to whole 9-digit words as `f1`, `f2`, the quotient has
//!   `ROUND_UP9(f1 + f2 + max(0, 4 - (f1 - s1) - (f2 - s2)))` decimals, the digits past them
//!   cut off (`1/3` is `0.333333333`, `1.00/3` too, `1/(1/3)` is `3.000000003000000003`).
//! * `__DEC_ROUND(x, n)`: `x` rounded half away from zero to the `n` decimals the expression
//!   shows (`0.999999999` to 4 is `1.0000`).
//!
//! Invariants: operands that are not exact (DOUBLE, strings) divide as `/` does; a quotient that
//! does not fit Betula's 38-digit arithmetic is `/`'s (the dividend's scale plus 4, rounded);
//! `__DEC_ROUND` leaves values other than DECIMAL and DOUBLE as they are, and rounds a DOUBLE
//! (an inner product that left the 38 digits) through its shortest decimal form.

use crate::error::db_error::DbResult;
use crate::expr::eval::arith;
use crate::expr::BinOp;
use crate::types::decimal::{pow10, Decimal};
use crate::types::value::Value;

/// The name of the precise division.
pub const DIV_PRECISE: &str = "__DIV_PRECISE";
/// The name of the rounding to the shown decimals.
pub const DEC_ROUND: &str = "__DEC_ROUND";

/// Digits in one of MariaDB's decimal words (`DIG_PER_DEC1`).
const WORD_DIGITS: u32 = 9;

/// `__DIV_PRECISE(a, b)`.
pub(super) fn divide(a: &Value, b: &Value) -> DbResult<Value> {
    match (exact(a), exact(b)) {
        (Some(_), Some(y)) if y.is_zero() => crate::expr::eval::div_zero::divided_by_zero(),
        (Some(x), Some(y)) => match quotient(x, y) {
            Some(q) => Ok(Value::Decimal(q)),
            None => arith(BinOp::Div, a, b),
        },
        _ => arith(BinOp::Div, a, b),
    }
}

fn exact(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::from_i64(*i)),
        Value::UInt(u) => Some(Decimal::from_u64(*u)),
        Value::Decimal(d) => Some(*d),
        _ => None,
    }
}

fn words_up(digits: u32) -> u32 {
    digits.div_ceil(WORD_DIGITS) * WORD_DIGITS
}

/// `x / y` (y not zero) with MariaDB's inner decimals, cut; `None` past 38 digits.
fn quotient(x: Decimal, y: Decimal) -> Option<Decimal> {
    let (s1, s2) = (u32::from(x.scale()), u32::from(y.scale()));
    let (f1, f2) = (words_up(s1), words_up(s2));
    let increment = 4u32.saturating_sub((f1 - s1) + (f2 - s2));
    let frac = words_up(f1 + f2 + increment);
    let shift = frac + s2 - s1;
    if shift > 38 {
        return None;
    }
    let num = x.small_mantissa()?.checked_mul(pow10(shift))?;
    Decimal::new(num / y.small_mantissa()?, u8::try_from(frac).ok()?)
}

/// `__DEC_ROUND(x, n)`.
pub(super) fn round(x: &Value, n: &Value) -> Value {
    let Value::Int(n) = n else {
        return x.clone();
    };
    let Ok(n) = u8::try_from(*n) else {
        return x.clone();
    };
    let d = match x {
        Value::Decimal(d) => *d,
        Value::Double(f) => match Decimal::from_f64(*f) {
            Some(d) => d,
            None => return x.clone(),
        },
        other => return other.clone(),
    };
    match d.rescale(n) {
        Some((r, _)) => Value::Decimal(r),
        None => x.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).unwrap())
    }

    fn shown(v: Value) -> String {
        match v {
            Value::Decimal(d) => d.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn quotients_carry_mariadb_inner_digits() {
        let q = |a: Value, b: Value| shown(divide(&a, &b).unwrap());
        assert_eq!(q(Value::Int(1), Value::Int(3)), "0.333333333");
        assert_eq!(q(dec("1.00"), Value::Int(3)), "0.333333333");
        assert_eq!(q(Value::Int(1), dec("0.333333333")), "3.000000003000000003");
        assert_eq!(
            q(dec("1.0000000001"), Value::Int(3)),
            "0.333333333366666666"
        );
        assert_eq!(q(Value::Int(2), Value::Int(0)), "Null");
    }

    #[test]
    fn rounding_shows_the_expression_decimals() {
        let r = |x: Value, n: i64| shown(round(&x, &Value::Int(n)));
        assert_eq!(r(dec("0.999999999"), 4), "1.0000");
        assert_eq!(r(dec("0.11111111088888889"), 8), "0.11111111");
        assert_eq!(r(Value::Double(0.5), 2), "0.50");
    }
}
