//! Scalar functions of already-evaluated arguments: [`call`] routes an upper-case name to its
//! family, one file each, as DuckDB's `function/` folder does:
//!
//! | file | family |
//! | --- | --- |
//! | `string.rs` | CONCAT, SUBSTRING, LPAD, REPLACE, LOCATE, FIELD, FORMAT, ... |
//! | `numeric.rs` | ABS, ROUND, TRUNCATE, FLOOR, MOD, POW, SQRT, LN, ... |
//! | `temporal.rs` | DATE_FORMAT, DATEDIFF, EXTRACT, FROM_UNIXTIME, DATE_ADD, ... |
//! | `time_of_day.rs` | HOUR, MINUTE, SECOND, MICROSECOND, TIMEDIFF, TIME_FORMAT, SEC_TO_TIME |
//! | `time_arith.rs` | MAKETIME, ADDTIME, SUBTIME |
//! | `period.rs` | PERIOD_ADD, PERIOD_DIFF |
//! | `date_parse.rs` | STR_TO_DATE, MAKEDATE |
//! | `timestamp_diff.rs` | TIMESTAMPDIFF (as `__TIMESTAMPDIFF_<unit>`) |
//! | `time_zone.rs` | CONVERT_TZ |
//! | `time_series.rs` | TIME_BUCKET (a Betula extension) |
//! | `week.rs` | WEEK, YEARWEEK, WEEKOFYEAR and DATE_FORMAT's week specifiers |
//! | `control.rs` | IF, IFNULL, COALESCE, NULLIF, GREATEST, LEAST, INTERVAL, ... (lazy ones too) |
//! | `conversion.rs` | HEX, UNHEX, BIN, OCT, CONV, ASCII, CHAR, `COLLATE` |
//! | `hash.rs` | CRC32 |
//! | `compression.rs` | COMPRESS, UNCOMPRESS, UNCOMPRESSED_LENGTH |
//! | `misc.rs` | names accepted but not evaluated (UUID_SHORT) |
//! | `random.rs` | RAND's generator (RAND is an expression of its own, not called by name) |
//!
//! Invariants:
//! * The names a query may call are exactly the families' `NAMES` ([`is_known_function`]), plus
//!   the internal `__COLLATE`, `__CHARSET_BYTES`, `__EXTRACT_<unit>`, `__TIME_BUCKET_<unit>` and `__TIMESTAMPDIFF_<unit>`
//!   the compiler makes from `COLLATE`, `EXTRACT`, `TIME_BUCKET(INTERVAL n unit, ...)` and
//!   `TIMESTAMPDIFF`, and `__DIV_PRECISE` / `__DEC_ROUND` (`decimal_quotient.rs`) it makes of a
//!   DECIMAL division inside a longer arithmetic expression; every name is in one family only.
//! * Context-dependent functions (NOW, DATABASE, CONNECTION_ID, LAST_INSERT_ID, ...) are not
//!   here: the session folds them to constants at compile time. Every function [`call`] reaches
//!   is deterministic, which the blind-upsert path relies on (recovery re-runs it); RAND is not
//!   called by name but is an [`crate::expr::Expr::Rand`] node holding its generator.
//! * NULL in gives NULL out, decided here before the family sees the arguments, except for the
//!   functions of `NULL_AWARE` (CONCAT_WS skips NULLs, IFNULL picks around them, ...).

mod compression;
mod control;
mod conversion;
mod date_add;
mod date_parse;
mod decimal_quotient;
mod extract;
mod hash;
mod interval_text;
mod min_max_temporal;
mod misc;
mod numeric;
mod period;
mod random;
mod string;
mod temporal;
mod time_arith;
mod time_of_day;
pub mod time_series;
mod time_zone;
mod timestamp_diff;
mod week;

pub use control::eval_lazy;
pub use date_add::date_add;
pub use decimal_quotient::{DEC_ROUND, DIV_PRECISE};
pub use numeric::reads_numbers;
pub use random::Rng;
pub use temporal::{date_format, from_unix_micros};

use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// The name the function `INTERVAL(N, N1, ...)` is written with for sqlparser (parser's
/// mariadb_forms.rs), which reads `INTERVAL` only as the interval keyword: as long as
/// `INTERVAL`, so every token keeps its place and computed columns keep their names.
pub const INTERVAL_FUNCTION: &str = "__INTRVL";

/// The internal function the compiler wraps a latin1 text in where its bytes count (HEX,
/// LENGTH): the text's bytes in its character set (conversion.rs).
pub const CHARSET_BYTES: &str = "__CHARSET_BYTES";

