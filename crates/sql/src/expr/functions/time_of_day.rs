//! Functions of a time of day or a duration: HOUR, MINUTE, SECOND, MICROSECOND, TIMEDIFF,
//! TIME_FORMAT, SEC_TO_TIME.
//!
//! Invariants:
//! * An argument is read as MariaDB reads it for these functions ([`as_time`]): a TIME value
//!   as it is, a DATE/DATETIME by its time of day, text (and numbers) as a TIME (`'10:05:03'`,
//!   `'1 10:00:00'`, `100503`) and otherwise as a DATETIME's time of day; HOUR of a TIME is its
//!   whole hours (`HOUR('838:00:00')` is 838), of a negative one their absolute value.
//! * TIMEDIFF subtracts two TIMEs or two DATETIMEs; one of each is NULL (MariaDB). Results are
//!   TIME values clamped to ±838:59:59.
//! * TIME_FORMAT takes the time specifiers of DATE_FORMAT (`%H %k %h %I %l %i %s %S %f %p %r
//!   %T %%`); a date specifier makes the result NULL. A negative time prints its `-` first.

use super::{need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::temporal::{day_number, DateTime, Time, TIME_MAX_MICROS};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &[
    "HOUR",
    "MINUTE",
    "SECOND",
    "MICROSECOND",
    "TIMEDIFF",
    "TIME_FORMAT",
    "SEC_TO_TIME",
];

const HOUR_US: i64 = 3_600_000_000;

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    Ok(match name {
        "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" => {
            need(name, a, 1, 1)?;
            match as_time(&a[0]) {
                Some(us) => Value::Int(part(name, us.abs())),
                None => Value::Null,
            }
        }
        "TIMEDIFF" => {
            need(name, a, 2, 2)?;
            timediff(&a[0], &a[1])
        }
        "TIME_FORMAT" => {
            need(name, a, 2, 2)?;
            match (as_time(&a[0]), text_of(&a[1])) {
                (Some(us), Some(f)) => time_format(us, &f).map(text).unwrap_or(Value::Null),
                _ => Value::Null,
            }
        }
        "SEC_TO_TIME" => {
            need(name, a, 1, 1)?;
            let secs = a[0].to_f64_lenient().unwrap_or(0.0);
            clamped((secs * 1e6).round().clamp(-1e15, 1e15) as i64)
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// HOUR, MINUTE, SECOND or MICROSECOND of a non-negative duration in microseconds.
fn part(name: &str, us: i64) -> i64 {
    match name {
        "HOUR" => us / HOUR_US,
        "MINUTE" => us / 60_000_000 % 60,
        "SECOND" => us / 1_000_000 % 60,
        _ => us % 1_000_000,
    }
}

/// A value as a signed duration in microseconds, read as these functions read it.
pub(super) fn as_time(v: &Value) -> Option<i64> {
    match v {
        Value::Time(t) => Some(t.micros),
        Value::DateTime(d) => Some(d.micros as i64),
        Value::Date(_) => Some(0),
        Value::Double(_) | Value::Float(_) | Value::Decimal(_) | Value::Int(_) | Value::UInt(_) => {
            let s = text_of(v)?;
            Time::parse(&s)
                .map(|t| t.micros)
                .or_else(|| DateTime::parse(&s).map(|d| d.micros as i64))
        }
        other => {
            let s = text_of(other)?;
            let s = s.trim();
            match Time::parse(s) {
                Some(t) if t.micros.abs() <= TIME_MAX_MICROS => Some(t.micros),
                _ => DateTime::parse(s).map(|d| d.micros as i64),
            }
        }
    }
}

/// A TIMEDIFF operand: a duration (`Err`) or an instant in microseconds since year 0 (`Ok`).
fn operand(v: &Value) -> Option<Result<i128, i64>> {
    let instant = |d: DateTime| -> Result<i128, i64> {
        Ok(day_number(d.date) as i128 * 86_400_000_000 + d.micros as i128)
    };
    match v {
        Value::Time(t) => Some(Err(t.micros)),
        Value::DateTime(d) => Some(instant(*d)),
        Value::Date(d) => Some(instant(DateTime::from_date(*d))),
        other => {
            let s = text_of(other)?;
            let s = s.trim();
            let looks_dated = s.contains('-') && s.trim_start_matches('-').contains('-');
            if !looks_dated {
                if let Some(t) = Time::parse(s) {
                    if t.micros.abs() <= TIME_MAX_MICROS {
                        return Some(Err(t.micros));
                    }
                }
            }
            DateTime::parse(s).map(instant)
        }
    }
}

fn timediff(x: &Value, y: &Value) -> Value {
    match (operand(x), operand(y)) {
        (Some(Ok(a)), Some(Ok(b))) => clamped((a - b).clamp(-(1 << 60), 1 << 60) as i64),
        (Some(Err(a)), Some(Err(b))) => clamped(a - b),
        _ => Value::Null,
    }
}

/// A TIME value, clamped to ±838:59:59 (with the fraction of the bound dropped, as MariaDB).
fn clamped(us: i64) -> Value {
    let us = us.clamp(-TIME_MAX_MICROS, TIME_MAX_MICROS);
    Time::from_micros(us)
        .map(Value::Time)
        .unwrap_or(Value::Null)
}

/// TIME_FORMAT's text of a duration; `None` when the format names a date part.
fn time_format(us: i64, fmt: &str) -> Option<String> {
    let neg = us < 0;
    let a = us.unsigned_abs();
    let h = a / HOUR_US as u64;
    let (mi, s, f) = (a / 60_000_000 % 60, a / 1_000_000 % 60, a % 1_000_000);
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let ampm = if h % 24 < 12 { "AM" } else { "PM" };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = it.next() else { break };
        match spec {
            'H' => out.push_str(&format!("{h:02}")),
            'k' => out.push_str(&h.to_string()),
            'h' | 'I' => out.push_str(&format!("{h12:02}")),
            'l' => out.push_str(&h12.to_string()),
            'i' => out.push_str(&format!("{mi:02}")),
            's' | 'S' => out.push_str(&format!("{s:02}")),
            'f' => out.push_str(&format!("{f:06}")),
            'p' => out.push_str(ampm),
            'T' => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
            'r' => out.push_str(&format!("{h12:02}:{mi:02}:{s:02} {ampm}")),
            '%' => out.push('%'),
            'Y' | 'y' | 'm' | 'c' | 'd' | 'e' | 'D' | 'M' | 'b' | 'W' | 'a' | 'w' | 'j' | 'U'
            | 'u' | 'V' | 'v' | 'X' | 'x' => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn shown(v: Value) -> String {
        match v {
            Value::Time(t) => t.format(6),
            Value::Int(i) => i.to_string(),
            Value::Text(s) => s,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn hour_minute_second_read_time_strings_as_times() {
        let c = |n: &str, v: &str| shown(call(n, &[t(v)]).unwrap());
        assert_eq!(c("HOUR", "10:05:03"), "10");
        assert_eq!(c("MINUTE", "10:05:03"), "5");
        assert_eq!(c("SECOND", "10:05:03.5"), "3");
        assert_eq!(c("MICROSECOND", "10:05:03.5"), "500000");
        assert_eq!(c("HOUR", "838:00:00"), "838");
        assert_eq!(c("HOUR", "-01:30:00"), "1");
        assert_eq!(c("HOUR", "2024-01-01 17:04:05"), "17");
        assert_eq!(c("MINUTE", "2024-01-01 17:04:05"), "4");
        assert_eq!(shown(call("HOUR", &[Value::Int(100503)]).unwrap()), "10");
        assert_eq!(call("HOUR", &[t("junk")]).unwrap(), Value::Null);
    }

    #[test]
    fn timediff_of_times_and_of_datetimes() {
        let d = |x: &str, y: &str| shown(call("TIMEDIFF", &[t(x), t(y)]).unwrap());
        assert_eq!(d("10:00:00", "08:30:00"), "01:30:00.000000");
        assert_eq!(d("08:00:00", "10:00:00.5"), "-02:00:00.500000");
        assert_eq!(
            d("2024-01-02 00:00:00", "2024-01-01 22:00:00"),
            "02:00:00.000000"
        );
        assert_eq!(
            d("2024-03-01 00:00:00", "2024-01-01 00:00:00"),
            "838:59:59.000000"
        );
        assert_eq!(
            call("TIMEDIFF", &[t("2024-01-01 10:00:00"), t("10:00:00")]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn time_format_prints_time_specifiers_only() {
        let f = |v: &str, fmt: &str| call("TIME_FORMAT", &[t(v), t(fmt)]).unwrap();
        assert_eq!(f("00:00:00", "%H:%i"), t("00:00"));
        assert_eq!(f("-05:30:00", "%H:%i"), t("-05:30"));
        assert_eq!(f("100:00:00", "%H %k %h %p"), t("100 100 04 AM"));
        assert_eq!(
            f("13:02:03.25", "%r %T %f %%"),
            t("01:02:03 PM 13:02:03 250000 %")
        );
        assert_eq!(f("10:00:00", "%Y"), Value::Null);
    }

    #[test]
    fn sec_to_time_clamps() {
        assert_eq!(
            shown(call("SEC_TO_TIME", &[Value::Int(3661)]).unwrap()),
            "01:01:01.000000"
        );
        assert_eq!(
            shown(call("SEC_TO_TIME", &[Value::Int(-90)]).unwrap()),
            "-00:01:30.000000"
        );
        assert_eq!(
            shown(call("SEC_TO_TIME", &[Value::Int(10_000_000)]).unwrap()),
            "838:59:59.000000"
        );
    }
}
