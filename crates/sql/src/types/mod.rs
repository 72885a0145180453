//! SQL column types and column definitions (the catalog's per-column shape).
//!
//! Owns: [`SqlType`] (every MySQL column type Betula supports), [`Column`] (name, type, nullability,
//! default, AUTO_INCREMENT, collation), the integer range limits, and the facts the MySQL protocol
//! needs for result-set column definitions: type code, display length, flags and decimals.
//!
//! Invariants (enforced by [`SqlType::validate`], which DDL must call):
//! * DECIMAL(p,s): 1 <= p <= 65, s <= 38, s <= p (MariaDB's limits; checked in MariaDB's order:
//!   scale 1425, precision 1426, M >= D 1427).
//! * FLOAT(M,D) / DOUBLE(M,D): D <= M, D <= 30; M <= 255 is checked by the parser (1439).
//! * fsp of DATETIME/TIMESTAMP/TIME <= 6.
//! * CHAR(n) n <= 255, BINARY(n) n <= 255, VARCHAR(n) n <= 16383 characters (utf8mb4 under MySQL's
//!   65535-byte row limit; DDL allows up to 65532 / bytes per character for the narrower
//!   character sets: `ddl::lenient_type`), VARBINARY(n) n <= 65535 bytes.
//! * A text type's `collation` is never `Collation::Binary`; a binary type's is always `Binary`
//!   ([`Column::new`] sets it).

pub mod charset;
pub mod coerce;
pub mod collation;
pub mod decimal;
pub mod member_codes;
pub mod temporal;
pub mod text_format;
pub mod value;
pub mod wide_int;

use crate::types::collation::Collation;
use crate::types::decimal::{MAX_PRECISION, MAX_SCALE};

/// Largest D of FLOAT(M,D) / DOUBLE(M,D) (MariaDB: FLOATING_POINT_DECIMALS - 1).
pub const MAX_FLOAT_SCALE: u8 = 30;
use crate::error::sql_error::SqlError;
use crate::types::value::Value;

/// Storage width of an integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntWidth {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

impl IntWidth {
    pub fn bytes(self) -> usize {
        match self {
            IntWidth::Tiny => 1,
            IntWidth::Small => 2,
            IntWidth::Medium => 3,
            IntWidth::Int => 4,
            IntWidth::Big => 8,
        }
    }
    /// MySQL's range of the signed type, e.g. TINYINT −128..=127.
    pub fn signed_range(self) -> (i64, i64) {
        match self {
            IntWidth::Big => (i64::MIN, i64::MAX),
            w => {
                let bits = w.bytes() * 8;
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            }
        }
    }
    /// MySQL's maximum of the UNSIGNED type, e.g. TINYINT UNSIGNED 255.
    pub fn unsigned_max(self) -> u64 {
        match self {
            IntWidth::Big => u64::MAX,
            w => (1u64 << (w.bytes() * 8)) - 1,
        }
    }
}

/// Size class of TEXT and BLOB types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LobSize {
    Tiny,
    Regular,
    Medium,
    Long,
}

