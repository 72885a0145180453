//! Column types, column flags and column-definition packets
//! (Protocol::ColumnDefinition41).
//!
//! Invariants: `org_name`/`org_table` are sent equal to `name`/`table`;
//! the catalog is always "def"; a column definition written for
//! COM_FIELD_LIST carries one extra length-encoded default value (NULL when
//! unknown), as libmysqlclient/libmariadb expect there.

use super::wire::{put_lenenc_bytes, put_lenenc_int, put_u16, put_u32, NULL_MARKER};

/// A MySQL column/parameter type code (`enum_field_types`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnType(pub u8);

impl ColumnType {
    pub const DECIMAL: ColumnType = ColumnType(0);
    pub const TINY: ColumnType = ColumnType(1);
    pub const SHORT: ColumnType = ColumnType(2);
    pub const LONG: ColumnType = ColumnType(3);
    pub const FLOAT: ColumnType = ColumnType(4);
    pub const DOUBLE: ColumnType = ColumnType(5);
    pub const NULL: ColumnType = ColumnType(6);
    pub const TIMESTAMP: ColumnType = ColumnType(7);
    pub const LONGLONG: ColumnType = ColumnType(8);
    pub const INT24: ColumnType = ColumnType(9);
    pub const DATE: ColumnType = ColumnType(10);
    pub const TIME: ColumnType = ColumnType(11);
    pub const DATETIME: ColumnType = ColumnType(12);
    pub const YEAR: ColumnType = ColumnType(13);
    pub const NEWDATE: ColumnType = ColumnType(14);
    pub const VARCHAR: ColumnType = ColumnType(15);
    pub const BIT: ColumnType = ColumnType(16);
    pub const TIMESTAMP2: ColumnType = ColumnType(17);
    pub const DATETIME2: ColumnType = ColumnType(18);
    pub const TIME2: ColumnType = ColumnType(19);
    pub const JSON: ColumnType = ColumnType(245);
    pub const NEWDECIMAL: ColumnType = ColumnType(246);
    pub const ENUM: ColumnType = ColumnType(247);
    pub const SET: ColumnType = ColumnType(248);
    pub const TINY_BLOB: ColumnType = ColumnType(249);
    pub const MEDIUM_BLOB: ColumnType = ColumnType(250);
    pub const LONG_BLOB: ColumnType = ColumnType(251);
    pub const BLOB: ColumnType = ColumnType(252);
    pub const VAR_STRING: ColumnType = ColumnType(253);
    pub const STRING: ColumnType = ColumnType(254);
    pub const GEOMETRY: ColumnType = ColumnType(255);
}

/// Column definition flags.
pub mod flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const NUM: u16 = 32768;
}

/// Character set / collation ids used in column definitions and handshakes.
pub mod charset {
    /// utf8mb4_general_ci: the server default announced in the handshake.
    pub const UTF8MB4_GENERAL_CI: u16 = 45;
    /// `binary`: numbers, dates and byte strings.
    pub const BINARY: u16 = 63;
}

/// Metadata of one result column (or one prepared-statement parameter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    pub name: String,
    /// The name's bytes as sent when they are not `name`'s UTF-8 (a connection whose
    /// `character_set_results` is another character set).
    pub sent_name: Option<Vec<u8>>,
    pub table: String,
    pub db: String,
    pub column_type: ColumnType,
    pub flags: u16,
    pub charset: u16,
    /// Maximum display length in bytes.
    pub length: u32,
    /// Digits after the point (0x1f for "not fixed" floats/strings).
    pub decimals: u8,
    /// Default value, sent only in COM_FIELD_LIST replies.
    pub default: Option<Vec<u8>>,
}

