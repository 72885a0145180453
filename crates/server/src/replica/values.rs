//! A replicated row image's values as Betula values for the table's columns: the `mysql_common`
//! decoder gives integers, floats, bytes (text in the column's character set, binary strings,
//! DECIMAL and TIMESTAMP as text, BIT and SET as big- / little-endian bytes) and dates / times as
//! parts; each becomes the value an INSERT of the same data on the primary would have stored.
//!
//! Invariants: a value is converted for its own column's type and character set, never guessed
//! from the bytes; one that cannot be read (text not valid in the column's character set, MySQL's
//! binary JSON, a partial JSON update) is an error, never a changed value (RPA3).

use betula_sql::catalog::TableDef;
use betula_sql::types::temporal::{from_day_number, Date, DateTime};
use betula_sql::types::value::Value;
use betula_sql::types::{IntWidth, SqlType};
use mysql_common::binlog::value::BinlogValue;
use mysql_common::value::Value as MyValue;

/// Converts column `col`'s value from a row image; `Err` names what could not be read.
pub fn convert(t: &TableDef, col: usize, v: &BinlogValue<'_>) -> Result<Value, String> {
    let v = match v {
        BinlogValue::Value(v) => v,
        _ => {
            return Err(format!(
                "column `{}`: MySQL's binary JSON is not replicated",
                t.columns[col].name
            ))
        }
    };
    convert_value(t, col, v)
}

/// Converts column `col`'s value as the decoder read it; `Err` names what could not be read.
pub fn convert_value(t: &TableDef, col: usize, v: &MyValue) -> Result<Value, String> {
    let column = &t.columns[col];
    Ok(match v {
        MyValue::NULL => Value::Null,
        MyValue::Int(i) => match column.sql_type {
            SqlType::Timestamp { .. } => unix_datetime(*i, 0),
            // Without the primary's signedness metadata an UNSIGNED value arrives signed.
            SqlType::Int {
                width,
                unsigned: true,
            } if *i < 0 => Value::UInt(unsigned_of(*i, width)),
            _ => Value::Int(*i),
        },
        MyValue::UInt(u) => Value::UInt(*u),
        MyValue::Float(f) => Value::Float(*f),
        MyValue::Double(d) => Value::Double(*d),
        MyValue::Date(y, mo, d, h, mi, s, us) => {
            match temporal(&column.sql_type, *y, *mo, *d, *h, *mi, *s, *us) {
                Some(v) => v,
                None => Value::Text(format!(
                    "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}"
                )),
            }
        }
        MyValue::Time(neg, days, h, mi, s, us) => {
            let hours = *days as u64 * 24 + *h as u64;
            let sign = if *neg { "-" } else { "" };
            Value::Text(format!("{sign}{hours:02}:{mi:02}:{s:02}.{us:06}"))
        }
        MyValue::Bytes(b) => bytes(t, col, b)?,
    })
}

