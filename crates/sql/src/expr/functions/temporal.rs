//! Date and time functions: DATE_FORMAT, DATEDIFF, EXTRACT and its shorthands (YEAR, MONTH, ...),
//! DAYNAME/MONTHNAME, TO_DAYS/TO_SECONDS/FROM_DAYS, QUARTER, TIME_TO_SEC, LAST_DAY, UNIX_TIMESTAMP/FROM_UNIXTIME, DATE, TIME,
//! TIMESTAMP(d[, t]).
//!
//! Invariants: arguments are read as DATETIME through [`to_datetime`] (text, numbers, DATE and
//! DATETIME values); a value that is not a date, a zero date where the result needs a real day,
//! or a result outside years 0..9999 is NULL. UNIX times are UTC microseconds since 1970.

use super::date_add::date_add;
use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{text_of, to_datetime};
use crate::expr::IntervalUnit;
use crate::types::decimal::Decimal;
use crate::types::temporal::{day_number, days_in_month, from_day_number, Date, DateTime};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &[
    "UNIX_TIMESTAMP",
    "FROM_UNIXTIME",
    "DATE_FORMAT",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "YEAR",
    "MONTH",
    "DAY",
    "DAYOFMONTH",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "WEEKDAY",
    "TO_DAYS",
    "TO_SECONDS",
    "FROM_DAYS",
    "DATEDIFF",
    "LAST_DAY",
    "DAYNAME",
    "MONTHNAME",
    "QUARTER",
    "TIME_TO_SEC",
];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    Ok(match name {
        "UNIX_TIMESTAMP" => a
            .first()
            .and_then(|v| unix_seconds(v, a.get(1)))
            .unwrap_or(Value::Null),
        "FROM_UNIXTIME" => {
            need(name, a, 1, 2)?;
            from_unixtime(&a[0], a.get(1))
        }
        "DATE_FORMAT" => {
            need(name, a, 2, 2)?;
            // MariaDB formats no TIME with DATE_FORMAT (TIME_FORMAT does): NULL.
            match to_datetime(&a[0]).filter(|_| !matches!(a[0], Value::Time(_))) {
                Some(dt) => text(date_format(
                    &dt,
                    &a.get(1).and_then(text_of).unwrap_or_default(),
                )),
                None => Value::Null,
            }
        }
        "DATE" => to_datetime(&a[0])
            .map(|d| Value::Date(d.date))
            .unwrap_or(Value::Null),
        "TIMESTAMP" => {
            need(name, a, 1, 2)?;
            match (to_datetime(&a[0]), a.get(1)) {
                (Some(d), None) => Value::DateTime(d),
                (Some(d), Some(t)) => match super::time_of_day::as_time(t) {
                    Some(us) => date_add(
                        &Value::DateTime(d),
                        &Value::Int(us),
                        IntervalUnit::Microsecond,
                        false,
                    ),
                    None => Value::Null,
                },
                (None, _) => Value::Null,
            }
        }
        "TIME" => crate::expr::eval::cast(&a[0], crate::expr::CastTo::Time(6)),
        "YEAR" => date_part(&a[0], |d| d.date.year as i64),
        "MONTH" => date_part(&a[0], |d| d.date.month as i64),
        "DAY" | "DAYOFMONTH" => date_part(&a[0], |d| d.date.day as i64),
        "DAYOFWEEK" | "WEEKDAY" | "DAYNAME" => match to_datetime(&a[0]) {
            Some(dt) if !dt.date.is_zero() => match name {
                "DAYOFWEEK" => Value::Int(((weekday(&dt) + 1) % 7 + 1) as i64),
                "WEEKDAY" => Value::Int(weekday(&dt) as i64),
                _ => text(DAYS[weekday(&dt)].into()),
            },
            _ => Value::Null,
        },
        "MONTHNAME" => match to_datetime(&a[0]) {
            Some(dt) if dt.date.month >= 1 => text(MONTHS[dt.date.month as usize - 1].into()),
            _ => Value::Null,
        },
        "DAYOFYEAR" => to_datetime(&a[0])
            .map(|d| Value::Int(day_of_year(&d) as i64))
            .unwrap_or(Value::Null),
        "TO_DAYS" => to_datetime(&a[0])
            .map(|d| Value::Int(day_number(d.date) + 60))
            .unwrap_or(Value::Null),
        // Seconds since year 0: TO_DAYS * 86400 plus the time of day (whole seconds).
        "TO_SECONDS" => to_datetime(&a[0])
            .map(|d| {
                let day = day_number(d.date) + 60;
                Value::Int(day * 86_400 + (d.micros / 1_000_000) as i64)
            })
            .unwrap_or(Value::Null),
        "QUARTER" => date_part(&a[0], |d| (d.date.month as i64 - 1) / 3 + 1),
        "TIME_TO_SEC" => match crate::expr::eval::cast(&a[0], crate::expr::CastTo::Time(6)) {
            Value::Time(t) => Value::Int(t.micros / 1_000_000),
            _ => Value::Null,
        },
        "FROM_DAYS" => Value::Date(from_day_number(
            int(&a[0]).unwrap_or(0).clamp(60, 3_652_500) - 60,
        )),
        "DATEDIFF" => {
            need(name, a, 2, 2)?;
            match (to_datetime(&a[0]), to_datetime(&a[1])) {
                (Some(x), Some(y)) => Value::Int(day_number(x.date) - day_number(y.date)),
                _ => Value::Null,
            }
        }
        "LAST_DAY" => match to_datetime(&a[0]) {
            Some(dt) if dt.date.month >= 1 => {
                let (y, m) = (dt.date.year as u32, dt.date.month as u32);
                Date::new(y, m, days_in_month(y, m))
                    .map(Value::Date)
                    .unwrap_or(Value::Null)
            }
            _ => Value::Null,
        },
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// UNIX_TIMESTAMP(v) with `decimals` decimals (the compiler's, from the argument's type: the
/// fraction beyond them is cut); without them (NULL) as many as the value has (0 or 6).
fn unix_seconds(v: &Value, decimals: Option<&Value>) -> Option<Value> {
    let dt = to_datetime(v)?;
    let us = dt.unix_micros()?;
    if us < 0 {
        // before the epoch: NULL, as in MariaDB
        return None;
    }
    let decimals = match decimals {
        Some(Value::UInt(d)) => (*d).min(6) as u32,
        _ if us % 1_000_000 == 0 => 0,
        _ => 6,
    };
    if decimals == 0 {
        return Some(Value::Int(us / 1_000_000));
    }
    let cut = 10i64.pow(6 - decimals);
    Decimal::new((us / cut) as i128, decimals as u8).map(Value::Decimal)
}

/// FROM_UNIXTIME(seconds[, format]).
fn from_unixtime(secs: &Value, format: Option<&Value>) -> Value {
    let us = match secs {
        Value::Decimal(d) => (d.to_f64() * 1e6).round() as i64,
        v => (v.to_f64_lenient().unwrap_or(-1.0) * 1e6).round() as i64,
    };
    match from_unix_micros(us) {
        None => Value::Null,
        Some(dt) => match format {
            Some(f) => text(date_format(&dt, &text_of(f).unwrap_or_default())),
            None => Value::DateTime(dt),
        },
    }
}

/// The UTC date and time `us` microseconds after 1970-01-01; `None` before it.
pub fn from_unix_micros(us: i64) -> Option<DateTime> {
    if us < 0 {
        return None;
    }
    crate::types::time_zone::from_unix_micros(us)
}

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// 0 = Monday.
fn weekday(dt: &DateTime) -> usize {
    // day_number 0 = 0000-03-01, a Wednesday.
    ((day_number(dt.date) + 2).rem_euclid(7)) as usize
}

pub(super) fn day_of_year(dt: &DateTime) -> u32 {
    let y = dt.date.year as u32;
    (1..dt.date.month as u32)
        .map(|m| days_in_month(y, m))
        .sum::<u32>()
        + dt.date.day as u32
}

/// DATE_FORMAT's `%` specifiers.
pub fn date_format(dt: &DateTime, fmt: &str) -> String {
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(f) = it.next() else { break };
        format_spec(&mut out, dt, f);
    }
    out
}

/// Appends the value of specifier `%f` of `dt` to `out`.
fn format_spec(out: &mut String, dt: &DateTime, f: char) {
    let (h, mi, s, us) = dt.hms();
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let d = &dt.date;
    match f {
        'Y' => out.push_str(&format!("{:04}", d.year)),
        'y' => out.push_str(&format!("{:02}", d.year % 100)),
        'm' => out.push_str(&format!("{:02}", d.month)),
        'c' => out.push_str(&d.month.to_string()),
        'd' => out.push_str(&format!("{:02}", d.day)),
        'e' => out.push_str(&d.day.to_string()),
        'D' => {
            // 1st, 2nd, 3rd, 4th, ..., 11th-13th, 21st, ...
            let suffix = match (d.day % 10, d.day / 10 == 1) {
                (1, false) => "st",
                (2, false) => "nd",
                (3, false) => "rd",
                _ => "th",
            };
            out.push_str(&format!("{}{suffix}", d.day));
        }
        'H' => out.push_str(&format!("{h:02}")),
        'k' => out.push_str(&h.to_string()),
        'h' | 'I' => out.push_str(&format!("{h12:02}")),
        'l' => out.push_str(&h12.to_string()),
        'i' => out.push_str(&format!("{mi:02}")),
        's' | 'S' => out.push_str(&format!("{s:02}")),
        'f' => out.push_str(&format!("{us:06}")),
        'p' => out.push_str(if h < 12 { "AM" } else { "PM" }),
        'T' => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
        'r' => out.push_str(&format!(
            "{h12:02}:{mi:02}:{s:02} {}",
            if h < 12 { "AM" } else { "PM" }
        )),
        'M' => out.push_str(MONTHS.get(d.month as usize - 1).copied().unwrap_or("")),
        'b' => out.push_str(
            MONTHS
                .get((d.month as usize).wrapping_sub(1))
                .map(|m| &m[..3])
                .unwrap_or(""),
        ),
        'W' => out.push_str(DAYS[weekday(dt)]),
        'a' => out.push_str(&DAYS[weekday(dt)][..3]),
        'w' => out.push_str(&((weekday(dt) + 1) % 7).to_string()),
        'j' => out.push_str(&format!("{:03}", day_of_year(dt))),
        '%' => out.push('%'),
        other => match super::week::format_week(*d, other) {
            Some(w) => out.push_str(&w),
            None => out.push(other),
        },
    }
}

/// YEAR(), MONTH(), DAYOFMONTH() or QUARTER() of `v` read as a DATETIME (a TIME on the current
/// date, as MariaDB reads it there).
fn date_part(v: &Value, f: impl Fn(&DateTime) -> i64) -> Value {
    to_datetime(v).map_or(Value::Null, |dt| Value::Int(f(&dt)))
}
