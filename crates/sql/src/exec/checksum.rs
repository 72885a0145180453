//! CHECKSUM TABLE: the value MariaDB (and MySQL) compute for the same rows, so a checksum taken
//! on Betula compares with one taken on the server the data came from.
//!
//! MariaDB's `handler::calculate_checksum` sums, over all rows (wrapping at 2^32), a CRC-32 (zlib's
//! polynomial) of the row in its in-memory record format: the null-flag bytes, then each non-NULL
//! column, fixed-size columns in their record bytes and variable-size ones (VARCHAR, TEXT, BLOB,
//! BIT) as their value's bytes. [`row_crc`] rebuilds those bytes from Betula's values:
//!
//! * null bytes: one bit per nullable column in column order, starting at bit 1 unless the table
//!   has a variable-length column (VARCHAR, VARBINARY, TEXT, BLOB; MariaDB's "packed record"),
//!   where they start at bit 0; bit 0 of a non-packed record and the unused high bits of the last
//!   byte are set;
//! * integers little-endian in their width; FLOAT/DOUBLE as IEEE little-endian; DECIMAL in
//!   MariaDB's binary decimal format; DATE in 3 bytes, DATETIME/TIMESTAMP/TIME in MariaDB's
//!   (MySQL 5.6) temporal formats with their fractional bytes; YEAR in 1 byte; ENUM/SET as member
//!   number/bitmask in their pack length; CHAR in the column's character set padded with spaces
//!   to length × bytes-per-character; BINARY padded with 0x00; BIT as its (M+7)/8 bytes.
//!
//! Invariant: the checksum depends only on the rows' values and the column definitions, not on
//! the order rows are read or how they are stored. An empty table's checksum is 0; QUICK gives
//! NULL (Betula keeps no live checksum, as InnoDB).

use std::ops::Bound;

use crate::codec::row::decode_row;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::result::Output;
use crate::types::decimal::Decimal;
use crate::types::member_codes::member_code;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

/// `CHECKSUM TABLE t [, t ...] [QUICK | EXTENDED]`: one row per table.
pub fn run(cx: &mut Context, names: &[Vec<String>], quick: bool) -> DbResult<Output> {
    let mut rows = Vec::new();
    for parts in names {
        let (db, t) = cx.resolve_table_name(parts)?;
        let label = Value::Text(format!("{db}.{t}"));
        let def = match cx.get_table(&db, &t) {
            Ok(def) => def,
            Err(e) => {
                // As MariaDB: a missing table is a NULL row and a warning, not an error.
                cx.warn(e.code, e.message.clone());
                rows.push(vec![label, Value::Null]);
                continue;
            }
        };
        if quick {
            rows.push(vec![label, Value::Null]);
            continue;
        }
        let layout = RecordLayout::of(&def.columns);
        let store = &cx.engine.store;
        // The sum of the rows' checksums does not depend on their order: partitions one by one.
        let mut sum = 0u32;
        for part in def.parts() {
            let tree = def.primary_tree_of(part);
            let mut scan = cx.ws.scan(
                store,
                &tree,
                Bound::Unbounded,
                Bound::Unbounded,
                false,
                None,
            )?;
            while let Some((_, v)) = scan.next_entry()? {
                cx.check_interrupted()?;
                let row = decode_row(&def.layout, &v)?;
                sum = sum.wrapping_add(layout.row_crc(&def.columns, &row));
            }
        }
        rows.push(vec![label, Value::UInt(sum as u64)]);
    }
    Ok(Output::text(&["Table", "Checksum"], rows))
}

/// Where a table's null flags sit in MariaDB's record.
struct RecordLayout {
    /// Null-flag bit of each column (`None`: NOT NULL).
    null_bit: Vec<Option<usize>>,
    null_bytes: usize,
    /// The record is "packed" (has a variable-length column): no reserved bit 0.
    packed: bool,
    /// Bits used in the last null byte (0: the byte is full).
    last_bits: usize,
}

