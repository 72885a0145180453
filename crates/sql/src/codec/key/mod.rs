//! Memcomparable key encoding: tuples of values → byte strings whose bytewise order is the SQL
//! order of the tuples.
//!
//! Owns: [`KeyColumn`], [`encode_key`], [`KeyDecoder`] / [`decode_key`] and [`prefix_successor`].
//! A primary-key tree key is `encode_key(pk columns)`; a secondary index key is
//! `encode_key(index columns ++ pk columns)`, which makes duplicates distinct.
//!
//! Byte layout of one column (then the next column follows directly; there is no header):
//! * marker: `0x00` NULL (nothing follows), `0x01` not NULL. NULL sorts first.
//! * integers: the type's width (1, 2, 3, 4, 8 bytes) big-endian; signed types store `v - MIN`
//!   (two's complement with the sign bit flipped). YEAR: 1 byte, `0` for year 0 else `year - 1900`.
//! * FLOAT / DOUBLE: IEEE bits big-endian; non-negative: sign bit set; negative: all bits inverted.
//!   `-0.0` is encoded as `0.0`; NaN is rejected.
//! * DECIMAL(p,s): the mantissa at scale `s` as a signed integer of 1 (p<=2), 2 (p<=4), 4 (p<=9),
//!   8 (p<=18), 16 (p<=38) or 32 bytes (p<=65), offset like signed integers (`codec/decimal.rs`).
//! * strings: the collation's sort key (collation.rs: bytes for `binary` and `_bin`, case-folded
//!   UTF-8 for `_ci`, trailing spaces dropped for PAD SPACE) with every `0x00` written as
//!   `0x00 0xFF`, terminated by `0x00 0x01`. This preserves order and is prefix-free: a string that
//!   is a prefix of another ends with `0x00 0x01`, which is below both `0x00 0xFF` and any byte >= 1.
//! * ENUM / SET, key format 1 ([`KeyColumn::members`] `None`): their text, as strings (so they
//!   order by text and do not decode under a case-insensitive collation). Key format 2: the
//!   ENUM member number (0 = the error value `''`) or the SET bitmask (member_codes.rs),
//!   unsigned big-endian in the row codec's width (ENUM 1 byte up to 255 members, else 2; SET
//!   one byte per 8 members): MariaDB's order, and it decodes back to the text.
//! * BIT: 8 bytes big-endian.
//! * prefix columns (`KEY (c(n))`, [`KeyColumn::prefix`]): the same encoding of the value's first
//!   n characters (text; bytes for binary types). Truncation keeps order non-strictly
//!   (`a <= b` implies `key(a) <= key(b)`), so range bounds on such a column must be inclusive and
//!   every row read re-checked; the key does not decode (`None`).
//! * DATE: `Date::packed` in 3 bytes; DATETIME/TIMESTAMP: `DateTime::packed_for_fsp` (5 bytes of
//!   packed seconds for fsp 0, else 8 bytes of packed microseconds); TIME: `micros + 2^47` in 6 bytes.
//! * DESC columns: every byte of the column's encoding (marker included) is inverted, which reverses
//!   the order because each column's encoding is prefix-free. NULLs then sort last, as in MySQL.
//!
//! Invariant (tested by property tests): for values already coerced to the column types,
//! `encode(a).cmp(encode(b)) == ` tuple comparison with [`crate::types::value::cmp_nulls_first`]
//! under each column's collation (ENUM/SET of format 2: member number / bitmask order). Every
//! column type decodes back except prefix parts and character columns whose collation is
//! case-insensitive or PAD SPACE (ENUM/SET of format 1 included): their keys hold sort keys, not
//! the text; the row holds the original (and, in key format 2, the index entry's value:
//! engine/index_entry.rs). Decoding such a column skips it (`None`).

use std::sync::Arc;

use crate::codec::decimal;
use crate::error::sql_error::SqlError;
use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::wide_int::WideInt;
use crate::types::{Column, SqlType};

const NULL_MARK: u8 = 0x00;
const VALUE_MARK: u8 = 0x01;
const TIME_OFFSET: i64 = 1 << 47;