/// The internal function a text read from bytes under a character set introducer
/// (`_koi8r 0xFF`) and `CONVERT(x USING cs)` are wrapped in: `__IN_CHARSET(text, collation
/// name)` is the text converted to that collation's character set (`?` for a character it
/// lacks), in that collation (expr/scope.rs), so HEX and LENGTH count its bytes in that set.
pub const IN_CHARSET: &str = "__IN_CHARSET";

/// A family's evaluation of one of its names.
type Body = fn(&str, &[Value]) -> DbResult<Value>;

/// Each family's names and evaluation.
const FAMILIES: &[(&[&str], Body)] = &[
    (string::NAMES, string::call),
    (numeric::NAMES, numeric::call),
    (temporal::NAMES, temporal::call),
    (time_of_day::NAMES, time_of_day::call),
    (time_arith::NAMES, time_arith::call),
    (period::NAMES, period::call),
    (date_parse::NAMES, date_parse::call),
    (time_zone::NAMES, time_zone::call),
    (time_series::NAMES, time_series::call),
    (week::NAMES, week::call),
    (control::NAMES, control::call),
    (conversion::NAMES, conversion::call),
    (hash::NAMES, hash::call),
    (compression::NAMES, compression::call),
    (misc::NAMES, misc::call),
];

/// The functions that see NULL arguments; any other is NULL when an argument is.
const NULL_AWARE: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "NULLIF",
    "ISNULL",
    "IF",
    "IFNULL",
    "COALESCE",
    "NVL",
    "INTERVAL",
];

fn family(name: &str) -> Option<Body> {
    FAMILIES
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, body)| *body)
}

/// True if `name` (upper case) is a scalar function a query may call.
pub fn is_known_function(name: &str) -> bool {
    family(name).is_some()
        || name.starts_with("__EXTRACT_")
        || name.starts_with("__TIME_BUCKET_")
        || name.starts_with("__TIMESTAMPDIFF_")
        || name == "__COLLATE"
        || name == IN_CHARSET
        || name == CHARSET_BYTES
        || name == DIV_PRECISE
        || name == DEC_ROUND
}

/// Function `name` (upper case) of the evaluated arguments `a`.
pub fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    if let Some(unit) = name.strip_prefix("__EXTRACT_") {
        return Ok(extract::extract_call(unit, a));
    }
    if let Some(unit) = name.strip_prefix("__TIMESTAMPDIFF_") {
        return Ok(timestamp_diff::call(unit, a));
    }
    if name == IN_CHARSET {
        return Ok(conversion::in_charset(a));
    }
    if name == "__COLLATE" {
        return Ok(conversion::collate(a));
    }
    if name == CHARSET_BYTES {
        return Ok(conversion::charset_bytes(a));
    }
    if let Some(unit) = name.strip_prefix("__TIME_BUCKET_") {
        return time_series::interval_call(unit, a);
    }
    if !NULL_AWARE.contains(&name) && a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    match (name, a) {
        (DIV_PRECISE, [x, y]) => return decimal_quotient::divide(x, y),
        (DEC_ROUND, [x, n]) => return Ok(decimal_quotient::round(x, n)),
        _ => {}
    }
    match family(name) {
        Some(body) => body(name, a),
        None => Err(DbError::no_function(&name.to_ascii_lowercase())),
    }
}

/// Arity check: `name` takes `min..=max` arguments (1582 otherwise).
fn need(name: &str, a: &[Value], min: usize, max: usize) -> DbResult<()> {
    if a.len() < min || a.len() > max {
        Err(DbError::wrong_args(name))
    } else {
        Ok(())
    }
}

/// An argument as an integer (rounded), `None` for NULL.
fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i),
        Value::UInt(u) => Some(*u as i64),
        Value::Decimal(d) => {
            Some(d.round_to_i128().clamp(i64::MIN as i128, i64::MAX as i128) as i64)
        }
        other => other.to_f64_lenient().map(|f| f.round() as i64),
    }
}

