//! Week numbers: WEEK(d[, mode]), YEARWEEK(d[, mode]), WEEKOFYEAR(d), and DATE_FORMAT's `%U %u
//! %V %v %X %x`, with MySQL's eight week modes.
//!
//! A mode's bits: 1 the week starts on Monday (else Sunday); 2 weeks are numbered 1..53 within
//! the year they mostly belong to (else 0..53, days before the first week being week 0); 4 (set
//! by the mode table below) the first week is the one holding the first day of the week (else
//! the one with 4 or more days of the new year).
//!
//! Invariant: a week number is in 0..=53 and its year within one of the date's year.

use super::{int, need};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::to_datetime;
use crate::types::temporal::{day_number, is_leap, Date};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["WEEK", "YEARWEEK", "WEEKOFYEAR"];

const MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const FIRST_WEEKDAY: u32 = 4;

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    let Some(d) = a.first().and_then(to_datetime).map(|dt| dt.date) else {
        return Ok(Value::Null);
    };
    if d.month == 0 || d.day == 0 {
        return Ok(Value::Null);
    }
    let mode = |i: usize| a.get(i).and_then(int).unwrap_or(0) as u32;
    Ok(Value::Int(match name {
        "WEEK" => {
            need(name, a, 1, 2)?;
            week(d, behaviour(mode(1))).0 as i64
        }
        "YEARWEEK" => {
            need(name, a, 1, 2)?;
            let (w, y) = week(d, behaviour(mode(1)) | WEEK_YEAR);
            y as i64 * 100 + w as i64
        }
        "WEEKOFYEAR" => {
            need(name, a, 1, 1)?;
            week(d, behaviour(3)).0 as i64
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    }))
}

/// The behaviour bits of WEEK's `mode` (0..7): a Sunday-first mode counts from the week holding
/// the first Sunday, a Monday-first one from the first week with 4 days.
fn behaviour(mode: u32) -> u32 {
    let m = mode & 7;
    if m & MONDAY_FIRST == 0 {
        m ^ FIRST_WEEKDAY
    } else {
        m
    }
}

/// DATE_FORMAT's week specifiers; `None` for any other.
pub(super) fn format_week(d: Date, spec: char) -> Option<String> {
    Some(match spec {
        'U' => format!("{:02}", week(d, FIRST_WEEKDAY).0),
        'u' => format!("{:02}", week(d, MONDAY_FIRST).0),
        'V' => format!("{:02}", week(d, WEEK_YEAR | FIRST_WEEKDAY).0),
        'v' => format!("{:02}", week(d, MONDAY_FIRST | WEEK_YEAR).0),
        'X' => format!("{:04}", week(d, WEEK_YEAR | FIRST_WEEKDAY).1),
        'x' => format!("{:04}", week(d, MONDAY_FIRST | WEEK_YEAR).1),
        _ => return None,
    })
}

fn days_in_year(y: u32) -> i64 {
    if is_leap(y) {
        366
    } else {
        365
    }
}

/// The week number of `d` and the year it belongs to, under behaviour bits `b` (MySQL's
/// `calc_week`).
fn week(d: Date, b: u32) -> (u32, u32) {
    let monday_first = b & MONDAY_FIRST != 0;
    let mut week_year = b & WEEK_YEAR != 0;
    let first_weekday = b & FIRST_WEEKDAY != 0;
    let daynr = day_number(d);
    let mut first_daynr = day_number(Date {
        year: d.year,
        month: 1,
        day: 1,
    });
    // 0000-03-01 (day 0) was a Wednesday: weekday 0 is Monday (or Sunday when not Monday-first).
    let weekday_of = |n: i64| (n + if monday_first { 2 } else { 3 }).rem_euclid(7);
    let mut weekday = weekday_of(first_daynr);
    let mut year = d.year as u32;
    let starts_late = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if d.month == 1 && (d.day as i64) <= 7 - weekday {
        if !week_year && starts_late(weekday) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days).rem_euclid(7);
    }
    let days = if starts_late(weekday) {
        daynr - (first_daynr + (7 - weekday))
    } else {
        daynr - (first_daynr - weekday)
    };
    if week_year && days >= 52 * 7 {
        let wd = (weekday + days_in_year(year)).rem_euclid(7);
        if (!first_weekday && wd < 4) || (first_weekday && wd == 0) {
            return (1, year + 1);
        }
    }
    ((days / 7 + 1) as u32, year)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: u16, m: u8, day: u8) -> Date {
        Date {
            year: y,
            month: m,
            day,
        }
    }

    /// Values MariaDB 10.11 gives.
    #[test]
    fn weeks_follow_mysql_modes() {
        let jan7 = d(2024, 1, 7); // a Sunday
        let fmt = |spec| format_week(jan7, spec).unwrap();
        assert_eq!(
            ["U", "u", "V", "v", "X", "x"].map(|s| fmt(s.chars().next().unwrap())),
            ["01", "01", "01", "01", "2024", "2024"]
        );
        let w = |date, mode| week(date, behaviour(mode)).0;
        assert_eq!(w(jan7, 0), 1);
        assert_eq!(
            (0..8).map(|m| w(d(2021, 1, 1), m)).collect::<Vec<_>>(),
            [0, 0, 52, 53, 0, 0, 53, 52]
        );
        assert_eq!(
            (0..8).map(|m| w(d(2024, 12, 31), m)).collect::<Vec<_>>(),
            [52, 53, 52, 1, 53, 53, 1, 53]
        );
        assert_eq!(week(d(2024, 12, 31), behaviour(1) | WEEK_YEAR), (1, 2025));
        assert_eq!(week(d(2021, 1, 1), behaviour(0) | WEEK_YEAR), (52, 2020));
    }
}
