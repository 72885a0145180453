//! Row values stored in a table's primary tree (and in clustering indexes).
//!
//! Owns: [`RowLayout`] (the append-only list of physical column slots of a table), [`encode_row`],
//! [`decode_row`] and [`RowHeader`].
//!
//! Byte layout (format version 1, all integers little-endian):
//! ```text
//! u8       format version (1)
//! varint   schema version the row was written under (LEB128, at most 5 bytes)
//! varint   n = number of slots written (LEB128, at most 5 bytes)
//! bitmap   ceil(n/8) bytes; bit i (byte i/8, bit i%8, LSB first) set = slot i is NULL;
//!          bits >= n are zero
//! values   for each non-NULL slot in slot order:
//!            TINYINT..BIGINT 1/2/3/4/8 bytes (two's complement, or unsigned)
//!            YEAR 1 byte (0, or year - 1900)    FLOAT 4 bytes   DOUBLE 8 bytes (IEEE bits)
//!            DECIMAL(p,s) mantissa at scale s in 1/2/4/8/16/32 bytes (p <= 2/4/9/18/38/65)
//!            DATE 3 bytes (Date::packed)        TIME 6 bytes (micros + 2^47)
//!            DATETIME/TIMESTAMP DateTime::packed_for_fsp: 5 bytes (fsp 0) or 8 bytes
//!            strings and binary: varint byte length, then the bytes (text is UTF-8)
//!            ENUM the member's index (1-based; 0 = the error value '') in 1 byte (<= 255
//!              members) or 2        SET the members' bitmask (bit i = member i+1) in ceil(n/8)
//!              bytes        BIT(M) the value in ceil(M/8) bytes
//! ```
//!
//! Schema evolution without rewriting rows: slots are append-only and keep their type forever.
//! Instant ADD COLUMN appends a slot; rows written earlier have fewer slots (`n` smaller) and read
//! the new column as its default ([`crate::types::Column::default_value`]). DROP COLUMN marks the
//! slot dropped: its bytes in old rows are skipped, new rows write it as NULL (one bitmap bit).
//! Changing a column's type needs a new slot (a rewrite), not covered here.
//!
//! Invariants: decoding validates everything (version, varint lengths, slot count against the
//! layout, bitmap padding bits, every fixed width and length prefix against the remaining bytes,
//! UTF-8 of text, ENUM indexes and SET/BIT bits within the column, calendar validity of temporal values, decimal precision, no trailing bytes) and
//! returns [`SqlError::CorruptRow`] on any violation; it never panics or reads out of bounds.
//! A time-series row (DATETIME, INT, six DOUBLEs) takes 4 + 5 + 4 + 48 = 61 bytes.

use crate::codec::key::{decimal_mantissa, decimal_width};
use crate::error::sql_error::SqlError;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::{Column, SqlType};

pub const ROW_FORMAT_V1: u8 = 1;
const TIME_OFFSET: i64 = 1 << 47;

/// One physical slot of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSlot {
    pub column: Column,
    pub dropped: bool,
}

/// The physical slots of a table, in the order rows store them.
#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    pub schema_version: u32,
    slots: Vec<RowSlot>,
}

impl RowLayout {
    pub fn new(schema_version: u32, columns: Vec<Column>) -> RowLayout {
        RowLayout {
            schema_version,
            slots: columns
                .into_iter()
                .map(|column| RowSlot {
                    column,
                    dropped: false,
                })
                .collect(),
        }
    }
    pub fn slots(&self) -> &[RowSlot] {
        &self.slots
    }
    /// The live columns, in slot order (the order [`encode_row`] takes and [`decode_row`] returns).
    pub fn live_columns(&self) -> impl Iterator<Item = &Column> {
        self.slots.iter().filter(|s| !s.dropped).map(|s| &s.column)
    }
    /// Instant ADD COLUMN: appends a slot and bumps the schema version.
    pub fn add_column(&mut self, column: Column) {
        self.slots.push(RowSlot {
            column,
            dropped: false,
        });
        self.schema_version += 1;
    }
    /// Instant DROP COLUMN by column id; `false` if no live column has that id.
    pub fn drop_column(&mut self, column_id: u32) -> bool {
        match self
            .slots
            .iter_mut()
            .find(|s| s.column.id == column_id && !s.dropped)
        {
            Some(s) => {
                s.dropped = true;
                self.schema_version += 1;
                true
            }
            None => false,
        }
    }
}

/// The fixed part of an encoded row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowHeader {
    pub format: u8,
    pub schema_version: u32,
    pub column_count: u32,
}

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

