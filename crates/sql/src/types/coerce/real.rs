//! Coercion of a value to a FLOAT / DOUBLE column, including FLOAT(M,D) / DOUBLE(M,D) and
//! UNSIGNED, as MariaDB stores them (`Field_real::truncate_double`).
//!
//! Owns: [`to_real`]. Rules (errno in brackets; strict mode: error, non-strict: fallback + warning):
//! * strings are read by their numeric prefix; not a number or trailing garbage [1265] → the prefix
//!   value (0);
//! * NaN [1264] → 0; UNSIGNED and negative [1264] → 0;
//! * with (M,D): the fraction is rounded to D decimals (`floor(x) + rint(frac × 10^D) / 10^D`, so
//!   ties go to even) and the magnitude is limited to `10^(M-D) − 10^-D` [1264] → clamped;
//! * beyond the type's range (FLOAT ±3.402823466e38) [1264] → clamped;
//! * negative zero → 0.

use crate::error::sql_error::SqlError;
use crate::types::coerce::Ctx;
use crate::types::value::{str_to_f64_prefix, Value};

/// `10^n` as the nearest double (as a decimal literal `1eN` reads), `inf` beyond the range.
pub fn pow10_f64(n: u32) -> f64 {
    format!("1e{n}").parse().unwrap_or(f64::INFINITY)
}

/// The largest magnitude FLOAT(M,D)/DOUBLE(M,D) stores: `10^(M-D) − 10^-D`.
pub fn max_for_digits(m: u8, d: u8) -> f64 {
    pow10_f64(m.saturating_sub(d) as u32) - 1.0 / pow10_f64(d as u32)
}

/// `x` with its fraction rounded to `d` decimals as MariaDB does (half to even on the scaled
/// fraction); infinities stay.
pub fn round_to_decimals(x: f64, d: u8) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let scale = pow10_f64(d as u32);
    let fl = x.floor();
    fl + ((x - fl) * scale).round_ties_even() / scale
}

