//! The `sql_mode` system variable as MariaDB 10.11 has it: a set of named modes kept as a bit
//! set ([`Modes`]), written as MariaDB writes it (names in bit order, comma-separated).
//!
//! Owns: the mode names and their bits (MariaDB's, so a binary log's status variable carries
//! them unchanged), the combination modes and what they add, [`assign`] (the text a
//! `SET sql_mode = ...` leaves) and which modes Betula honours.
//!
//! Rules, as MariaDB applies them: the text is a comma-separated list of names in any case;
//! empty items are skipped; spaces are not trimmed (`'A , B'` names `'A '`); an unknown name is
//! 1231 naming it; a number is the bit set itself (< 2^35); NULL is 1231. A combination mode
//! (ANSI, TRADITIONAL, ORACLE, ...) adds the modes it stands for and stays in the set.
//!
//! Invariant: a mode whose meaning Betula does not implement is refused (1235) rather than
//! kept and ignored, so a session never runs under a mode it only appears to have. Honoured:
//! STRICT_TRANS_TABLES / STRICT_ALL_TABLES (every table is transactional, so they mean the
//! same), NO_ZERO_DATE, ERROR_FOR_DIVISION_BY_ZERO, NO_AUTO_VALUE_ON_ZERO,
//! IGNORE_BAD_TABLE_OPTIONS, ONLY_FULL_GROUP_BY (plan/full_group_by.rs). Kept because Betula
//! already behaves so:
//! NO_ZERO_IN_DATE (a date with a zero month or day is never stored), IGNORE_SPACE (a space
//! may always follow a function's name), NO_DIR_IN_CREATE, NO_ENGINE_SUBSTITUTION (every
//! engine name is Betula), NO_AUTO_CREATE_USER and the names ANSI and TRADITIONAL.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// MariaDB's mode names, bit `i` named `NAMES[i]`.
pub const NAMES: [&str; 35] = [
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// MariaDB 10.11's default.
pub const DEFAULT: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

/// A set of modes (bit `i` is `NAMES[i]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modes(pub u64);

impl Modes {
    pub const REAL_AS_FLOAT: u64 = 1 << 0;
    pub const PIPES_AS_CONCAT: u64 = 1 << 1;
    pub const ANSI_QUOTES: u64 = 1 << 2;
    pub const IGNORE_SPACE: u64 = 1 << 3;
    pub const IGNORE_BAD_TABLE_OPTIONS: u64 = 1 << 4;
    pub const ONLY_FULL_GROUP_BY: u64 = 1 << 5;
    pub const NO_UNSIGNED_SUBTRACTION: u64 = 1 << 6;
    pub const POSTGRESQL: u64 = 1 << 8;
    pub const ORACLE: u64 = 1 << 9;
    pub const MSSQL: u64 = 1 << 10;
    pub const DB2: u64 = 1 << 11;
    pub const MAXDB: u64 = 1 << 12;
    pub const NO_KEY_OPTIONS: u64 = 1 << 13;
    pub const NO_TABLE_OPTIONS: u64 = 1 << 14;
    pub const NO_FIELD_OPTIONS: u64 = 1 << 15;
    pub const MYSQL323: u64 = 1 << 16;
    pub const MYSQL40: u64 = 1 << 17;
    pub const ANSI: u64 = 1 << 18;
    pub const NO_AUTO_VALUE_ON_ZERO: u64 = 1 << 19;
    pub const NO_BACKSLASH_ESCAPES: u64 = 1 << 20;
    pub const STRICT_TRANS_TABLES: u64 = 1 << 21;
    pub const STRICT_ALL_TABLES: u64 = 1 << 22;
    pub const NO_ZERO_IN_DATE: u64 = 1 << 23;
    pub const NO_ZERO_DATE: u64 = 1 << 24;
    pub const ALLOW_INVALID_DATES: u64 = 1 << 25;
    pub const ERROR_FOR_DIVISION_BY_ZERO: u64 = 1 << 26;
    pub const TRADITIONAL: u64 = 1 << 27;
    pub const NO_AUTO_CREATE_USER: u64 = 1 << 28;
    pub const HIGH_NOT_PRECEDENCE: u64 = 1 << 29;
    pub const NO_ENGINE_SUBSTITUTION: u64 = 1 << 30;
    pub const PAD_CHAR_TO_FULL_LENGTH: u64 = 1 << 31;
    pub const EMPTY_STRING_IS_NULL: u64 = 1 << 32;
    pub const SIMULTANEOUS_ASSIGNMENT: u64 = 1 << 33;
    pub const TIME_ROUND_FRACTIONAL: u64 = 1 << 34;

    /// Every mode Betula does not implement (see the module doc).
    const UNSUPPORTED: u64 = Self::REAL_AS_FLOAT
        | Self::PIPES_AS_CONCAT
        | Self::ANSI_QUOTES
        | Self::NO_UNSIGNED_SUBTRACTION
        | Self::NO_KEY_OPTIONS
        | Self::NO_TABLE_OPTIONS
        | Self::NO_FIELD_OPTIONS
        | Self::NO_BACKSLASH_ESCAPES
        | Self::ALLOW_INVALID_DATES
        | Self::HIGH_NOT_PRECEDENCE
        | Self::PAD_CHAR_TO_FULL_LENGTH
        | Self::EMPTY_STRING_IS_NULL
        | Self::SIMULTANEOUS_ASSIGNMENT
        | Self::TIME_ROUND_FRACTIONAL;

    pub fn has(self, bits: u64) -> bool {
        self.0 & bits != 0
    }

    /// STRICT_TRANS_TABLES or STRICT_ALL_TABLES.
    pub fn strict(self) -> bool {
        self.has(Self::STRICT_TRANS_TABLES | Self::STRICT_ALL_TABLES)
    }

    /// The modes a kept value (the variable's text) names; unknown names are skipped.
    pub fn of_text(text: &str) -> Modes {
        let mut bits = 0;
        for item in text.split(',') {
            if let Some(i) = NAMES.iter().position(|n| n.eq_ignore_ascii_case(item)) {
                bits |= 1 << i;
            }
        }
        Modes(bits)
    }

    /// The combination modes' additions (MariaDB's expand_sql_mode).
    fn expanded(self) -> Modes {
        let mut m = self.0;
        let ansi_like = Self::PIPES_AS_CONCAT
            | Self::ANSI_QUOTES
            | Self::IGNORE_SPACE
            | Self::NO_KEY_OPTIONS
            | Self::NO_TABLE_OPTIONS
            | Self::NO_FIELD_OPTIONS;
        if m & Self::ANSI != 0 {
            m |= Self::REAL_AS_FLOAT
                | Self::PIPES_AS_CONCAT
                | Self::ANSI_QUOTES
                | Self::IGNORE_SPACE;
        }
        if m & (Self::POSTGRESQL | Self::MSSQL | Self::DB2) != 0 {
            m |= ansi_like;
        }
        if m & Self::MAXDB != 0 {
            m |= ansi_like | Self::NO_AUTO_CREATE_USER;
        }
        if m & Self::ORACLE != 0 {
            m |= ansi_like | Self::NO_AUTO_CREATE_USER | Self::SIMULTANEOUS_ASSIGNMENT;
        }
        if m & (Self::MYSQL323 | Self::MYSQL40) != 0 {
            m |= Self::HIGH_NOT_PRECEDENCE;
        }
        if m & Self::TRADITIONAL != 0 {
            m |= Self::STRICT_TRANS_TABLES
                | Self::STRICT_ALL_TABLES
                | Self::NO_ZERO_IN_DATE
                | Self::NO_ZERO_DATE
                | Self::ERROR_FOR_DIVISION_BY_ZERO
                | Self::NO_AUTO_CREATE_USER
                | Self::NO_ENGINE_SUBSTITUTION;
        }
        Modes(m)
    }

    /// The names in bit order, comma-separated, as `SELECT @@sql_mode` shows them.
    pub fn render(self) -> String {
        let names: Vec<&str> = (0..NAMES.len())
            .filter(|i| self.0 & (1 << i) != 0)
            .map(|i| NAMES[i])
            .collect();
        names.join(",")
    }
}

fn wrong_value(shown: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongValueForVar,
        format!("Variable 'sql_mode' can't be set to the value of '{shown}'"),
    )
}

