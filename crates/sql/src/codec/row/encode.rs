//! Row encoding ([`encode_row`]): header, NULL bitmap, then each non-NULL slot's value in the
//! layout of mod.rs.
//!
//! Invariant: a value must already be coerced to its column's type; anything else (a wrong
//! variant, an integer out of range, an ENUM/SET text that is no member, a BIT value wider than
//! the column) is an internal error, never silently stored.

use super::{bit_width, enum_width, set_bits, set_width, RowLayout, ROW_FORMAT_V1, TIME_OFFSET};
use crate::codec::key::{decimal_mantissa, decimal_width};
use crate::error::sql_error::SqlError;
use crate::types::temporal::{YEAR_FIRST, YEAR_LAST};
use crate::types::value::Value;
use crate::types::{Column, SqlType};

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_le(out: &mut Vec<u8>, v: u128, width: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..width]);
}

/// Encodes one row under the layout's current schema version; `values` has one value per live
/// column of `layout`, in the table's column order, already coerced to the column types.
pub fn encode_row(layout: &RowLayout, values: &[Value], out: &mut Vec<u8>) -> Result<(), SqlError> {
    let live = layout.order.len();
    if values.len() != live {
        return Err(SqlError::Internal(format!(
            "{} values for {live} columns",
            values.len()
        )));
    }
    let n = layout.slots.len();
    out.push(ROW_FORMAT_V1);
    put_varint(out, layout.schema_version as u64);
    put_varint(out, n as u64);
    let bitmap_at = out.len();
    out.resize(bitmap_at + n.div_ceil(8), 0);
    for (i, slot) in layout.slots.iter().enumerate() {
        let (Some(col), Some(c)) = (&slot.column, layout.col_of[i]) else {
            // a dropped slot: one NULL bit (INS2)
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        };
        let v = &values[c];
        if v.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(col, v, out)?;
    }
    Ok(())
}

/// One non-NULL value in a slot's bytes (as [`encode_row`] writes it; also a slot's absent value in
/// the catalog's layout text, stored.rs).
pub(super) fn encode_value(col: &Column, v: &Value, out: &mut Vec<u8>) -> Result<(), SqlError> {
    let mismatch = || {
        SqlError::Internal(format!(
            "column '{}' ({}) cannot hold {v:?}",
            col.name,
            col.sql_type.sql_name()
        ))
    };
    let int = || match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        _ => None,
    };
    match col.sql_type {
        SqlType::Int { width, unsigned } => {
            let n = int().ok_or_else(mismatch)?;
            let ok = if unsigned {
                n >= 0 && n <= width.unsigned_max() as i128
            } else {
                let (lo, hi) = width.signed_range();
                n >= lo as i128 && n <= hi as i128
            };
            if !ok {
                return Err(mismatch());
            }
            put_le(out, n as u128, width.bytes());
        }
        SqlType::Year => match int() {
            Some(0) => out.push(0),
            Some(y) if (i128::from(YEAR_FIRST)..=i128::from(YEAR_LAST)).contains(&y) => {
                out.push((y - 1900) as u8)
            }
            _ => return Err(mismatch()),
        },
        SqlType::Float { .. } => match v {
            Value::Float(f) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
            _ => return Err(mismatch()),
        },
        SqlType::Double { .. } => match v {
            Value::Double(f) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
            _ => return Err(mismatch()),
        },
        SqlType::Decimal {
            precision, scale, ..
        } => {
            let d = match v {
                Value::Decimal(d) => *d,
                _ => return Err(mismatch()),
            };
            let m = decimal_mantissa(d, precision, scale).ok_or_else(mismatch)?;
            let bytes = crate::codec::decimal::row_bytes(&m, decimal_width(precision));
            out.extend_from_slice(&bytes.ok_or_else(mismatch)?);
        }
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text(_) => match v {
            Value::Text(s) => {
                put_varint(out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
            _ => return Err(mismatch()),
        },
        SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_) => {
            let b = v.str_bytes().ok_or_else(mismatch)?;
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        SqlType::Date => match v {
            Value::Date(d) => put_le(out, d.packed() as u128, 3),
            _ => return Err(mismatch()),
        },
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => match v {
            Value::DateTime(dt) => {
                let (p, w) = dt.packed_for_fsp(fsp).ok_or_else(mismatch)?;
                put_le(out, p as u128, w);
            }
            _ => return Err(mismatch()),
        },
        SqlType::Time { .. } => match v {
            Value::Time(t) => put_le(out, (t.micros + TIME_OFFSET) as u128, 6),
            _ => return Err(mismatch()),
        },
        SqlType::Enum { count } => match v {
            Value::Text(s) => {
                let i = col.member_index(s);
                if i == 0 && !s.is_empty() {
                    return Err(mismatch());
                }
                put_le(out, i as u128, enum_width(count));
            }
            _ => return Err(mismatch()),
        },
        SqlType::Set { count } => match v {
            Value::Text(s) => {
                let bits = set_bits(col, s).ok_or_else(mismatch)?;
                put_le(out, bits as u128, set_width(count));
            }
            _ => return Err(mismatch()),
        },
        SqlType::Bit { len } => match v {
            Value::UInt(u) if len >= 64 || *u >> len == 0 => {
                put_le(out, *u as u128, bit_width(len))
            }
            _ => return Err(mismatch()),
        },
    }
    Ok(())
}
