//! Coercion to ENUM, SET and BIT columns (the rest of [`crate::types::coerce`]'s rules).
//!
//! Rules, as MySQL applies them (errno in brackets; strict: error / non-strict: fallback + warning):
//! * ENUM: a string matches the first member equal to it under the column's collation (trailing
//!   spaces ignored) and stores that member's text as declared; a string of digits that matches no
//!   member is a member number. A number n picks member n (1-based). Anything else [1265] → the
//!   error value `''`.
//! * SET: a string is split at `,` and each part matched as for ENUM; parts that match nothing
//!   [1265] are dropped; a string of digits that matches no member is a bitmask. A number is a
//!   bitmask (negative numbers as 64-bit two's complement); bits past the last member [1265] are
//!   dropped. The stored text lists the chosen members once each, in declaration order.
//! * BIT(M): a number (doubles and decimals rounded, negative ones as 64-bit two's complement), or
//!   a string read as a big-endian byte string (`'f'` = 102, `0xFF` = 255). More than M bits
//!   [1264] → the largest M-bit value.
//!
//! Invariant: an ENUM result is `''` or a member's exact text; a SET result is `set_text` of a
//! bitmask within the members; a BIT result is a `UInt` below 2^M. The row codec relies on it.

use crate::error::sql_error::SqlError;
use crate::types::coerce::Ctx;
use crate::types::member_codes::set_text;
use crate::types::value::Value;
use crate::types::Column;

/// The text a non-string value is matched as (`5` → "5").
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Text(s) => Some(s.clone()),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// The member number (1-based) equal to `s` under the column's collation, or 0.
fn find_member(col: &Column, s: &str) -> usize {
    let want = col.collation.sort_key(s.trim_end_matches(' ').as_bytes());
    col.members
        .iter()
        .position(|m| col.collation.sort_key(m.as_bytes()) == want)
        .map_or(0, |i| i + 1)
}

/// A whole-number value (doubles and decimals rounded half away from zero), else `None`.
fn number_of(v: &Value) -> Option<i128> {
    Some(match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Decimal(d) => d.round_to_i128(),
        Value::Float(_) | Value::Double(_) => {
            let f = v.to_f64_lenient()?;
            if f.is_nan() {
                0
            } else {
                f.round() as i128
            }
        }
        _ => return None,
    })
}

