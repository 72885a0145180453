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
//! * FLOAT/DOUBLE: `coerce_real.rs`.
//! * CHAR/VARCHAR(n): longer than n characters (TEXT: than its byte limit) [1406]; non-strict
//!   truncates to n characters (at a character boundary for TEXT) with warning 1265. When only
//!   spaces are cut, it is never an error: a Note 1265. CHAR values are stored without trailing
//!   spaces. Binary strings into text columns must be valid UTF-8 [1366 "Incorrect string value"];
//!   non-strict keeps the valid prefix. A character the column's character set lacks (latin1,
//!   utf8mb3, ascii: charset.rs) [1366 "Incorrect string value: '\xF0\x9F...'"]; non-strict
//!   stores `?` in its place. TEXT limits count the character set's bytes. Numbers and temporal values are converted to their text form.
//! * BINARY/VARBINARY/BLOB: byte limits, same error/truncation rules (no space exception); BINARY(n)
//!   is right-padded with 0x00 to n bytes.
//! * DATE/DATETIME/TIMESTAMP: strings per `DateTime::parse`, numbers as `YYMMDD[HHMMSS]` /
//!   `YYYYMMDD[HHMMSS]`. Invalid values [1292] → zero date with warning 1265 in non-strict. The zero
//!   date itself is an error [1292] in strict mode (MySQL 8 default NO_ZERO_DATE) and accepted
//!   otherwise. Fractions round to the column's fsp. A DATE loses a non-zero time part with a Note
//!   1265. TIMESTAMP outside 1970-01-01 00:00:01 ..= 2038-01-19 03:14:07.999999 (UTC) [1292] → zero
//!   with warning 1264.
//! * ENUM, SET, BIT: `coerce_members.rs`.
//! * TIME: `[-][D ]HH:MM:SS[.f]` or `HHMMSS`; beyond ±838:59:59 [1292] → clamped with warning 1264.

mod members;
mod real;

use crate::error::sql_error::{SqlError, Warning};
use crate::types::collation::Collation;
use crate::types::decimal::{Decimal, DecimalParseError};
use crate::types::temporal::{Date, DateTime, Time, MICROS_PER_SEC, TIME_MAX_MICROS};
use crate::types::value::{numeric_prefix_len, str_to_f64_prefix, Value};
use crate::types::{Column, IntWidth, SqlType};

/// The parts of MySQL's `sql_mode` that coercion honours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SqlMode {
    /// `STRICT_TRANS_TABLES` / `STRICT_ALL_TABLES`: bad values are errors instead of warnings.
    pub strict: bool,
}

impl Default for SqlMode {
    /// MySQL 8's default: strict.
    fn default() -> Self {
        SqlMode { strict: true }
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) col: &'a Column,
    /// Database and table of the column, for MariaDB's `db`.`t`.`col` in message 1366.
    table: Option<(&'a str, &'a str)>,
    row: u64,
    strict: bool,
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
    /// The column as MariaDB names it in 1366: `` `db`.`t`.`c` `` for a table's column, else `'c'`.
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
            column: self.name(),
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

/// Reads a string as a number for integer / decimal targets. `Ok(None)` = not a number (already
/// reported, caller stores 0).
fn parse_numeric_str(
    cx: &mut Ctx<'_>,
    v: &Value,
    s: &[u8],
    kind: &'static str,
) -> Result<Option<NumStr>, SqlError> {
    let n = numeric_prefix_len(s);
    if n == 0 {
        let err = cx.incorrect(kind, v);
        cx.fail_or(err, ())?;
        return Ok(None);
    }
    let prefix = std::str::from_utf8(&s[..n]).unwrap_or("0");
    let parsed = match Decimal::parse_prefix(prefix) {
        Ok((d, _)) => NumStr::Dec(d),
        Err(DecimalParseError::Overflow) => NumStr::Huge(str_to_f64_prefix(prefix.as_bytes()).0),
        Err(DecimalParseError::Invalid) => NumStr::Dec(Decimal::ZERO),
    };
    if !s[n..].iter().all(|b| b.is_ascii_whitespace()) {
        let err = cx.truncated();
        cx.fail_or(err, ())?;
    }
    Ok(Some(parsed))
}

enum NumStr {
    Dec(Decimal),
    /// Beyond 38 digits: only its sign and magnitude matter (out of range for every type).
    Huge(f64),
}

fn to_int(cx: &mut Ctx<'_>, v: &Value, width: IntWidth, unsigned: bool) -> Result<Value, SqlError> {
    let n: i128 = match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Decimal(d) => d.round_to_i128(),
        Value::Float(f) => round_double(*f as f64),
        Value::Double(d) => round_double(*d),
        Value::Text(_) | Value::Bytes(_) => {
            let s = v.str_bytes().unwrap_or_default();
            match parse_numeric_str(cx, v, s, "integer")? {
                None => 0,
                Some(NumStr::Dec(d)) => d.round_to_i128(),
                Some(NumStr::Huge(f)) => round_double(f),
            }
        }
        Value::Date(d) => d.as_number() as i128,
        Value::DateTime(dt) => dt.as_number().round() as i128,
        Value::Time(t) => t.as_number().round() as i128,
        Value::Null => 0,
    };
    let (min, max) = if unsigned {
        (0, width.unsigned_max() as i128)
    } else {
        let (a, b) = width.signed_range();
        (a as i128, b as i128)
    };
    let n = if n < min || n > max {
        let err = cx.out_of_range();
        cx.fail_or(err, n.clamp(min, max))?
    } else {
        n
    };
    Ok(if unsigned {
        Value::UInt(n as u64)
    } else {
        Value::Int(n as i64)
    })
}