impl RecordLayout {
    fn of(columns: &[Column]) -> RecordLayout {
        let packed = columns.iter().any(|c| {
            matches!(
                c.sql_type,
                SqlType::VarChar { .. }
                    | SqlType::VarBinary { .. }
                    | SqlType::Text(_)
                    | SqlType::Blob(_)
            )
        });
        let mut next = usize::from(!packed);
        let null_bit = columns
            .iter()
            .map(|c| {
                c.nullable.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        RecordLayout {
            null_bit,
            null_bytes: next.div_ceil(8),
            packed,
            last_bits: next % 8,
        }
    }

    /// CRC-32 of one row in MariaDB's record format.
    fn row_crc(&self, columns: &[Column], row: &[Value]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        if self.null_bytes > 0 {
            let mut nulls = vec![0u8; self.null_bytes];
            for (i, bit) in self.null_bit.iter().enumerate() {
                if let (Some(b), Some(Value::Null) | None) = (bit, row.get(i)) {
                    nulls[b / 8] |= 1 << (b % 8);
                }
            }
            if self.last_bits != 0 {
                nulls[self.null_bytes - 1] |= (0xFFu32 << self.last_bits) as u8;
            }
            if !self.packed {
                nulls[0] |= 1;
            }
            h.update(&nulls);
        }
        let mut buf = Vec::new();
        for (col, v) in columns.iter().zip(row) {
            if v.is_null() {
                continue;
            }
            buf.clear();
            record_bytes(col, v, &mut buf);
            h.update(&buf);
        }
        h.finalize()
    }
}

/// The bytes MariaDB checksums for non-NULL value `v` of `col`.
fn record_bytes(col: &Column, v: &Value, out: &mut Vec<u8>) {
    match col.sql_type {
        SqlType::Int { width, .. } => {
            let n = match v {
                Value::Int(i) => *i as u64,
                Value::UInt(u) => *u,
                _ => 0,
            };
            let w = match width {
                IntWidth::Tiny => 1,
                IntWidth::Small => 2,
                IntWidth::Medium => 3,
                IntWidth::Int => 4,
                IntWidth::Big => 8,
            };
            out.extend_from_slice(&n.to_le_bytes()[..w]);
        }
        SqlType::Float { .. } => {
            let f = match v {
                Value::Float(f) => *f,
                Value::Double(d) => *d as f32,
                _ => 0.0,
            };
            out.extend_from_slice(&f.to_le_bytes());
        }
        SqlType::Double { .. } => {
            let d = match v {
                Value::Double(d) => *d,
                Value::Float(f) => *f as f64,
                _ => 0.0,
            };
            out.extend_from_slice(&d.to_le_bytes());
        }
        SqlType::Decimal {
            precision, scale, ..
        } => {
            if let Value::Decimal(d) = v {
                decimal_bin(d, precision, scale, out);
            }
        }
        SqlType::Char { len } => {
            let cs = col.collation.charset();
            if let Value::Text(s) = v {
                out.extend_from_slice(&cs.encode(s));
            }
            let full = (len * cs.max_bytes()) as usize;
            if out.len() < full {
                out.resize(full, b' ');
            }
        }
        SqlType::Binary { len } => {
            if let Some(b) = v.str_bytes() {
                out.extend_from_slice(b);
            }
            if out.len() < len as usize {
                out.resize(len as usize, 0);
            }
        }
        SqlType::VarChar { .. } | SqlType::Text(_) => {
            if let Value::Text(s) = v {
                out.extend_from_slice(&col.collation.charset().encode(s));
            }
        }
        SqlType::VarBinary { .. } | SqlType::Blob(_) => {
            if let Some(b) = v.str_bytes() {
                out.extend_from_slice(b);
            }
        }
        SqlType::Date => {
            if let Value::Date(d) = v {
                out.extend_from_slice(&date_bin(*d).to_le_bytes()[..3]);
            }
        }
        SqlType::DateTime { fsp } => {
            if let Value::DateTime(dt) = v {
                datetime_bin(dt, fsp, out);
            }
        }
        SqlType::Timestamp { fsp } => {
            if let Value::DateTime(dt) = v {
                let micros = dt.unix_micros().unwrap_or(0);
                let secs = micros.div_euclid(1_000_000) as u32;
                out.extend_from_slice(&secs.to_be_bytes());
                frac_bin(micros.rem_euclid(1_000_000), fsp, out);
            }
        }
        SqlType::Time { fsp } => {
            if let Value::Time(t) = v {
                time_bin(*t, fsp, out);
            }
        }
        SqlType::Year => {
            let y = match v {
                Value::UInt(u) => *u,
                Value::Int(i) => *i as u64,
                _ => 0,
            };
            out.push(if y == 0 {
                0
            } else {
                y.saturating_sub(1900) as u8
            });
        }
        SqlType::Enum { count } => {
            let n = text_code(col, v);
            let w = if count < 256 { 1 } else { 2 };
            out.extend_from_slice(&n.to_le_bytes()[..w]);
        }
        SqlType::Set { count } => {
            let n = text_code(col, v);
            let w = match (count as usize).div_ceil(8) {
                w if w > 4 => 8,
                w => w,
            };
            out.extend_from_slice(&n.to_le_bytes()[..w]);
        }
        SqlType::Bit { len } => {
            let n = match v {
                Value::UInt(u) => *u,
                Value::Int(i) => *i as u64,
                _ => 0,
            };
            let w = (len as usize).div_ceil(8);
            out.extend_from_slice(&n.to_be_bytes()[8 - w..]);
        }
    }
}

fn text_code(col: &Column, v: &Value) -> u64 {
    match v {
        Value::Text(s) => member_code(col.sql_type, &col.members, s).unwrap_or(0),
        Value::UInt(u) => *u,
        _ => 0,
    }
}

/// MariaDB's DATE record value: day + month·32 + year·512.
fn date_bin(d: Date) -> u32 {
    d.day as u32 | (d.month as u32) << 5 | (d.year as u32) << 9
}

/// DATETIME(fsp) as MariaDB stores it: 5 bytes big-endian of
/// `((year·13 + month) << 22 | day << 17 | hour << 12 | minute << 6 | second) + 2^39`, then the
/// fraction.
fn datetime_bin(dt: &DateTime, fsp: u8, out: &mut Vec<u8>) {
    let (h, m, s, micro) = dt.hms();
    let ym = dt.date.year as u64 * 13 + dt.date.month as u64;
    let ymd = ym << 5 | dt.date.day as u64;
    let hms = (h as u64) << 12 | (m as u64) << 6 | s as u64;
    let int = (ymd << 17 | hms) + 0x80_0000_0000;
    out.extend_from_slice(&int.to_be_bytes()[3..]);
    frac_bin(micro as i64, fsp, out);
}

/// The fractional-second bytes of the MySQL 5.6 temporal formats: 1 byte of hundredths for
/// fsp 1-2, 2 bytes of ten-thousandths for 3-4, 3 bytes of microseconds for 5-6 (big-endian).
fn frac_bin(micros: i64, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        0 => {}
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        _ => out.extend_from_slice(&(micros as u32).to_be_bytes()[1..]),
    }
}

/// TIME(fsp) as MariaDB stores it: the signed packed value `(hour << 12 | minute << 6 | second)
/// << 24 | micros`, stored as its integer part + 2^23 in 3 bytes with the fraction after it
/// (fsp 1-4), or whole + 2^47 in 6 bytes (fsp 5-6).
fn time_bin(t: Time, fsp: u8, out: &mut Vec<u8>) {
    let abs = t.micros.unsigned_abs();
    let secs = abs / 1_000_000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let int = (h << 12 | m << 6 | s) as i64;
    let mut packed = (int << 24) + (abs % 1_000_000) as i64;
    if t.micros < 0 {
        packed = -packed;
    }
    let int_part = packed >> 24;
    let frac_part = packed % (1 << 24);
    match fsp {
        0..=4 => {
            let stored = (0x80_0000 + int_part) as u32;
            out.extend_from_slice(&stored.to_be_bytes()[1..]);
            match fsp {
                0 => {}
                1 | 2 => out.push((frac_part / 10_000) as i8 as u8),
                _ => out.extend_from_slice(&((frac_part / 100) as i16).to_be_bytes()),
            }
        }
        _ => {
            let stored = (packed + 0x8000_0000_0000) as u64;
            out.extend_from_slice(&stored.to_be_bytes()[2..]);
        }
    }
}

/// Bytes of a group of `digits` (< 9) decimal digits in MariaDB's binary decimal.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// DECIMAL(precision, scale) in MariaDB's binary format: the integer and fraction digits in
/// groups of nine (4 bytes each, big-endian), the leftover integer digits first and the leftover
/// fraction digits last in as few bytes as they need; a negative value has every byte inverted;
/// then the first byte's top bit is flipped.
fn decimal_bin(d: &Decimal, precision: u8, scale: u8, out: &mut Vec<u8>) {
    let d = d.rescale(scale).map(|(d, _)| d).unwrap_or(*d);
    let text = d.abs().to_string();
    let (int_text, frac_text) = text.split_once('.').unwrap_or((&text, ""));
    let intg = (precision - scale) as usize;
    let int_text = int_text.trim_start_matches('0');
    let int_digits: Vec<u8> = std::iter::repeat_n(b'0', intg.saturating_sub(int_text.len()))
        .chain(int_text.bytes())
        .collect();
    let int_digits = &int_digits[int_digits.len().saturating_sub(intg)..];
    let mut frac_digits = frac_text.as_bytes().to_vec();
    frac_digits.resize(scale as usize, b'0');
    let start = out.len();
    let value = |ds: &[u8]| ds.iter().fold(0u32, |a, b| a * 10 + (b - b'0') as u32);
    let lead = intg % 9;
    if lead > 0 {
        let n = DIG2BYTES[lead];
        out.extend_from_slice(&value(&int_digits[..lead]).to_be_bytes()[4 - n..]);
    }
    for group in int_digits[lead..].chunks(9) {
        out.extend_from_slice(&value(group).to_be_bytes());
    }
    for group in frac_digits.chunks(9) {
        let n = if group.len() == 9 {
            4
        } else {
            DIG2BYTES[group.len()]
        };
        out.extend_from_slice(&value(group).to_be_bytes()[4 - n..]);
    }
    if d.is_negative() {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    if out.len() > start {
        out[start] ^= 0x80;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::charset::Charset;

    fn crc_of(columns: &[Column], rows: &[Vec<Value>]) -> u32 {
        let l = RecordLayout::of(columns);
        rows.iter()
            .fold(0u32, |s, r| s.wrapping_add(l.row_crc(columns, r)))
    }

    #[test]
    fn int_and_char_rows_match_mariadb() {
        // MariaDB 10.11 InnoDB: CREATE TABLE t1 (a INT, b CHAR(8)) (utf8mb4);
        // INSERT (1,'a'),(2,'b'); CHECKSUM TABLE t1 -> 1308658845 (storage_engine suite).
        let cols = vec![
            Column::new(
                0,
                "a",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: false,
                },
            ),
            Column::new(1, "b", SqlType::Char { len: 8 }),
        ];
        let rows = vec![
            vec![Value::Int(1), Value::Text("a".into())],
            vec![Value::Int(2), Value::Text("b".into())],
        ];
        assert_eq!(crc_of(&cols, &rows), 1308658845);
        assert_eq!(crc_of(&cols, &[]), 0);
    }

    #[test]
    fn null_flags_change_the_row_crc_and_null_values_are_skipped() {
        let cols = vec![
            Column::new(
                0,
                "a",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: false,
                },
            ),
            Column::new(1, "b", SqlType::Char { len: 8 }),
        ];
        let with = crc_of(&cols, &[vec![Value::Int(1), Value::Null]]);
        let without = crc_of(&cols, &[vec![Value::Int(1), Value::Text(String::new())]]);
        assert_ne!(with, without);
        // Order of rows does not matter.
        let a = vec![Value::Int(1), Value::Text("x".into())];
        let b = vec![Value::Int(2), Value::Null];
        assert_eq!(
            crc_of(&cols, &[a.clone(), b.clone()]),
            crc_of(&cols, &[b, a])
        );
    }

    #[test]
    fn record_formats_of_fixed_types() {
        let mut out = Vec::new();
        let dec = Column::new(
            0,
            "d",
            SqlType::Decimal {
                precision: 10,
                scale: 2,
                unsigned: false,
            },
        );
        // 1234.56 in DECIMAL(10,2): intg 8 = 4 bytes (8 digits), frac 2 digits = 1 byte
        record_bytes(
            &dec,
            &Value::Decimal(Decimal::parse("1234.56").unwrap()),
            &mut out,
        );
        assert_eq!(out, vec![0x80, 0x00, 0x04, 0xD2, 0x38]);
        out.clear();
        record_bytes(
            &dec,
            &Value::Decimal(Decimal::parse("-1234.56").unwrap()),
            &mut out,
        );
        assert_eq!(out, vec![0x7F, 0xFF, 0xFB, 0x2D, 0xC7]);
        out.clear();
        let date = Column::new(0, "d", SqlType::Date);
        record_bytes(
            &date,
            &Value::Date(Date::new(2024, 1, 2).unwrap()),
            &mut out,
        );
        assert_eq!(out, (2u32 | 1 << 5 | 2024 << 9).to_le_bytes()[..3].to_vec());
        out.clear();
        let mut latin = Column::new(0, "c", SqlType::Char { len: 3 });
        latin.collation = Charset::Latin1.default_collation();
        record_bytes(&latin, &Value::Text("é€".into()), &mut out);
        assert_eq!(out, vec![0xE9, 0x80, b' ']);
        out.clear();
        let bit = Column::new(0, "b", SqlType::Bit { len: 12 });
        record_bytes(&bit, &Value::UInt(0xABC), &mut out);
        assert_eq!(out, vec![0x0A, 0xBC]);
    }

    #[test]
    fn temporal_formats() {
        let mut out = Vec::new();
        let t = Time::from_micros(-(3600 + 61) * 1_000_000 - 500_000).unwrap();
        time_bin(t, 0, &mut out);
        assert_eq!(out.len(), 3);
        out.clear();
        time_bin(Time::from_micros(0).unwrap(), 6, &mut out);
        assert_eq!(out, vec![0x80, 0, 0, 0, 0, 0]);
        out.clear();
        let dt = DateTime::new(Date::new(2000, 1, 1).unwrap(), 0, 0, 0, 0).unwrap();
        datetime_bin(&dt, 0, &mut out);
        let ymd = ((2000u64 * 13 + 1) << 5) | 1;
        assert_eq!(
            out,
            ((ymd << 17) + 0x80_0000_0000).to_be_bytes()[3..].to_vec()
        );
    }
}
