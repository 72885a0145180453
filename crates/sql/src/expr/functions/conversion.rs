//! Conversions between numbers, characters and their codes: HEX, BIN, OCT, ASCII/ORD, CHAR, and
//! the internal `__COLLATE` (`expr COLLATE name`, which keeps the value as it is: the collation
//! already chose how the compiled comparison compares).
//!
//! Invariant: a byte string is converted from its exact bytes (HEX of a BLOB is never the hex of
//! U+FFFD replacement characters).

use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["HEX", "BIN", "OCT", "ASCII", "ORD", "CHAR"];

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
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// `__COLLATE(value, collation name)`: the value.
pub(super) fn collate(a: &[Value]) -> Value {
    a.first().cloned().unwrap_or(Value::Null)
}