fn text(v: String) -> Value {
    Value::Text(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;

    /// The names accepted before the functions were split into families.
    const KNOWN: &[&str] = &[
        "CONCAT",
        "CONCAT_WS",
        "NULLIF",
        "LENGTH",
        "OCTET_LENGTH",
        "CHAR_LENGTH",
        "CHARACTER_LENGTH",
        "UPPER",
        "UCASE",
        "LOWER",
        "LCASE",
        "SUBSTRING",
        "SUBSTR",
        "MID",
        "LEFT",
        "RIGHT",
        "TRIM",
        "LTRIM",
        "RTRIM",
        "TRIM_CHARS",
        "LTRIM_CHARS",
        "RTRIM_CHARS",
        "REPLACE",
        "REVERSE",
        "REPEAT",
        "LPAD",
        "RPAD",
        "LOCATE",
        "INSTR",
        "ABS",
        "ROUND",
        "TRUNCATE",
        "FLOOR",
        "CEIL",
        "CEILING",
        "MOD",
        "SIGN",
        "GREATEST",
        "LEAST",
        "POW",
        "POWER",
        "SQRT",
        "HEX",
        "UNHEX",
        "INTERVAL",
        "BIN",
        "OCT",
        "FIND_IN_SET",
        "UNIX_TIMESTAMP",
        "FROM_UNIXTIME",
        "DATE_FORMAT",
        "DATE",
        "TIME",
        "YEAR",
        "MONTH",
        "DAY",
        "DAYOFMONTH",
        "HOUR",
        "MINUTE",
        "SECOND",
        "DAYOFWEEK",
        "DAYOFYEAR",
        "WEEKDAY",
        "TO_DAYS",
        "FROM_DAYS",
        "DATEDIFF",
        "LAST_DAY",
        "IF",
        "IFNULL",
        "COALESCE",
        "NVL",
        "ISNULL",
        "SPACE",
        "ASCII",
        "ORD",
        "CHAR",
        "FIELD",
        "ELT",
        "STRCMP",
        "CRC32",
        "TIMESTAMP",
        "DAYNAME",
        "MONTHNAME",
        "EXP",
        "LN",
        "LOG",
        "LOG10",
        "LOG2",
        "PI",
        "SIN",
        "COS",
        "FORMAT",
        "QUOTE",
        "UUID_SHORT",
        "CONVERT_TZ",
        "WEEK",
        "YEARWEEK",
        "WEEKOFYEAR",
        // Added with partitioning (its functions).
        "TO_SECONDS",
        "QUARTER",
        "MICROSECOND",
        "TIME_TO_SEC",
        // Betula's time-series extension.
        "TIME_BUCKET",
        // String and bit functions found missing by comparisons with MariaDB.
        "INSERT",
        "BIT_COUNT",
        // Added for BI tools (Grafana, Metabase).
        "TIMEDIFF",
        "TIME_FORMAT",
        "SEC_TO_TIME",
        "STR_TO_DATE",
        "MAKEDATE",
        "SUBSTRING_INDEX",
        // Found missing by comparisons with MariaDB.
        "MAKETIME",
        "ADDTIME",
        "SUBTIME",
        "PERIOD_ADD",
        "PERIOD_DIFF",
        "CONV",
        "TAN",
        "ATAN",
        "ATAN2",
        "ASIN",
        "ACOS",
        "DEGREES",
        "RADIANS",
        "COT",
        "COMPRESS",
        "UNCOMPRESS",
        "UNCOMPRESSED_LENGTH",
    ];

    #[test]
    fn families_accept_exactly_the_known_names_once_each() {
        let mut all: Vec<&str> = FAMILIES
            .iter()
            .flat_map(|(n, _)| n.iter().copied())
            .collect();
        all.sort_unstable();
        let mut known = KNOWN.to_vec();
        known.sort_unstable();
        assert_eq!(all, known);
        assert!(is_known_function("__EXTRACT_Year") && is_known_function("__COLLATE"));
        assert!(is_known_function(CHARSET_BYTES));
        assert!(is_known_function("__TIME_BUCKET_Minute"));
        assert!(!is_known_function("RAND") && !is_known_function("NOW"));
    }

    #[test]
    fn null_arguments_give_null_except_for_null_aware_functions() {
        let n = Value::Null;
        assert_eq!(call("LENGTH", &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(call("UUID_SHORT", &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(
            call("UUID_SHORT", &[]).unwrap_err().code,
            ErrorCode::SpDoesNotExist
        );
        assert_eq!(
            call("IFNULL", &[n.clone(), Value::Int(2)]).unwrap(),
            Value::Int(2)
        );
        assert_eq!(call("ISNULL", &[n]).unwrap(), Value::Int(1));
        assert_eq!(
            call("MOD", &[Value::Int(7), Value::Int(3)]).unwrap(),
            Value::Int(1)
        );
    }
}
