//! The MySQL text protocol form of values (what `SELECT` sends in a text result set).
//!
//! Owns: [`format_double`], [`format_float`], [`format_fixed`], [`bit_literal`] and
//! [`Value::to_text`].
//!
//! Rules (MySQL 8, columns without a fixed scale):
//! * DOUBLE: the shortest digit string that reads back as the same double; printed in plain
//!   notation when the decimal exponent `decpt` (position of the point relative to the first digit)
//!   satisfies `-14 <= decpt <= 15`, or the number has more digits than `decpt`; otherwise as
//!   `d.ddde[-]N` with no `+` and no leading zeros in the exponent (`1e15`, `1.5e-20`,
//!   `100000000000000`). MySQL's extra "field width" cut-off is not modelled; it never triggers for
//!   DOUBLE columns in MySQL because their buffer is wider than the longest plain form.
//! * FLOAT: the same layout with the value rounded to 6 significant digits (FLT_DIG), e.g.
//!   `123456789` prints `123457000`, `2.7182817` prints `2.71828`.
//! * FLOAT(M,D) / DOUBLE(M,D): exactly D decimals ([`format_fixed`], MariaDB's `my_fcvt`): the
//!   shortest digits that read back as the double when they have at most D decimals (a FLOAT is
//!   widened to double first, so FLOAT(20,3) 1e17 prints `99999998430674940.000`), else the value
//!   correctly rounded to D decimals.
//! * DECIMAL: exactly the scale of the value (`DECIMAL(5,2)` 1.5 → `1.50`).
//! * DATE `YYYY-MM-DD`; DATETIME/TIMESTAMP `YYYY-MM-DD HH:MM:SS` plus `.` and fsp digits when the
//!   column's fsp > 0; TIME `[-]HH:MM:SS[.f]`; YEAR as 4 digits (`0000` for the zero year).
//! * Strings as their bytes; integers in decimal.

use crate::types::temporal::needed_fsp;
use crate::types::value::Value;
use crate::types::SqlType;

/// Lays out significant `digits` (no leading/trailing zeros except "0") with decimal exponent
/// `decpt` (value = 0.digits × 10^decpt) in MySQL's %g-like style.
fn layout(neg: bool, digits: &str, decpt: i32) -> String {
    let len = digits.len() as i32;
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    if decpt >= -14 && (decpt <= 15 || len > decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(digits);
        } else if decpt < len {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        } else {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (decpt - len) as usize));
        }
    } else {
        out.push_str(&digits[..1]);
        if len > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push_str(&(decpt - 1).to_string());
    }
    out
}

/// Splits Rust's `{:e}` output (`-1.2345e-7`) into (negative, digits, decpt).
fn split_exp(s: &str) -> (bool, String, i32) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (neg, digits, exp.parse::<i32>().unwrap_or(0) + 1)
}

/// MySQL's text form of a DOUBLE (see the module doc). NaN and infinities print as MySQL's
/// conversion error result `0` (they cannot be stored).
pub fn format_double(v: f64) -> String {
    if !v.is_finite() {
        return "0".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let (neg, digits, decpt) = split_exp(&format!("{v:e}"));
    layout(neg, &digits, decpt)
}

/// MySQL's text form of a FLOAT: 6 significant digits.
pub fn format_float(v: f32) -> String {
    if !v.is_finite() || v == 0.0 {
        return "0".into();
    }
    let (neg, digits, decpt) = split_exp(&format!("{:.5e}", v as f64));
    layout(neg, &digits, decpt)
}

/// A FLOAT(M,D) / DOUBLE(M,D) value with exactly `dec` decimals (see the module doc).
pub fn format_fixed(v: f64, dec: u8) -> String {
    let dec = dec as usize;
    if !v.is_finite() || v == 0.0 {
        return if dec == 0 {
            "0".into()
        } else {
            format!("0.{}", "0".repeat(dec))
        };
    }
    let (neg, digits, decpt) = split_exp(&format!("{v:e}"));
    let len = digits.len() as i32;
    if len - decpt > dec as i32 {
        // more digits than decimals: the value correctly rounded (Rust formats the exact binary
        // value); a result of zero loses its sign
        let s = format!("{v:.dec$}");
        return match s.strip_prefix('-') {
            Some(r) if r.bytes().all(|b| b == b'0' || b == b'.') => r.to_string(),
            _ => s,
        };
    }
    let mut out = String::with_capacity(digits.len() + dec + 4);
    if neg {
        out.push('-');
    }
    if decpt <= 0 {
        out.push('0');
    } else if decpt >= len {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - len) as usize));
    } else {
        out.push_str(&digits[..decpt as usize]);
    }
    if dec > 0 {
        out.push('.');
        let mut frac = String::new();
        if decpt < 0 {
            frac.extend(std::iter::repeat_n('0', (-decpt) as usize));
        }
        if decpt < len {
            frac.push_str(&digits[decpt.max(0) as usize..]);
        }
        out.push_str(&frac);
        out.extend(std::iter::repeat_n('0', dec - frac.len()));
    }
    out
}