/// The double a FLOAT (`float = true`) or DOUBLE column of `digits` (M,D) and `unsigned` stores
/// for `v` (the caller narrows FLOAT to f32).
pub(crate) fn to_real(
    cx: &mut Ctx<'_>,
    v: &Value,
    float: bool,
    digits: Option<(u8, u8)>,
    unsigned: bool,
) -> Result<f64, SqlError> {
    let f = match v {
        Value::Text(_) | Value::Bytes(_) => {
            let (f, whole) = str_to_f64_prefix(v.str_bytes().unwrap_or_default());
            if !whole {
                let err = cx.truncated();
                cx.fail_or(err, ())?;
            }
            f
        }
        _ => v.to_f64_lenient().unwrap_or(0.0),
    };
    if f.is_nan() {
        let err = cx.out_of_range();
        return cx.fail_or(err, 0.0);
    }
    if unsigned && f < 0.0 {
        let err = cx.out_of_range();
        return cx.fail_or(err, 0.0);
    }
    let mut limit = if float { f32::MAX as f64 } else { f64::MAX };
    let mut f = f;
    if let Some((m, d)) = digits {
        limit = limit.min(max_for_digits(m, d));
        f = round_to_decimals(f, d);
    }
    if f.abs() > limit {
        let err = cx.out_of_range();
        return cx.fail_or(err, limit.copysign(f));
    }
    // Negative zero is stored as 0, as MariaDB stores it (before FLOAT narrows the value, so a
    // FLOAT underflow keeps its sign there too).
    Ok(if f == 0.0 { 0.0 } else { f })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;
    use crate::types::coerce::coerce_to_column;
    use crate::types::coerce::SqlMode;
    use crate::types::Column;
    use crate::types::SqlType;

    fn store(ty: SqlType, v: Value) -> (Value, Vec<ErrorCode>) {
        let col = Column::new(1, "c", ty);
        let mut w = Vec::new();
        let out = coerce_to_column(&v, &col, 1, SqlMode::utc(false), &mut w).unwrap();
        (out, w.iter().map(|w| w.code).collect())
    }

    fn fixed(float: bool, m: u8, d: u8, unsigned: bool) -> SqlType {
        let digits = Some((m, d));
        if float {
            SqlType::Float { digits, unsigned }
        } else {
            SqlType::Double { digits, unsigned }
        }
    }

    #[test]
    fn negative_zero_is_stored_as_zero() {
        let plain = |float| {
            let (digits, unsigned) = (None, false);
            if float {
                SqlType::Float { digits, unsigned }
            } else {
                SqlType::Double { digits, unsigned }
            }
        };
        let positive = |v: Value| match v {
            Value::Double(d) => d == 0.0 && d.is_sign_positive(),
            Value::Float(f) => f == 0.0 && f.is_sign_positive(),
            _ => false,
        };
        for float in [false, true] {
            for v in [Value::Double(-0.0), Value::Text("-0.000".into())] {
                let (out, w) = store(plain(float), v.clone());
                assert!(positive(out.clone()), "{v:?} → {out:?}");
                assert!(w.is_empty());
            }
            let (out, _) = store(fixed(float, 5, 2, false), Value::Double(-0.001));
            assert!(positive(out.clone()), "{out:?}");
        }
        // As in MariaDB, a FLOAT underflow narrowed to f32 keeps its sign.
        let (out, _) = store(plain(true), Value::Double(-1e-50));
        assert!(matches!(out, Value::Float(f) if f == 0.0 && f.is_sign_negative()));
    }

    #[test]
    fn fixed_digits_round_and_clamp_like_mariadb() {
        // REAL(1,1): at most 0.9
        assert_eq!(
            store(fixed(false, 1, 1, false), Value::Double(0.9)),
            (Value::Double(0.9), vec![])
        );
        assert_eq!(
            store(fixed(false, 1, 1, false), Value::Double(1.9)),
            (Value::Double(0.9), vec![ErrorCode::WarnDataOutOfRange])
        );
        assert_eq!(
            store(fixed(false, 1, 1, false), Value::Double(-1.9)),
            (Value::Double(-0.9), vec![ErrorCode::WarnDataOutOfRange])
        );
        // FLOAT(20,3): rounded to 3 decimals, then narrowed to f32
        assert_eq!(
            store(fixed(true, 20, 3, false), Value::Double(56789.987)),
            (Value::Float(56789.987_f64 as f32), vec![])
        );
        // DOUBLE(53,10): 10^43 − 10^-10 is 1e43 as a double
        assert_eq!(
            store(fixed(false, 53, 10, false), Value::Double(2e43)),
            (Value::Double(1e43), vec![ErrorCode::WarnDataOutOfRange])
        );
        // DOUBLE(10,10): 0.99999999999 rounds to 1.0, which is over 0.9999999999
        let (v, w) = store(fixed(false, 10, 10, false), Value::Double(0.99999999999));
        assert_eq!(
            (v, w),
            (
                Value::Double(0.9999999999),
                vec![ErrorCode::WarnDataOutOfRange]
            )
        );
        assert_eq!(round_to_decimals(2.5, 0), 2.0);
        assert_eq!(round_to_decimals(0.25, 1), 0.2);
    }

    #[test]
    fn unsigned_and_plain_limits() {
        assert_eq!(
            store(
                SqlType::Float {
                    digits: None,
                    unsigned: true
                },
                Value::Int(-5)
            ),
            (Value::Float(0.0), vec![ErrorCode::WarnDataOutOfRange])
        );
        assert_eq!(
            store(SqlType::FLOAT, Value::Double(1e39)),
            (Value::Float(f32::MAX), vec![ErrorCode::WarnDataOutOfRange])
        );
        assert_eq!(
            store(SqlType::DOUBLE, Value::Text("1.5x".into())),
            (Value::Double(1.5), vec![ErrorCode::WarnDataTruncated])
        );
        let col = Column::new(1, "c", fixed(false, 1, 1, false));
        let err = coerce_to_column(
            &Value::Double(5.0),
            &col,
            1,
            SqlMode::default(),
            &mut vec![],
        );
        assert_eq!(err.unwrap_err().code(), ErrorCode::WarnDataOutOfRange);
    }
}