/// How one key column is encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyColumn {
    pub sql_type: SqlType,
    pub collation: Collation,
    pub descending: bool,
    /// Index prefix length (`KEY (c(10))`): only the first n characters (text) or bytes
    /// (binary) of the value are encoded. Such a key holds a prefix, so it is not reversible and
    /// equal keys do not mean equal values.
    pub prefix: Option<u32>,
    /// Set for an ENUM or SET column keyed by member number / bitmask (key format 2, see
    /// catalog.rs): the column's members. `None`: ENUM and SET are keyed by their text
    /// (key format 1).
    pub members: Option<Arc<[String]>>,
}

impl KeyColumn {
    /// An ascending key column with the column's type and collation.
    pub fn from_column(c: &Column) -> KeyColumn {
        KeyColumn {
            sql_type: c.sql_type,
            collation: c.collation,
            descending: false,
            prefix: None,
            members: None,
        }
    }
    /// The same column keyed on its first `n` characters (bytes for binary types).
    pub fn with_prefix(self, n: Option<u32>) -> KeyColumn {
        KeyColumn { prefix: n, ..self }
    }
    /// An ENUM or SET column keyed by member number / bitmask (key format 2); other types are
    /// returned unchanged.
    pub fn by_member_code(self, members: &Arc<[String]>) -> KeyColumn {
        if !self.sql_type.has_members() {
            return self;
        }
        KeyColumn {
            members: Some(members.clone()),
            ..self
        }
    }
    /// True if [`KeyDecoder::next`] returns this column's value (not a sort key or a prefix).
    pub fn is_reversible(&self) -> bool {
        self.prefix.is_none()
            && (self.members.is_some()
                || !self.sql_type.is_text()
                || self.collation.key_is_reversible())
    }
    /// True if the key orders the column's values as ORDER BY does: not a prefix, and not an
    /// ENUM or SET keyed by its text (ORDER BY sorts them by member number / bitmask).
    pub fn orders_as_sql(&self) -> bool {
        self.prefix.is_none() && (self.members.is_some() || !self.sql_type.has_members())
    }
}

fn bad(what: impl Into<String>) -> SqlError {
    SqlError::Internal(what.into())
}

pub use crate::codec::decimal::{decimal_mantissa, decimal_width};

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
                1901..=2155 => (y - 1900) as u8,
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
            let bits = if f == 0.0 { 0 } else { f.to_bits() };
            let k = if bits >> 31 == 1 {
                !bits
            } else {
                bits | 1 << 31
            };
            out.extend_from_slice(&k.to_be_bytes());
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
            let bits = if f == 0.0 { 0 } else { f.to_bits() };
            let k = if bits >> 63 == 1 {
                !bits
            } else {
                bits | 1 << 63
            };
            out.extend_from_slice(&k.to_be_bytes());
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

