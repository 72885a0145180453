//! Date and time functions: DATE_FORMAT, DATEDIFF, EXTRACT and its shorthands (YEAR, MONTH, ...),
//! DAYNAME/MONTHNAME, TO_DAYS/TO_SECONDS/FROM_DAYS, QUARTER, TIME_TO_SEC, LAST_DAY, UNIX_TIMESTAMP/FROM_UNIXTIME, DATE, TIME,
//! TIMESTAMP(d[, t]), and [`date_add`] (DATE_ADD, DATE_SUB, `d ± INTERVAL n unit`).
//!
//! Invariants: arguments are read as DATETIME through [`to_datetime`] (text, numbers, DATE and
//! DATETIME values); a value that is not a date, a zero date where the result needs a real day,
//! or a result outside years 0..9999 is NULL. UNIX times are UTC microseconds since 1970.

use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{text_of, to_datetime};
use crate::expr::IntervalUnit;
use crate::types::decimal::Decimal;
use crate::types::temporal::{day_number, days_in_month, from_day_number, Date, DateTime, Time};
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
        "YEAR" => extract("Year", &a[0]),
        "MONTH" => extract("Month", &a[0]),
        "DAY" | "DAYOFMONTH" => extract("Day", &a[0]),
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
        "QUARTER" => extract("Quarter", &a[0]),
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

fn day_of_year(dt: &DateTime) -> u32 {
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

/// `EXTRACT(unit FROM v)` compiled as `__EXTRACT_<unit>(v)`.
pub(super) fn extract_call(unit: &str, a: &[Value]) -> Value {
    match a.first() {
        // EXTRACT of a TIME, which has no date: its days for DAY, 0 for the longer units, as
        // MariaDB (YEAR(), MONTH(), ... read it on the current date instead).
        Some(Value::Time(t)) if super::time_of_day::extract_part(unit, &a[0]).is_none() => {
            match unit {
                "Day" => Value::Int(t.micros.abs() / 86_400_000_000),
                "Year" | "Month" | "Quarter" | "Week" => Value::Int(0),
                _ => Value::Null,
            }
        }
        Some(v) => extract(unit, v),
        None => Value::Null,
    }
}

fn extract(unit: &str, v: &Value) -> Value {
    if let Some(part) = super::time_of_day::extract_part(unit, v) {
        return part;
    }
    let Some(dt) = to_datetime(v) else {
        return Value::Null;
    };
    let (h, m, s, us) = dt.hms();
    Value::Int(match unit {
        "Year" => dt.date.year as i64,
        "Month" => dt.date.month as i64,
        "Day" => dt.date.day as i64,
        "Hour" => h as i64,
        "Minute" => m as i64,
        "Second" => s as i64,
        "Microsecond" => us as i64,
        "Quarter" => (dt.date.month as i64 - 1) / 3 + 1,
        "Week" => (day_of_year(&dt) as i64 - 1) / 7,
        _ => return Value::Null,
    })
}

/// A DATE argument stays a DATE when whole days, months or years are added.
fn is_date_only(v: &Value) -> bool {
    match v {
        Value::Date(_) => true,
        Value::Text(s) => s.trim().len() <= 10 && !s.contains(':'),
        _ => false,
    }
}

/// The interval amount `n` as a number (text: its numeric prefix, sign included).
fn interval_amount(n: &Value) -> Option<f64> {
    Some(match n {
        Value::Null => return None,
        Value::Text(s) => {
            let t = s.trim();
            let (neg, t) = match t.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, t),
            };
            let v = crate::types::value::str_to_f64_prefix(t.as_bytes()).0;
            if neg {
                -v
            } else {
                v
            }
        }
        other => other.to_f64_lenient().unwrap_or(0.0),
    })
}

/// `d + INTERVAL n unit` (`d - ...` when `sub`): NULL for a bad or zero date or a result outside
/// years 0..9999; month arithmetic clamps the day to the month's last.
pub fn date_add(d: &Value, n: &Value, unit: IntervalUnit, sub: bool) -> Value {
    if let Value::Time(t) = d {
        return time_add(*t, n, unit, sub);
    }
    let Some(dt) = to_datetime(d) else {
        return Value::Null;
    };
    if dt.date.is_zero() {
        return Value::Null;
    }
    let Some(amount) = interval_amount(n) else {
        return Value::Null;
    };
    let amount = if sub { -amount } else { amount };
    let r = match unit {
        IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year => {
            add_months(dt, amount, unit)
        }
        _ => add_micros(dt, amount, unit),
    };
    let Some(r) = r else {
        return Value::Null;
    };
    let keep_date = is_date_only(d)
        && matches!(
            unit,
            IntervalUnit::Day
                | IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
        );
    if keep_date {
        Value::Date(r.date)
    } else {
        Value::DateTime(r)
    }
}

/// `t + INTERVAL n unit` of a TIME: a TIME, as in MariaDB, for units up to DAY; NULL for WEEK
/// and longer units and outside the TIME range.
fn time_add(t: Time, n: &Value, unit: IntervalUnit, sub: bool) -> Value {
    let delta = interval_amount(n)
        .filter(|_| unit != IntervalUnit::Week)
        .and_then(|amount| interval_micros(if sub { -amount } else { amount }, unit));
    delta
        .and_then(|d| Time::from_micros(t.micros + d))
        .map_or(Value::Null, Value::Time)
}

/// `amount` units of a fixed length (MICROSECOND up to WEEK) in microseconds, rounded; `None`
/// for the units of varying length or an amount out of range.
fn interval_micros(amount: f64, unit: IntervalUnit) -> Option<i64> {
    let per: f64 = match unit {
        IntervalUnit::Microsecond => 1.0,
        IntervalUnit::Second => 1e6,
        IntervalUnit::Minute => 60e6,
        IntervalUnit::Hour => 3600e6,
        IntervalUnit::Day => 86_400e6,
        IntervalUnit::Week => 7.0 * 86_400e6,
        _ => return None,
    };
    let delta = (amount * per).round();
    (delta.is_finite() && delta.abs() <= 4e17).then_some(delta as i64)
}

fn add_months(dt: DateTime, amount: f64, unit: IntervalUnit) -> Option<DateTime> {
    let months = amount.round() as i64
        * match unit {
            IntervalUnit::Month => 1,
            IntervalUnit::Quarter => 3,
            _ => 12,
        };
    let total = dt.date.year as i64 * 12 + (dt.date.month as i64 - 1) + months;
    if !(0..=9999 * 12 + 11).contains(&total) {
        return None;
    }
    let (y, m) = ((total / 12) as u32, (total % 12) as u32 + 1);
    let day = (dt.date.day as u32).min(days_in_month(y, m));
    Date::new(y, m, day).map(|date| DateTime {
        date,
        micros: dt.micros,
    })
}

fn add_micros(dt: DateTime, amount: f64, unit: IntervalUnit) -> Option<DateTime> {
    let delta = interval_micros(amount, unit)?;
    let total = day_number(dt.date) as i128 * 86_400_000_000 + dt.micros as i128 + delta as i128;
    let days = total.div_euclid(86_400_000_000);
    let micros = total.rem_euclid(86_400_000_000) as u64;
    let date = from_day_number(days as i64);
    if day_number(date) != days as i64 || date.year > 9999 || date.is_zero() {
        return None;
    }
    Some(DateTime { date, micros })
}
