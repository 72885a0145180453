//! What the MySQL protocol says about a column in a result set's column definition: type code
//! ([`type_code`], [`SqlType::protocol_type`]), display length ([`SqlType::display_length`],
//! [`Column::display_length`]), flags ([`column_flag`], [`Column::protocol_flags`]) and
//! decimals ([`SqlType::protocol_decimals`]).
//!
//! Invariant: the values are MariaDB's for the same column, so clients size and format results
//! as they would against MariaDB.

use crate::types::collation::Collation;
use crate::types::{Column, IntWidth, SqlType};

/// MySQL protocol column type codes (`enum_field_types`); the binary log's TABLE_MAP events use
/// the same codes, including the ones result sets never carry (VARCHAR, the `2` temporal forms,
/// ENUM, SET, the old DECIMAL).
pub mod type_code {
    pub const DECIMAL: u8 = 0;
    pub const TINY: u8 = 1;
    pub const SHORT: u8 = 2;
    pub const LONG: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const NULL: u8 = 6;
    pub const TIMESTAMP: u8 = 7;
    pub const LONGLONG: u8 = 8;
    pub const INT24: u8 = 9;
    pub const DATE: u8 = 10;
    pub const TIME: u8 = 11;
    pub const DATETIME: u8 = 12;
    pub const YEAR: u8 = 13;
    pub const VARCHAR: u8 = 15;
    pub const BIT: u8 = 16;
    pub const TIMESTAMP2: u8 = 17;
    pub const DATETIME2: u8 = 18;
    pub const TIME2: u8 = 19;
    pub const NEWDECIMAL: u8 = 246;
    pub const ENUM: u8 = 247;
    pub const SET: u8 = 248;
    pub const BLOB: u8 = 252;
    pub const VAR_STRING: u8 = 253;
    pub const STRING: u8 = 254;
}

/// MySQL protocol column definition flags.
pub mod column_flag {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const ENUM: u16 = 256;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const NUM: u16 = 32768;
}

/// `decimals` value MySQL sends for FLOAT/DOUBLE without a fixed scale.
pub const NOT_FIXED_DEC: u8 = 31;

impl SqlType {
    /// MySQL protocol type code for result-set column definitions.
    pub fn protocol_type(&self) -> u8 {
        use type_code::*;
        match self {
            SqlType::Int { width, .. } => match width {
                IntWidth::Tiny => TINY,
                IntWidth::Small => SHORT,
                IntWidth::Medium => INT24,
                IntWidth::Int => LONG,
                IntWidth::Big => LONGLONG,
            },
            SqlType::Float { .. } => FLOAT,
            SqlType::Double { .. } => DOUBLE,
            SqlType::Decimal { .. } => NEWDECIMAL,
            SqlType::Char { .. } | SqlType::Binary { .. } => STRING,
            SqlType::VarChar { .. } | SqlType::VarBinary { .. } => VAR_STRING,
            // MySQL sends every TEXT/BLOB size as MYSQL_TYPE_BLOB; the length tells the size.
            SqlType::Text(_) | SqlType::Blob(_) => BLOB,
            SqlType::Date => DATE,
            SqlType::DateTime { .. } => DATETIME,
            SqlType::Timestamp { .. } => TIMESTAMP,
            SqlType::Time { .. } => TIME,
            SqlType::Year => YEAR,
            SqlType::Enum { .. } | SqlType::Set { .. } => STRING,
            SqlType::Bit { .. } => BIT,
        }
    }

    /// Display length (`column_length` of the column definition) as MySQL reports it; for character
    /// types it is in bytes: characters × the collation's maximum bytes per character.
    pub fn display_length(&self, collation: Collation) -> u32 {
        let mb = collation.max_bytes_per_char() as u64;
        let frac = |fsp: u8| if fsp > 0 { fsp as u32 + 1 } else { 0 };
        match *self {
            SqlType::Int { width, unsigned } => {
                let digits = match width {
                    IntWidth::Tiny => 3,
                    IntWidth::Small => 5,
                    IntWidth::Medium => 8,
                    IntWidth::Int => 10,
                    IntWidth::Big => 20,
                };
                // Signed types count the sign, except BIGINT whose 19 digits + sign is also 20.
                if unsigned || width == IntWidth::Big {
                    digits
                } else {
                    digits + 1
                }
            }
            SqlType::Float {
                digits: Some((m, _)),
                ..
            }
            | SqlType::Double {
                digits: Some((m, _)),
                ..
            } => m as u32,
            SqlType::Float { .. } => 12,
            SqlType::Double { .. } => 22,
            SqlType::Decimal {
                precision,
                scale,
                unsigned,
            } => precision as u32 + (scale > 0) as u32 + (!unsigned) as u32,
            SqlType::Char { len } | SqlType::VarChar { len } => {
                (len as u64 * mb).min(u32::MAX as u64) as u32
            }
            SqlType::Binary { len } | SqlType::VarBinary { len } => len,
            SqlType::Text(size) => (size.max_bytes() * mb).min(u32::MAX as u64) as u32,
            SqlType::Blob(size) => size.max_bytes() as u32,
            SqlType::Date => 10,
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => 19 + frac(fsp),
            SqlType::Time { fsp } => 10 + frac(fsp),
            SqlType::Year => 4,
            // the longest member (ENUM) or all members with commas (SET) need the members:
            // `Column::display_length`
            SqlType::Enum { .. } | SqlType::Set { .. } => 0,
            SqlType::Bit { len } => len as u32,
        }
    }

