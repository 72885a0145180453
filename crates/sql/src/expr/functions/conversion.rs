//! Conversions between numbers, characters and their codes: HEX, UNHEX, BIN, OCT, ASCII/ORD, CHAR, and
//! the internal `__COLLATE` (`expr COLLATE name`, which keeps the value as it is: the collation
//! already chose how the compiled comparison compares).
//!
//! Invariant: a byte string is converted from its exact bytes (HEX of a BLOB is never the hex of
//! U+FFFD replacement characters).

use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["HEX", "UNHEX", "BIN", "OCT", "ASCII", "ORD", "CHAR"];

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
}
