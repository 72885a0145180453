//! [`DbError`]: a statement's failure as the client sees it (an [`ErrorCode`], which gives the
//! error number and SQLSTATE, and a message), plus constructors for the errors the executor
//! raises.
//!
//! Invariant: every error that leaves the engine is a `DbError`; codes and messages follow
//! MariaDB's English templates so clients and tests that match on them behave as with MariaDB.
//! Code inside the engine tests the [`ErrorCode`], never a number.

use std::fmt;

use crate::error::code::ErrorCode;
use crate::error::sql_error::SqlError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    pub code: ErrorCode,
    pub message: String,
}

pub type DbResult<T> = Result<T, DbError>;

impl DbError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> DbError {
        DbError {
            code,
            message: message.into(),
        }
    }
    /// 1105: anything without a better code.
    pub fn internal(message: impl Into<String>) -> DbError {
        DbError::new(ErrorCode::UnknownError, message)
    }
    /// 1064: syntax error.
    pub fn syntax(near: impl fmt::Display) -> DbError {
        DbError::new(
            ErrorCode::ParseError,
            format!("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{near}'"),
        )
    }
    /// 1235: a feature this engine does not have.
    pub fn unsupported(what: impl fmt::Display) -> DbError {
        DbError::new(
            ErrorCode::NotSupportedYet,
            format!("This version of Betula doesn't yet support '{what}'"),
        )
    }
    /// 1235 for what MariaDB refuses too, in its words (which name MariaDB).
    pub fn unsupported_by_mariadb(what: impl fmt::Display) -> DbError {
        DbError::new(
            ErrorCode::NotSupportedYet,
            format!("This version of MariaDB doesn't yet support '{what}'"),
        )
    }
    pub fn no_db() -> DbError {
        DbError::new(ErrorCode::NoDbError, "No database selected")
    }
    pub fn bad_db(db: &str) -> DbError {
        DbError::new(ErrorCode::BadDbError, format!("Unknown database '{db}'"))
    }
    pub fn db_exists(db: &str) -> DbError {
        DbError::new(
            ErrorCode::DbCreateExists,
            format!("Can't create database '{db}'; database exists"),
        )
    }
    pub fn db_drop_missing(db: &str) -> DbError {
        DbError::new(
            ErrorCode::DbDropExists,
            format!("Can't drop database '{db}'; database doesn't exist"),
        )
    }
    pub fn no_table(db: &str, t: &str) -> DbError {
        DbError::new(
            ErrorCode::NoSuchTable,
            format!("Table '{db}.{t}' doesn't exist"),
        )
    }
    /// 1347: `db`.`t` is not of type `kind` (a view where a base table is needed, or the
    /// other way round).
    pub fn wrong_object(db: &str, t: &str, kind: &str) -> DbError {
        DbError::new(
            ErrorCode::WrongObject,
            format!("'{db}.{t}' is not of type '{kind}'"),
        )
    }
    pub fn table_exists(t: &str) -> DbError {
        DbError::new(
            ErrorCode::TableExistsError,
            format!("Table '{t}' already exists"),
        )
    }
    pub fn unknown_table(db: &str, t: &str) -> DbError {
        DbError::new(
            ErrorCode::BadTableError,
            format!("Unknown table '{db}.{t}'"),
        )
    }
    pub fn bad_field(col: &str, place: &str) -> DbError {
        DbError::new(
            ErrorCode::BadFieldError,
            format!("Unknown column '{col}' in '{place}'"),
        )
    }
    pub fn ambiguous(col: &str, place: &str) -> DbError {
        DbError::new(
            ErrorCode::NonUniqError,
            format!("Column '{col}' in {place} is ambiguous"),
        )
    }
    pub fn value_count(row: u64) -> DbError {
        if row <= 1 {
            DbError::new(
                ErrorCode::WrongValueCountOnRow,
                "Column count doesn't match value count at row 1",
            )
        } else {
            DbError::new(
                ErrorCode::WrongValueCountOnRow,
                format!("Column count doesn't match value count at row {row}"),
            )
        }
    }
    pub fn duplicate(entry: &str, key: &str) -> DbError {
        DbError::new(
            ErrorCode::DupEntry,
            format!("Duplicate entry '{entry}' for key '{key}'"),
        )
    }
    pub fn no_default(col: &str) -> DbError {
        DbError::new(
            ErrorCode::NoDefaultForField,
            format!("Field '{col}' doesn't have a default value"),
        )
    }
    pub fn dup_field(col: &str) -> DbError {
        DbError::new(
            ErrorCode::DupFieldname,
            format!("Duplicate column name '{col}'"),
        )
    }
    pub fn dup_key_name(k: &str) -> DbError {
        DbError::new(ErrorCode::DupKeyname, format!("Duplicate key name '{k}'"))
    }
    pub fn cant_drop_key(k: &str) -> DbError {
        DbError::new(
            ErrorCode::CantDropFieldOrKey,
            format!("Can't DROP '{k}'; check that column/key exists"),
        )
    }
    pub fn unknown_var(v: &str) -> DbError {
        DbError::new(
            ErrorCode::UnknownSystemVariable,
            format!("Unknown system variable '{v}'"),
        )
    }
    pub fn lock_timeout() -> DbError {
        DbError::new(
            ErrorCode::LockWaitTimeout,
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }
    pub fn deadlock() -> DbError {
        DbError::new(
            ErrorCode::LockDeadlock,
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }
    pub fn access_denied_db(user: &str, host: &str, db: &str) -> DbError {
        DbError::new(
            ErrorCode::DbaccessDeniedError,
            format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
        )
    }
    pub fn wrong_args(f: &str) -> DbError {
        DbError::new(
            ErrorCode::WrongParamcountToNativeFct,
            format!("Incorrect parameter count in the call to native function '{f}'"),
        )
    }
    pub fn no_function(f: &str) -> DbError {
        DbError::new(
            ErrorCode::SpDoesNotExist,
            format!("FUNCTION {f} does not exist"),
        )
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code.number(),
            self.code.sqlstate(),
            self.message
        )
    }
}

