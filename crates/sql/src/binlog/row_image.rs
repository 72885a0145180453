//! Row images in MariaDB's binary row format (the rows of WRITE/UPDATE/DELETE_ROWS events): a
//! NULL bitmap over the image's columns, then each non-NULL value in its column type's layout
//! (column_type.rs gives the type): integers little-endian, DECIMAL in MariaDB's packed
//! base-10^9 form, DATE in 3 bytes, DATETIME2/TIMESTAMP2/TIME2 big-endian with the fraction
//! in 0-3 bytes by fsp, strings with a 1-4 byte length, ENUM/SET/BIT as numbers.
//!
//! Invariant: a value that does not fit its column's type (never written by Betula's own
//! checks) is an error, never a silently different value.

use super::column_type::{enum_len, lob_pack_len, set_len, text_bytes};
use crate::error::db_error::{DbError, DbResult};
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::{Column, SqlType};

/// Appends one row image of `row` (every column of the table, in order).
pub fn encode_row(cols: &[Column], row: &[Value], out: &mut Vec<u8>) -> DbResult<()> {
    let at = out.len();
    out.resize(at + cols.len().div_ceil(8), 0);
    for (i, (c, v)) in cols.iter().zip(row).enumerate() {
        if v.is_null() {
            out[at + i / 8] |= 1 << (i % 8);
        } else {
            encode_value(c, v, out)?;
        }
    }
    Ok(())
}

fn mismatch(c: &Column, v: &Value) -> DbError {
    DbError::internal(format!(
        "binlog: value {v:?} does not fit column {}",
        c.name
    ))
}

/// Appends one non-NULL value in its column's binlog layout.
pub fn encode_value(c: &Column, v: &Value, out: &mut Vec<u8>) -> DbResult<()> {
    match (c.sql_type, v) {
        (SqlType::Int { width, .. }, Value::Int(i)) => {
            out.extend_from_slice(&i.to_le_bytes()[..width.bytes()])
        }
        (SqlType::Int { width, .. }, Value::UInt(u)) => {
            out.extend_from_slice(&u.to_le_bytes()[..width.bytes()])
        }
        (SqlType::Float { .. }, Value::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (SqlType::Float { .. }, Value::Double(d)) => {
            out.extend_from_slice(&(*d as f32).to_le_bytes())
        }
        (SqlType::Double { .. }, Value::Double(d)) => out.extend_from_slice(&d.to_le_bytes()),
        (SqlType::Double { .. }, Value::Float(f)) => {
            out.extend_from_slice(&(*f as f64).to_le_bytes())
        }
        (
            SqlType::Decimal {
                precision, scale, ..
            },
            Value::Decimal(d),
        ) => {
            let (d, _) = d.rescale(scale).ok_or_else(|| mismatch(c, v))?;
            out.extend_from_slice(&decimal_bin(&d.to_string(), precision, scale));
        }
        (SqlType::Char { len }, Value::Text(s)) => {
            let b = c.collation.charset().encode(s);
            put_len_prefixed(&b, if text_bytes(c, len) > 255 { 2 } else { 1 }, out);
        }
        (SqlType::VarChar { len }, Value::Text(s)) => {
            let b = c.collation.charset().encode(s);
            put_len_prefixed(&b, if text_bytes(c, len) > 255 { 2 } else { 1 }, out);
        }
        (SqlType::Text(size), Value::Text(s)) => {
            let b = c.collation.charset().encode(s);
            put_len_prefixed(&b, lob_pack_len(size) as usize, out);
        }
        (SqlType::Binary { .. }, Value::Bytes(b)) => put_len_prefixed(b, 1, out),
        (SqlType::VarBinary { len }, Value::Bytes(b)) => {
            put_len_prefixed(b, if len > 255 { 2 } else { 1 }, out)
        }
        (SqlType::Blob(size), Value::Bytes(b)) => {
            put_len_prefixed(b, lob_pack_len(size) as usize, out)
        }
        (SqlType::Date, Value::Date(d)) => out.extend_from_slice(&date3(*d).to_le_bytes()[..3]),
        (SqlType::DateTime { fsp }, Value::DateTime(dt)) => datetime2(dt, fsp, out),
        (SqlType::Timestamp { fsp }, Value::DateTime(dt)) => {
            let us = dt.unix_micros().unwrap_or(0).max(0) as u64;
            out.extend_from_slice(&((us / 1_000_000) as u32).to_be_bytes());
            put_frac(us % 1_000_000, fsp, out);
        }
        (SqlType::Time { fsp }, Value::Time(t)) => time2(*t, fsp, out),
        (SqlType::Year, Value::UInt(y)) => out.push(if *y == 0 { 0 } else { (*y - 1900) as u8 }),
        (SqlType::Enum { count }, Value::Text(s)) => {
            let i = c.members.iter().position(|m| m == s).map_or(0, |p| p + 1);
            out.extend_from_slice(&(i as u16).to_le_bytes()[..enum_len(count)]);
        }
        (SqlType::Set { count }, Value::Text(s)) => {
            let mut bits = 0u64;
            for part in s.split(',').filter(|p| !p.is_empty()) {
                let i = c
                    .members
                    .iter()
                    .position(|m| m == part)
                    .ok_or_else(|| mismatch(c, v))?;
                bits |= 1 << i;
            }
            out.extend_from_slice(&bits.to_le_bytes()[..set_len(count)]);
        }
        (SqlType::Bit { len }, Value::UInt(u)) => {
            let n = (len as usize).div_ceil(8);
            out.extend_from_slice(&u.to_be_bytes()[8 - n..]);
        }
        _ => return Err(mismatch(c, v)),
    }
    Ok(())
}

fn put_len_prefixed(b: &[u8], width: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes()[..width]);
    out.extend_from_slice(b);
}

