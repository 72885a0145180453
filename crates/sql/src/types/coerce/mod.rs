//! Coercion of a value to a column's type on INSERT / UPDATE, with MySQL's strict and non-strict
//! behaviours.
//!
//! Owns: [`SqlMode`] and [`coerce_to_column`]. In strict mode (MySQL 8's default
//! `STRICT_TRANS_TABLES`) a bad value is an error; otherwise the value is adjusted (clamped,
//! truncated, zeroed) and a [`Warning`] with the same code is recorded, as MySQL does.
//!
//! Rules (errno in brackets; "strict: error / non-strict: fallback + warning" unless noted):
//! * NULL into NOT NULL [1048]: non-strict stores the implicit default (0, '', zero date).
//!   AUTO_INCREMENT columns must be handled by the caller before coercion.
//! * Integers: strings are read as numbers and rounded half away from zero (`'3.7'` → 4, `'-2.5'` →
//!   -3, `'1e3'` → 1000); DOUBLE/FLOAT round half to even (MySQL uses `rint`), DECIMAL half away from
//!   zero; DATE/DATETIME/TIME use their numeric form. Not a number (`'abc'`, `''`) [1366] → 0;
//!   trailing garbage (`'12abc'`) [1265] → the numeric prefix; out of range [1264] → clamped to the
//!   type's limit (`300` into TINYINT → 127).
//! * YEAR: 1..=69 → 2001..=2069, 70..=99 → 1970..=1999, number 0 → 0000, string `'0'`/`'00'` → 2000,
//!   1901..=2155 as is, else [1264] → 0.
//! * DECIMAL(p,s) [UNSIGNED: a negative value [1264] → 0]: rounded half away from zero to `s` digits (a Note 1265 when digits are lost, in
//!   both modes); more than `p - s` integer digits [1264] → ±999.99-style maximum; not a number
//!   [1366] → 0; trailing garbage [1265].
//! * FLOAT/DOUBLE: real.rs.
//! * CHAR/VARCHAR(n): longer than n characters (TEXT: than its byte limit) [1406]; non-strict
//!   truncates to n characters (at a character boundary for TEXT) with warning 1265. When only
//!   spaces are cut, it is never an error: a Note 1265. CHAR values are stored without trailing
//!   spaces. Binary strings into latin1 columns are read as latin1 (each byte a character); into
//!   other text columns they must be valid UTF-8 [1366 "Incorrect string value"];
//!   non-strict keeps the valid prefix. A character the column's character set lacks (latin1,
//!   utf8mb3, ascii: charset.rs) [1366 "Incorrect string value: '\xF0\x9F...'"]; non-strict
//!   stores `?` in its place. TEXT limits count the character set's bytes. Numbers and temporal values are converted to their text form.
//! * BINARY/VARBINARY/BLOB: byte limits, same error/truncation rules (no space exception); BINARY(n)
//!   is right-padded with 0x00 to n bytes.
//! * DATE/DATETIME/TIMESTAMP: strings per `DateTime::parse`, numbers as `YYMMDD[HHMMSS]` /
//!   `YYYYMMDD[HHMMSS]`. Invalid values [1292] → zero date with warning 1265 in non-strict. The zero
//!   date itself, under NO_ZERO_DATE, is an error [1292] in strict mode and stored with warning
//!   1264 otherwise; accepted without the mode. Fractions beyond the column's fsp are cut off,
//!   as MariaDB's (TIME_ROUND_FRACTIONAL is refused). A DATE loses a non-zero time part with a Note
//!   1265. A TIMESTAMP value is read in the mode's time zone and stored as UTC (a local time the
//!   clocks skipped [1292] → the instant of the change with warning 1299); outside
//!   1970-01-01 00:00:01 ..= 2038-01-19 03:14:07.999999 (UTC) [1292] → zero with warning 1264.
//! * ENUM, SET, BIT: members.rs.
//! * TIME: `[-][D ]HH:MM:SS[.f]` or `HHMMSS`; beyond ±838:59:59 [1292] → clamped with warning 1264.

//!
//! Map: this file holds the entry points, [`SqlMode`] and the context of one conversion (`Ctx`:
//! strict or not, warnings, message names); numeric.rs (integers, YEAR, DECIMAL), real.rs
//! (FLOAT, DOUBLE), text.rs (character and binary strings), temporal.rs (dates and times),
//! members.rs (ENUM, SET, BIT).