impl LobSize {
    /// Maximum length in bytes (255, 65535, 16 MiB − 1, 4 GiB − 1).
    pub fn max_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Regular => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlType {
    Int {
        width: IntWidth,
        unsigned: bool,
    },
    /// FLOAT; `digits` = `Some((M, D))` for FLOAT(M,D): stored values are rounded to D decimals and
    /// limited to M digits, and print with exactly D decimals. UNSIGNED refuses negatives.
    Float {
        digits: Option<(u8, u8)>,
        unsigned: bool,
    },
    /// DOUBLE, DOUBLE(M,D) / REAL(M,D): as FLOAT.
    Double {
        digits: Option<(u8, u8)>,
        unsigned: bool,
    },
    Decimal {
        precision: u8,
        scale: u8,
        unsigned: bool,
    },
    /// CHAR(n): n characters, stored without trailing spaces (as MySQL returns them).
    Char {
        len: u32,
    },
    /// VARCHAR(n): at most n characters.
    VarChar {
        len: u32,
    },
    Text(LobSize),
    /// BINARY(n): exactly n bytes, right-padded with 0x00.
    Binary {
        len: u32,
    },
    VarBinary {
        len: u32,
    },
    Blob(LobSize),
    Date,
    DateTime {
        fsp: u8,
    },
    /// TIMESTAMP: a DATETIME in UTC within 1970-01-01 00:00:01 ..= 2038-01-19 03:14:07.999999.
    Timestamp {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    Year,
    /// ENUM('a','b',...): one of the column's `members` (at most 65535). The value is the member's
    /// text; `''` is also the "error value" (index 0) that a bad value becomes in non-strict mode.
    Enum {
        count: u16,
    },
    /// SET('a','b',...): any subset of the column's `members` (at most 64). The value is the
    /// chosen members' text joined by `,` in declaration order.
    Set {
        count: u8,
    },
    /// BIT(M), 1 <= M <= 64: an unsigned integer of M bits, sent to clients as (M+7)/8 bytes
    /// big-endian.
    Bit {
        len: u8,
    },
}

/// MySQL protocol column type codes (`enum_field_types`).
pub mod type_code {
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
    pub const BIT: u8 = 16;
    pub const NEWDECIMAL: u8 = 246;
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
    /// Plain FLOAT (no (M,D), signed).
    pub const FLOAT: SqlType = SqlType::Float {
        digits: None,
        unsigned: false,
    };
    /// Plain DOUBLE (no (M,D), signed).
    pub const DOUBLE: SqlType = SqlType::Double {
        digits: None,
        unsigned: false,
    };
    /// DECIMAL(p,s), signed.
    pub const fn decimal(precision: u8, scale: u8) -> SqlType {
        SqlType::Decimal {
            precision,
            scale,
            unsigned: false,
        }
    }
    /// UNSIGNED of any numeric type (integers, FLOAT, DOUBLE, DECIMAL).
    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            SqlType::Int { unsigned: true, .. }
                | SqlType::Float { unsigned: true, .. }
                | SqlType::Double { unsigned: true, .. }
                | SqlType::Decimal { unsigned: true, .. }
        )
    }
    /// The type with UNSIGNED set (numeric types; others unchanged).
    pub fn with_unsigned(self) -> SqlType {
        match self {
            SqlType::Int { width, .. } => SqlType::Int {
                width,
                unsigned: true,
            },
            SqlType::Float { digits, .. } => SqlType::Float {
                digits,
                unsigned: true,
            },
            SqlType::Double { digits, .. } => SqlType::Double {
                digits,
                unsigned: true,
            },
            SqlType::Decimal {
                precision, scale, ..
            } => SqlType::Decimal {
                precision,
                scale,
                unsigned: true,
            },
            t => t,
        }
    }
    /// The fixed number of decimals of FLOAT(M,D) / DOUBLE(M,D).
    pub fn float_decimals(&self) -> Option<u8> {
        match self {
            SqlType::Float {
                digits: Some((_, d)),
                ..
            }
            | SqlType::Double {
                digits: Some((_, d)),
                ..
            } => Some(*d),
            _ => None,
        }
    }
    pub fn is_integer(&self) -> bool {
        matches!(self, SqlType::Int { .. })
    }
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            SqlType::Int { .. }
                | SqlType::Float { .. }
                | SqlType::Double { .. }
                | SqlType::Decimal { .. }
                | SqlType::Year
        )
    }
    /// CHAR, VARCHAR, TEXT, ENUM and SET (character strings with a text collation).
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            SqlType::Char { .. }
                | SqlType::VarChar { .. }
                | SqlType::Text(_)
                | SqlType::Enum { .. }
                | SqlType::Set { .. }
        )
    }
    /// ENUM and SET (values chosen from the column's `members`).
    pub fn has_members(&self) -> bool {
        matches!(self, SqlType::Enum { .. } | SqlType::Set { .. })
    }
    /// BINARY, VARBINARY and BLOB.
    pub fn is_binary(&self) -> bool {
        matches!(
            self,
            SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_)
        )
    }
    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            SqlType::Date
                | SqlType::DateTime { .. }
                | SqlType::Timestamp { .. }
                | SqlType::Time { .. }
        )
    }
    /// Fractional seconds precision (0 for non-temporal types).
    pub fn fsp(&self) -> u8 {
        match self {
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } | SqlType::Time { fsp } => *fsp,
            _ => 0,
        }
    }

    /// Checks the type's parameters against the limits in the module doc.
    pub fn validate(&self, column: &str) -> Result<(), SqlError> {
        let len_err = |max: u64| SqlError::TooBigLength {
            column: column.into(),
            max,
        };
        match *self {
            SqlType::Decimal {
                precision, scale, ..
            } => {
                // MariaDB's order: the scale first, then the precision, then M >= D.
                if scale > MAX_SCALE {
                    return Err(SqlError::TooBigScale {
                        scale: scale as u32,
                        column: column.into(),
                        max: MAX_SCALE as u32,
                    });
                }
                if precision == 0 || precision > MAX_PRECISION {
                    return Err(SqlError::TooBigPrecision {
                        precision: precision as u32,
                        column: column.into(),
                        max: MAX_PRECISION as u32,
                    });
                }
                if scale > precision {
                    return Err(SqlError::ScaleAbovePrecision {
                        column: column.into(),
                    });
                }
            }
            SqlType::Float {
                digits: Some((m, d)),
                ..
            }
            | SqlType::Double {
                digits: Some((m, d)),
                ..
            } => {
                if m < d {
                    return Err(SqlError::ScaleAbovePrecision {
                        column: column.into(),
                    });
                }
                if d > MAX_FLOAT_SCALE {
                    return Err(SqlError::TooBigScale {
                        scale: d as u32,
                        column: column.into(),
                        max: MAX_FLOAT_SCALE as u32,
                    });
                }
            }
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } | SqlType::Time { fsp }
                if fsp > 6 =>
            {
                return Err(SqlError::TooBigScale {
                    scale: fsp as u32,
                    column: column.into(),
                    max: 6,
                });
            }
            SqlType::Char { len } | SqlType::Binary { len } if len > 255 => {
                return Err(len_err(255))
            }
            SqlType::VarChar { len } if len > 16_383 => return Err(len_err(16_383)),
            SqlType::VarBinary { len } if len > 65_535 => return Err(len_err(65_535)),
            SqlType::Bit { len } if !(1..=64).contains(&len) => {
                return Err(SqlError::TooBigDisplayWidth {
                    column: column.into(),
                    max: 64,
                })
            }
            _ => {}
        }
        Ok(())
    }

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

    /// Default display width of an integer type as MariaDB (and MySQL 5.7) show it: `int(11)`,
    /// `int(10) unsigned`, `bigint(20)`, ...; YEAR is `year(4)`.
    pub fn default_display_width(&self) -> Option<u32> {
        match *self {
            SqlType::Int { width, unsigned } => Some(match (width, unsigned) {
                (IntWidth::Tiny, false) => 4,
                (IntWidth::Tiny, true) => 3,
                (IntWidth::Small, false) => 6,
                (IntWidth::Small, true) => 5,
                (IntWidth::Medium, false) => 9,
                (IntWidth::Medium, true) => 8,
                (IntWidth::Int, false) => 11,
                (IntWidth::Int, true) => 10,
                (IntWidth::Big, _) => 20,
            }),
            SqlType::Year => Some(4),
            _ => None,
        }
    }

    /// The column type as SHOW CREATE TABLE / SHOW COLUMNS print it (MariaDB's form): integers
    /// with their display width, `declared` or the default (`int(11)`, `tinyint(1)` for BOOL).
    pub fn column_type(&self, declared: Option<u32>) -> String {
        let Some(w) = declared.or(self.default_display_width()) else {
            return self.sql_name();
        };
        match self.sql_name().split_once(' ') {
            Some((base, rest)) => format!("{base}({w}) {rest}"),
            None => format!("{}({w})", self.sql_name()),
        }
    }

    /// SQL spelling, e.g. `int unsigned`, `decimal(10,2)`, `varchar(20)`, `datetime(3)`.
    pub fn sql_name(&self) -> String {
        let lob = |s: LobSize, base: &str| match s {
            LobSize::Tiny => format!("tiny{base}"),
            LobSize::Regular => base.to_string(),
            LobSize::Medium => format!("medium{base}"),
            LobSize::Long => format!("long{base}"),
        };
        let fsp = |name: &str, f: u8| {
            if f > 0 {
                format!("{name}({f})")
            } else {
                name.to_string()
            }
        };
        match *self {
            SqlType::Int { width, unsigned } => {
                let n = match width {
                    IntWidth::Tiny => "tinyint",
                    IntWidth::Small => "smallint",
                    IntWidth::Medium => "mediumint",
                    IntWidth::Int => "int",
                    IntWidth::Big => "bigint",
                };
                if unsigned {
                    format!("{n} unsigned")
                } else {
                    n.to_string()
                }
            }
            SqlType::Float { digits, unsigned } | SqlType::Double { digits, unsigned } => {
                let base = if matches!(self, SqlType::Float { .. }) {
                    "float"
                } else {
                    "double"
                };
                let md = digits.map_or(String::new(), |(m, d)| format!("({m},{d})"));
                let u = if unsigned { " unsigned" } else { "" };
                format!("{base}{md}{u}")
            }
            SqlType::Decimal {
                precision,
                scale,
                unsigned,
            } => {
                let u = if unsigned { " unsigned" } else { "" };
                format!("decimal({precision},{scale}){u}")
            }
            SqlType::Char { len } => format!("char({len})"),
            SqlType::VarChar { len } => format!("varchar({len})"),
            SqlType::Text(s) => lob(s, "text"),
            SqlType::Binary { len } => format!("binary({len})"),
            SqlType::VarBinary { len } => format!("varbinary({len})"),
            SqlType::Blob(s) => lob(s, "blob"),
            SqlType::Date => "date".into(),
            SqlType::DateTime { fsp: f } => fsp("datetime", f),
            SqlType::Timestamp { fsp: f } => fsp("timestamp", f),
            SqlType::Time { fsp: f } => fsp("time", f),
            SqlType::Year => "year".into(),
            SqlType::Enum { .. } => "enum".into(),
            SqlType::Set { .. } => "set".into(),
            SqlType::Bit { len } => format!("bit({len})"),
        }
    }
}