/// DATE: day | month << 5 | year << 9.
fn date3(d: Date) -> u32 {
    d.day as u32 | (d.month as u32) << 5 | (d.year as u32) << 9
}

/// The fraction of a second in 0-3 big-endian bytes by fsp (DATETIME2, TIMESTAMP2).
fn put_frac(micros: u64, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        5 | 6 => out.extend_from_slice(&(micros as u32).to_be_bytes()[1..]),
        _ => {}
    }
}

fn datetime2(dt: &DateTime, fsp: u8, out: &mut Vec<u8>) {
    let (h, m, s, us) = dt.hms();
    let ym = dt.date.year as u64 * 13 + dt.date.month as u64;
    let ymd = ym << 5 | dt.date.day as u64;
    let hms = (h as u64) << 12 | (m as u64) << 6 | s as u64;
    let packed = (ymd << 17 | hms) + 0x80_0000_0000;
    out.extend_from_slice(&packed.to_be_bytes()[3..]);
    put_frac(us as u64, fsp, out);
}

/// TIME2: the packed time (hms << 24 | micros, negated when negative) in 3 bytes of whole
/// seconds (floor) and 0-3 bytes of fraction, or 6 bytes at fsp 5-6, offset to be unsigned.
fn time2(t: Time, fsp: u8, out: &mut Vec<u8>) {
    let a = t.micros.unsigned_abs();
    let secs = a / 1_000_000;
    let hms = ((secs / 3600) << 12) | ((secs / 60 % 60) << 6) | (secs % 60);
    let mag = ((hms << 24) | (a % 1_000_000)) as i64;
    let packed = if t.micros < 0 { -mag } else { mag };
    let int_part = packed >> 24;
    let frac = packed % (1 << 24);
    match fsp {
        1..=4 => {
            out.extend_from_slice(&((int_part + 0x80_0000) as u32).to_be_bytes()[1..]);
            if fsp <= 2 {
                out.push((frac / 10_000) as i8 as u8);
            } else {
                out.extend_from_slice(&((frac / 100) as i16).to_be_bytes());
            }
        }
        5 | 6 => out.extend_from_slice(&((packed + 0x8000_0000_0000) as u64).to_be_bytes()[2..]),
        _ => out.extend_from_slice(&((int_part + 0x80_0000) as u32).to_be_bytes()[1..]),
    }
}