impl std::error::Error for DbError {}

impl From<SqlError> for DbError {
    fn from(e: SqlError) -> DbError {
        DbError::new(e.code(), e.to_string())
    }
}

impl From<betula_storage::Error> for DbError {
    fn from(e: betula_storage::Error) -> DbError {
        match e {
            betula_storage::Error::LockTimeout => DbError::lock_timeout(),
            betula_storage::Error::Deadlock => DbError::deadlock(),
            // A lock wait ended by KILL (the statement ends with 1927 if the connection was killed).
            betula_storage::Error::Cancelled => DbError::new(
                ErrorCode::QueryInterrupted,
                "Query execution was interrupted",
            ),
            e => DbError::new(
                ErrorCode::GetErrno,
                format!("Got error from storage engine: {e}"),
            ),
        }
    }
}

impl From<sqlparser::parser::ParserError> for DbError {
    fn from(e: sqlparser::parser::ParserError) -> DbError {
        let msg = match e {
            sqlparser::parser::ParserError::ParserError(m)
            | sqlparser::parser::ParserError::TokenizerError(m) => m,
            sqlparser::parser::ParserError::RecursionLimitExceeded => {
                "statement nested too deeply".into()
            }
        };
        DbError::syntax(msg)
    }
}

impl DbError {
    /// 1064 for a statement sqlparser refused, in MariaDB's form: `near '<the statement from the
    /// offending token on, at most 80 characters>' at line N`. Without a position in sqlparser's
    /// message, its text is the `near` part.
    pub fn parse_error(sql: &str, e: sqlparser::parser::ParserError) -> DbError {
        let plain = DbError::from(e);
        let Some((line, col)) = parser_position(&plain.message) else {
            return plain;
        };
        let line_start: usize = sql
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum();
        let rest = sql.get(line_start..).unwrap_or("");
        let at = rest
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i);
        DbError::syntax_near(sql, line_start + at)
    }

    /// 1064 in MariaDB's form for a statement whose error starts at byte `at` of `sql`.
    pub fn syntax_near(sql: &str, at: usize) -> DbError {
        let at = at.min(sql.len());
        let line = sql[..at].matches('\n').count() + 1;
        let near: String = sql[at..]
            .trim_end_matches(|c: char| c == ';' || c.is_whitespace())
            .chars()
            .take(80)
            .collect();
        DbError::new(
            ErrorCode::ParseError,
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your \
                 MariaDB server version for the right syntax to use near '{near}' at line {line}"
            ),
        )
    }
}

/// `(line, column)` of sqlparser's `... at Line: L, Column: C` (1-based).
fn parser_position(msg: &str) -> Option<(usize, usize)> {
    let (_, tail) = msg.rsplit_once("at Line: ")?;
    let (l, c) = tail.split_once(", Column: ")?;
    let c: String = c.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((l.trim().parse().ok()?, c.parse().ok()?))
}

#[cfg(test)]
mod parse_error_tests {
    #[test]
    fn parse_errors_name_the_rest_of_the_statement() {
        let sql = "ALTER TABLE t1 ADD COLUMN b3 BOOLEAN UNSIGNED";
        let e = crate::parser::parse(sql).unwrap_err();
        assert_eq!(e.code.number(), 1064);
        assert!(
            e.message.ends_with("near 'UNSIGNED' at line 1"),
            "{}",
            e.message
        );
        let e = crate::parser::parse("SELECT 1;\nSELEC 2").unwrap_err();
        assert!(e.message.ends_with("at line 2"), "{}", e.message);
    }
}