fn digits(s: &str) -> Option<i128> {
    let t = s.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

pub(crate) fn to_enum(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let col = cx.col;
    let n = match text_of(v) {
        Some(s) => match find_member(col, &s) {
            0 => digits(&s).unwrap_or(0),
            i => i as i128,
        },
        None => number_of(v).unwrap_or_else(|| match v.to_text(None) {
            Some(b) => find_member(col, &String::from_utf8_lossy(&b)) as i128,
            None => 0,
        }),
    };
    if n >= 1 && n <= col.members.len() as i128 {
        return Ok(Value::Text(col.members[n as usize - 1].clone()));
    }
    let err = cx.truncated();
    cx.fail_or(err, Value::Text(String::new()))
}

pub(crate) fn to_set(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let col = cx.col;
    let count = col.members.len();
    let valid = if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    let (bits, bad) = match text_of(v) {
        Some(s) if s.is_empty() => (0, false),
        Some(s) => match (find_member(col, &s), digits(&s)) {
            (0, Some(n)) => (n as u64, n as u64 & !valid != 0),
            _ => {
                let mut bits = 0u64;
                let mut bad = false;
                for part in s.split(',') {
                    match find_member(col, part) {
                        0 => bad = true,
                        i => bits |= 1 << (i - 1),
                    }
                }
                (bits, bad)
            }
        },
        None => {
            let n = number_of(v).unwrap_or(0) as i64 as u64;
            (n, n & !valid != 0)
        }
    };
    let value = Value::Text(set_text(col, bits & valid));
    if bad {
        let err = cx.truncated();
        return cx.fail_or(err, value);
    }
    Ok(value)
}

pub(crate) fn to_bit(cx: &mut Ctx<'_>, v: &Value, len: u8) -> Result<Value, SqlError> {
    let max = if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    let n: Option<u64> = match v {
        Value::Text(_) | Value::Bytes(_) => {
            let b = v.str_bytes().unwrap_or_default();
            let sig = &b[b.iter().take_while(|x| **x == 0).count()..];
            if sig.len() > 8 {
                None
            } else {
                Some(sig.iter().fold(0u64, |acc, x| acc << 8 | *x as u64))
            }
        }
        _ => match number_of(v) {
            Some(n) if n >= i64::MIN as i128 && n <= u64::MAX as i128 => {
                Some(if n < 0 { n as i64 as u64 } else { n as u64 })
            }
            Some(_) => None,
            None => v
                .to_text(None)
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.parse::<u64>().ok()),
        },
    };
    match n {
        Some(n) if n <= max => Ok(Value::UInt(n)),
        _ => {
            let err = cx.out_of_range();
            cx.fail_or(err, Value::UInt(max))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::code::ErrorCode;
    use crate::types::coerce::coerce_to_column;
    use crate::types::coerce::SqlMode;
    use crate::types::value::Value;
    use crate::types::Column;
    use crate::types::SqlType;

    fn members(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn put(col: &Column, v: Value, strict: bool) -> (Result<Value, ErrorCode>, Vec<ErrorCode>) {
        let mut w = Vec::new();
        let r = coerce_to_column(&v, col, 1, SqlMode::utc(strict), &mut w).map_err(|e| e.code());
        (r, w.iter().map(|w| w.code).collect())
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn enum_values_match_members_numbers_and_fall_back_to_the_error_value() {
        let c = Column::new(0, "b", SqlType::Enum { count: 5 })
            .with_members(members(&["test1", "test2", "test3", "test4", "test5"]));
        assert_eq!(put(&c, text("TEST2 "), true).0, Ok(text("test2")));
        assert_eq!(put(&c, Value::Int(5), true).0, Ok(text("test5")));
        assert_eq!(put(&c, text("3"), true).0, Ok(text("test3")));
        assert_eq!(
            put(&c, text("test6"), true).0,
            Err(ErrorCode::WarnDataTruncated)
        );
        assert_eq!(
            put(&c, text("test6"), false),
            (Ok(text("")), vec![ErrorCode::WarnDataTruncated])
        );
        assert_eq!(
            put(&c, Value::Int(0), false),
            (Ok(text("")), vec![ErrorCode::WarnDataTruncated])
        );
        assert_eq!(
            put(&c, Value::Int(-1), false),
            (Ok(text("")), vec![ErrorCode::WarnDataTruncated])
        );
        // a numeric string that is a member is the member, not its number
        let d = Column::new(1, "c", SqlType::Enum { count: 2 }).with_members(members(&["2", "1"]));
        assert_eq!(put(&d, text("1"), true).0, Ok(text("1")));
        assert_eq!(put(&d, Value::Int(1), true).0, Ok(text("2")));
        // the first of two members equal under the collation wins
        let e = Column::new(2, "e", SqlType::Enum { count: 2 }).with_members(members(&["a", "A"]));
        assert_eq!(put(&e, text("A"), true).0, Ok(text("a")));
    }

    #[test]
    fn set_values_keep_known_members_in_declaration_order() {
        let c = Column::new(0, "c", SqlType::Set { count: 4 })
            .with_members(members(&["01", "23", "34", "44"]));
        assert_eq!(put(&c, text("44,01,34,01"), true).0, Ok(text("01,34,44")));
        assert_eq!(
            put(&c, text("01,34,44,,23"), false),
            (Ok(text("01,23,34,44")), vec![ErrorCode::WarnDataTruncated])
        );
        assert_eq!(
            put(&c, text("01,99"), true).0,
            Err(ErrorCode::WarnDataTruncated)
        );
        assert_eq!(put(&c, Value::Int(5), true).0, Ok(text("01,34")));
        assert_eq!(put(&c, text("2"), true).0, Ok(text("23")));
        assert_eq!(put(&c, text(""), true).0, Ok(text("")));
        assert_eq!(put(&c, Value::Int(0), true).0, Ok(text("")));
        assert_eq!(
            put(&c, Value::Int(-1), false),
            (Ok(text("01,23,34,44")), vec![ErrorCode::WarnDataTruncated])
        );
        let blank = Column::new(1, "a", SqlType::Set { count: 1 }).with_members(members(&[""]));
        assert_eq!(put(&blank, text(","), true).0, Ok(text("")));
    }

    #[test]
    fn bit_values_are_numbers_or_big_endian_bytes_clamped_to_m_bits() {
        let b1 = Column::new(0, "a", SqlType::Bit { len: 1 });
        let b20 = Column::new(1, "b", SqlType::Bit { len: 20 });
        let b64 = Column::new(2, "c", SqlType::Bit { len: 64 });
        assert_eq!(
            put(&b20, Value::Double(1048575.0), true).0,
            Ok(Value::UInt(1048575))
        );
        assert_eq!(put(&b20, text("f"), true).0, Ok(Value::UInt(102)));
        assert_eq!(put(&b64, Value::Int(-1), true).0, Ok(Value::UInt(u64::MAX)));
        assert_eq!(
            put(&b64, Value::Bytes(vec![0xFF]), true).0,
            Ok(Value::UInt(255))
        );
        assert_eq!(
            put(&b1, Value::Bytes(vec![0x10]), true).0,
            Err(ErrorCode::WarnDataOutOfRange)
        );
        assert_eq!(
            put(&b1, Value::Bytes(vec![0x10]), false),
            (Ok(Value::UInt(1)), vec![ErrorCode::WarnDataOutOfRange])
        );
        assert_eq!(
            put(&b64, Value::Bytes(vec![1, 0, 0, 0, 0, 0, 0, 0, 0]), false),
            (
                Ok(Value::UInt(u64::MAX)),
                vec![ErrorCode::WarnDataOutOfRange]
            )
        );
    }
}
