//! Functions whose value comes from the connection, not from their arguments: NOW() (the
//! statement's start, in the session's time zone; UTC_TIMESTAMP() in UTC), DATABASE(), USER(),
//! CONNECTION_ID(), LAST_INSERT_ID(), FOUND_ROWS(), ROW_COUNT(), UUID(). Expressions fold them to constants when they are compiled. RAND() is
//! evaluated per row (expr/functions/random.rs); the session only seeds it
//! ([`Context::new_rand_seed`]).

use super::variables;
use super::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::temporal::{DateTime, Time};
use crate::types::value::Value;

impl Context {
    /// A seed for a `RAND()` without argument: differs from call to call and from process to
    /// process (std's per-instance random hash keys), mixed with the statement's start and the
    /// connection.
    pub fn new_rand_seed(&self) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(self.now.micros);
        h.write_u64(self.id);
        h.finish()
    }

    /// The statement's start as column `c` stores it: UTC for a TIMESTAMP, local time otherwise
    /// (ON UPDATE CURRENT_TIMESTAMP).
    pub fn now_for(&self, c: &crate::types::Column) -> Value {
        Value::DateTime(if c.sql_type.is_timestamp() {
            self.now_utc
        } else {
            self.now
        })
    }

    /// The value of session function `name` (upper case) with constant `args`, or `None` when
    /// `name` is not one.
    pub fn session_function(&mut self, name: &str, args: &[Value]) -> Option<DbResult<Value>> {
        let t = |s: String| Some(Ok(Value::Text(s)));
        match (name, args.len()) {
            ("DATABASE" | "SCHEMA", 0) => {
                Some(Ok(self.db.clone().map(Value::Text).unwrap_or(Value::Null)))
            }
            ("VERSION", 0) => t(variables::version()),
            ("CONNECTION_ID", 0) => Some(Ok(Value::UInt(self.id))),
            ("LAST_INSERT_ID", 0) => Some(Ok(Value::UInt(self.last_insert_id))),
            ("LAST_INSERT_ID", 1) => {
                let v = args[0].to_f64_lenient().unwrap_or(0.0) as u64;
                self.last_insert_id = v;
                Some(Ok(Value::UInt(v)))
            }
            ("USER" | "SESSION_USER" | "SYSTEM_USER", 0) => {
                t(format!("{}@{}", self.user, self.host))
            }
            ("CURRENT_USER", 0) => t(format!("{}@{}", self.account_user, self.account_host)),
            (
                "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
                | "UTC_TIMESTAMP",
                0 | 1,
            ) => Some(self.clock(name, args).map(|(local, utc)| {
                Value::DateTime(if name == "UTC_TIMESTAMP" { utc } else { local })
            })),
            ("CURDATE" | "CURRENT_DATE", 0) => Some(Ok(Value::Date(self.now.date))),
            ("UTC_DATE", 0) => Some(Ok(Value::Date(self.now_utc.date))),
            ("CURTIME" | "CURRENT_TIME" | "UTC_TIME", 0 | 1) => Some(
                self.clock(name, args)
                    .map(|(local, utc)| time_of_day(if name == "UTC_TIME" { utc } else { local })),
            ),
            ("UNIX_TIMESTAMP", 0) => Some(Ok(Value::Int(
                self.now_utc.unix_micros().unwrap_or(0) / 1_000_000,
            ))),
            ("FOUND_ROWS", 0) => Some(Ok(Value::UInt(self.found_rows))),
            ("ROW_COUNT", 0) => Some(Ok(Value::Int(self.row_count))),
            ("UUID", 0) => t(format!(
                "{:08x}-{:04x}-1{:03x}-8000-{:012x}",
                self.now.micros as u32,
                self.id as u16,
                (self.now.micros >> 32) as u16 & 0xfff,
                self.engine
                    .queries
                    .load(std::sync::atomic::Ordering::Relaxed)
            )),
            _ => None,
        }
    }
}

impl Context {
    /// The statement's start, local and UTC, with the fraction of a second `args` asks for
    /// (`NOW(3)`: milliseconds, truncated; none without an argument); a precision above 6 is
    /// 1426, one that is not a non-negative integer 1064, as in MariaDB.
    fn clock(&self, name: &str, args: &[Value]) -> DbResult<(DateTime, DateTime)> {
        let fsp = match args.first() {
            None => 0,
            Some(Value::Int(i)) if *i >= 0 => *i as u64,
            Some(Value::UInt(u)) => *u,
            Some(other) => {
                let text = crate::expr::eval::text_of(other).unwrap_or_default();
                return Err(DbError::syntax(format!("{text})")));
            }
        };
        if fsp > 6 {
            let shown = match name {
                "SYSDATE" | "UTC_TIMESTAMP" | "UTC_TIME" => name,
                "CURTIME" | "CURRENT_TIME" => "CURTIME",
                _ => "CURRENT_TIMESTAMP",
            };
            return Err(DbError::new(
                ErrorCode::TooBigPrecision,
                format!(
                    "Too big precision specified for '{}'. Maximum is 6",
                    shown.to_ascii_lowercase()
                ),
            ));
        }
        let unit = 10u64.pow(6 - fsp as u32);
        let frac = self.now_micros as u64 / unit * unit;
        let add = |d: DateTime| DateTime {
            date: d.date,
            micros: d.micros + frac,
        };
        Ok((add(self.now), add(self.now_utc)))
    }
}

/// The time of day of `dt`, as CURTIME() gives it.
fn time_of_day(dt: DateTime) -> Value {
    Time::from_micros(dt.micros as i64)
        .map(Value::Time)
        .unwrap_or(Value::Null)
}
