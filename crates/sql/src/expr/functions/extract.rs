//! `EXTRACT(unit FROM v)`, compiled as `__EXTRACT_<unit>(v)` with the unit's
//! [`crate::expr::IntervalUnit`] Debug name, for the simple and the compound units.
//!
//! Invariants, as MariaDB 10.11's `Item_extract`:
//! - a TIME (or a string or number that reads as one) is a duration: its hours split into days
//!   and hours below 24, and every part but the date parts carries its sign
//!   (`EXTRACT(HOUR FROM TIME '-30:11:12')` is -6, `DAY` -1, `HOUR_SECOND` -61112); its YEAR,
//!   MONTH, QUARTER, WEEK and YEAR_MONTH are 0;
//! - for the date units anything else is read as a DATETIME (NULL when it is not one); for the
//!   others a string or number that reads as a TIME is one (20200102 is 2020 hours), and
//!   anything else is read as a DATETIME;
//! - a compound unit joins its parts as decimal digits: `DAY_HOUR` is day * 100 + hour,
//!   `DAY_MICROSECOND` ((day * 100 + hour) * 100 + minute) * 100 + second, then * 10^6 +
//!   microseconds.

use super::temporal::day_of_year;
use crate::expr::eval::{text_of, to_datetime};
use crate::types::temporal::{Time, TIME_MAX_MICROS};
use crate::types::value::Value;

/// The parts of a value as EXTRACT reads them.
struct Parts {
    neg: bool,
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micro: i64,
    /// For WEEK: the week of the year (0 for a duration).
    week: i64,
}

/// A duration or an instant as EXTRACT of a `date_unit` (YEAR, MONTH, QUARTER, WEEK,
/// YEAR_MONTH) or of a time unit sees it; `None` where the result is NULL.
fn parts(v: &Value, date_unit: bool) -> Option<Parts> {
    let duration = match v {
        Value::Time(t) => Some(t.micros),
        Value::Date(_) | Value::DateTime(_) => None,
        _ if date_unit => None,
        other => time_text(other),
    };
    if let Some(us) = duration {
        let a = us.unsigned_abs() as i64;
        return Some(Parts {
            neg: us < 0,
            year: 0,
            month: 0,
            day: a / 86_400_000_000,
            hour: a / 3_600_000_000 % 24,
            minute: a / 60_000_000 % 60,
            second: a / 1_000_000 % 60,
            micro: a % 1_000_000,
            week: 0,
        });
    }
    let dt = to_datetime(v)?;
    let (h, m, s, us) = dt.hms();
    Some(Parts {
        neg: false,
        year: dt.date.year as i64,
        month: dt.date.month as i64,
        day: dt.date.day as i64,
        hour: h as i64,
        minute: m as i64,
        second: s as i64,
        micro: us as i64,
        week: (day_of_year(&dt) as i64 - 1) / 7,
    })
}

/// A string or number that reads as a TIME (`'30:11:12'`, 301112, 20200102 as 2020 hours), as
/// MariaDB reads the argument of EXTRACT of a time unit; `None` for a date and time.
fn time_text(v: &Value) -> Option<i64> {
    let s = text_of(v)?;
    Time::parse(s.trim())
        .map(|t| t.micros)
        .filter(|us| us.abs() <= TIME_MAX_MICROS)
}

/// `EXTRACT(unit FROM a[0])`; `unit` is the IntervalUnit's Debug name.
pub(super) fn extract_call(unit: &str, a: &[Value]) -> Value {
    let date_unit = matches!(unit, "Year" | "Month" | "Quarter" | "Week" | "YearMonth");
    let Some(p) = a.first().and_then(|v| parts(v, date_unit)) else {
        return Value::Null;
    };
    let hms = p.hour * 10_000 + p.minute * 100 + p.second;
    let unsigned = match unit {
        "Year" => return Value::Int(p.year),
        "Month" => return Value::Int(p.month),
        "Quarter" => {
            return Value::Int(if p.month == 0 {
                0
            } else {
                (p.month - 1) / 3 + 1
            })
        }
        "Week" => return Value::Int(p.week),
        "YearMonth" => return Value::Int(p.year * 100 + p.month),
        "Day" => p.day,
        "Hour" => p.hour,
        "Minute" => p.minute,
        "Second" => p.second,
        "Microsecond" => p.micro,
        "DayHour" => p.day * 100 + p.hour,
        "DayMinute" => p.day * 10_000 + p.hour * 100 + p.minute,
        "DaySecond" => p.day * 1_000_000 + hms,
        "HourMinute" => p.hour * 100 + p.minute,
        "HourSecond" => hms,
        "MinuteSecond" => p.minute * 100 + p.second,
        "DayMicrosecond" => (p.day * 1_000_000 + hms) * 1_000_000 + p.micro,
        "HourMicrosecond" => hms * 1_000_000 + p.micro,
        "MinuteMicrosecond" => (p.minute * 100 + p.second) * 1_000_000 + p.micro,
        "SecondMicrosecond" => p.second * 1_000_000 + p.micro,
        _ => return Value::Null,
    };
    Value::Int(if p.neg { -unsigned } else { unsigned })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(unit: &str, v: Value) -> Value {
        extract_call(unit, &[v])
    }

    #[test]
    fn a_negative_time_splits_into_signed_days_and_hours() {
        let t = Value::Time(Time::parse("-30:11:12").unwrap());
        assert_eq!(ex("Hour", t.clone()), Value::Int(-6));
        assert_eq!(ex("Day", t.clone()), Value::Int(-1));
        assert_eq!(ex("HourSecond", t.clone()), Value::Int(-61112));
        assert_eq!(ex("DayHour", t.clone()), Value::Int(-106));
        assert_eq!(ex("YearMonth", t.clone()), Value::Int(0));
        assert_eq!(ex("Year", t), Value::Int(0));
    }

    #[test]
    fn a_datetime_joins_its_parts() {
        let d = Value::Text("2020-01-02 03:04:05.6".into());
        assert_eq!(ex("DayHour", d.clone()), Value::Int(203));
        assert_eq!(ex("YearMonth", d.clone()), Value::Int(202001));
        assert_eq!(
            ex("DayMicrosecond", d.clone()),
            Value::Int(2_030_405_600_000)
        );
        assert_eq!(ex("Quarter", d.clone()), Value::Int(1));
        assert_eq!(ex("Hour", Value::Text("30:11:12".into())), Value::Int(6));
        assert_eq!(ex("Day", Value::Text("no".into())), Value::Null);
    }
}
