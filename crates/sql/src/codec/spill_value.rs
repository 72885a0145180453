//! Values as a query sort writes them into its run files (exec/external_sort.rs): a list of
//! [`Value`]s that needs no column types to read back, since the rows of a sort are computed
//! (projections, window keys) rather than a table's. Layout in docs/file-format.md §13.
//!
//! Each value is a tag byte (never renumber) and its payload: integers as 8 bytes little-endian,
//! floats by their bits, a decimal as its scale and its 32-byte two's-complement mantissa, strings
//! as varint-free `u32` length + bytes, temporal values by their fields.
//!
//! Invariants: `decode(encode(v)) == v` for every value, bit for bit (a double's NaN payload and
//! -0.0 included, a decimal's scale kept); malformed bytes are an `InvalidData` error.

use std::io;

use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::wide_int::WideInt;

const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const FLOAT: u8 = 3;
const DOUBLE: u8 = 4;
const DECIMAL: u8 = 5;
const TEXT: u8 = 6;
const BYTES: u8 = 7;
const DATE: u8 = 8;
const DATETIME: u8 = 9;
const TIME: u8 = 10;

/// Bytes of a decimal's mantissa (65 digits need 27; a wide integer has 32).
const DECIMAL_MANTISSA_BYTES: usize = 32;

fn put_date(out: &mut Vec<u8>, d: &Date) {
    out.extend_from_slice(&d.year.to_le_bytes());
    out.push(d.month);
    out.push(d.day);
}

/// Appends `values` to `out`.
pub fn encode(values: &[Value], out: &mut Vec<u8>) {
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values {
        match v {
            Value::Null => out.push(NULL),
            Value::Int(i) => {
                out.push(INT);
                out.extend_from_slice(&i.to_le_bytes());
            }
            Value::UInt(u) => {
                out.push(UINT);
                out.extend_from_slice(&u.to_le_bytes());
            }
            Value::Float(f) => {
                out.push(FLOAT);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            Value::Double(d) => {
                out.push(DOUBLE);
                out.extend_from_slice(&d.to_bits().to_le_bytes());
            }
            Value::Decimal(d) => {
                out.push(DECIMAL);
                out.push(d.scale());
                let m = d.wide_mantissa().to_le_bytes(DECIMAL_MANTISSA_BYTES);
                out.extend_from_slice(&m.unwrap_or_else(|| vec![0; DECIMAL_MANTISSA_BYTES]));
            }
            Value::Text(s) => put_str(out, TEXT, s.as_bytes()),
            Value::Bytes(b) => put_str(out, BYTES, b),
            Value::Date(d) => {
                out.push(DATE);
                put_date(out, d);
            }
            Value::DateTime(dt) => {
                out.push(DATETIME);
                put_date(out, &dt.date);
                out.extend_from_slice(&dt.micros.to_le_bytes());
            }
            Value::Time(t) => {
                out.push(TIME);
                out.extend_from_slice(&t.micros.to_le_bytes());
            }
        }
    }
}

fn put_str(out: &mut Vec<u8>, tag: u8, b: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

fn bad(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("bad sort value: {what}"),
    )
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(bad("truncated"));
        }
        let (h, t) = self.0.split_at(n);
        self.0 = t;
        Ok(h)
    }
    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn date(&mut self) -> io::Result<Date> {
        let year = u16::from_le_bytes(self.array()?);
        Ok(Date {
            year,
            month: self.u8()?,
            day: self.u8()?,
        })
    }
    fn str(&mut self) -> io::Result<&'a [u8]> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        self.take(n)
    }
}

/// Reads the values [`encode`] wrote (the whole of `bytes`).
pub fn decode(bytes: &[u8]) -> io::Result<Vec<Value>> {
    let mut c = Cursor(bytes);
    let n = u32::from_le_bytes(c.array()?) as usize;
    let mut out = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        out.push(match c.u8()? {
            NULL => Value::Null,
            INT => Value::Int(i64::from_le_bytes(c.array()?)),
            UINT => Value::UInt(u64::from_le_bytes(c.array()?)),
            FLOAT => Value::Float(f32::from_bits(u32::from_le_bytes(c.array()?))),
            DOUBLE => Value::Double(f64::from_bits(u64::from_le_bytes(c.array()?))),
            DECIMAL => {
                let scale = c.u8()?;
                let m = WideInt::from_le_bytes(c.take(DECIMAL_MANTISSA_BYTES)?);
                Value::Decimal(Decimal::from_wide(m, scale).ok_or_else(|| bad("decimal"))?)
            }
            TEXT => Value::Text(
                String::from_utf8(c.str()?.to_vec()).map_err(|_| bad("text is not UTF-8"))?,
            ),
            BYTES => Value::Bytes(c.str()?.to_vec()),
            DATE => Value::Date(c.date()?),
            DATETIME => {
                let date = c.date()?;
                let micros = u64::from_le_bytes(c.array()?);
                Value::DateTime(DateTime { date, micros })
            }
            TIME => Value::Time(Time {
                micros: i64::from_le_bytes(c.array()?),
            }),
            _ => return Err(bad("unknown tag")),
        });
    }
    if !c.0.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(out)
}

/// About how many bytes `values` take in memory (their structs and heap parts), for a sort's
/// memory budget.
pub fn memory_bytes(values: &[Value]) -> usize {
    let heap: usize = values
        .iter()
        .map(|v| match v {
            Value::Text(s) => s.capacity(),
            Value::Bytes(b) => b.capacity(),
            _ => 0,
        })
        .sum();
    std::mem::size_of_val(values) + heap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_value_comes_back_as_it_was() {
        let values = vec![
            Value::Null,
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Float(-0.0),
            Value::Double(f64::NAN),
            Value::Double(1.5e300),
            Value::Decimal(Decimal::parse("-12345678901234567890123456789.1200").unwrap()),
            Value::Decimal(Decimal::parse("0.000").unwrap()),
            Value::Text("héllo".into()),
            Value::Bytes(vec![0, 255, 7]),
            Value::Date(Date {
                year: 2024,
                month: 2,
                day: 29,
            }),
            Value::DateTime(DateTime {
                date: Date {
                    year: 1,
                    month: 1,
                    day: 1,
                },
                micros: 86_399_999_999,
            }),
            Value::Time(Time { micros: -3_000_001 }),
        ];
        let mut bytes = Vec::new();
        encode(&values, &mut bytes);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.len(), values.len());
        for (a, b) in values.iter().zip(&back) {
            match (a, b) {
                (Value::Double(x), Value::Double(y)) => assert_eq!(x.to_bits(), y.to_bits()),
                (Value::Float(x), Value::Float(y)) => assert_eq!(x.to_bits(), y.to_bits()),
                (Value::Decimal(x), Value::Decimal(y)) => {
                    assert_eq!((x.to_string(), x.scale()), (y.to_string(), y.scale()))
                }
                _ => assert_eq!(a, b),
            }
        }
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(&[1, 0, 0, 0, 99]).is_err());
    }
}
