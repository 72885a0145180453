//! Typed errors and warnings of the SQL value layer, each mapped to an [`ErrorCode`] (error number
//! and SQLSTATE).
//!
//! Owns: [`SqlError`] (what a conversion, codec or type definition can fail with) and [`Warning`]
//! (what a non-strict conversion reports instead of failing, as MySQL's `SHOW WARNINGS` rows).
//!
//! Invariants: every variant has a fixed [`ErrorCode`] returned by [`SqlError::code`]; messages follow MySQL's English message templates so clients and tests that
//! match on text see what MySQL would print. Codec corruption never panics: it surfaces as
//! [`SqlError::CorruptKey`] / [`SqlError::CorruptRow`].

use thiserror::Error;

use crate::error::code::ErrorCode;

/// Errors raised by type definitions, value coercion and the key / row codecs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SqlError {
    /// 1264 / 22003: value outside the column type's range.
    #[error("Out of range value for column '{column}' at row {row}")]
    OutOfRange { column: String, row: u64 },
    /// 1292 / 22007: a temporal value that does not parse or is not a valid calendar value.
    /// `kind` is `date`, `datetime`, `time`, or `timestamp` as in MySQL's message.
    #[error("Incorrect {kind} value: '{value}' for column {column} at row {row}")]
    IncorrectTemporal {
        kind: &'static str,
        value: String,
        column: String,
        row: u64,
    },
    /// 1299 / HY000: a local time that never happened in the session's time zone (clocks set
    /// forward over it) stored into a TIMESTAMP (a warning; MariaDB's text).
    #[error("Invalid TIMESTAMP value in column '{column}' at row {row}")]
    InvalidTimestamp { column: String, row: u64 },
    /// 1366 / 22007: a string that is not a number (`kind` = `integer`, `decimal`, `double`) or, with
    /// `kind` = `string`, bytes that are not valid UTF-8 for a text column.
    /// `column` is quoted as MariaDB shows it: `` `db`.`t`.`c` `` for a table's column, else `'c'`.
    #[error("Incorrect {kind} value: '{value}' for column {column} at row {row}")]
    IncorrectValue {
        kind: &'static str,
        value: String,
        column: String,
        row: u64,
    },
    /// 1406 / 22001: string longer than the column allows (strict mode).
    #[error("Data too long for column '{column}' at row {row}")]
    DataTooLong { column: String, row: u64 },
    /// 1265 / 01000: a number string with trailing garbage, e.g. `'12abc'` (strict mode).
    #[error("Data truncated for column '{column}' at row {row}")]
    DataTruncated { column: String, row: u64 },
    /// 1048 / 23000: NULL into a NOT NULL column.
    #[error("Column '{column}' cannot be null")]
    NotNull { column: String },
    /// 1426 / 42000: DECIMAL precision above the supported maximum (MariaDB's text).
    #[error("Too big precision specified for '{column}'. Maximum is {max}")]
    TooBigPrecision {
        precision: u32,
        column: String,
        max: u32,
    },
    /// 1425 / 42000: DECIMAL / FLOAT(M,D) scale or fractional-seconds precision above the maximum
    /// (MariaDB's text).
    #[error("Too big scale specified for '{column}'. Maximum is {max}")]
    TooBigScale {
        scale: u32,
        column: String,
        max: u32,
    },
    /// 1427 / 42000: DECIMAL(M,D) / FLOAT(M,D) / DOUBLE(M,D) with D > M (MariaDB's text).
    #[error("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{column}')")]
    ScaleAbovePrecision { column: String },
    /// 1074 / 42000: CHAR/VARCHAR/BINARY/VARBINARY length above the maximum.
    #[error("Column length too big for column '{column}' (max = {max}); use BLOB or TEXT instead")]
    TooBigLength { column: String, max: u64 },
    /// 1439 / 42000: a display width (or BIT length) above the type's maximum.
    #[error("Display width out of range for '{column}' (max = {max})")]
    TooBigDisplayWidth { column: String, max: u64 },
    /// 1712 / HY000: malformed key bytes, or a value that cannot be put in a key (NaN, wrong type).
    #[error("Index is corrupted: {0}")]
    CorruptKey(String),
    /// 1877 / HY000: malformed row bytes.
    #[error(
        "Operation cannot be performed. The table is missing, corrupt or contains bad data: {0}"
    )]
    CorruptRow(String),
    /// 1105 / HY000: a caller broke an API contract (wrong value count, irreversible key column, ...).
    #[error("{0}")]
    Internal(String),
}

