//! The amount of a compound INTERVAL unit (`DAY_HOUR`, `MINUTE_SECOND`, `YEAR_MONTH`, ...), read
//! from its text as MariaDB reads it: an optional `-` after leading spaces makes the interval
//! negative; then runs of digits are the unit's fields, anything else separates them.
//!
//! Invariants (MariaDB's `get_interval_info`):
//! - fewer runs than fields fill the last fields (`'1:30' DAY_MINUTE` is 1 hour 30 minutes;
//!   no digits at all is a zero interval);
//! - text left after the last field, or a run of 20 or more digits, makes the interval NULL;
//! - for the `_MICROSECOND` units the last run read is a fraction of a second written with its
//!   digits: `'1.5' SECOND_MICROSECOND` is 1.5 seconds, `'1.000005'` 1.000005 seconds.

use super::date_add::Delta;
use crate::expr::IntervalUnit;

/// How a compound unit splits: its number of fields, whether the last is microseconds, and
/// whether it counts months (YEAR_MONTH) rather than time.
fn layout(unit: IntervalUnit) -> Option<(usize, bool)> {
    use IntervalUnit as U;
    Some(match unit {
        U::YearMonth | U::DayHour | U::HourMinute | U::MinuteSecond => (2, false),
        U::DayMinute | U::HourSecond => (3, false),
        U::DaySecond => (4, false),
        U::SecondMicrosecond => (2, true),
        U::MinuteMicrosecond => (3, true),
        U::HourMicrosecond => (4, true),
        U::DayMicrosecond => (5, true),
        _ => return None,
    })
}

/// The fields of `text` for a unit of `count` fields, and the digits of the last run read;
/// `None` where MariaDB gives NULL.
fn fields(text: &[u8], count: usize) -> Option<(Vec<u64>, usize)> {
    let mut at = text.iter().take_while(|b| !b.is_ascii_digit()).count();
    let mut values = vec![0u64; count];
    let mut digits = 0;
    for i in 0..count {
        let start = at;
        let mut value: u64 = 0;
        while at < text.len() && text[at].is_ascii_digit() {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(text[at] - b'0'))?;
            at += 1;
        }
        digits = at - start;
        if digits >= 20 {
            return None;
        }
        values[i] = value;
        at += text[at..]
            .iter()
            .take_while(|b| !b.is_ascii_digit())
            .count();
        if at == text.len() && i + 1 < count {
            values.rotate_right(count - (i + 1));
            break;
        }
    }
    (at == text.len()).then_some((values, digits))
}

/// The interval `text` of compound `unit` denotes; `None` for a simple unit or where MariaDB
/// gives NULL.
pub(super) fn compound_delta(text: &str, unit: IntervalUnit) -> Option<Delta> {
    let (count, micros_last) = layout(unit)?;
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (mut v, digits) = fields(t.as_bytes(), count)?;
    if micros_last && digits > 0 {
        let last = &mut v[count - 1];
        *last = match digits {
            ..=5 => *last * 10u64.pow(6 - digits as u32),
            6 => *last,
            _ => *last / 10u64.pow(digits as u32 - 6),
        };
    }
    let sign: i128 = if neg { -1 } else { 1 };
    if unit == IntervalUnit::YearMonth {
        let months = i128::from(v[0]) * 12 + i128::from(v[1]);
        return Some(Delta::Months(i64::try_from(sign * months).ok()?));
    }
    // Fields from the least significant: microseconds (if any), seconds, minutes, hours, days.
    let mut it = v.iter().rev().map(|&x| i128::from(x));
    let micros = if micros_last { it.next()? } else { 0 };
    let per = [1_000_000i128, 60_000_000, 3_600_000_000, 86_400_000_000];
    let skip = match unit {
        IntervalUnit::DayHour => 2,
        IntervalUnit::HourMinute | IntervalUnit::DayMinute => 1,
        _ => 0,
    };
    let total = it
        .zip(per.iter().skip(skip))
        .fold(micros, |acc, (x, p)| acc + x * p);
    Some(Delta::Micros(sign * total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntervalUnit as U;

    fn micros(text: &str, unit: IntervalUnit) -> Option<i128> {
        match compound_delta(text, unit)? {
            Delta::Micros(m) => Some(m),
            Delta::Months(_) => panic!("months"),
        }
    }

    #[test]
    fn fields_fill_from_the_last() {
        assert_eq!(micros("1:30", U::MinuteSecond), Some(90_000_000));
        assert_eq!(micros("90", U::MinuteSecond), Some(90_000_000));
        assert_eq!(micros("1:30", U::DayMinute), Some(90 * 60_000_000));
        assert_eq!(micros("1 2", U::DayHour), Some(26 * 3_600_000_000));
        assert_eq!(micros("abc", U::DayHour), Some(0));
        assert_eq!(micros("", U::DayHour), Some(0));
        assert_eq!(micros(" -1 1", U::DayHour), Some(-25 * 3_600_000_000));
    }

    #[test]
    fn leftover_text_or_long_runs_are_null() {
        assert_eq!(micros("1:2:3", U::MinuteSecond), None);
        assert_eq!(micros("1:2x", U::MinuteSecond), Some(62_000_000));
        assert_eq!(micros("12345678901234567890 1", U::DayHour), None);
    }

    #[test]
    fn microseconds_are_written_digits() {
        assert_eq!(micros("1.5", U::SecondMicrosecond), Some(1_500_000));
        assert_eq!(micros("1.000005", U::SecondMicrosecond), Some(1_000_005));
        assert_eq!(micros("1.12345678", U::SecondMicrosecond), Some(1_123_456));
        assert_eq!(micros("5", U::SecondMicrosecond), Some(500_000));
        assert_eq!(micros("1 2", U::DayMicrosecond), Some(1_200_000));
        assert_eq!(
            micros("1 01:02:03.4", U::DayMicrosecond),
            Some(86_400_000_000 + 3_723_400_000)
        );
    }

    #[test]
    fn year_month_counts_months() {
        assert!(matches!(
            compound_delta("2-3", U::YearMonth),
            Some(Delta::Months(27))
        ));
        assert!(matches!(
            compound_delta("-0-1", U::YearMonth),
            Some(Delta::Months(-1))
        ));
        assert!(compound_delta("1", U::Day).is_none());
    }
}
