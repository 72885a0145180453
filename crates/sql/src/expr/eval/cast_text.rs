//! A string (text or binary) read as a number, date or time by CAST, as MariaDB 10.11 reads it
//! (`Item_func_signed::val_int_from_str`, `Item_double_typecast`, `Item_decimal_typecast`), with
//! the diagnostics MariaDB raises for it ([`Diag`]).
//!
//! Invariants:
//! * An integer comes from the string's integer prefix only (after leading spaces and a sign):
//!   `'1.5'` is 1, `'1e3'` is 1. A magnitude above 18446744073709551615 (positive) or 2^63
//!   (negative) is clamped there. The result's bits are then read as the CAST's signedness, with
//!   MariaDB's 1105 notes when that changes the sign.
//! * A number that is not an integer is rounded (a DECIMAL half away from zero, a DOUBLE to
//!   even) and clamped to the target's range (1916).
//! * A DOUBLE comes from the longest numeric prefix; one beyond the range is the largest finite
//!   value of its sign.
//! * A date or time with something after it ([`temporal_prefix`]) is read from what comes
//!   before, with a 1292 warning; one that does not read at all is NULL (with MariaDB's
//!   `Incorrect ... value`, cast.rs).
//! * 1292 is a warning when the string has no number or more than spaces after it (or the
//!   number overflows), a note when only spaces follow it, absent otherwise.

use crate::error::code::ErrorCode;
use crate::error::sql_error::{Warning, WarningLevel};
use crate::types::decimal::Decimal;
use crate::types::value::{numeric_prefix_len, Value};

/// The diagnostics of one conversion, in MariaDB's order.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Diag(pub Vec<Warning>);

impl Diag {
    fn push(&mut self, level: WarningLevel, code: ErrorCode, message: String) {
        self.0.push(Warning {
            level,
            code,
            message,
        });
    }

    /// 1292 for `s` read as `kind`: `rest` is what followed the number, `bad` says the read
    /// failed (no number, overflow).
    fn truncated(&mut self, kind: &str, s: &[u8], rest: &[u8], bad: bool) {
        let level = if bad || rest.iter().any(|b| !is_space(*b)) {
            WarningLevel::Warning
        } else if !rest.is_empty() {
            WarningLevel::Note
        } else {
            return;
        };
        let text = String::from_utf8_lossy(s);
        self.push(
            level,
            ErrorCode::TruncatedWrongValue,
            format!("Truncated incorrect {kind} value: '{text}'"),
        );
    }
}

impl Diag {
    /// 1292 for a date or time read from the start of `s` with more after it.
    pub(super) fn truncated_temporal(&mut self, kind: &str, s: &str) {
        self.push(
            WarningLevel::Warning,
            ErrorCode::TruncatedWrongValue,
            format!("Truncated incorrect {kind} value: '{s}'"),
        );
    }
}

/// The start of `s` that can be a date or time (digits and `- : . / T` and spaces, up to the
/// first other character, without trailing separators), if something follows it; None when
/// nothing does or nothing is left.
pub(super) fn temporal_prefix(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | ':' | '.' | '/' | ' ' | 'T')))
        .unwrap_or(s.len());
    let head = s[..end].trim_end_matches(|c: char| !c.is_ascii_digit());
    (end < s.trim_end().len() && !head.is_empty()).then_some(head)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// CAST(s AS SIGNED / UNSIGNED).
