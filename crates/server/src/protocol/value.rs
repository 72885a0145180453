//! Protocol values: what prepared-statement parameters decode to and what
//! result rows are made of, plus their MySQL text representation.
//!
//! Invariants: a `Value` carries no column type; the text encoding depends
//! only on the value, the binary encoding on the value *and* the column type
//! (see `binary_row`). Date/time fields are not range-checked here; they are
//! formatted as given (MySQL's zero date `0000-00-00` is representable).

use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// A TIME value: a signed duration of up to 838:59:59.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Time {
    pub negative: bool,
    pub days: u32,
    pub hours: u8,
    pub minutes: u8,
    pub seconds: u8,
    pub micros: u32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    /// Exact decimal, as its canonical text (e.g. `"-12.340"`).
    Decimal(String),
    /// Character or binary string data.
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The MySQL text-protocol representation; `None` for NULL.
    pub fn to_text(&self) -> Option<Vec<u8>> {
        Some(match self {
            Value::Null => return None,
            Value::Int(v) => v.to_string().into_bytes(),
            Value::UInt(v) => v.to_string().into_bytes(),
            Value::Float(v) => format_float(*v as f64, true).into_bytes(),
            Value::Double(v) => format_float(*v, false).into_bytes(),
            Value::Decimal(s) => s.clone().into_bytes(),
            Value::Bytes(b) => b.clone(),
            Value::Date(d) => format_date(d).into_bytes(),
            Value::DateTime(dt) => format_datetime(dt).into_bytes(),
            Value::Time(t) => format_time(t).into_bytes(),
        })
    }

    /// Best-effort conversion to a signed integer (used when a column's
    /// binary type is integral).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => Some(*v as i64),
            Value::Float(v) => Some(*v as i64),
            Value::Double(v) => Some(*v as i64),
            Value::Decimal(s) => parse_text_number(s.as_bytes()).map(|f| f as i64),
            Value::Bytes(b) => std::str::from_utf8(b)
                .ok()
                .and_then(|s| {
                    let s = s.trim();
                    // an unsigned BIGINT above i64::MAX keeps its bits, as Value::UInt does
                    s.parse::<i64>()
                        .ok()
                        .or_else(|| s.parse::<u64>().ok().map(|u| u as i64))
                })
                .or_else(|| parse_text_number(b).map(|f| f as i64)),
            _ => None,
        }
    }

    /// Best-effort conversion to a double.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::UInt(v) => Some(*v as f64),
            Value::Float(v) => Some(*v as f64),
            Value::Double(v) => Some(*v),
            Value::Decimal(s) => parse_text_number(s.as_bytes()),
            Value::Bytes(b) => parse_text_number(b),
            _ => None,
        }
    }
}

fn parse_text_number(b: &[u8]) -> Option<f64> {
    // Only finite numbers: "nan"/"inf" are not numeric text in SQL.
    std::str::from_utf8(b)
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::UInt(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Bytes(v.as_bytes().to_vec())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Bytes(v.into_bytes())
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Self {
        Value::Bytes(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

fn format_float(v: f64, single: bool) -> String {
    if v.is_nan() || v.is_infinite() {
        // MySQL cannot store these; render something a client can parse.
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // MySQL's layout: 6 significant digits for FLOAT, the shortest round-trip digits for DOUBLE,
    // exponent form for very large / small magnitudes (`1e38`, `1.5e-20`).
    if single {
        betula_sql::types::text_format::format_float(v as f32)
    } else {
        betula_sql::types::text_format::format_double(v)
    }
}

pub fn format_date(d: &Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)
}

fn push_micros(s: &mut String, micros: u32) {
    if micros != 0 {
        let _ = write!(s, ".{micros:06}");
    }
}

pub fn format_datetime(dt: &DateTime) -> String {
    let mut s = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(&dt.date),
        dt.hour,
        dt.minute,
        dt.second
    );
    push_micros(&mut s, dt.micros);
    s
}

pub fn format_time(t: &Time) -> String {
    let hours = t.days as u64 * 24 + t.hours as u64;
    let mut s = format!(
        "{}{:02}:{:02}:{:02}",
        if t.negative { "-" } else { "" },
        hours,
        t.minutes,
        t.seconds
    );
    push_micros(&mut s, t.micros);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() {
        assert_eq!(Value::Int(-5).to_text().unwrap(), b"-5");
        assert_eq!(
            Value::UInt(u64::MAX).to_text().unwrap(),
            b"18446744073709551615"
        );
        assert_eq!(Value::Double(1.5).to_text().unwrap(), b"1.5");
        assert_eq!(Value::Float(0.1).to_text().unwrap(), b"0.1");
        assert_eq!(Value::Null.to_text(), None);
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            hour: 1,
            minute: 2,
            second: 3,
            micros: 450,
        };
        assert_eq!(
            Value::DateTime(dt).to_text().unwrap(),
            b"2024-02-29 01:02:03.000450"
        );
        let t = Time {
            negative: true,
            days: 1,
            hours: 2,
            minutes: 3,
            seconds: 4,
            micros: 0,
        };
        assert_eq!(Value::Time(t).to_text().unwrap(), b"-26:03:04");
    }

    #[test]
    fn conversions() {
        assert_eq!(Value::from("42").as_i64(), Some(42));
        assert_eq!(Value::Decimal("3.5".into()).as_f64(), Some(3.5));
        assert_eq!(Value::from("x").as_i64(), None);
    }
}