/// `'a','b'` of an ENUM or SET definition: each member single-quoted, `'` doubled.
pub fn quote_members(members: &[String]) -> String {
    members
        .iter()
        .map(|m| format!("'{}'", m.replace('\\', "\\\\").replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(",")
}

/// One column of a table as the catalog stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Stable id, never reused within a table; the row codec's slot map refers to it.
    pub id: u32,
    pub name: String,
    pub sql_type: SqlType,
    pub nullable: bool,
    /// Explicit DEFAULT, already coerced to `sql_type`; `None` means no DEFAULT clause.
    pub default: Option<Value>,
    pub auto_increment: bool,
    pub collation: Collation,
    /// Declared display width of an integer type (`INT(5)`, BOOL = 1); `None` = the type's
    /// default width. Shown by SHOW CREATE TABLE / SHOW COLUMNS, no effect on values.
    pub display_width: Option<u32>,
    /// The members of an ENUM or SET in declaration order (empty for other types).
    pub members: std::sync::Arc<[String]>,
    /// ZEROFILL (numeric types, which are then UNSIGNED): values are shown left-padded with `0`
    /// to the display length.
    pub zerofill: bool,
}

impl Column {
    /// A nullable column without default; collation `binary` for binary types, the default
    /// (`utf8mb4_general_ci`) otherwise.
    pub fn new(id: u32, name: impl Into<String>, sql_type: SqlType) -> Column {
        let collation = if sql_type.is_binary() {
            Collation::Binary
        } else {
            Collation::default()
        };
        Column {
            id,
            name: name.into(),
            sql_type,
            nullable: true,
            default: None,
            auto_increment: false,
            collation,
            display_width: None,
            members: std::sync::Arc::from(Vec::new()),
            zerofill: false,
        }
    }
    /// An ENUM or SET column of `members` (count checked by the caller).
    pub fn with_members(mut self, members: Vec<String>) -> Column {
        self.members = members.into();
        self
    }
    /// The type as SHOW CREATE TABLE / SHOW COLUMNS print it, e.g. `int(11)`, `enum('a','b')`,
    /// `int(10) unsigned zerofill`, `year(2)`.
    pub fn column_type(&self) -> String {
        if self.sql_type.has_members() {
            return format!(
                "{}({})",
                self.sql_type.sql_name(),
                quote_members(&self.members)
            );
        }
        let t = self.sql_type.column_type(self.display_width);
        if self.zerofill {
            format!("{t} zerofill")
        } else {
            t
        }
    }
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
    /// Index (1-based) of the member whose text is exactly `s`, or 0.
    pub fn member_index(&self, s: &str) -> usize {
        self.members
            .iter()
            .position(|m| m == s)
            .map_or(0, |i| i + 1)
    }
    pub fn not_null(mut self) -> Column {
        self.nullable = false;
        self
    }
    pub fn with_default(mut self, v: Value) -> Column {
        self.default = Some(v);
        self
    }
    pub fn with_collation(mut self, c: Collation) -> Column {
        if !self.sql_type.is_binary() && c != Collation::Binary {
            self.collation = c;
        }
        self
    }
    pub fn auto_increment(mut self) -> Column {
        self.auto_increment = true;
        self
    }

    /// The value a row gets when the column is omitted (and what rows written before an instant
    /// ADD COLUMN read as): the DEFAULT, else NULL if nullable, else MySQL's implicit default
    /// (0, '', the zero date, 00:00:00).
    pub fn default_value(&self) -> Value {
        match &self.default {
            Some(v) => v.clone(),
            None if self.nullable => Value::Null,
            None => self.implicit_value(),
        }
    }

    /// MySQL's implicit default of the column when NOT NULL: [`implicit_default`] of its type,
    /// except that an ENUM's is its first member.
    pub fn implicit_value(&self) -> Value {
        match self.sql_type {
            SqlType::Enum { .. } => Value::Text(self.members.first().cloned().unwrap_or_default()),
            t => implicit_default(&t),
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

/// MySQL's implicit default of a NOT NULL column without DEFAULT.
pub fn implicit_default(t: &SqlType) -> Value {
    use crate::types::temporal::Date;
    use crate::types::temporal::DateTime;
    use crate::types::temporal::Time;
    match *t {
        SqlType::Int {
            unsigned: false, ..
        } => Value::Int(0),
        SqlType::Int { unsigned: true, .. } | SqlType::Year => Value::UInt(0),
        SqlType::Float { .. } => Value::Float(0.0),
        SqlType::Double { .. } => Value::Double(0.0),
        SqlType::Decimal { scale, .. } => Value::Decimal(
            crate::types::decimal::Decimal::new(0, scale)
                .unwrap_or(crate::types::decimal::Decimal::ZERO),
        ),
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text(_) => {
            Value::Text(String::new())
        }
        SqlType::Binary { len } => Value::Bytes(vec![0; len as usize]),
        SqlType::VarBinary { .. } | SqlType::Blob(_) => Value::Bytes(Vec::new()),
        SqlType::Date => Value::Date(Date::ZERO),
        SqlType::DateTime { .. } | SqlType::Timestamp { .. } => Value::DateTime(DateTime::ZERO),
        SqlType::Time { .. } => Value::Time(Time { micros: 0 }),
        // An ENUM's is its first member: `Column::default_value` handles it.
        SqlType::Enum { .. } | SqlType::Set { .. } => Value::Text(String::new()),
        SqlType::Bit { .. } => Value::UInt(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn int(width: IntWidth, unsigned: bool) -> SqlType {
        SqlType::Int { width, unsigned }
    }

    #[test]
    fn integer_ranges_match_mysql() {
        assert_eq!(IntWidth::Tiny.signed_range(), (-128, 127));
        assert_eq!(IntWidth::Tiny.unsigned_max(), 255);
        assert_eq!(IntWidth::Small.signed_range(), (-32768, 32767));
        assert_eq!(IntWidth::Medium.signed_range(), (-8_388_608, 8_388_607));
        assert_eq!(IntWidth::Medium.unsigned_max(), 16_777_215);
        assert_eq!(
            IntWidth::Int.signed_range(),
            (-2_147_483_648, 2_147_483_647)
        );
        assert_eq!(IntWidth::Int.unsigned_max(), 4_294_967_295);
        assert_eq!(IntWidth::Big.signed_range(), (i64::MIN, i64::MAX));
        assert_eq!(IntWidth::Big.unsigned_max(), u64::MAX);
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

    #[test]
    fn validation_and_columns() {
        assert_eq!(
            SqlType::decimal(66, 0).validate("d").unwrap_err().code(),
            1426
        );
        assert!(SqlType::decimal(65, 38).validate("d").is_ok());
        assert_eq!(
            SqlType::decimal(66, 39).validate("d").unwrap_err().code(),
            1425
        );
        assert_eq!(
            SqlType::Double {
                digits: Some((5, 6)),
                unsigned: false
            }
            .validate("d")
            .unwrap_err()
            .code(),
            1427
        );
        let z = Column {
            zerofill: true,
            display_width: Some(5),
            ..Column::new(
                9,
                "z",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: true,
                },
            )
        };
        assert_eq!(z.column_type(), "int(5) unsigned zerofill");
        assert_eq!(z.display_length(), 5);
        assert!(z.protocol_flags() & column_flag::ZEROFILL != 0);
        let y2 = Column {
            display_width: Some(2),
            ..Column::new(10, "y", SqlType::Year)
        };
        assert_eq!(
            (y2.column_type(), y2.display_length()),
            ("year(2)".into(), 2)
        );
        assert_eq!(
            SqlType::decimal(5, 6).validate("d").unwrap_err().code(),
            1427
        );
        assert_eq!(
            SqlType::DateTime { fsp: 7 }
                .validate("d")
                .unwrap_err()
                .code(),
            1425
        );
        assert_eq!(
            SqlType::Char { len: 256 }.validate("c").unwrap_err().code(),
            1074
        );
        assert!(SqlType::VarChar { len: 255 }.validate("c").is_ok());
        let c = Column::new(1, "b", SqlType::VarBinary { len: 4 })
            .with_collation(Collation::Utf8mb4Bin);
        assert_eq!(c.collation, Collation::Binary);
        let c = Column::new(2, "n", int(IntWidth::Int, true))
            .not_null()
            .auto_increment();
        assert_eq!(c.default_value(), Value::UInt(0));
        let f = c.protocol_flags();
        assert_eq!(f & column_flag::NOT_NULL, 1);
        assert!(f & column_flag::UNSIGNED != 0 && f & column_flag::AUTO_INCREMENT != 0);
        assert_eq!(
            Column::new(3, "x", SqlType::Date).default_value(),
            Value::Null
        );
    }
}