/// Bytes of a run of `n` (0-9) decimal digits.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// DECIMAL(precision, scale) in MariaDB's binary form: integer digits then fraction digits in
/// groups of nine (4 bytes each, big-endian), the partial group of the integer part first and
/// of the fraction last; negative values have every byte inverted; the first byte's top bit
/// flipped. `text` is the value at exactly `scale` decimals (`-123.450`).
pub fn decimal_bin(text: &str, precision: u8, scale: u8) -> Vec<u8> {
    let neg = text.starts_with('-');
    let t = text.trim_start_matches('-');
    let (int_s, frac_s) = t.split_once('.').unwrap_or((t, ""));
    let intg = (precision - scale) as usize;
    let int_digits: String = format!("{:0>w$}", int_s.trim_start_matches('0'), w = intg);
    let int_digits = &int_digits[int_digits.len().saturating_sub(intg)..];
    let frac_digits = format!("{:0<w$}", frac_s, w = scale as usize);
    let frac_digits = &frac_digits[..scale as usize];
    let mut out = Vec::new();
    let lead = intg % 9;
    let put = |digits: &str, out: &mut Vec<u8>| {
        let n: u32 = digits.parse().unwrap_or(0);
        let w = DIG2BYTES[digits.len()];
        out.extend_from_slice(&n.to_be_bytes()[4 - w..]);
    };
    if lead > 0 {
        put(&int_digits[..lead], &mut out);
    }
    for g in int_digits.as_bytes()[lead..].chunks(9) {
        put(std::str::from_utf8(g).unwrap_or("0"), &mut out);
    }
    for g in frac_digits.as_bytes().chunks(9) {
        put(std::str::from_utf8(g).unwrap_or("0"), &mut out);
    }
    if neg {
        for b in &mut out {
            *b = !*b;
        }
    }
    if let Some(b) = out.first_mut() {
        *b ^= 0x80;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::decimal::Decimal;

    fn col(sql_type: SqlType) -> Column {
        Column::new(0, "c", sql_type)
    }

    fn enc(t: SqlType, v: Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(&col(t), &v, &mut out).unwrap();
        out
    }

    /// Expected bytes are those MariaDB 10.11.19 wrote for the same values.
    #[test]
    fn values_match_mariadb_bytes() {
        assert_eq!(
            decimal_bin("-1234.567", 10, 3),
            vec![0x7f, 0xff, 0xfb, 0x2d, 0xfd, 0xc8]
        );
        assert_eq!(
            decimal_bin("1234.567", 10, 3),
            vec![0x80, 0x00, 0x04, 0xd2, 0x02, 0x37]
        );
        let d = Decimal::new(-1_234_567, 3).unwrap();
        assert_eq!(enc(SqlType::decimal(10, 3), Value::Decimal(d)).len(), 6);
        assert_eq!(
            enc(SqlType::Date, Value::Date(Date::new(2024, 2, 29).unwrap())),
            vec![0x5d, 0xd0, 0x0f]
        );
        let dt = DateTime::parse("2024-01-02 03:04:05.678").unwrap();
        assert_eq!(
            enc(SqlType::DateTime { fsp: 3 }, Value::DateTime(dt)),
            vec![0x99, 0xb2, 0x44, 0x31, 0x05, 0x1a, 0x7c]
        );
        let ts = DateTime::parse("2024-01-02 03:04:05.123456").unwrap();
        assert_eq!(
            enc(SqlType::Timestamp { fsp: 6 }, Value::DateTime(ts)),
            vec![0x65, 0x93, 0x7d, 0x25, 0x01, 0xe2, 0x40]
        );
        let t = Time::parse("-12:34:56.78").unwrap();
        assert_eq!(
            enc(SqlType::Time { fsp: 2 }, Value::Time(t)),
            vec![0x7f, 0x37, 0x47, 0xb2]
        );
        assert_eq!(
            enc(SqlType::Bit { len: 10 }, Value::UInt(0b10_1010_1010)),
            vec![0x02, 0xaa]
        );
        assert_eq!(enc(SqlType::Year, Value::UInt(2023)), vec![0x7b]);
        let t0 = Time::parse("01:02:03").unwrap();
        assert_eq!(
            enc(SqlType::Time { fsp: 0 }, Value::Time(t0)),
            vec![0x80, 0x10, 0x83]
        );
        let w = DateTime::parse("2020-01-01 00:00:00").unwrap();
        assert_eq!(
            enc(SqlType::DateTime { fsp: 0 }, Value::DateTime(w)),
            vec![0x99, 0xa5, 0x42, 0x00, 0x00]
        );
    }

    #[test]
    fn time2_round_trips_its_own_reading() {
        // MariaDB reads 3+1 bytes as: int - 0x800000, and a negative int with a fraction
        // as (int + 1, frac - 256).
        for s in [
            "-00:00:00.01",
            "-838:59:59.99",
            "838:59:59.99",
            "00:00:00.5",
        ] {
            let t = Time::parse(s).unwrap();
            let b = enc(SqlType::Time { fsp: 2 }, Value::Time(t));
            let mut int = (u32::from_be_bytes([0, b[0], b[1], b[2]]) as i64) - 0x80_0000;
            let mut frac = b[3] as i64;
            if int < 0 && frac != 0 {
                int += 1;
                frac -= 256;
            }
            let packed = (int << 24) + frac * 10_000;
            let mag = packed.unsigned_abs();
            let hms = mag >> 24;
            let secs = (hms >> 12) * 3600 + (hms >> 6 & 63) * 60 + (hms & 63);
            let micros = (secs * 1_000_000 + (mag & 0xff_ffff)) as i64;
            assert_eq!(if packed < 0 { -micros } else { micros }, t.micros, "{s}");
        }
    }
}
