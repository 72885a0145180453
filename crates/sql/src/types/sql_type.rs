//! [`SqlType`]: every MySQL column type Betula supports, its parameters ([`IntWidth`],
//! [`LobSize`]), its classification (integer, numeric, text, binary, temporal, ...), and the
//! checks of its parameters against MariaDB's limits ([`SqlType::validate`]).
//!
//! Invariants (enforced by [`SqlType::validate`], which DDL must call):
//! * DECIMAL(p,s): 1 <= p <= 65, s <= 38, s <= p (MariaDB's limits; checked in MariaDB's order:
//!   scale 1425, precision 1426, M >= D 1427).
//! * FLOAT(M,D) / DOUBLE(M,D): D <= M, D <= 30; M <= 255 is checked by the parser (1439).
//! * fsp of DATETIME/TIMESTAMP/TIME <= 6.
//! * CHAR(n) n <= 255, BINARY(n) n <= 255, VARCHAR(n) n <= 16383 characters (utf8mb4 under MySQL's
//!   65535-byte row limit; DDL allows up to 65532 / bytes per character for the narrower
//!   character sets: `catalog/type_text.rs`), VARBINARY(n) n <= 65535 bytes.
//! * A text type's `collation` is never `Collation::Binary`; a binary type's is always `Binary`
//!   ([`Column::new`] sets it).

use crate::error::sql_error::SqlError;
use crate::types::decimal::{MAX_PRECISION, MAX_SCALE};

/// Largest D of FLOAT(M,D) / DOUBLE(M,D) (MariaDB: FLOATING_POINT_DECIMALS - 1).
pub const MAX_FLOAT_SCALE: u8 = 30;

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
    /// TIMESTAMP (stored as UTC, read in the session's time zone).
    pub fn is_timestamp(&self) -> bool {
        matches!(self, SqlType::Timestamp { .. })
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
                // MariaDB's order: the scale first, then the precision, then M >= D
                // (DECIMAL(0,2) is 1427; DECIMAL(0,0) was read as DECIMAL(10,0)).
                if scale > MAX_SCALE {
                    return Err(SqlError::TooBigScale {
                        scale: scale as u32,
                        column: column.into(),
                        max: MAX_SCALE as u32,
                    });
                }
                if precision > MAX_PRECISION {
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
                if precision == 0 {
                    return Err(SqlError::TooBigPrecision {
                        precision: 0,
                        column: column.into(),
                        max: MAX_PRECISION as u32,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