    /// `decimals` of the column definition: scale, fsp, 31 for FLOAT/DOUBLE, else 0.
    pub fn protocol_decimals(&self) -> u8 {
        match *self {
            SqlType::Float { .. } | SqlType::Double { .. } => {
                self.float_decimals().unwrap_or(NOT_FIXED_DEC)
            }
            SqlType::Decimal { scale, .. } => scale,
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } | SqlType::Time { fsp } => fsp,
            _ => 0,
        }
    }
}

impl Column {
    /// Display length of result columns ([`SqlType::display_length`], with ENUM and SET
    /// measured from their members, and the display width of integers and YEAR: `int(5)` is 5,
    /// `year(2)` 2). A ZEROFILL column's values are padded to it.
    pub fn display_length(&self) -> u32 {
        if matches!(self.sql_type, SqlType::Int { .. } | SqlType::Year) {
            if let Some(w) = self.display_width.or(self.sql_type.default_display_width()) {
                return w;
            }
        }
        let mb = self.collation.max_bytes_per_char() as usize;
        let chars = |m: &String| m.chars().count();
        match self.sql_type {
            SqlType::Enum { .. } => (self.members.iter().map(chars).max().unwrap_or(0) * mb) as u32,
            SqlType::Set { .. } => {
                let total: usize = self.members.iter().map(chars).sum();
                ((total + self.members.len().saturating_sub(1)) * mb) as u32
            }
            t => t.display_length(self.collation),
        }
    }

    /// Column-definition flags derived from the column itself (key flags are the caller's).
    pub fn protocol_flags(&self) -> u16 {
        use column_flag::*;
        let mut f = 0;
        if !self.nullable {
            f |= NOT_NULL;
        }
        if self.auto_increment {
            f |= AUTO_INCREMENT;
        }
        if self.zerofill {
            f |= ZEROFILL | UNSIGNED;
        }
        match self.sql_type {
            t if t.is_unsigned() => f |= UNSIGNED | NUM,
            SqlType::Year => f |= UNSIGNED | NUM,
            t if t.is_numeric() => f |= NUM,
            SqlType::Text(_) => f |= BLOB,
            SqlType::Blob(_) => f |= BLOB | BINARY,
            SqlType::Binary { .. } | SqlType::VarBinary { .. } => f |= BINARY,
            SqlType::Timestamp { .. } => f |= TIMESTAMP | BINARY,
            SqlType::Enum { .. } => f |= ENUM,
            SqlType::Set { .. } => f |= SET,
            SqlType::Bit { .. } => f |= UNSIGNED,
            t if t.is_temporal() => f |= BINARY,
            _ => {}
        }
        if self.collation == Collation::Binary && self.sql_type.is_text() {
            f |= BINARY;
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::LobSize;

    const fn int(width: IntWidth, unsigned: bool) -> SqlType {
        SqlType::Int { width, unsigned }
    }

    #[test]
    fn protocol_facts() {
        assert_eq!(int(IntWidth::Int, false).protocol_type(), 3);
        assert_eq!(
            int(IntWidth::Int, false).display_length(Collation::Binary),
            11
        );
        assert_eq!(
            int(IntWidth::Int, true).display_length(Collation::Binary),
            10
        );
        assert_eq!(
            int(IntWidth::Tiny, false).display_length(Collation::Binary),
            4
        );
        assert_eq!(
            int(IntWidth::Big, false).display_length(Collation::Binary),
            20
        );
        assert_eq!(int(IntWidth::Medium, false).protocol_type(), 9);
        let d = SqlType::decimal(10, 2);
        assert_eq!(
            (
                d.protocol_type(),
                d.display_length(Collation::Binary),
                d.protocol_decimals()
            ),
            (246, 12, 2)
        );
        let v = SqlType::VarChar { len: 20 };
        assert_eq!(
            (v.protocol_type(), v.display_length(Collation::default())),
            (253, 80)
        );
        assert_eq!(
            SqlType::Text(LobSize::Regular).display_length(Collation::default()),
            262_140
        );
        assert_eq!(
            SqlType::Text(LobSize::Long).display_length(Collation::default()),
            u32::MAX
        );
        assert_eq!(
            SqlType::DateTime { fsp: 3 }.display_length(Collation::Binary),
            23
        );
        assert_eq!(SqlType::DOUBLE.protocol_decimals(), 31);
        assert_eq!(SqlType::Blob(LobSize::Medium).protocol_type(), 252);
        assert_eq!(d.sql_name(), "decimal(10,2)");
    }
}