/// A BIT value as MariaDB shows a BIT column's default: `b'101'` (no leading zeros; `b'0'`).
pub fn bit_literal(v: u64) -> String {
    format!("b'{v:b}'")
}

impl Value {
    /// The text protocol bytes of this value (`None` for NULL). `ty` is the column type when known: it
    /// gives DATETIME/TIME their fsp and YEAR its 4-digit form; without it, fractions print only
    /// when non-zero (6 digits, trailing zeros dropped).
    pub fn to_text(&self, ty: Option<&SqlType>) -> Option<Vec<u8>> {
        let s = match self {
            Value::Null => return None,
            Value::Int(i) => i.to_string(),
            Value::UInt(u) if ty == Some(&SqlType::Year) => format!("{u:04}"),
            Value::UInt(u) => u.to_string(),
            Value::Float(f) => match ty.and_then(|t| t.float_decimals()) {
                Some(dec) => format_fixed(*f as f64, dec),
                None => format_float(*f),
            },
            Value::Double(d) => match ty.and_then(|t| t.float_decimals()) {
                Some(dec) => format_fixed(*d, dec),
                None => format_double(*d),
            },
            Value::Decimal(d) => d.to_string(),
            Value::Text(s) => return Some(s.as_bytes().to_vec()),
            Value::Bytes(b) => return Some(b.clone()),
            Value::Date(d) => d.to_string(),
            Value::DateTime(dt) => dt.format(ty.map_or_else(|| needed_fsp(dt.micros), |t| t.fsp())),
            Value::Time(t) => {
                t.format(ty.map_or_else(|| needed_fsp(t.micros.unsigned_abs()), |t| t.fsp()))
            }
        };
        Some(s.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::decimal::Decimal;
    use crate::types::temporal::DateTime;
    use crate::types::temporal::Time;

    #[test]
    fn fixed_decimals_like_mariadb() {
        assert_eq!(format_fixed(56789.98828125, 3), "56789.988");
        assert_eq!(format_fixed(1e17f32 as f64, 3), "99999998430674940.000");
        assert_eq!(
            format_fixed(1234566789123456789.0, 0),
            "1234566789123456800"
        );
        assert_eq!(
            format_fixed(1e43, 10),
            format!("1{}.0000000000", "0".repeat(43))
        );
        assert_eq!(format_fixed(0.0123456789, 10), "0.0123456789");
        assert_eq!(format_fixed(-0.9, 1), "-0.9");
        assert_eq!(format_fixed(0.0, 1), "0.0");
        assert_eq!(format_fixed(8.0, 0), "8");
        assert_eq!(format_fixed(0.00001, 2), "0.00");
        assert_eq!(format_fixed(-0.001, 2), "0.00");
        assert_eq!(format_fixed(2.5, 3), "2.500");
        assert_eq!(bit_literal(1), "b'1'");
        assert_eq!(bit_literal(0), "b'0'");
        let t = SqlType::Double {
            digits: Some((10, 2)),
            unsigned: false,
        };
        assert_eq!(Value::Double(1.5).to_text(Some(&t)).unwrap(), b"1.50");
    }

    #[test]
    fn doubles_like_mysql() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (123456.789, "123456.789"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (123456789012345680.0, "1.2345678901234568e17"),
            (1234567890123456.7, "1234567890123456.8"),
            (1e-5, "0.00001"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (-1.5e-20, "-1.5e-20"),
            (1e300, "1e300"),
            (f64::MAX, "1.7976931348623157e308"),
        ];
        for (v, want) in cases {
            assert_eq!(format_double(*v), *want, "{v:e}");
            if *v != 0.0 {
                assert_eq!(want.parse::<f64>().unwrap(), *v);
            }
        }
    }

    #[test]
    fn floats_like_mysql() {
        assert_eq!(format_float(123456789.0), "123457000");
        assert_eq!(format_float(2.7182817), "2.71828");
        assert_eq!(format_float(1.1), "1.1");
        assert_eq!(format_float(-0.5), "-0.5");
        assert_eq!(format_float(1e20), "1e20");
    }

    #[test]
    fn values_to_text() {
        let txt = |v: Value, t: Option<SqlType>| {
            String::from_utf8(v.to_text(t.as_ref()).unwrap()).unwrap()
        };
        let dt = DateTime::parse("2024-01-02 03:04:05.120").unwrap();
        assert_eq!(
            txt(Value::DateTime(dt), Some(SqlType::DateTime { fsp: 0 })),
            "2024-01-02 03:04:05"
        );
        assert_eq!(
            txt(Value::DateTime(dt), Some(SqlType::DateTime { fsp: 3 })),
            "2024-01-02 03:04:05.120"
        );
        assert_eq!(txt(Value::DateTime(dt), None), "2024-01-02 03:04:05.12");
        assert_eq!(
            txt(Value::Decimal(Decimal::new(150, 2).unwrap()), None),
            "1.50"
        );
        assert_eq!(txt(Value::UInt(0), Some(SqlType::Year)), "0000");
        assert_eq!(
            txt(Value::Time(Time::parse("-838:59:59").unwrap()), None),
            "-838:59:59"
        );
        assert_eq!(Value::Null.to_text(None), None);
    }
}