impl SqlError {
    /// The condition, which gives the error number and SQLSTATE.
    pub fn code(&self) -> ErrorCode {
        match self {
            SqlError::OutOfRange { .. } => ErrorCode::WarnDataOutOfRange,
            SqlError::IncorrectTemporal { .. } => ErrorCode::TruncatedWrongValue,
            SqlError::IncorrectValue { .. } => ErrorCode::TruncatedWrongValueForField,
            SqlError::InvalidTimestamp { .. } => ErrorCode::WarnInvalidTimestamp,
            SqlError::DataTooLong { .. } => ErrorCode::DataTooLong,
            SqlError::DataTruncated { .. } => ErrorCode::WarnDataTruncated,
            SqlError::NotNull { .. } => ErrorCode::BadNullError,
            SqlError::TooBigPrecision { .. } => ErrorCode::TooBigPrecision,
            SqlError::TooBigScale { .. } => ErrorCode::TooBigScale,
            SqlError::ScaleAbovePrecision { .. } => ErrorCode::MBiggerThanD,
            SqlError::TooBigLength { .. } => ErrorCode::TooBigFieldlength,
            SqlError::TooBigDisplayWidth { .. } => ErrorCode::TooBigDisplaywidth,
            SqlError::CorruptKey(_) => ErrorCode::IndexCorrupt,
            SqlError::CorruptRow(_) => ErrorCode::TableCorrupt,
            SqlError::Internal(_) => ErrorCode::UnknownError,
        }
    }

    /// The same condition reported as a warning (non-strict mode), with the same code and message.
    pub fn to_warning(&self) -> Warning {
        Warning {
            level: WarningLevel::Warning,
            code: self.code(),
            message: self.to_string(),
        }
    }
}

/// Severity of a [`Warning`], as in `SHOW WARNINGS`' `Level` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningLevel {
    Note,
    Warning,
}

/// One row of `SHOW WARNINGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: WarningLevel,
    pub code: ErrorCode,
    pub message: String,
}

impl Warning {
    /// A note (e.g. 1265 when a DECIMAL is rounded to the column scale).
    pub fn note(err: &SqlError) -> Warning {
        Warning {
            level: WarningLevel::Note,
            code: err.code(),
            message: err.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_messages_follow_mysql() {
        let e = SqlError::OutOfRange {
            column: "c".into(),
            row: 1,
        };
        assert_eq!((e.code().number(), e.code().sqlstate()), (1264, "22003"));
        assert_eq!(e.to_string(), "Out of range value for column 'c' at row 1");
        let e = SqlError::IncorrectValue {
            kind: "integer",
            value: "abc".into(),
            column: "`db`.`t`.`i`".into(),
            row: 2,
        };
        assert_eq!((e.code().number(), e.code().sqlstate()), (1366, "22007"));
        assert_eq!(
            e.to_string(),
            "Incorrect integer value: 'abc' for column `db`.`t`.`i` at row 2"
        );
        let e = SqlError::NotNull { column: "x".into() };
        assert_eq!((e.code().number(), e.code().sqlstate()), (1048, "23000"));
        assert_eq!(
            SqlError::DataTooLong {
                column: "s".into(),
                row: 1
            }
            .code()
            .number(),
            1406
        );
        let w = SqlError::DataTruncated {
            column: "s".into(),
            row: 3,
        }
        .to_warning();
        assert_eq!((w.level, w.code.number()), (WarningLevel::Warning, 1265));
        assert_eq!(w.message, "Data truncated for column 's' at row 3");
    }
}