impl ColumnDef {
    /// A column with sensible charset/length/flags derived from its type.
    pub fn new(name: impl Into<String>, column_type: ColumnType) -> Self {
        let (charset, length, flags, decimals) = match column_type {
            ColumnType::TINY => (charset::BINARY, 4, flags::NUM, 0),
            ColumnType::SHORT | ColumnType::YEAR => (charset::BINARY, 6, flags::NUM, 0),
            ColumnType::INT24 => (charset::BINARY, 9, flags::NUM, 0),
            ColumnType::LONG => (charset::BINARY, 11, flags::NUM, 0),
            ColumnType::LONGLONG => (charset::BINARY, 20, flags::NUM, 0),
            ColumnType::FLOAT => (charset::BINARY, 12, flags::NUM, 31),
            ColumnType::DOUBLE => (charset::BINARY, 22, flags::NUM, 31),
            ColumnType::DECIMAL | ColumnType::NEWDECIMAL => (charset::BINARY, 67, flags::NUM, 30),
            ColumnType::DATE => (charset::BINARY, 10, flags::BINARY, 0),
            ColumnType::TIME => (charset::BINARY, 17, flags::BINARY, 6),
            ColumnType::DATETIME | ColumnType::TIMESTAMP => (charset::BINARY, 26, flags::BINARY, 6),
            ColumnType::TINY_BLOB
            | ColumnType::MEDIUM_BLOB
            | ColumnType::LONG_BLOB
            | ColumnType::BLOB => (charset::BINARY, 65535, flags::BLOB | flags::BINARY, 0),
            ColumnType::NULL => (charset::BINARY, 0, 0, 0),
            _ => (charset::UTF8MB4_GENERAL_CI, 1024, 0, 31),
        };
        ColumnDef {
            name: name.into(),
            sent_name: None,
            table: String::new(),
            db: String::new(),
            column_type,
            flags,
            charset,
            length,
            decimals,
            default: None,
        }
    }

    pub fn with_table(mut self, db: impl Into<String>, table: impl Into<String>) -> Self {
        self.db = db.into();
        self.table = table.into();
        self
    }

    pub fn with_flags(mut self, flags: u16) -> Self {
        self.flags |= flags;
        self
    }

    pub fn is_unsigned(&self) -> bool {
        self.flags & flags::UNSIGNED != 0
    }
}

/// Appends a ColumnDefinition41 payload to `out`.
pub fn encode_column_def(out: &mut Vec<u8>, col: &ColumnDef, for_field_list: bool) {
    put_lenenc_bytes(out, b"def");
    put_lenenc_bytes(out, col.db.as_bytes());
    put_lenenc_bytes(out, col.table.as_bytes());
    put_lenenc_bytes(out, col.table.as_bytes());
    let name = col.sent_name.as_deref().unwrap_or(col.name.as_bytes());
    put_lenenc_bytes(out, name);
    put_lenenc_bytes(out, name);
    put_lenenc_int(out, 0x0c);
    put_u16(out, col.charset);
    put_u32(out, col.length);
    out.push(col.column_type.0);
    put_u16(out, col.flags);
    out.push(col.decimals);
    put_u16(out, 0);
    if for_field_list {
        match &col.default {
            Some(d) => put_lenenc_bytes(out, d),
            None => out.push(NULL_MARKER),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_def_layout() {
        let c = ColumnDef::new("id", ColumnType::LONGLONG).with_table("db1", "t");
        let mut out = Vec::new();
        encode_column_def(&mut out, &c, false);
        let mut expect = Vec::new();
        expect.extend_from_slice(b"\x03def\x03db1\x01t\x01t\x02id\x02id\x0c");
        expect.extend_from_slice(&[63, 0, 20, 0, 0, 0, 8]);
        expect.extend_from_slice(&flags::NUM.to_le_bytes());
        expect.extend_from_slice(&[0, 0, 0]);
        assert_eq!(out, expect);
        let mut fl = Vec::new();
        encode_column_def(&mut fl, &c, true);
        assert_eq!(fl.len(), out.len() + 1);
        assert_eq!(*fl.last().unwrap(), NULL_MARKER);
    }
}