mod members;
mod numeric;
mod real;
mod temporal;
mod text;

use crate::error::sql_error::{SqlError, Warning};
use crate::types::collation::Collation;
use crate::types::sql_mode::Modes;
use crate::types::time_zone::TimeZone;
use crate::types::value::Value;
use crate::types::{Column, SqlType};
use numeric::{to_decimal, to_int, to_year};
use temporal::{to_date, to_datetime, to_time};
use text::{to_bytes, to_text, Limit};

/// The parts of the session that coercion honours: MySQL's `sql_mode` and the `time_zone`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SqlMode {
    /// `STRICT_TRANS_TABLES` / `STRICT_ALL_TABLES`: bad values are errors instead of warnings.
    pub strict: bool,
    /// The zone values for a TIMESTAMP column are read in (they are stored as UTC).
    pub time_zone: TimeZone,
    /// `NO_ZERO_DATE`: the zero date is an error in strict mode, else stored with warning 1264.
    pub no_zero_date: bool,
}

impl SqlMode {
    /// Strict or not, in UTC: for values that are not the session's (stored rows, constants);
    /// the zero date is refused when strict.
    pub fn utc(strict: bool) -> SqlMode {
        SqlMode {
            strict,
            time_zone: TimeZone::UTC,
            no_zero_date: strict,
        }
    }

    /// A session's mode: strict or not (IGNORE turns it off), its time zone and `sql_mode`.
    pub fn session(strict: bool, time_zone: TimeZone, modes: Modes) -> SqlMode {
        SqlMode {
            strict,
            time_zone,
            no_zero_date: modes.has(Modes::NO_ZERO_DATE),
        }
    }
}

impl Default for SqlMode {
    /// MySQL 8's default: strict, in UTC.
    fn default() -> Self {
        SqlMode::utc(true)
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) col: &'a Column,
    /// Database and table of the column, for MariaDB's `db`.`t`.`col` in message 1366.
    table: Option<(&'a str, &'a str)>,
    row: u64,
    strict: bool,
    time_zone: TimeZone,
    no_zero_date: bool,
    warnings: &'a mut Vec<Warning>,
}

impl Ctx<'_> {
    fn name(&self) -> String {
        self.col.name.clone()
    }
    pub(crate) fn out_of_range(&self) -> SqlError {
        SqlError::OutOfRange {
            column: self.name(),
            row: self.row,
        }
    }
    pub(crate) fn truncated(&self) -> SqlError {
        SqlError::DataTruncated {
            column: self.name(),
            row: self.row,
        }
    }
    /// The column as MariaDB names it in 1366 and 1292: `` `db`.`t`.`c` `` for a table's column, else `'c'`.
    fn qualified_name(&self) -> String {
        match self.table {
            Some((db, t)) => format!("`{db}`.`{t}`.`{}`", self.col.name),
            None => format!("'{}'", self.col.name),
        }
    }
    fn incorrect(&self, kind: &'static str, v: &Value) -> SqlError {
        SqlError::IncorrectValue {
            kind,
            value: display(v),
            column: self.qualified_name(),
            row: self.row,
        }
    }
    fn bad_temporal(&self, kind: &'static str, v: &Value) -> SqlError {
        SqlError::IncorrectTemporal {
            kind,
            value: display(v),
            column: self.qualified_name(),
            row: self.row,
        }
    }
    /// Strict: `Err(err)`. Otherwise records `err` as a warning and returns `fallback`.
    pub(crate) fn fail_or<T>(&mut self, err: SqlError, fallback: T) -> Result<T, SqlError> {
        if self.strict {
            Err(err)
        } else {
            self.warnings.push(err.to_warning());
            Ok(fallback)
        }
    }
    /// Strict: `Err(err)`. Otherwise records `warn` and returns `fallback`.
    fn fail_or_warn<T>(
        &mut self,
        err: SqlError,
        warn: SqlError,
        fallback: T,
    ) -> Result<T, SqlError> {
        if self.strict {
            Err(err)
        } else {
            self.warnings.push(warn.to_warning());
            Ok(fallback)
        }
    }
    fn note(&mut self, err: SqlError) {
        self.warnings.push(Warning::note(&err));
    }
}