pub(super) fn integer(s: &[u8], unsigned: bool, diag: &mut Diag) -> Value {
    let mut i = s.iter().take_while(|b| is_space(**b)).count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    let limit: u128 = if neg { 1 << 63 } else { u64::MAX as u128 };
    let mut mag: u128 = 0;
    let mut overflow = false;
    for &d in &s[i..i + digits] {
        mag = mag * 10 + u128::from(d - b'0');
        if mag > limit {
            mag = limit;
            overflow = true;
        }
    }
    diag.truncated("INTEGER", s, &s[i + digits..], digits == 0 || overflow);
    let bits: u64 = if neg {
        (mag as i128).wrapping_neg() as i64 as u64
    } else {
        mag as u64
    };
    let note = |diag: &mut Diag, what: &str| {
        diag.push(
            WarningLevel::Note,
            ErrorCode::UnknownError,
            format!("Cast to {what}"),
        )
    };
    if unsigned {
        if neg && digits > 0 && !overflow {
            note(
                diag,
                "unsigned converted negative integer to it's positive complement",
            );
        }
        Value::UInt(bits)
    } else {
        if !neg && !overflow && bits > i64::MAX as u64 {
            note(
                diag,
                "signed converted positive out-of-range integer to it's negative complement",
            );
        }
        Value::Int(bits as i64)
    }
}

/// CAST(v AS SIGNED / UNSIGNED) of a value that is not a string: an integer keeps its bits (with
/// the 1105 note when a negative one becomes unsigned); a DECIMAL is rounded half away from zero, a DOUBLE to even,
/// and clamped to the target's range with MariaDB's 1916 (a warning for a DECIMAL, a note for a
/// DOUBLE).
pub(super) fn number_to_integer(v: &Value, unsigned: bool, diag: &mut Diag) -> Value {
    let note = |diag: &mut Diag, what: &str| {
        diag.push(
            WarningLevel::Note,
            ErrorCode::UnknownError,
            format!("Cast to {what}"),
        )
    };
    let (rounded, level, target) = match v {
        Value::Int(i) if unsigned => {
            if *i < 0 {
                note(
                    diag,
                    "unsigned converted negative integer to it's positive complement",
                );
            }
            return Value::UInt(*i as u64);
        }
        Value::Int(i) => return Value::Int(*i),
        Value::UInt(u) if unsigned => return Value::UInt(*u),
        Value::UInt(u) => return Value::Int(*u as i64),
        Value::Decimal(d) => (
            d.round_to_i128(),
            WarningLevel::Warning,
            if unsigned { "UNSIGNED INT" } else { "INT" },
        ),
        other => {
            let f = other.to_f64_lenient().unwrap_or(0.0).round_ties_even();
            (
                f.clamp(i128::MIN as f64, i128::MAX as f64) as i128,
                WarningLevel::Note,
                if unsigned {
                    "UNSIGNED BIGINT"
                } else {
                    "SIGNED BIGINT"
                },
            )
        }
    };
    let (lo, hi) = if unsigned {
        (0, u64::MAX as i128)
    } else {
        (i64::MIN as i128, i64::MAX as i128)
    };
    let clamped = rounded.clamp(lo, hi);
    if clamped != rounded {
        let text = super::text_of(v).unwrap_or_default();
        diag.push(
            level,
            ErrorCode::DataOverflow,
            format!("Got overflow when converting '{text}' to {target}. Value truncated"),
        );
    }
    if unsigned {
        Value::UInt(clamped as u64)
    } else {
        Value::Int(clamped as i64)
    }
}

/// CAST(s AS DOUBLE).
pub(super) fn double(s: &[u8], diag: &mut Diag) -> f64 {
    let n = numeric_prefix_len(s);
    let text = std::str::from_utf8(&s[..n])
        .unwrap_or("0")
        .trim_start_matches(is_space_char);
    let text = text.strip_prefix('+').unwrap_or(text);
    let v = if n == 0 {
        0.0
    } else {
        text.parse::<f64>().unwrap_or(0.0)
    };
    let overflow = v.is_infinite();
    diag.truncated("DOUBLE", s, &s[n..], n == 0 || overflow);
    if overflow {
        f64::MAX.copysign(v)
    } else {
        v
    }
}

fn is_space_char(c: char) -> bool {
    c.is_ascii() && is_space(c as u8)
}

