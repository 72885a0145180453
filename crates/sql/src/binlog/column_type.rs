//! A Betula column as MariaDB describes it in a TABLE_MAP event: its type code and metadata
//! bytes ([`binlog_type`]), for every `SqlType`. Row values in that type's layout are
//! row_image.rs's.
//!
//! Invariant: the (type, metadata) pair is what MariaDB 10.11 writes for the same column
//! definition, so a replica whose table was created from the replicated DDL needs no type
//! conversion (slave_type_conversions empty).

use super::codes::column as ct;
use crate::types::{Column, IntWidth, LobSize, SqlType};

/// A column's binlog type code and TABLE_MAP metadata.
pub fn binlog_type(c: &Column) -> (u8, Vec<u8>) {
    match c.sql_type {
        SqlType::Int { width, .. } => (int_code(width), vec![]),
        SqlType::Float { .. } => (ct::FLOAT, vec![4]),
        SqlType::Double { .. } => (ct::DOUBLE, vec![8]),
        SqlType::Decimal {
            precision, scale, ..
        } => (ct::NEWDECIMAL, vec![precision, scale]),
        SqlType::Char { len } => (ct::STRING, string_meta(ct::STRING, text_bytes(c, len))),
        SqlType::Binary { len } => (ct::STRING, string_meta(ct::STRING, len)),
        SqlType::VarChar { len } => (
            ct::VARCHAR,
            (text_bytes(c, len) as u16).to_le_bytes().to_vec(),
        ),
        SqlType::VarBinary { len } => (ct::VARCHAR, (len as u16).to_le_bytes().to_vec()),
        SqlType::Text(size) | SqlType::Blob(size) => (ct::BLOB, vec![lob_pack_len(size)]),
        SqlType::Date => (ct::DATE, vec![]),
        SqlType::DateTime { fsp } => (ct::DATETIME2, vec![fsp]),
        SqlType::Timestamp { fsp } => (ct::TIMESTAMP2, vec![fsp]),
        SqlType::Time { fsp } => (ct::TIME2, vec![fsp]),
        SqlType::Year => (ct::YEAR, vec![]),
        SqlType::Enum { count } => (ct::STRING, vec![ct::ENUM, enum_len(count) as u8]),
        SqlType::Set { count } => (ct::STRING, vec![ct::SET, set_len(count) as u8]),
        SqlType::Bit { len } => (ct::BIT, vec![len % 8, len / 8]),
    }
}

fn int_code(w: IntWidth) -> u8 {
    match w {
        IntWidth::Tiny => ct::TINY,
        IntWidth::Small => ct::SHORT,
        IntWidth::Medium => ct::INT24,
        IntWidth::Int => ct::LONG,
        IntWidth::Big => ct::LONGLONG,
    }
}

/// The most bytes `len` characters of the column's character set take.
pub fn text_bytes(c: &Column, len: u32) -> u32 {
    len * c.collation.max_bytes_per_char()
}

/// CHAR/BINARY metadata: real type and byte length, lengths past 255 folding their two high
/// bits into the type byte as MariaDB does.
fn string_meta(real_type: u8, bytes: u32) -> Vec<u8> {
    vec![
        real_type ^ (((bytes & 0x300) >> 4) as u8),
        (bytes & 0xff) as u8,
    ]
}

/// Bytes of a TEXT/BLOB length prefix.
pub fn lob_pack_len(size: LobSize) -> u8 {
    match size {
        LobSize::Tiny => 1,
        LobSize::Regular => 2,
        LobSize::Medium => 3,
        LobSize::Long => 4,
    }
}

/// Bytes of an ENUM index.
pub fn enum_len(count: u16) -> usize {
    if count < 256 {
        1
    } else {
        2
    }
}

/// Bytes of a SET bitmask (1, 2, 3, 4 or 8).
pub fn set_len(count: u8) -> usize {
    match count.div_ceil(8) {
        n @ 0..=4 => n.max(1) as usize,
        _ => 8,
    }
}
