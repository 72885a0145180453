//! Conversions between numbers, characters and their codes: HEX, UNHEX, BIN, OCT, CONV, ASCII/ORD,
//! CHAR, and
//! the internal `__COLLATE` (`expr COLLATE name`, which keeps the value as it is: the collation
//! already chose how the compiled comparison compares) and `__CHARSET_BYTES` (a text's bytes in
//! its character set, for HEX and the byte lengths of a latin1 text).
//!
//! Invariant: a byte string is converted from its exact bytes (HEX of a BLOB is never the hex of
//! U+FFFD replacement characters).

use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["HEX", "UNHEX", "BIN", "OCT", "CONV", "ASCII", "ORD", "CHAR"];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    let t = |i: usize| a.get(i).and_then(text_of);
    Ok(match name {
        "ASCII" | "ORD" => Value::Int(t(0).and_then(|s| s.bytes().next()).unwrap_or(0) as i64),
        "CHAR" => Value::Bytes(a.iter().filter_map(int).map(|i| i as u8).collect()),
        "BIN" | "OCT" => {
            need(name, a, 1, 1)?;
            let n = match &a[0] {
                Value::UInt(u) => *u,
                v => int(v).unwrap_or(0) as u64,
            };
            text(if name == "BIN" {
                format!("{n:b}")
            } else {
                format!("{n:o}")
            })
        }
        "CONV" => {
            need(name, a, 3, 3)?;
            let (from, to) = (int(&a[1]).unwrap_or(0), int(&a[2]).unwrap_or(0));
            match t(0) {
                Some(s) if !s.is_empty() && base_ok(from) && base_ok(to) => {
                    text(to_base(read_in_base(s.as_bytes(), from), to))
                }
                _ => Value::Null,
            }
        }
        "HEX" => match &a[0] {
            Value::Int(_) | Value::UInt(_) => text(format!("{:X}", int(&a[0]).unwrap_or(0))),
            // Byte strings are hexed as they are (text_of would replace non-UTF-8 bytes).
            Value::Bytes(b) => text(b.iter().map(|b| format!("{b:02X}")).collect()),
            v => text(
                text_of(v)
                    .unwrap_or_default()
                    .bytes()
                    .map(|b| format!("{b:02X}"))
                    .collect(),
            ),
        },
        "UNHEX" => {
            need(name, a, 1, 1)?;
            match &a[0] {
                Value::Bytes(b) => unhex(b),
                v => unhex(text_of(v).unwrap_or_default().as_bytes()),
            }
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// UNHEX: the bytes the hex digit pairs of `digits` stand for (an odd count reads the first digit
/// alone, as MariaDB does); NULL if any character is not a hex digit.
fn unhex(digits: &[u8]) -> Value {
    let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(digits.len() / 2 + 1);
    let (head, rest) = digits.split_at(digits.len() % 2);
    for pair in std::iter::once(head)
        .filter(|h| !h.is_empty())
        .chain(rest.chunks(2))
    {
        let mut byte = 0u8;
        for &c in pair {
            match nibble(c) {
                Some(d) => byte = byte << 4 | d,
                None => return Value::Null,
            }
        }
        out.push(byte);
    }
    Value::Bytes(out)
}

/// A base CONV takes: 2 to 36, negative for signed.
fn base_ok(base: i64) -> bool {
    (2..=36).contains(&base.abs())
}

/// CONV's reading of `s` in `base` (MariaDB's `my_strntoull` / `my_strntoll` for a negative
/// base): leading spaces, a sign, then the digits valid in the base up to the first other
/// character; beyond 64 bits all ones (unsigned) or the nearest of i64's ends (signed). The
/// result's bits, as a signed number.
fn read_in_base(s: &[u8], base: i64) -> i64 {
    let radix = base.unsigned_abs() as u32;
    let mut rest = s.iter().skip_while(|c| c.is_ascii_whitespace()).peekable();
    let negative = match rest.peek() {
        Some(b'-') => {
            rest.next();
            true
        }
        Some(b'+') => {
            rest.next();
            false
        }
        _ => false,
    };
    let mut n: u64 = 0;
    let mut overflow = false;
    for d in rest.map_while(|c| (*c as char).to_digit(radix)) {
        match n
            .checked_mul(u64::from(radix))
            .and_then(|m| m.checked_add(u64::from(d)))
        {
            Some(m) => n = m,
            None => overflow = true,
        }
    }
    if base > 0 {
        return match (overflow, negative) {
            (true, _) => -1,
            (false, true) => (n as i64).wrapping_neg(),
            (false, false) => n as i64,
        };
    }
    match negative {
        true if overflow || n > i64::MIN.unsigned_abs() => i64::MIN,
        true => (n as i64).wrapping_neg(),
        false if overflow || n > i64::MAX as u64 => i64::MAX,
        false => n as i64,
    }
}

/// CONV's writing of `n` in `base`: upper-case digits, unsigned for a positive base, signed for a
/// negative one (MariaDB's `longlong2str`).
fn to_base(n: i64, base: i64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let radix = base.unsigned_abs();
    let (negative, mut u) = if base < 0 && n < 0 {
        (true, n.unsigned_abs())
    } else {
        (false, n as u64)
    };
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(u % radix) as usize]);
        u /= radix;
        if u == 0 {
            break;
        }
    }
    if negative {
        out.push(b'-');
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `__CHARSET_BYTES(text, charset name)`: the text's bytes in that character set (the compiler
/// wraps a latin1 text so that HEX and LENGTH see its latin1 bytes, as MariaDB's do); other
/// values pass unchanged.
pub(super) fn charset_bytes(a: &[Value]) -> Value {
    let charset = match a.get(1) {
        Some(Value::Text(n)) => crate::types::charset::Charset::from_name(n),
        _ => None,
    };
    match (a.first(), charset) {
        (Some(Value::Text(s)), Some(cs)) => Value::Bytes(cs.encode(s)),
        (Some(v), _) => v.clone(),
        (None, _) => Value::Null,
    }
}

/// `__IN_CHARSET(text, collation name)`: the text with each character that collation's
/// character set lacks replaced by `?` (MariaDB's conversion); a value that is not text as is.
pub(super) fn in_charset(a: &[Value]) -> Value {
    let charset = match a.get(1) {
        Some(Value::Text(n)) => {
            crate::types::collation::Collation::from_name(n).map(|c| c.charset())
        }
        _ => None,
    };
    match (a.first(), charset) {
        (Some(Value::Text(s)), Some(cs)) if cs.fits(s).is_err() => {
            Value::Text(cs.replace_unrepresentable(s))
        }
        (Some(v), _) => v.clone(),
        (None, _) => Value::Null,
    }
}

/// `__COLLATE(value, collation name)`: the value.
pub(super) fn collate(a: &[Value]) -> Value {
    a.first().cloned().unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(v: Value) -> Option<Vec<u8>> {
        match v {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    #[test]
    fn in_charset_replaces_what_the_set_lacks() {
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(in_charset(&[t("Жé"), t("koi8r_general_ci")]), t("Ж?"));
        assert_eq!(in_charset(&[t("Жé"), t("latin1_swedish_ci")]), t("?é"));
        assert_eq!(in_charset(&[t("Жé"), t("utf8mb4_bin")]), t("Жé"));
        assert_eq!(in_charset(&[Value::Int(3), t("koi8r_bin")]), Value::Int(3));
    }

    #[test]
    fn unhex_reads_digit_pairs_as_mariadb_does() {
        let u = |s: &str| hex_of(call("UNHEX", &[Value::Text(s.into())]).unwrap());
        assert_eq!(u("4142"), Some(b"AB".to_vec()));
        assert_eq!(u("414"), Some(vec![0x04, 0x14]));
        assert_eq!(u("F"), Some(vec![0x0F]));
        assert_eq!(u("ff"), Some(vec![0xFF]));
        assert_eq!(u(""), Some(vec![]));
        assert_eq!(u("4g"), None);
        assert_eq!(u(" 41"), None);
        assert_eq!(
            hex_of(call("UNHEX", &[Value::Int(4142)]).unwrap()),
            Some(b"AB".to_vec())
        );
        assert_eq!(call("UNHEX", &[Value::Int(-1)]).unwrap(), Value::Null);
    }

    #[test]
    fn conv_reads_and_writes_as_mariadb() {
        let c = |s: &str, from: i64, to: i64| {
            call(
                "CONV",
                &[Value::Text(s.into()), Value::Int(from), Value::Int(to)],
            )
            .unwrap()
        };
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(c("a", 16, 2), t("1010"));
        assert_eq!(c("-17", 10, -16), t("-11"));
        assert_eq!(c("-17", 10, 16), t("FFFFFFFFFFFFFFEF"));
        assert_eq!(c("zz", 36, 10), t("1295"));
        assert_eq!(c("12x", 10, 2), t("1100"));
        assert_eq!(c("18446744073709551616", 10, 10), t("18446744073709551615"));
        assert_eq!(c("ffffffffffffffff", 16, -10), t("-1"));
        assert_eq!(c("99999999999999999999", -10, 10), t("9223372036854775807"));
        assert_eq!(c("", 10, 2), Value::Null);
        assert_eq!(c("10", 1, 2), Value::Null);
        assert_eq!(c("10", 10, 37), Value::Null);
    }
}
