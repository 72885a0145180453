//! Key decoding: [`KeyDecoder`] reads one column at a time, [`decode_key`] a whole key.
//!
//! Invariants: every byte is checked (markers, escapes, widths, calendar validity, decimal
//! range, ENUM/SET members) and a violation is [`SqlError::CorruptKey`]; a column whose key is
//! not reversible ([`KeyColumn::is_reversible`]) is validated, skipped and read as `None`.

use super::{decimal_width, KeyColumn, NULL_MARK, TIME_OFFSET, VALUE_MARK};
use crate::codec::decimal;
use crate::error::sql_error::SqlError;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::wide_int::WideInt;
use crate::types::SqlType;

/// Reads key columns one at a time.
pub struct KeyDecoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn corrupt(what: &str, pos: usize) -> SqlError {
    SqlError::CorruptKey(format!("{what} at byte {pos}"))
}

impl<'a> KeyDecoder<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        KeyDecoder { buf, pos: 0 }
    }
    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    fn byte(&mut self, flip: u8) -> Result<u8, SqlError> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| corrupt("truncated key", self.pos))?;
        self.pos += 1;
        Ok(b ^ flip)
    }
    fn be(&mut self, width: usize, flip: u8) -> Result<u128, SqlError> {
        let end = self.pos.checked_add(width).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| corrupt("truncated key", self.pos))?;
        let mut v: u128 = 0;
        for &b in &self.buf[self.pos..end] {
            v = v << 8 | (b ^ flip) as u128;
        }
        self.pos = end;
        Ok(v)
    }
    fn signed(&mut self, width: usize, flip: u8) -> Result<i128, SqlError> {
        let bias = 1i128.checked_shl(width as u32 * 8 - 1).unwrap_or(i128::MIN);
        Ok((self.be(width, flip)? as i128).wrapping_sub(bias))
    }
    fn unescape(&mut self, flip: u8) -> Result<Vec<u8>, SqlError> {
        let mut out = Vec::new();
        loop {
            let b = self.byte(flip)?;
            if b != 0 {
                out.push(b);
                continue;
            }
            match self.byte(flip)? {
                0xFF => out.push(0),
                0x01 => return Ok(out),
                _ => return Err(corrupt("bad string escape", self.pos - 1)),
            }
        }
    }

    /// The ENUM/SET value of member number / bitmask `n` of a format-2 key column.
    fn member(&self, col: &KeyColumn, n: u64, at: usize) -> Result<Value, SqlError> {
        let members = col.members.as_deref().unwrap_or(&[]);
        crate::types::member_codes::member_text(col.sql_type, members, n)
            .map(Value::Text)
            .ok_or_else(|| corrupt("ENUM/SET member past the last member", at))
    }

    /// Decodes the next column: `Some(value)`, or `None` for a column whose key is not reversible
    /// (its bytes are validated and skipped).
    pub fn next(&mut self, col: &KeyColumn) -> Result<Option<Value>, SqlError> {
        let flip = if col.descending { 0xFF } else { 0x00 };
        let at = self.pos;
        match self.byte(flip)? {
            NULL_MARK => return Ok(Some(Value::Null)),
            VALUE_MARK => {}
            _ => return Err(corrupt("bad NULL marker", at)),
        }
        let v = match col.sql_type {
            SqlType::Int { width, unsigned } => {
                let w = width.bytes();
                if unsigned {
                    Value::UInt(self.be(w, flip)? as u64)
                } else {
                    Value::Int(self.signed(w, flip)? as i64)
                }
            }
            SqlType::Year => match self.byte(flip)? {
                0 => Value::UInt(0),
                b => Value::UInt(1900 + b as u64),
            },
            SqlType::Float { .. } => {
                let k = self.be(4, flip)? as u32;
                let bits = if k >> 31 == 1 { k & !(1 << 31) } else { !k };
                let f = f32::from_bits(bits);
                if f.is_nan() {
                    return Err(corrupt("NaN in key", at));
                }
                Value::Float(f)
            }
            SqlType::Double { .. } => {
                let k = self.be(8, flip)? as u64;
                let bits = if k >> 63 == 1 { k & !(1 << 63) } else { !k };
                let f = f64::from_bits(bits);
                if f.is_nan() {
                    return Err(corrupt("NaN in key", at));
                }
                Value::Double(f)
            }
            SqlType::Decimal {
                precision, scale, ..
            } => {
                let width = decimal_width(precision);
                let m = if width <= 16 {
                    WideInt::from_i128(self.signed(width, flip)?)
                } else {
                    let b: Vec<u8> = (0..width)
                        .map(|_| self.byte(flip))
                        .collect::<Result<_, _>>()?;
                    decimal::from_key_bytes(&b)
                };
                if !decimal::within_precision(&m, precision) {
                    return Err(corrupt("decimal out of range", at));
                }
                Value::Decimal(
                    Decimal::from_wide(m, scale).ok_or_else(|| corrupt("bad decimal scale", at))?,
                )
            }
            SqlType::Enum { count } if col.members.is_some() => {
                let n = self.be(crate::codec::row::enum_width(count), flip)? as u64;
                self.member(col, n, at)?
            }
            SqlType::Set { count } if col.members.is_some() => {
                let n = self.be(crate::codec::row::set_width(count), flip)? as u64;
                self.member(col, n, at)?
            }
            SqlType::Char { .. }
            | SqlType::VarChar { .. }
            | SqlType::Text(_)
            | SqlType::Enum { .. }
            | SqlType::Set { .. } => {
                let b = self.unescape(flip)?;
                if !col.is_reversible() {
                    return Ok(None);
                }
                Value::Text(String::from_utf8(b).map_err(|_| corrupt("invalid UTF-8", at))?)
            }
            SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_) => {
                let b = self.unescape(flip)?;
                if !col.is_reversible() {
                    return Ok(None);
                }
                Value::Bytes(b)
            }
            SqlType::Date => {
                let p = self.be(3, flip)? as u32;
                Value::Date(Date::from_packed(p).ok_or_else(|| corrupt("invalid date", at))?)
            }
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => {
                let w = if fsp == 0 { 5 } else { 8 };
                let p = self.be(w, flip)? as u64;
                Value::DateTime(
                    DateTime::from_packed_for_fsp(p, fsp)
                        .ok_or_else(|| corrupt("invalid datetime", at))?,
                )
            }
            SqlType::Time { .. } => {
                let micros = self.be(6, flip)? as i64 - TIME_OFFSET;
                Value::Time(Time::from_micros(micros).ok_or_else(|| corrupt("invalid time", at))?)
            }
            SqlType::Bit { .. } => Value::UInt(self.be(8, flip)? as u64),
        };
        Ok(Some(v))
    }
}

/// Decodes a whole key of `cols` (no bytes may remain). Non-reversible columns yield `None`.
pub fn decode_key(cols: &[KeyColumn], key: &[u8]) -> Result<Vec<Option<Value>>, SqlError> {
    let mut d = KeyDecoder::new(key);
    let mut out = Vec::with_capacity(cols.len());
    for c in cols {
        out.push(d.next(c)?);
    }
    if !d.is_at_end() {
        return Err(corrupt("trailing bytes", d.position()));
    }
    Ok(out)
}