/// The value as it appears in MySQL's messages.
fn display(v: &Value) -> String {
    match v {
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => b
                .iter()
                .map(|x| {
                    if x.is_ascii() {
                        (*x as char).to_string()
                    } else {
                        format!("\\x{x:02X}")
                    }
                })
                .collect(),
        },
        _ => v
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|| "NULL".into()),
    }
}

/// Converts `v` to `col`'s type for storing it in row `row` (1-based, for messages). Warnings of a
/// non-strict conversion (and notes of either mode) are appended to `warnings`.
pub fn coerce_to_column(
    v: &Value,
    col: &Column,
    row: u64,
    mode: SqlMode,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    coerce_in_table(v, col, None, row, mode, warnings)
}

/// [`coerce_to_column`] for a column of table `table` of database `db`: message 1366 names the
/// column `db`.`table`.`col`, as MariaDB does.
pub fn coerce_to_table_column(
    v: &Value,
    col: &Column,
    (db, table): (&str, &str),
    row: u64,
    mode: SqlMode,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    coerce_in_table(v, col, Some((db, table)), row, mode, warnings)
}

fn coerce_in_table(
    v: &Value,
    col: &Column,
    table: Option<(&str, &str)>,
    row: u64,
    mode: SqlMode,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    let mut cx = Ctx {
        col,
        table,
        row,
        strict: mode.strict,
        time_zone: mode.time_zone,
        no_zero_date: mode.no_zero_date,
        warnings,
    };
    if v.is_null() {
        if col.nullable {
            return Ok(Value::Null);
        }
        let err = SqlError::NotNull {
            column: col.name.clone(),
        };
        return cx.fail_or(err, col.implicit_value());
    }
    match col.sql_type {
        SqlType::Int { width, unsigned } => to_int(&mut cx, v, width, unsigned),
        SqlType::Year => to_year(&mut cx, v),
        SqlType::Decimal {
            precision,
            scale,
            unsigned,
        } => to_decimal(&mut cx, v, precision, scale, unsigned),
        SqlType::Float { digits, unsigned } => {
            crate::types::coerce::real::to_real(&mut cx, v, true, digits, unsigned)
                .map(|d| Value::Float(d as f32))
        }
        SqlType::Double { digits, unsigned } => {
            crate::types::coerce::real::to_real(&mut cx, v, false, digits, unsigned)
                .map(Value::Double)
        }
        SqlType::Char { len } => to_text(&mut cx, v, Limit::Chars(len as u64))
            .map(|s| Value::Text(s.trim_end_matches(' ').to_string())),
        SqlType::VarChar { len } => to_text(&mut cx, v, Limit::Chars(len as u64)).map(Value::Text),
        SqlType::Text(size) => to_text(&mut cx, v, Limit::Bytes(size.max_bytes())).map(Value::Text),
        SqlType::Binary { len } => to_bytes(&mut cx, v, len as u64).map(|mut b| {
            b.resize(len as usize, 0);
            Value::Bytes(b)
        }),
        SqlType::VarBinary { len } => to_bytes(&mut cx, v, len as u64).map(Value::Bytes),
        SqlType::Blob(size) => to_bytes(&mut cx, v, size.max_bytes()).map(Value::Bytes),
        SqlType::Date => to_date(&mut cx, v),
        SqlType::DateTime { fsp } => to_datetime(&mut cx, v, fsp, false),
        SqlType::Timestamp { fsp } => to_datetime(&mut cx, v, fsp, true),
        SqlType::Time { fsp } => to_time(&mut cx, v, fsp),
        SqlType::Enum { .. } => crate::types::coerce::members::to_enum(&mut cx, v),
        SqlType::Set { .. } => crate::types::coerce::members::to_set(&mut cx, v),
        SqlType::Bit { len } => crate::types::coerce::members::to_bit(&mut cx, v, len),
    }
}

/// Collation used to compare a column's values (`binary` for non-string columns).
pub fn column_collation(col: &Column) -> Collation {
    if col.sql_type.is_text() || col.sql_type.is_binary() {
        col.collation
    } else {
        Collation::Binary
    }
}
