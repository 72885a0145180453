//! Row decoding ([`decode_row`], [`decode_row_header`]): every byte is validated against the
//! layout (mod.rs) and a violation is [`SqlError::CorruptRow`], never a panic or a read out of
//! bounds.

use super::{
    bit_width, enum_width, set_text, set_width, RowHeader, RowLayout, ROW_FORMAT_V1, TIME_OFFSET,
};
use betula_storage::FieldKind;

use crate::codec::key::decimal_width;
use crate::error::sql_error::SqlError;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::{Column, SqlType};

/// Bounds-checked reader over row bytes.
pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
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

/// Decodes a row of any schema version the layout knows into one value per live column of
/// `layout`, in the table's column order (INS1). Slots the row does not have (added after it was
/// written) read as their absent value (INS3); dropped slots are skipped (INS2).
pub fn decode_row(layout: &RowLayout, bytes: &[u8]) -> Result<Vec<Value>, SqlError> {
    decode_row_needed(layout, bytes, &[])
}

/// [`decode_row`] for a reader of some columns: a column whose `needed` flag (by table column
/// position) is false reads as NULL and its bytes are only stepped over (bounds still checked);
/// an empty `needed` decodes every column.
pub fn decode_row_needed(
    layout: &RowLayout,
    bytes: &[u8],
    needed: &[bool],
) -> Result<Vec<Value>, SqlError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let h = read_header(&mut r)?;
    let Some(kinds) = layout.kinds_of(h.schema_version) else {
        return Err(corrupt(
            &format!(
                "row of schema version {}, newer than the table's {}",
                h.schema_version, layout.schema_version
            ),
            1,
        ));
    };
    let n = h.column_count as usize;
    let max = kinds.map_or(layout.slots.len(), <[FieldKind]>::len);
    if n > max {
        return Err(corrupt(
            &format!("row has {n} columns, schema has {max}"),
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
    let mut out = vec![Value::Null; layout.order.len()];
    for (i, slot) in layout.slots.iter().enumerate() {
        let v = if i >= n {
            match &slot.column {
                Some(c) => slot.absent.clone().unwrap_or_else(|| c.default_value()),
                None => continue,
            }
        } else if bitmap[i / 8] >> (i % 8) & 1 == 1 {
            continue;
        } else {
            let kind = kinds.map_or(slot.kind, |k| k[i]);
            let unread = layout.col_of[i].is_some_and(|at| needed.get(at) == Some(&false));
            match &slot.column {
                None => {
                    skip(kind, &mut r)?;
                    continue;
                }
                Some(_) if unread => {
                    skip(kind, &mut r)?;
                    continue;
                }
                Some(c) if kind == slot.kind => decode_value(c, &mut r)?,
                Some(c) => decode_widened(c, kind, &mut r)?,
            }
        };
        if let Some(at) = layout.col_of[i] {
            out[at] = v;
        }
    }
    if r.pos != bytes.len() {
        return Err(corrupt("trailing bytes", r.pos));
    }
    Ok(out)
}

/// Skips the bytes of a slot of kind `kind` (dropped, or of a column the reader does not need).
fn skip(kind: FieldKind, r: &mut Reader<'_>) -> Result<(), SqlError> {
    let at = r.pos;
    let width = match kind {
        FieldKind::IntLe { bytes, .. } => bytes as usize,
        FieldKind::F32Le => 4,
        FieldKind::F64Le => 8,
        FieldKind::Fixed { bytes } => bytes as usize,
        FieldKind::VarBytes => {
            let len = r.varint(10)?;
            usize::try_from(len).map_err(|_| corrupt("length overflow", at))?
        }
        _ => return Err(corrupt(&format!("no row slot is of kind {kind:?}"), at)),
    };
    r.take(width)?;
    Ok(())
}

/// A slot stored by an older version as a narrower integer of the same signedness than its
/// column now is (file-format.md §9); any other difference of kinds is damage.
fn decode_widened(col: &Column, kind: FieldKind, r: &mut Reader<'_>) -> Result<Value, SqlError> {
    match (col.sql_type, kind) {
        (SqlType::Int { width, unsigned }, FieldKind::IntLe { bytes, signed })
            if signed != unsigned && (bytes as usize) < width.bytes() && bytes >= 1 =>
        {
            let n = bytes as usize;
            Ok(if unsigned {
                Value::UInt(r.le(n)? as u64)
            } else {
                Value::Int(r.le_signed(n)? as i64)
            })
        }
        _ => Err(corrupt(
            &format!(
                "slot stored as {kind:?} cannot be read as {}",
                col.sql_type.sql_name()
            ),
            r.pos,
        )),
    }
}

pub(super) fn decode_value(col: &Column, r: &mut Reader<'_>) -> Result<Value, SqlError> {
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