/// Encodes one row; `values` has one value per live column of `layout`, in slot order, already
/// coerced to the column types.
pub fn encode_row(layout: &RowLayout, values: &[Value], out: &mut Vec<u8>) -> Result<(), SqlError> {
    let live = layout.live_columns().count();
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
    let mut vals = values.iter();
    for (i, slot) in layout.slots.iter().enumerate() {
        let v = if slot.dropped {
            &Value::Null
        } else {
            vals.next().unwrap_or(&Value::Null)
        };
        if v.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(&slot.column, v, out)?;
    }
    Ok(())
}

fn encode_value(col: &Column, v: &Value, out: &mut Vec<u8>) -> Result<(), SqlError> {
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
            Some(y @ 1901..=2155) => out.push((y - 1900) as u8),
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

/// Bytes of an ENUM's member index: 1 for up to 255 members, else 2.
pub fn enum_width(count: u16) -> usize {
    if count <= 255 {
        1
    } else {
        2
    }
}

/// Bytes of a SET's bitmask: one per 8 members.
pub fn set_width(count: u8) -> usize {
    (count as usize).div_ceil(8).max(1)
}

/// Bytes of a BIT(M) value: (M+7)/8.
pub fn bit_width(len: u8) -> usize {
    (len as usize).div_ceil(8).max(1)
}

/// The bitmask of SET value `s` (members joined by `,`); `None` if a part is not a member.
pub fn set_bits(col: &Column, s: &str) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    let mut bits = 0u64;
    for part in s.split(',') {
        let i = col.member_index(part);
        if i == 0 {
            return None;
        }
        bits |= 1 << (i - 1);
    }
    Some(bits)
}

/// The SET value of bitmask `bits`: the members whose bit is set, joined by `,`.
pub fn set_text(col: &Column, bits: u64) -> String {
    let mut out = String::new();
    for (i, m) in col.members.iter().enumerate().take(64) {
        if bits >> i & 1 == 1 {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(m);
        }
    }
    out
}

/// Bounds-checked reader over row bytes.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn corrupt(what: &str, pos: usize) -> SqlError {
    SqlError::CorruptRow(format!("{what} at byte {pos}"))
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], SqlError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| corrupt("truncated row", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn le(&mut self, n: usize) -> Result<u128, SqlError> {
        let mut b = [0u8; 16];
        b[..n].copy_from_slice(self.take(n)?);
        Ok(u128::from_le_bytes(b))
    }
    /// Sign-extends an `n`-byte two's complement value.
    fn le_signed(&mut self, n: usize) -> Result<i128, SqlError> {
        let v = self.le(n)?;
        let shift = 128 - 8 * n as u32;
        Ok(((v << shift) as i128) >> shift)
    }
    fn varint(&mut self, max_bytes: usize) -> Result<u64, SqlError> {
        let at = self.pos;
        let mut v: u64 = 0;
        for i in 0..max_bytes {
            let b = self.take(1)?[0];
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(corrupt("varint too long", at))
    }
}

fn read_header(r: &mut Reader<'_>) -> Result<RowHeader, SqlError> {
    let format = r.take(1)?[0];
    if format != ROW_FORMAT_V1 {
        return Err(corrupt(&format!("unknown row format {format}"), 0));
    }
    let schema_version =
        u32::try_from(r.varint(5)?).map_err(|_| corrupt("schema version overflow", 1))?;
    let column_count =
        u32::try_from(r.varint(5)?).map_err(|_| corrupt("column count overflow", 1))?;
    Ok(RowHeader {
        format,
        schema_version,
        column_count,
    })
}

/// Reads only the header of an encoded row.
pub fn decode_row_header(bytes: &[u8]) -> Result<RowHeader, SqlError> {
    read_header(&mut Reader { buf: bytes, pos: 0 })
}

/// Decodes a row into one value per live column of `layout`, in slot order. Slots the row does not
/// have (added after it was written) read as the column's default.
pub fn decode_row(layout: &RowLayout, bytes: &[u8]) -> Result<Vec<Value>, SqlError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let h = read_header(&mut r)?;
    let n = h.column_count as usize;
    if n > layout.slots.len() {
        return Err(corrupt(
            &format!("row has {n} columns, schema has {}", layout.slots.len()),
            0,
        ));
    }
    let bitmap_at = r.pos;
    let bitmap = r.take(n.div_ceil(8))?;
    if n % 8 != 0 && bitmap[n / 8] >> (n % 8) != 0 {
        return Err(corrupt(
            "bits set past the last column in the null bitmap",
            bitmap_at + n / 8,
        ));
    }
    let mut out = Vec::with_capacity(layout.slots.len());
    for (i, slot) in layout.slots.iter().enumerate() {
        let v = if i >= n {
            slot.column.default_value()
        } else if bitmap[i / 8] >> (i % 8) & 1 == 1 {
            Value::Null
        } else {
            decode_value(&slot.column, &mut r)?
        };
        if !slot.dropped {
            out.push(v);
        }
    }
    if r.pos != bytes.len() {
        return Err(corrupt("trailing bytes", r.pos));
    }
    Ok(out)
}