/// CAST(s AS DECIMAL): the string's leading number (0 when it has none).
pub(super) fn decimal(s: &[u8], diag: &mut Diag) -> Decimal {
    let text = String::from_utf8_lossy(s);
    match Decimal::parse_prefix(&text) {
        Ok((d, used)) => {
            diag.truncated("DECIMAL", s, &text.as_bytes()[used..], false);
            d
        }
        Err(_) => {
            diag.truncated("DECIMAL", s, b"", true);
            Decimal::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str, unsigned: bool) -> (Value, Vec<(WarningLevel, ErrorCode)>) {
        let mut d = Diag::default();
        let v = integer(s.as_bytes(), unsigned, &mut d);
        (v, d.0.iter().map(|w| (w.level, w.code)).collect())
    }

    #[test]
    fn integers_read_the_integer_prefix_as_mariadb() {
        use WarningLevel::{Note, Warning};
        const TRUNC: ErrorCode = ErrorCode::TruncatedWrongValue;
        const SIGN: ErrorCode = ErrorCode::UnknownError;
        assert_eq!(int("12", false), (Value::Int(12), vec![]));
        assert_eq!(int("1.5", false), (Value::Int(1), vec![(Warning, TRUNC)]));
        assert_eq!(int("-1.5", false), (Value::Int(-1), vec![(Warning, TRUNC)]));
        assert_eq!(int("1e3", false), (Value::Int(1), vec![(Warning, TRUNC)]));
        assert_eq!(int(" 12 ", false), (Value::Int(12), vec![(Note, TRUNC)]));
        assert_eq!(int("\t7", false), (Value::Int(7), vec![]));
        assert_eq!(int("", false), (Value::Int(0), vec![(Warning, TRUNC)]));
        assert_eq!(int("-", false), (Value::Int(0), vec![(Warning, TRUNC)]));
        assert_eq!(
            int("99999999999999999999", false),
            (Value::Int(-1), vec![(Warning, TRUNC)])
        );
        assert_eq!(
            int("-99999999999999999999", false),
            (Value::Int(i64::MIN), vec![(Warning, TRUNC)])
        );
        assert_eq!(
            int("18446744073709551615", false),
            (Value::Int(-1), vec![(Note, SIGN)])
        );
        assert_eq!(int("-1", true), (Value::UInt(u64::MAX), vec![(Note, SIGN)]));
        assert_eq!(int("-0", true), (Value::UInt(0), vec![(Note, SIGN)]));
        assert_eq!(
            int("99999999999999999999", true),
            (Value::UInt(u64::MAX), vec![(Warning, TRUNC)])
        );
    }

    #[test]
    fn a_temporal_prefix_stops_at_the_first_foreign_character() {
        assert_eq!(temporal_prefix("2020-01-01 junk"), Some("2020-01-01"));
        assert_eq!(temporal_prefix("2020-01-01x"), Some("2020-01-01"));
        assert_eq!(temporal_prefix("10:00:00abc"), Some("10:00:00"));
        assert_eq!(temporal_prefix("2020-13-01"), None);
        assert_eq!(temporal_prefix("2020-01-01  "), None);
        assert_eq!(temporal_prefix("abc"), None);
    }

    #[test]
    fn doubles_saturate_and_report_what_they_dropped() {
        let dbl = |s: &str| {
            let mut d = Diag::default();
            let v = double(s.as_bytes(), &mut d);
            (v, d.0.into_iter().map(|w| w.level).collect::<Vec<_>>())
        };
        assert_eq!(dbl("1.5"), (1.5, vec![]));
        assert_eq!(dbl(" 1.5e1x"), (15.0, vec![WarningLevel::Warning]));
        assert_eq!(dbl("1e500"), (f64::MAX, vec![WarningLevel::Warning]));
        assert_eq!(dbl("-1e500"), (-f64::MAX, vec![WarningLevel::Warning]));
        assert_eq!(dbl(" 12 "), (12.0, vec![WarningLevel::Note]));
        assert_eq!(dbl("abc"), (0.0, vec![WarningLevel::Warning]));
    }
}
