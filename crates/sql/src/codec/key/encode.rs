//! Key encoding: [`encode_key`], [`encode_key_value`] (one column, ascending or DESC) and the
//! per-type byte layouts of mod.rs.
//!
//! Invariant: a value must already be coerced to the column's type; anything else is an
//! internal error, and NaN is refused ([`SqlError::CorruptKey`]).

use super::{bad, decimal_mantissa, decimal_width, KeyColumn, NULL_MARK, TIME_OFFSET, VALUE_MARK};
use crate::codec::decimal;
use crate::error::sql_error::SqlError;
use crate::types::decimal::Decimal;
use crate::types::temporal::{DateTime, YEAR_FIRST, YEAR_LAST};
use crate::types::value::Value;
use crate::types::SqlType;

/// Appends the low `width` bytes of `v` big-endian.
fn put_be(out: &mut Vec<u8>, v: u128, width: usize) {
    out.extend_from_slice(&v.to_be_bytes()[16 - width..]);
}

/// Signed `v` in `width` bytes, offset so the order is unsigned (`v - MIN`).
fn put_signed(out: &mut Vec<u8>, v: i128, width: usize) {
    let bias = 1i128.checked_shl(width as u32 * 8 - 1).unwrap_or(i128::MIN);
    put_be(out, v.wrapping_add(bias) as u128, width);
}

fn int_of(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        _ => None,
    }
}

fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// The first `n` characters of UTF-8 text `s` (bytes that are not UTF-8 count one a character).
pub fn char_prefix(s: &[u8], n: u32) -> &[u8] {
    let mut chars = 0u32;
    for (i, &b) in s.iter().enumerate() {
        // A character starts at every byte that is not a UTF-8 continuation byte.
        if b & 0xC0 != 0x80 {
            if chars == n {
                return &s[..i];
            }
            chars += 1;
        }
    }
    s
}