/// The smallest byte string greater than every string that starts with `prefix`, i.e. the exclusive
/// upper bound of a prefix scan. `None` when there is none (empty prefix or all `0xFF`): scan to
/// the end.
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut out = prefix[..=last].to_vec();
    out[last] += 1;
    Some(out)
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IntWidth;

    fn col(t: SqlType) -> KeyColumn {
        let collation = if t.is_binary() {
            Collation::Binary
        } else {
            Collation::default()
        };
        KeyColumn {
            sql_type: t,
            collation,
            descending: false,
            prefix: None,
            members: None,
        }
    }
    fn enc(c: &KeyColumn, v: Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key_value(c, &v, &mut out).unwrap();
        out
    }

    #[test]
    fn layouts() {
        let int = col(SqlType::Int {
            width: IntWidth::Int,
            unsigned: false,
        });
        assert_eq!(enc(&int, Value::Int(1)), [1, 0x80, 0, 0, 1]);
        assert_eq!(enc(&int, Value::Int(-1)), [1, 0x7F, 0xFF, 0xFF, 0xFF]);
        assert_eq!(enc(&int, Value::Null), [0]);
        let s = col(SqlType::VarBinary { len: 10 });
        assert_eq!(
            enc(&s, Value::Bytes(b"a\0b".to_vec())),
            [1, b'a', 0, 0xFF, b'b', 0, 1]
        );
        let t = col(SqlType::VarChar { len: 10 });
        assert_eq!(enc(&t, Value::Text("Ab  ".into())), [1, b'A', b'B', 0, 1]);
        let d = col(SqlType::DOUBLE);
        assert_eq!(enc(&d, Value::Double(-0.0)), enc(&d, Value::Double(0.0)));
        assert!(enc(&d, Value::Double(-1.0)) < enc(&d, Value::Double(-0.5)));
        let mut out = Vec::new();
        assert!(encode_key_value(&d, &Value::Double(f64::NAN), &mut out).is_err());
        let tiny = col(SqlType::Int {
            width: IntWidth::Tiny,
            unsigned: false,
        });
        assert!(encode_key_value(&tiny, &Value::Int(300), &mut out).is_err());
    }

    #[test]
    fn desc_and_prefixes() {
        let mut c = col(SqlType::Int {
            width: IntWidth::Small,
            unsigned: true,
        });
        c.descending = true;
        assert!(enc(&c, Value::UInt(5)) > enc(&c, Value::UInt(6)));
        assert!(enc(&c, Value::Null) > enc(&c, Value::UInt(6)));
        assert_eq!(
            decode_key(std::slice::from_ref(&c), &enc(&c, Value::UInt(5))).unwrap(),
            vec![Some(Value::UInt(5))]
        );
        assert_eq!(prefix_successor(&[1, 2, 0xFF]), Some(vec![1, 3]));
        assert_eq!(prefix_successor(&[0xFF, 0xFF]), None);
        assert_eq!(prefix_successor(&[]), None);
    }

    #[test]
    fn members_keyed_by_number_order_and_decode() {
        let members: Arc<[String]> = ["b", "a", "c"].iter().map(|s| s.to_string()).collect();
        let e = col(SqlType::Enum { count: 3 }).by_member_code(&members);
        assert!(e.is_reversible() && e.orders_as_sql());
        assert_eq!(enc(&e, Value::Text("a".into())), [1, 2]);
        assert!(enc(&e, Value::Text("b".into())) < enc(&e, Value::Text("a".into())));
        assert!(encode_key_value(&e, &Value::Text("x".into()), &mut Vec::new()).is_err());
        let s = col(SqlType::Set { count: 3 }).by_member_code(&members);
        let k = enc(&s, Value::Text("b,c".into()));
        assert_eq!(k, [1, 5]);
        assert_eq!(
            decode_key(std::slice::from_ref(&s), &k).unwrap(),
            vec![Some(Value::Text("b,c".into()))]
        );
        assert!(decode_key(std::slice::from_ref(&s), &[1, 8]).is_err());
        let text = col(SqlType::Set { count: 3 });
        assert!(!text.is_reversible() && !text.orders_as_sql());
    }

    #[test]
    fn decode_round_trip_and_skip() {
        let cols = [
            col(SqlType::VarChar { len: 5 }),
            col(SqlType::decimal(10, 2)),
            col(SqlType::DateTime { fsp: 0 }),
            col(SqlType::Time { fsp: 6 }),
        ];
        let vals = [
            Value::Text("hi".into()),
            Value::Decimal(Decimal::new(-12345, 2).unwrap()),
            Value::DateTime(DateTime::parse("2024-01-02 03:04:05").unwrap()),
            Value::Time(Time::parse("-12:00:00.5").unwrap()),
        ];
        let mut key = Vec::new();
        encode_key(&cols, &vals, &mut key).unwrap();
        let got = decode_key(&cols, &key).unwrap();
        assert_eq!(got[0], None);
        assert_eq!(
            got[1..]
                .iter()
                .map(|v| v.clone().unwrap())
                .collect::<Vec<_>>(),
            vals[1..]
        );
        assert!(decode_key(&cols, &key[..key.len() - 1]).is_err());
        let mut longer = key.clone();
        longer.push(0);
        assert!(decode_key(&cols, &longer).is_err());
    }
}