fn decode_value(col: &Column, r: &mut Reader<'_>) -> Result<Value, SqlError> {
    let at = r.pos;
    let t = &col.sql_type;
    let bytes = |r: &mut Reader<'_>| -> Result<Vec<u8>, SqlError> {
        let len = r.varint(10)?;
        let len = usize::try_from(len).map_err(|_| corrupt("length overflow", at))?;
        Ok(r.take(len)?.to_vec())
    };
    Ok(match *t {
        SqlType::Int {
            width,
            unsigned: true,
        } => Value::UInt(r.le(width.bytes())? as u64),
        SqlType::Int {
            width,
            unsigned: false,
        } => Value::Int(r.le_signed(width.bytes())? as i64),
        SqlType::Year => match r.take(1)?[0] {
            0 => Value::UInt(0),
            b => Value::UInt(1900 + b as u64),
        },
        SqlType::Float { .. } => Value::Float(f32::from_bits(r.le(4)? as u32)),
        SqlType::Double { .. } => Value::Double(f64::from_bits(r.le(8)? as u64)),
        SqlType::Decimal {
            precision, scale, ..
        } => {
            let m = crate::codec::decimal::from_row_bytes(r.take(decimal_width(precision))?);
            if !crate::codec::decimal::within_precision(&m, precision) {
                return Err(corrupt("decimal exceeds its precision", at));
            }
            Value::Decimal(
                Decimal::from_wide(m, scale).ok_or_else(|| corrupt("bad decimal scale", at))?,
            )
        }
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text(_) => {
            Value::Text(String::from_utf8(bytes(r)?).map_err(|_| corrupt("invalid UTF-8", at))?)
        }
        SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_) => {
            Value::Bytes(bytes(r)?)
        }
        SqlType::Date => Value::Date(
            Date::from_packed(r.le(3)? as u32).ok_or_else(|| corrupt("invalid date", at))?,
        ),
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => {
            let p = r.le(if fsp == 0 { 5 } else { 8 })? as u64;
            Value::DateTime(
                DateTime::from_packed_for_fsp(p, fsp)
                    .ok_or_else(|| corrupt("invalid datetime", at))?,
            )
        }
        SqlType::Time { .. } => {
            let micros = r.le(6)? as i64 - TIME_OFFSET;
            Value::Time(Time::from_micros(micros).ok_or_else(|| corrupt("invalid time", at))?)
        }
        SqlType::Enum { count } => match r.le(enum_width(count))? as usize {
            0 => Value::Text(String::new()),
            i => Value::Text(
                col.members
                    .get(i - 1)
                    .cloned()
                    .ok_or_else(|| corrupt("ENUM index past the last member", at))?,
            ),
        },
        SqlType::Set { count } => {
            let bits = r.le(set_width(count))? as u64;
            if count < 64 && bits >> count != 0 {
                return Err(corrupt("SET bits past the last member", at));
            }
            Value::Text(set_text(col, bits))
        }
        SqlType::Bit { len } => {
            let u = r.le(bit_width(len))? as u64;
            if len < 64 && u >> len != 0 {
                return Err(corrupt("BIT value wider than its column", at));
            }
            Value::UInt(u)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IntWidth;

    fn ts_layout() -> RowLayout {
        let mut cols = vec![
            Column::new(1, "ts", SqlType::DateTime { fsp: 0 }).not_null(),
            Column::new(
                2,
                "sensor",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: false,
                },
            )
            .not_null(),
        ];
        for i in 0..6 {
            cols.push(Column::new(3 + i, format!("v{i}"), SqlType::DOUBLE));
        }
        RowLayout::new(1, cols)
    }

    fn ts_row() -> Vec<Value> {
        let mut v = vec![
            Value::DateTime(DateTime::parse("2024-05-06 07:08:09").unwrap()),
            Value::Int(42),
        ];
        v.extend((0..6).map(|i| Value::Double(i as f64 * 1.25)));
        v
    }

    #[test]
    fn time_series_row_is_compact_and_round_trips() {
        let layout = ts_layout();
        let mut buf = Vec::new();
        encode_row(&layout, &ts_row(), &mut buf).unwrap();
        assert_eq!(buf.len(), 61);
        assert_eq!(decode_row(&layout, &buf).unwrap(), ts_row());
        assert_eq!(
            decode_row_header(&buf).unwrap(),
            RowHeader {
                format: 1,
                schema_version: 1,
                column_count: 8
            }
        );
    }

    #[test]
    fn enum_set_and_bit_store_numbers_and_reject_bad_bytes() {
        let m = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let layout = RowLayout::new(
            1,
            vec![
                Column::new(1, "e", SqlType::Enum { count: 3 }).with_members(m(&["a", "b", "c"])),
                Column::new(2, "s", SqlType::Set { count: 9 })
                    .with_members(m(&["1", "2", "3", "4", "5", "6", "7", "8", "9"])),
                Column::new(3, "b", SqlType::Bit { len: 12 }),
            ],
        );
        let row = vec![
            Value::Text("c".into()),
            Value::Text("1,9".into()),
            Value::UInt(4095),
        ];
        let mut buf = Vec::new();
        encode_row(&layout, &row, &mut buf).unwrap();
        // header 4 bytes (version, schema, count, bitmap), ENUM 1, SET 2, BIT 2
        assert_eq!(buf.len(), 4 + 1 + 2 + 2);
        assert_eq!(&buf[4..], &[3, 0x01, 0x01, 0xFF, 0x0F]);
        assert_eq!(decode_row(&layout, &buf).unwrap(), row);
        // the error value '' is index 0
        let mut zero = Vec::new();
        let empty = vec![
            Value::Text(String::new()),
            Value::Text(String::new()),
            Value::UInt(0),
        ];
        encode_row(&layout, &empty, &mut zero).unwrap();
        assert_eq!(decode_row(&layout, &zero).unwrap(), empty);
        // values outside the members or the bits are refused, and so are such bytes
        let mut out = Vec::new();
        assert!(encode_row(
            &layout,
            &[Value::Text("d".into()), Value::Null, Value::Null],
            &mut out
        )
        .is_err());
        assert!(encode_row(
            &layout,
            &[Value::Null, Value::Null, Value::UInt(4096)],
            &mut out
        )
        .is_err());
        for (at, byte) in [(4, 4u8), (6, 0x02), (8, 0x10)] {
            let mut bad = buf.clone();
            bad[at] = byte;
            assert!(
                matches!(decode_row(&layout, &bad), Err(SqlError::CorruptRow(_))),
                "{at}"
            );
        }
    }

    #[test]
    fn add_and_drop_column_without_rewrite() {
        let mut layout = ts_layout();
        let mut old = Vec::new();
        encode_row(&layout, &ts_row(), &mut old).unwrap();
        layout.add_column(
            Column::new(9, "note", SqlType::VarChar { len: 10 })
                .with_default(Value::Text("n/a".into())),
        );
        layout.add_column(Column::new(
            10,
            "flag",
            SqlType::Int {
                width: IntWidth::Tiny,
                unsigned: true,
            },
        ));
        let got = decode_row(&layout, &old).unwrap();
        assert_eq!(got[8..], [Value::Text("n/a".into()), Value::Null]);
        assert!(layout.drop_column(2));
        assert!(!layout.drop_column(2));
        let got = decode_row(&layout, &old).unwrap();
        assert_eq!(got.len(), 9);
        assert_eq!(got[1], Value::Double(0.0));
        // New rows under the new layout still carry the dropped slot as one NULL bit.
        let mut new = Vec::new();
        encode_row(&layout, &got, &mut new).unwrap();
        assert_eq!(decode_row(&layout, &new).unwrap(), got);
        assert_eq!(decode_row_header(&new).unwrap().schema_version, 4);
    }

    #[test]
    fn malformed_rows_are_errors() {
        let layout = ts_layout();
        let mut buf = Vec::new();
        encode_row(&layout, &ts_row(), &mut buf).unwrap();
        for n in 0..buf.len() {
            assert!(
                matches!(decode_row(&layout, &buf[..n]), Err(SqlError::CorruptRow(_))),
                "prefix {n}"
            );
        }
        let mut longer = buf.clone();
        longer.push(0);
        assert!(decode_row(&layout, &longer).is_err());
        let mut bad_version = buf.clone();
        bad_version[0] = 2;
        assert!(decode_row(&layout, &bad_version).is_err());
        let small = RowLayout::new(
            1,
            ts_layout().slots()[..2]
                .iter()
                .map(|s| s.column.clone())
                .collect(),
        );
        assert!(decode_row(&small, &buf).is_err());
        assert!(decode_row(&layout, &[1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]).is_err());
    }

    #[test]
    fn encoder_rejects_wrong_types() {
        let layout = ts_layout();
        let mut row = ts_row();
        row[1] = Value::Text("x".into());
        assert!(encode_row(&layout, &row, &mut Vec::new()).is_err());
        assert!(encode_row(&layout, &row[..3], &mut Vec::new()).is_err());
    }
}