/// Appends one column's encoding (marker included).
pub fn encode_key_value(col: &KeyColumn, v: &Value, out: &mut Vec<u8>) -> Result<(), SqlError> {
    let start = out.len();
    encode_asc(col, v, out)?;
    if col.descending {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

fn encode_asc(col: &KeyColumn, v: &Value, out: &mut Vec<u8>) -> Result<(), SqlError> {
    if v.is_null() {
        out.push(NULL_MARK);
        return Ok(());
    }
    out.push(VALUE_MARK);
    let mismatch = || {
        bad(format!(
            "key column of type {} cannot hold {v:?}",
            col.sql_type.sql_name()
        ))
    };
    match col.sql_type {
        SqlType::Int { width, unsigned } => {
            let n = int_of(v).ok_or_else(mismatch)?;
            let w = width.bytes();
            if unsigned {
                if n < 0 || n as u128 > width.unsigned_max() as u128 {
                    return Err(mismatch());
                }
                put_be(out, n as u128, w);
            } else {
                let (lo, hi) = width.signed_range();
                if n < lo as i128 || n > hi as i128 {
                    return Err(mismatch());
                }
                put_signed(out, n, w);
            }
        }
        SqlType::Year => {
            let y = int_of(v).ok_or_else(mismatch)?;
            let b = match y {
                0 => 0,
                y if (i128::from(YEAR_FIRST)..=i128::from(YEAR_LAST)).contains(&y) => {
                    (y - 1900) as u8
                }
                _ => return Err(mismatch()),
            };
            out.push(b);
        }
        SqlType::Float { .. } => {
            let f = match v {
                Value::Float(f) => *f,
                _ => return Err(mismatch()),
            };
            if f.is_nan() {
                return Err(SqlError::CorruptKey("NaN cannot be stored in a key".into()));
            }
            out.extend_from_slice(&float_key(f));
        }
        SqlType::Double { .. } => {
            let f = match v {
                Value::Double(f) => *f,
                Value::Float(f) => *f as f64,
                _ => return Err(mismatch()),
            };
            if f.is_nan() {
                return Err(SqlError::CorruptKey("NaN cannot be stored in a key".into()));
            }
            out.extend_from_slice(&double_key(f));
        }
        SqlType::Decimal {
            precision, scale, ..
        } => {
            let d = match v {
                Value::Decimal(d) => *d,
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::from_u64(*u),
                _ => return Err(mismatch()),
            };
            let m = decimal_mantissa(d, precision, scale).ok_or_else(mismatch)?;
            let width = decimal_width(precision);
            match m.to_i128() {
                Some(m) if width <= 16 => put_signed(out, m, width),
                _ => out.extend(decimal::key_bytes(&m, width).ok_or_else(mismatch)?),
            }
        }
        SqlType::Enum { count } if col.members.is_some() => {
            let n = member_code_of(col, v).ok_or_else(mismatch)?;
            put_be(out, n as u128, crate::codec::row::enum_width(count));
        }
        SqlType::Set { count } if col.members.is_some() => {
            let n = member_code_of(col, v).ok_or_else(mismatch)?;
            put_be(out, n as u128, crate::codec::row::set_width(count));
        }
        SqlType::Char { .. }
        | SqlType::VarChar { .. }
        | SqlType::Text(_)
        | SqlType::Enum { .. }
        | SqlType::Set { .. } => {
            let s = v.str_bytes().ok_or_else(mismatch)?;
            let s = match col.prefix {
                Some(n) => char_prefix(s, n),
                None => s,
            };
            escape_into(out, &col.collation.sort_key(s));
        }
        SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_) => {
            let s = v.str_bytes().ok_or_else(mismatch)?;
            let s = match col.prefix {
                Some(n) => &s[..s.len().min(n as usize)],
                None => s,
            };
            escape_into(out, s);
        }
        SqlType::Date => {
            let d = match v {
                Value::Date(d) => *d,
                _ => return Err(mismatch()),
            };
            put_be(out, d.packed() as u128, 3);
        }
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => {
            let dt = match v {
                Value::DateTime(dt) => *dt,
                Value::Date(d) => DateTime::from_date(*d),
                _ => return Err(mismatch()),
            };
            let (p, w) = dt.packed_for_fsp(fsp).ok_or_else(mismatch)?;
            put_be(out, p as u128, w);
        }
        SqlType::Time { .. } => {
            let t = match v {
                Value::Time(t) => *t,
                _ => return Err(mismatch()),
            };
            put_be(out, (t.micros + TIME_OFFSET) as u128, 6);
        }
        SqlType::Bit { .. } => {
            let n = int_of(v).ok_or_else(mismatch)?;
            if n < 0 || n > u64::MAX as i128 {
                return Err(mismatch());
            }
            put_be(out, n as u128, 8);
        }
    }
    Ok(())
}

/// The key bytes of a FLOAT (not NaN): its IEEE bits big-endian with the sign bit set when it is
/// not negative, every bit inverted when it is; `-0.0` as `0.0`.
fn float_key(f: f32) -> [u8; 4] {
    let bits = if f == 0.0 { 0 } else { f.to_bits() };
    let k = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    k.to_be_bytes()
}

/// The key bytes of a DOUBLE (not NaN), as [`float_key`].
fn double_key(f: f64) -> [u8; 8] {
    let bits = if f == 0.0 { 0 } else { f.to_bits() };
    let k = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    k.to_be_bytes()
}

/// The member number / bitmask of ENUM/SET value `v` of a format-2 key column.
fn member_code_of(col: &KeyColumn, v: &Value) -> Option<u64> {
    let s = std::str::from_utf8(v.str_bytes()?).ok()?;
    crate::types::member_codes::member_code(col.sql_type, col.members.as_deref()?, s)
}

/// Encodes `values` (one per column, or fewer: a prefix for range bounds) and appends the bytes.
pub fn encode_key(cols: &[KeyColumn], values: &[Value], out: &mut Vec<u8>) -> Result<(), SqlError> {
    if values.len() > cols.len() {
        return Err(bad(format!(
            "{} key values for {} key columns",
            values.len(),
            cols.len()
        )));
    }
    for (c, v) in cols.iter().zip(values) {
        encode_key_value(c, v, out)?;
    }
    Ok(())
}