/// MySQL's double → integer: round half to even; NaN → 0; infinities saturate (then range-checked).
fn round_double(f: f64) -> i128 {
    if f.is_nan() {
        0
    } else {
        f.round_ties_even() as i128
    }
}

fn to_year(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let (n, from_str_zero) = match v {
        Value::Text(_) | Value::Bytes(_) => {
            let s = v.str_bytes().unwrap_or_default();
            let t = std::str::from_utf8(s).unwrap_or("").trim();
            let short_zero = !t.is_empty() && t.len() < 4 && t.bytes().all(|b| b == b'0');
            let n = match parse_numeric_str(cx, v, s, "integer")? {
                None => 0,
                Some(NumStr::Dec(d)) => d.round_to_i128(),
                Some(NumStr::Huge(f)) => round_double(f),
            };
            (n, short_zero)
        }
        Value::Int(i) => (*i as i128, false),
        Value::UInt(u) => (*u as i128, false),
        Value::Decimal(d) => (d.round_to_i128(), false),
        Value::Float(f) => (round_double(*f as f64), false),
        Value::Double(d) => (round_double(*d), false),
        Value::Date(d) => (d.year as i128, false),
        Value::DateTime(dt) => (dt.date.year as i128, false),
        Value::Time(_) | Value::Null => (0, false),
    };
    let y = match n {
        0 if from_str_zero => 2000,
        0 => 0,
        1..=69 => 2000 + n,
        70..=99 => 1900 + n,
        1901..=2155 => n,
        _ => {
            let err = cx.out_of_range();
            cx.fail_or(err, 0)?
        }
    };
    Ok(Value::UInt(y as u64))
}

fn to_decimal(
    cx: &mut Ctx<'_>,
    v: &Value,
    precision: u8,
    scale: u8,
    unsigned: bool,
) -> Result<Value, SqlError> {
    let max = Decimal::max_for(precision, scale);
    let clamp = |neg: bool| Value::Decimal(if neg { max.neg() } else { max });
    let d = match v {
        Value::Int(i) => Decimal::from_i64(*i),
        Value::UInt(u) => Decimal::from_u64(*u),
        Value::Decimal(d) => *d,
        Value::Float(_) | Value::Double(_) => {
            let f = v.to_f64_lenient().unwrap_or(0.0);
            match Decimal::from_f64(f) {
                Some(d) => d,
                None => {
                    let err = cx.out_of_range();
                    return cx.fail_or(err, clamp(f < 0.0));
                }
            }
        }
        Value::Text(_) | Value::Bytes(_) => {
            match parse_numeric_str(cx, v, v.str_bytes().unwrap_or_default(), "decimal")? {
                None => Decimal::ZERO,
                Some(NumStr::Dec(d)) => d,
                Some(NumStr::Huge(f)) => {
                    let err = cx.out_of_range();
                    return cx.fail_or(err, clamp(f < 0.0));
                }
            }
        }
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            Decimal::from_f64(v.to_f64_lenient().unwrap_or(0.0)).unwrap_or(Decimal::ZERO)
        }
        Value::Null => Decimal::ZERO,
    };
    let neg = d.is_negative();
    if unsigned && neg {
        let err = cx.out_of_range();
        let zero = Decimal::new(0, scale).unwrap_or(Decimal::ZERO);
        return cx.fail_or(err, Value::Decimal(zero));
    }
    match d.rescale(scale) {
        Some((r, _)) if r.abs() > max => {
            let err = cx.out_of_range();
            cx.fail_or(err, clamp(neg))
        }
        Some((r, inexact)) => {
            if inexact {
                let note = cx.truncated();
                cx.note(note);
            }
            Ok(Value::Decimal(r))
        }
        None => {
            let err = cx.out_of_range();
            cx.fail_or(err, clamp(neg))
        }
    }
}

