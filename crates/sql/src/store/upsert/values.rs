//! Values in an upsert argument (the literals of its expressions): a tag byte, then the value.
//!
//! Invariant: tags are never renumbered (tag 11, a DECIMAL beyond i128, came after 10).

use super::wire::{put_varint, Rd};
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;

/// Appends `v` with its tag.
pub(super) fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend(i.to_le_bytes())
        }
        Value::UInt(u) => {
            out.push(2);
            out.extend(u.to_le_bytes())
        }
        Value::Float(f) => {
            out.push(3);
            out.extend(f.to_le_bytes())
        }
        Value::Double(f) => {
            out.push(4);
            out.extend(f.to_le_bytes())
        }
        Value::Decimal(d) => match d.small_mantissa() {
            Some(m) => {
                out.push(5);
                out.extend(m.to_le_bytes());
                out.push(d.scale())
            }
            None => {
                out.push(11);
                // at most 77 digits: always fits 32 bytes
                let bytes = d
                    .wide_mantissa()
                    .to_le_bytes(32)
                    .unwrap_or_else(|| vec![0; 32]);
                out.extend(bytes);
                out.push(d.scale())
            }
        },
        Value::Text(s) => {
            out.push(6);
            put_varint(out, s.len() as u64);
            out.extend(s.as_bytes())
        }
        Value::Bytes(b) => {
            out.push(7);
            put_varint(out, b.len() as u64);
            out.extend(b)
        }
        Value::Date(d) => {
            out.push(8);
            out.extend(d.packed().to_le_bytes())
        }
        Value::DateTime(d) => {
            out.push(9);
            out.extend(d.packed().to_le_bytes())
        }
        Value::Time(t) => {
            out.push(10);
            out.extend(t.micros.to_le_bytes())
        }
    }
}

/// Reads a value written by [`put_value`].
pub(super) fn read_value(r: &mut Rd<'_>) -> Option<Value> {
    Some(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(i64::from_le_bytes(r.arr()?)),
        2 => Value::UInt(u64::from_le_bytes(r.arr()?)),
        3 => Value::Float(f32::from_le_bytes(r.arr()?)),
        4 => Value::Double(f64::from_le_bytes(r.arr()?)),
        5 => {
            let m = i128::from_le_bytes(r.arr()?);
            Value::Decimal(Decimal::new(m, r.u8()?)?)
        }
        11 => {
            let m = crate::types::wide_int::WideInt::from_le_bytes(r.take(32)?);
            Value::Decimal(Decimal::from_wide(m, r.u8()?)?)
        }
        6 => {
            let n = r.varint()? as usize;
            Value::Text(String::from_utf8(r.take(n)?.to_vec()).ok()?)
        }
        7 => {
            let n = r.varint()? as usize;
            Value::Bytes(r.take(n)?.to_vec())
        }
        8 => Value::Date(Date::from_packed(u32::from_le_bytes(r.arr()?))?),
        9 => Value::DateTime(DateTime::from_packed(u64::from_le_bytes(r.arr()?))?),
        10 => Value::Time(Time::from_micros(i64::from_le_bytes(r.arr()?))?),
        _ => return None,
    })
}