/// A value as text, for messages and for a text setting's names.
fn shown(v: &Value) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => other
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    }
}

/// The modes `setting` names, before expansion; 1231 for a name or value MariaDB refuses.
fn parse(setting: &Value) -> DbResult<Modes> {
    let number = |n: u64| {
        if n >> NAMES.len() != 0 {
            Err(wrong_value(&n.to_string()))
        } else {
            Ok(Modes(n))
        }
    };
    match setting {
        Value::Int(i) => number(u64::try_from(*i).map_err(|_| wrong_value(&i.to_string()))?),
        Value::UInt(u) => number(*u),
        Value::Null => Err(wrong_value("NULL")),
        Value::Text(_) | Value::Bytes(_) => {
            let text = shown(setting);
            let mut bits = 0u64;
            for item in text.split(',').filter(|i| !i.is_empty()) {
                let i = NAMES
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(item))
                    .ok_or_else(|| wrong_value(item))?;
                bits |= 1 << i;
            }
            Ok(Modes(bits))
        }
        other => Err(wrong_value(&shown(other))),
    }
}

/// The text `sql_mode` keeps after `SET sql_mode = setting`: MariaDB's 1231 for what it
/// refuses, 1235 for a mode Betula does not implement (naming the first such mode).
pub fn assign(setting: &Value) -> DbResult<String> {
    let modes = parse(setting)?.expanded();
    let unsupported = modes.0 & Modes::UNSUPPORTED;
    if unsupported != 0 {
        let first = NAMES[unsupported.trailing_zeros() as usize];
        return Err(DbError::unsupported(format!("sql_mode {first}")));
    }
    Ok(modes.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn names_are_kept_in_bit_order_and_combinations_expand() {
        assert_eq!(
            assign(&text("error_for_division_by_zero,strict_trans_tables")).unwrap(),
            "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO"
        );
        assert_eq!(
            assign(&text("TRADITIONAL")).unwrap(),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(
            assign(&text("STRICT_ALL_TABLES,,")).unwrap(),
            "STRICT_ALL_TABLES"
        );
        assert_eq!(assign(&text("")).unwrap(), "");
        assert_eq!(assign(&Value::Int(1 << 21)).unwrap(), "STRICT_TRANS_TABLES");
        assert_eq!(Modes::of_text(DEFAULT).0, 0x5420_0000);
    }

    #[test]
    fn unknown_names_and_unimplemented_modes_are_refused() {
        let code = |v: Value| assign(&v).unwrap_err().code;
        assert_eq!(code(text("FOO")), ErrorCode::WrongValueForVar);
        assert_eq!(
            code(text("ANSI_QUOTES , PIPES_AS_CONCAT")),
            ErrorCode::WrongValueForVar
        );
        assert_eq!(code(Value::Null), ErrorCode::WrongValueForVar);
        assert_eq!(code(Value::Int(1 << 35)), ErrorCode::WrongValueForVar);
        assert_eq!(code(text("ANSI")), ErrorCode::NotSupportedYet);
        assert_eq!(code(text("ORACLE")), ErrorCode::NotSupportedYet);
        assert_eq!(
            code(text("EMPTY_STRING_IS_NULL")),
            ErrorCode::NotSupportedYet
        );
        let e = assign(&text("STRICT_ALL_TABLES,ANSI_QUOTES")).unwrap_err();
        assert!(e.message.contains("ANSI_QUOTES"), "{}", e.message);
    }
}
