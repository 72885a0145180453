//! Functions of time zones: CONVERT_TZ.
//!
//! Invariant: as MariaDB, a value whose instant falls outside the TIMESTAMP range (1970-01-01
//! 00:00:01 to 2038-01-19 03:14:07 UTC) is returned unconverted; an unknown zone or an invalid
//! date and time gives NULL.

use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{text_of, to_datetime};
use crate::types::time_zone::{unix_secs, TimeZone};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["CONVERT_TZ"];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    match name {
        "CONVERT_TZ" => {
            super::need(name, a, 3, 3)?;
            Ok(convert_tz(&a[0], &a[1], &a[2]).unwrap_or(Value::Null))
        }
        other => Err(DbError::no_function(&other.to_ascii_lowercase())),
    }
}

/// CONVERT_TZ(dt, from, to).
fn convert_tz(dt: &Value, from: &Value, to: &Value) -> Option<Value> {
    let from = TimeZone::parse(&text_of(from)?)?;
    let to = TimeZone::parse(&text_of(to)?)?;
    let local = to_datetime(dt)?;
    let utc = from.local_to_utc(local);
    if local.date.is_zero() || !(1..=i32::MAX as i64).contains(&unix_secs(utc)) {
        return Some(Value::DateTime(local));
    }
    Some(Value::DateTime(to.utc_to_local(utc)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(dt: &str, from: &str, to: &str) -> Value {
        let t = |s: &str| Value::Text(s.into());
        convert_tz(&t(dt), &t(from), &t(to)).unwrap_or(Value::Null)
    }

    fn text(v: Value) -> String {
        String::from_utf8(v.to_text(None).unwrap()).unwrap()
    }

    #[test]
    fn converts_like_mariadb() {
        let cases = [
            (
                "2024-01-01 00:00:00",
                "+00:00",
                "+13:00",
                "2024-01-01 13:00:00",
            ),
            (
                "2024-01-01 00:00:00",
                "UTC",
                "Europe/Paris",
                "2024-01-01 01:00:00",
            ),
            (
                "2024-07-01 12:00:00",
                "Europe/Paris",
                "America/New_York",
                "2024-07-01 06:00:00",
            ),
            (
                "2038-01-19 03:14:07",
                "+00:00",
                "+01:00",
                "2038-01-19 04:14:07",
            ),
            // Outside the TIMESTAMP range: unchanged.
            (
                "2038-01-19 03:14:08",
                "+00:00",
                "+01:00",
                "2038-01-19 03:14:08",
            ),
            (
                "1970-01-01 00:00:00",
                "+00:00",
                "+01:00",
                "1970-01-01 00:00:00",
            ),
            (
                "1970-01-01 00:00:01",
                "+00:00",
                "+01:00",
                "1970-01-01 01:00:01",
            ),
            (
                "2024-01-01 00:00:00.123456",
                "+00:00",
                "+01:00",
                "2024-01-01 01:00:00.123456",
            ),
        ];
        for (dt, from, to, want) in cases {
            assert_eq!(text(ct(dt, from, to)), want, "{dt} {from} {to}");
        }
        assert_eq!(ct("2024-01-01", "+00:00", "+14:00"), Value::Null);
        assert_eq!(ct("2024-02-30", "+00:00", "+01:00"), Value::Null);
        assert_eq!(ct("2024-01-01", "Mars/Olympus", "+01:00"), Value::Null);
    }
}
