//! Dates made from parts: STR_TO_DATE(text, format) and MAKEDATE(year, day_of_year).
//!
//! Invariants:
//! * STR_TO_DATE reads the text with DATE_FORMAT's specifiers as MariaDB's `extract_date_time`
//!   does: white space in the text is skipped before each format element, white space in the
//!   format matches nothing, other characters must match themselves, numbers take at most their
//!   width in digits (`%Y` 4, `%f` 6, others 2), names match case-insensitively. A week given by
//!   `%X%V`/`%x%v` (or `%U`/`%u` with `%Y`) and a weekday (`%W %a %w`) names its day; `%j` a day
//!   of the year. Trailing text is ignored.
//! * The result is a DATE when the format names only date parts, a TIME when only time parts,
//!   a DATETIME otherwise; text that does not match, a day the month lacks, or (the server
//!   runs with NO_ZERO_IN_DATE) a zero month or day of a date is NULL.
//! * MAKEDATE(y, n) is day n of year y (years 0-69 are 2000-2069, 70-99 1970-1999); n < 1 or a
//!   result after 9999 is NULL.

use super::{int, need};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::temporal::{day_number, from_day_number, Date, DateTime, Time};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["STR_TO_DATE", "MAKEDATE"];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    Ok(match name {
        "STR_TO_DATE" => {
            need(name, a, 2, 2)?;
            match (text_of(&a[0]), text_of(&a[1])) {
                (Some(s), Some(f)) => str_to_date(&s, &f).unwrap_or(Value::Null),
                _ => Value::Null,
            }
        }
        "MAKEDATE" => {
            need(name, a, 2, 2)?;
            match (int(&a[0]), int(&a[1])) {
                (Some(y), Some(n)) => makedate(y, n).map(Value::Date).unwrap_or(Value::Null),
                _ => Value::Null,
            }
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

fn full_year(y: i64) -> i64 {
    match y {
        0..=69 => y + 2000,
        70..=99 => y + 1900,
        _ => y,
    }
}

fn makedate(y: i64, n: i64) -> Option<Date> {
    let y = full_year(y);
    if n < 1 || !(0..=9999).contains(&y) {
        return None;
    }
    let jan1 = day_number(Date::new(y as u32, 1, 1)?);
    let d = from_day_number(jan1.checked_add(n - 1)?);
    (d.year <= 9999 && !d.is_zero()).then_some(d)
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// Monday first, as MariaDB numbers weekdays for `%W` (1..7).
const DAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// What the text said, part by part.
#[derive(Default)]
struct Parts {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    /// `Some(true)` after PM, `Some(false)` after AM.
    pm: Option<bool>,
    twelve_hour: bool,
    yearday: i64,
    /// Week number and whether it counts from Sunday (`%U %V`) or Monday (`%u %v`).
    week: Option<(i64, bool)>,
    /// `%V`/`%v` (strict) take their year from `%X`/`%x`.
    strict_week: bool,
    week_year: Option<(i64, bool)>,
    /// 1 = Monday .. 7 = Sunday.
    weekday: i64,
    date_parts: bool,
    time_parts: bool,
}

/// A cursor over the text being read.
struct Input<'a> {
    s: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn skip_space(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// An unsigned number of at most `width` digits (a sign for none).
    fn number(&mut self, width: usize) -> Option<i64> {
        let start = self.at;
        while self.at < self.s.len() && self.at - start < width && self.s[self.at].is_ascii_digit()
        {
            self.at += 1;
        }
        std::str::from_utf8(&self.s[start..self.at])
            .ok()?
            .parse()
            .ok()
    }

    /// The index of the name of `names` the text starts with (or its first three letters when
    /// `short`), case-insensitively.
    fn name(&mut self, names: &[&str], short: bool) -> Option<usize> {
        let rest = &self.s[self.at..];
        names.iter().position(|n| {
            let n = if short { &n[..3] } else { *n };
            let hit = rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n.as_bytes());
            if hit {
                self.at += n.len();
            }
            hit
        })
    }

    fn literal(&mut self, c: u8) -> Option<()> {
        (self.s.get(self.at) == Some(&c)).then(|| self.at += 1)
    }
}

fn str_to_date(s: &str, fmt: &str) -> Option<Value> {
    let mut p = Parts::default();
    let mut input = Input {
        s: s.as_bytes(),
        at: 0,
    };
    let f = fmt.as_bytes();
    let mut i = 0;
    while i < f.len() {
        input.skip_space();
        if input.at >= input.s.len() {
            break;
        }
        if f[i] == b'%' && i + 1 < f.len() {
            read_spec(&mut input, &mut p, f[i + 1])?;
            i += 2;
        } else {
            if !f[i].is_ascii_whitespace() {
                input.literal(f[i])?;
            }
            i += 1;
        }
    }
    // Specifiers the text ran out before still say what kind of value the format makes.
    while i < f.len() {
        if f[i] == b'%' && i + 1 < f.len() {
            classify(&mut p, f[i + 1]);
            i += 1;
        }
        i += 1;
    }
    build(p)
}

/// Marks whether specifier `c` is a date or a time part.
fn classify(p: &mut Parts, c: u8) {
    match c {
        b'H' | b'k' | b'h' | b'I' | b'l' | b'i' | b's' | b'S' | b'f' | b'p' | b'T' | b'r' => {
            p.time_parts = true
        }
        b'%' => {}
        _ => p.date_parts = true,
    }
}

fn read_spec(input: &mut Input<'_>, p: &mut Parts, c: u8) -> Option<()> {
    classify(p, c);
    match c {
        b'Y' => {
            let start = input.at;
            let y = input.number(4)?;
            p.year = if input.at - start <= 2 {
                full_year(y)
            } else {
                y
            };
        }
        b'y' => p.year = full_year(input.number(2)?),
        b'm' | b'c' => p.month = input.number(2)?,
        b'M' => p.month = input.name(&MONTHS, false)? as i64 + 1,
        b'b' => p.month = input.name(&MONTHS, true)? as i64 + 1,
        b'd' | b'e' => p.day = input.number(2)?,
        b'D' => {
            p.day = input.number(2)?;
            input.at = (input.at + 2).min(input.s.len());
        }
        b'H' | b'k' => p.hour = input.number(2)?,
        b'h' | b'I' | b'l' => {
            p.hour = input.number(2)?;
            p.twelve_hour = true;
        }
        b'i' => p.minute = input.number(2)?,
        b's' | b'S' => p.second = input.number(2)?,
        b'f' => {
            let start = input.at;
            let v = input.number(6)?;
            p.micros = v * 10i64.pow(6 - (input.at - start) as u32);
        }
        b'p' => {
            let ampm = ["am", "pm"];
            p.pm = Some(input.name(&ampm, false)? == 1);
        }
        b'T' => read_clock(input, p, false)?,
        b'r' => read_clock(input, p, true)?,
        b'W' => p.weekday = input.name(&DAYS, false)? as i64 + 1,
        b'a' => p.weekday = input.name(&DAYS, true)? as i64 + 1,
        b'w' => {
            let w = input.number(1)?;
            p.weekday = if w == 0 { 7 } else { w };
        }
        b'j' => p.yearday = input.number(3)?,
        b'U' | b'u' | b'V' | b'v' => {
            p.week = Some((input.number(2)?, matches!(c, b'U' | b'V')));
            p.strict_week = matches!(c, b'V' | b'v');
        }
        b'X' | b'x' => p.week_year = Some((input.number(4)?, c == b'X')),
        b'%' => input.literal(b'%')?,
        other => input.literal(other)?,
    }
    Some(())
}

/// `%T` (`HH:MM:SS`) or `%r` (`hh:MM:SS AM`).
fn read_clock(input: &mut Input<'_>, p: &mut Parts, twelve: bool) -> Option<()> {
    p.hour = input.number(2)?;
    input.literal(b':')?;
    p.minute = input.number(2)?;
    input.literal(b':')?;
    p.second = input.number(2)?;
    if twelve {
        p.twelve_hour = true;
        input.skip_space();
        p.pm = Some(input.name(&["am", "pm"], false)? == 1);
    }
    Some(())
}

/// The date a week number and weekday name, as MariaDB's `extract_date_time` computes it.
fn week_date(p: &Parts) -> Option<Date> {
    let (week, sunday_first) = p.week?;
    let year = match (p.strict_week, p.week_year) {
        (true, Some((y, x_sunday))) if x_sunday == sunday_first => y,
        (false, None) => p.year,
        _ => return None,
    };
    let jan1 = day_number(Date::new(year as u32, 1, 1)?);
    // 0 = Sunday (sunday_first) or Monday.
    let first = (jan1 + 2 + sunday_first as i64).rem_euclid(7);
    let days = if sunday_first {
        jan1 + if first == 0 { 0 } else { 7 } - first + (week - 1) * 7 + p.weekday % 7
    } else {
        jan1 + if first <= 3 { 0 } else { 7 } - first + (week - 1) * 7 + (p.weekday - 1)
    };
    Some(from_day_number(days))
}

fn build(mut p: Parts) -> Option<Value> {
    if p.twelve_hour {
        if !(1..=12).contains(&p.hour) {
            return None;
        }
        p.hour = p.hour % 12 + if p.pm == Some(true) { 12 } else { 0 };
    }
    if p.minute > 59 || p.second > 59 {
        return None;
    }
    let day_us = ((p.hour * 60 + p.minute) * 60 + p.second) * 1_000_000 + p.micros;
    if !p.date_parts {
        return Time::from_micros(day_us).map(Value::Time);
    }
    let date = if p.week.is_some() && p.weekday > 0 {
        week_date(&p)?
    } else if p.yearday > 0 {
        makedate(p.year, p.yearday)?
    } else {
        if p.month < 1 || p.day < 1 {
            return None;
        }
        Date::new(p.year as u32, p.month as u32, p.day as u32)?
    };
    if date.year > 9999 {
        return None;
    }
    if !p.time_parts {
        return Some(Value::Date(date));
    }
    if p.hour > 23 {
        return None;
    }
    Some(Value::DateTime(DateTime {
        date,
        micros: day_us as u64,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s2d(s: &str, f: &str) -> String {
        match call(
            "STR_TO_DATE",
            &[Value::Text(s.into()), Value::Text(f.into())],
        )
        .unwrap()
        {
            Value::Date(d) => format!("{:04}-{:02}-{:02}", d.year, d.month, d.day),
            Value::DateTime(d) => d.format(0),
            Value::Time(t) => t.format(0),
            Value::Null => "NULL".into(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn str_to_date_reads_formats_as_mariadb() {
        assert_eq!(s2d("2024-01-02", "%Y-%m-%d"), "2024-01-02");
        assert_eq!(s2d("01/02/2024", "%m/%d/%Y"), "2024-01-02");
        assert_eq!(
            s2d("2024-01-02 13:04", "%Y-%m-%d %H:%i"),
            "2024-01-02 13:04:00"
        );
        assert_eq!(s2d("2024-01-02 13", "%Y-%m-%d %H"), "2024-01-02 13:00:00");
        assert_eq!(s2d("9:05:03 pm", "%h:%i:%s %p"), "21:05:03");
        assert_eq!(s2d("12:00:00 AM", "%r"), "00:00:00");
        assert_eq!(s2d("March 5, 24", "%M %e, %y"), "2024-03-05");
        assert_eq!(s2d("  2024-1-2 trailing", "%Y-%c-%e"), "2024-01-02");
        assert_eq!(s2d("2024-02-30", "%Y-%m-%d"), "NULL");
        assert_eq!(s2d("2024/02/03", "%Y-%m-%d"), "NULL");
        assert_eq!(s2d("2024", "%Y-%m-%d"), "NULL");
        assert_eq!(s2d("2024-060", "%Y-%j"), "2024-02-29");
    }

    #[test]
    fn str_to_date_weeks_as_metabase_truncates_them() {
        // YEARWEEK(d) || ' Sunday' read back with '%X%V %W': the Sunday starting d's week.
        assert_eq!(s2d("202401 Sunday", "%X%V %W"), "2024-01-07");
        assert_eq!(s2d("202353 Sunday", "%X%V %W"), "2023-12-31");
        assert_eq!(s2d("202401 Monday", "%x%v %W"), "2024-01-01");
        assert_eq!(s2d("202401 Sunday", "%Y%V %W"), "NULL");
    }

    #[test]
    fn makedate_counts_days_of_the_year() {
        let m = |y: i64, n: i64| makedate(y, n).map(|d| (d.year, d.month, d.day));
        assert_eq!(m(2024, 1), Some((2024, 1, 1)));
        assert_eq!(m(2024, 60), Some((2024, 2, 29)));
        assert_eq!(m(2023, 366), Some((2024, 1, 1)));
        assert_eq!(m(24, 32), Some((2024, 2, 1)));
        assert_eq!(m(2024, 0), None);
        assert_eq!(m(9999, 366), None);
    }
}