/// A DATE or DATETIME image as the column's own value, without text between: `None` (the
/// value then goes as text, as an INSERT would give it) for another column type, a zero or
/// otherwise invalid date, or a DATE image with a time part.
#[allow(clippy::too_many_arguments)]
fn temporal(ty: &SqlType, y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> Option<Value> {
    let date = Date::new(y as u32, mo as u32, d as u32).filter(|d| *d != Date::ZERO)?;
    match ty {
        SqlType::Date if (h, mi, s, us) == (0, 0, 0, 0) => Some(Value::Date(date)),
        SqlType::DateTime { .. } => {
            DateTime::new(date, h as u32, mi as u32, s as u32, us).map(Value::DateTime)
        }
        _ => None,
    }
}

/// The unsigned value of an integer column of `width` read as signed.
fn unsigned_of(i: i64, width: IntWidth) -> u64 {
    let bits = match width {
        IntWidth::Tiny => 8,
        IntWidth::Small => 16,
        IntWidth::Medium => 24,
        IntWidth::Int => 32,
        IntWidth::Big => 64,
    };
    if bits == 64 {
        i as u64
    } else {
        (i as u64) & ((1u64 << bits) - 1)
    }
}

/// Bytes as the column's type reads them.
fn bytes(t: &TableDef, col: usize, b: &[u8]) -> Result<Value, String> {
    let column = &t.columns[col];
    Ok(match column.sql_type {
        SqlType::Bit { .. } => Value::UInt(b.iter().fold(0u64, |a, &x| a << 8 | x as u64)),
        // A bitmask of members, least significant byte first.
        SqlType::Set { .. } => Value::UInt(b.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64)),
        SqlType::Timestamp { .. } => {
            let text = std::str::from_utf8(b).map_err(|_| "TIMESTAMP image".to_string())?;
            let (secs, frac) = text.split_once('.').unwrap_or((text, ""));
            let secs: i64 = secs.parse().map_err(|_| format!("TIMESTAMP {text:?}"))?;
            let digits: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
            let micros: u32 = digits.parse().map_err(|_| format!("TIMESTAMP {text:?}"))?;
            unix_datetime(secs, micros)
        }
        ref ty if ty.is_binary() => Value::Bytes(b.to_vec()),
        ref ty if ty.is_text() => {
            let charset = column.collation.charset();
            Value::Text(charset.decode(b).ok_or_else(|| {
                format!(
                    "column `{}`: a value that is not valid {}",
                    column.name,
                    charset.name()
                )
            })?)
        }
        // DECIMAL, YEAR and the like arrive as their text.
        _ => Value::Text(
            String::from_utf8(b.to_vec())
                .map_err(|_| format!("column `{}`: unreadable value", column.name))?,
        ),
    })
}

/// A TIMESTAMP's seconds since 1970 as a UTC DATETIME (the applier's session runs in UTC); the
/// zero timestamp as MariaDB's zero value.
fn unix_datetime(secs: i64, micros: u32) -> Value {
    /// `day_number` of 1970-01-01.
    const EPOCH_DAY: i64 = 719_468;
    if secs == 0 && micros == 0 {
        return Value::Text("0000-00-00 00:00:00".into());
    }
    let date = from_day_number(secs.div_euclid(86_400) + EPOCH_DAY);
    let rem = secs.rem_euclid(86_400) as u32;
    match DateTime::new(date, rem / 3600, rem / 60 % 60, rem % 60, micros) {
        Some(d) => Value::DateTime(d),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_integers_read_as_signed_are_restored() {
        assert_eq!(unsigned_of(-1, IntWidth::Tiny), 255);
        assert_eq!(unsigned_of(-1, IntWidth::Medium), 16_777_215);
        assert_eq!(unsigned_of(-2, IntWidth::Big), u64::MAX - 1);
    }

    #[test]
    fn dates_and_datetimes_are_their_columns_values() {
        let dt = SqlType::DateTime { fsp: 6 };
        let text = |v: Option<Value>| match v {
            Some(Value::DateTime(d)) => d.format(6),
            Some(Value::Date(d)) => format!("{d:?}"),
            other => format!("{other:?}"),
        };
        assert_eq!(
            text(temporal(&dt, 2026, 11, 28, 10, 0, 1, 5)),
            "2026-11-28 10:00:01.000005"
        );
        assert!(matches!(
            temporal(&SqlType::Date, 1000, 1, 1, 0, 0, 0, 0),
            Some(Value::Date(_))
        ));
        // Zero or invalid dates, and other types, go as text.
        assert_eq!(temporal(&dt, 0, 0, 0, 0, 0, 0, 0), None);
        assert_eq!(temporal(&dt, 2026, 2, 30, 0, 0, 0, 0), None);
        assert_eq!(temporal(&dt, 2026, 0, 1, 0, 0, 0, 0), None);
        assert_eq!(temporal(&SqlType::Date, 2026, 1, 1, 1, 0, 0, 0), None);
    }

    #[test]
    fn timestamps_are_utc_datetimes() {
        let text = |v: Value| match v {
            Value::DateTime(d) => d.format(6),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text(unix_datetime(1_700_000_000, 5)),
            "2023-11-14 22:13:20.000005"
        );
        assert_eq!(
            text(unix_datetime(951_782_400, 0)),
            "2000-02-29 00:00:00.000000"
        );
        assert_eq!(
            unix_datetime(0, 0),
            Value::Text("0000-00-00 00:00:00".into())
        );
    }
}