enum Limit {
    Chars(u64),
    Bytes(u64),
}

fn to_text(cx: &mut Ctx<'_>, v: &Value, limit: Limit) -> Result<String, SqlError> {
    let s: String = match v {
        Value::Text(s) => s.clone(),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(e) => {
                let err = cx.incorrect("string", v);
                let valid = String::from_utf8_lossy(&b[..e.valid_up_to()]).into_owned();
                cx.fail_or(err, valid)?
            }
        },
        other => other
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    };
    let s = in_repertoire(cx, s)?;
    // A TEXT type's byte limit counts bytes of the column's character set (latin1: characters).
    let limit = match limit {
        Limit::Bytes(n) if cx.col.collation.max_bytes_per_char() == 1 => Limit::Chars(n),
        l => l,
    };
    let cut = match limit {
        Limit::Chars(n) => s.char_indices().nth(n as usize).map(|(i, _)| i),
        Limit::Bytes(n) if s.len() as u64 > n => {
            let mut i = n as usize;
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            Some(i)
        }
        Limit::Bytes(_) => None,
    };
    match cut {
        None => Ok(s),
        Some(i) => {
            if s[i..].bytes().all(|b| b == b' ') {
                let note = cx.truncated();
                cx.note(note);
                return Ok(s[..i].to_string());
            }
            let err = SqlError::DataTooLong {
                column: cx.name(),
                row: cx.row,
            };
            let warn = cx.truncated();
            cx.fail_or_warn(err, warn, s[..i].to_string())
        }
    }
}

/// `s` if the column's character set holds every character of it; otherwise 1366 "Incorrect
/// string value" (strict) or, with that warning, `s` with those characters replaced by `?`.
fn in_repertoire(cx: &mut Ctx<'_>, s: String) -> Result<String, SqlError> {
    let cs = cx.col.collation.charset();
    let Err(pos) = cs.fits(&s) else {
        return Ok(s);
    };
    let err = SqlError::IncorrectValue {
        kind: "string",
        value: crate::types::charset::bad_bytes_text(&s, pos),
        column: cx.qualified_name(),
        row: cx.row,
    };
    let replaced = cs.replace_unrepresentable(&s);
    cx.fail_or(err, replaced)
}

fn to_bytes(cx: &mut Ctx<'_>, v: &Value, max: u64) -> Result<Vec<u8>, SqlError> {
    let b = match v {
        Value::Text(s) => s.as_bytes().to_vec(),
        Value::Bytes(b) => b.clone(),
        other => other.to_text(None).unwrap_or_default(),
    };
    if b.len() as u64 > max {
        let err = SqlError::DataTooLong {
            column: cx.name(),
            row: cx.row,
        };
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, b[..max as usize].to_vec());
    }
    Ok(b)
}

/// Digits of a number read as a date/datetime: padded to 6, 8, 12 or 14 digits.
fn number_as_datetime(n: u64) -> Option<DateTime> {
    let s = n.to_string();
    let width = match s.len() {
        0..=6 => 6,
        7..=8 => 8,
        9..=12 => 12,
        13..=14 => 14,
        _ => return None,
    };
    DateTime::parse(&format!("{s:0>width$}"))
}

/// Parses any value as a DATETIME (before fsp rounding); `None` if it is not a valid one.
fn parse_datetime_value(v: &Value) -> Option<DateTime> {
    match v {
        Value::Text(s) => DateTime::parse(s),
        Value::Bytes(b) => DateTime::parse(std::str::from_utf8(b).ok()?),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::DateTime(dt) => Some(*dt),
        Value::Int(i) => number_as_datetime(u64::try_from(*i).ok()?),
        Value::UInt(u) => number_as_datetime(*u),
        Value::Decimal(d) => {
            let int = u64::try_from(d.rescale(0)?.0.small_mantissa()?).ok()?;
            let m = d.small_mantissa()?;
            let frac = m.unsigned_abs() % crate::types::decimal::pow10(d.scale() as u32) as u128;
            let mut dt = number_as_datetime(int)?;
            let us = frac as f64 / crate::types::decimal::pow10(d.scale() as u32) as f64 * 1e6;
            if int >= 100_000_000 {
                dt.micros += us as u64;
            }
            Some(dt)
        }
        Value::Double(_) | Value::Float(_) => {
            let d = Decimal::from_f64(v.to_f64_lenient()?)?;
            parse_datetime_value(&Value::Decimal(d))
        }
        Value::Time(_) | Value::Null => None,
    }
}

fn to_date(cx: &mut Ctx<'_>, v: &Value) -> Result<Value, SqlError> {
    let Some(dt) = parse_datetime_value(v) else {
        let err = cx.bad_temporal("date", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, Value::Date(Date::ZERO));
    };
    if dt.date.is_zero() && cx.strict {
        return Err(cx.bad_temporal("date", v));
    }
    if dt.micros != 0 {
        let note = cx.truncated();
        cx.note(note);
    }
    Ok(Value::Date(dt.date))
}

/// TIMESTAMP range in microseconds since the epoch.
const TS_MIN: i64 = MICROS_PER_SEC as i64;
const TS_MAX: i64 = 2_147_483_647 * MICROS_PER_SEC as i64 + 999_999;

fn to_datetime(cx: &mut Ctx<'_>, v: &Value, fsp: u8, timestamp: bool) -> Result<Value, SqlError> {
    let zero = Value::DateTime(DateTime::ZERO);
    let Some(dt) = parse_datetime_value(v).and_then(|d| d.round_to_fsp(fsp)) else {
        let err = cx.bad_temporal("datetime", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, zero);
    };
    if dt.date.is_zero() {
        if cx.strict {
            return Err(cx.bad_temporal("datetime", v));
        }
        return Ok(zero);
    }
    if timestamp {
        let us = dt.unix_micros().unwrap_or(0);
        if !(TS_MIN..=TS_MAX).contains(&us) {
            let err = cx.bad_temporal("datetime", v);
            let warn = cx.out_of_range();
            return cx.fail_or_warn(err, warn, zero);
        }
    }
    Ok(Value::DateTime(dt))
}

fn to_time(cx: &mut Ctx<'_>, v: &Value, fsp: u8) -> Result<Value, SqlError> {
    let parsed = match v {
        Value::Text(s) => Time::parse(s),
        Value::Bytes(b) => std::str::from_utf8(b).ok().and_then(Time::parse),
        Value::Time(t) => Some(*t),
        Value::DateTime(dt) => Some(Time {
            micros: dt.micros as i64,
        }),
        Value::Date(_) => Some(Time { micros: 0 }),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            let d = match v {
                Value::Decimal(d) => Some(*d),
                _ => Decimal::from_f64(v.to_f64_lenient().unwrap_or(0.0)),
            };
            d.and_then(|d| Time::parse(&d.to_string()))
        }
        Value::Null => None,
    };
    let Some(t) = parsed else {
        let err = cx.bad_temporal("time", v);
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, Value::Time(Time { micros: 0 }));
    };
    let t = t.round_to_fsp(fsp);
    if t.micros.abs() > TIME_MAX_MICROS {
        let err = cx.bad_temporal("time", v);
        let warn = cx.out_of_range();
        return cx.fail_or_warn(
            err,
            warn,
            Value::Time(Time {
                micros: TIME_MAX_MICROS.copysign_i64(t.micros),
            }),
        );
    }
    Ok(Value::Time(t))
}

trait CopySign {
    fn copysign_i64(self, sign: i64) -> i64;
}
impl CopySign for i64 {
    fn copysign_i64(self, sign: i64) -> i64 {
        if sign < 0 {
            -self
        } else {
            self
        }
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
