//! The binary-protocol encoding of single values (ProtocolBinary::*), used
//! both to decode COM_STMT_EXECUTE parameters and to encode binary result rows.
//!
//! Invariants: the wire form is chosen by the *column type*, never by the
//! `Value` variant (a client parses by the column definition it received),
//! so encoding converts the value to the column's type or fails with a
//! `SqlError`; decoding reads exactly the bytes the type prescribes and fails
//! with `ProtocolError::Malformed` on truncated input or an unknown type code.

use super::column::ColumnType;
use super::error::{ProtocolError, SqlError};
use super::value::{Date, DateTime, Time, Value};
use super::wire::{put_lenenc_bytes, put_u16, put_u32, put_u64, WireReader};

/// Decodes one parameter value of type `ty` (unsigned when `unsigned`).
pub fn decode_value(
    r: &mut WireReader<'_>,
    ty: ColumnType,
    unsigned: bool,
) -> Result<Value, ProtocolError> {
    use ColumnType as T;
    Ok(match ty {
        T::NULL => Value::Null,
        T::TINY => {
            let v = r.u8()?;
            if unsigned {
                Value::UInt(v as u64)
            } else {
                Value::Int(v as i8 as i64)
            }
        }
        T::SHORT | T::YEAR => {
            let v = r.u16()?;
            if unsigned {
                Value::UInt(v as u64)
            } else {
                Value::Int(v as i16 as i64)
            }
        }
        T::LONG | T::INT24 => {
            let v = r.u32()?;
            if unsigned {
                Value::UInt(v as u64)
            } else {
                Value::Int(v as i32 as i64)
            }
        }
        T::LONGLONG => {
            let v = r.u64()?;
            if unsigned {
                Value::UInt(v)
            } else {
                Value::Int(v as i64)
            }
        }
        T::FLOAT => Value::Float(f32::from_bits(r.u32()?)),
        T::DOUBLE => Value::Double(f64::from_bits(r.u64()?)),
        T::DECIMAL | T::NEWDECIMAL => {
            Value::Decimal(String::from_utf8_lossy(r.lenenc_bytes()?).into_owned())
        }
        T::DATE | T::NEWDATE => match decode_datetime(r)? {
            dt if dt.hour == 0 && dt.minute == 0 && dt.second == 0 && dt.micros == 0 => {
                Value::Date(dt.date)
            }
            dt => Value::DateTime(dt),
        },
        T::DATETIME | T::TIMESTAMP | T::DATETIME2 | T::TIMESTAMP2 => {
            Value::DateTime(decode_datetime(r)?)
        }
        T::TIME | T::TIME2 => Value::Time(decode_time(r)?),
        T::VARCHAR
        | T::BIT
        | T::JSON
        | T::ENUM
        | T::SET
        | T::TINY_BLOB
        | T::MEDIUM_BLOB
        | T::LONG_BLOB
        | T::BLOB
        | T::VAR_STRING
        | T::STRING
        | T::GEOMETRY => Value::Bytes(r.lenenc_bytes()?.to_vec()),
        _ => return Err(ProtocolError::Malformed("unknown parameter type")),
    })
}

fn decode_datetime(r: &mut WireReader<'_>) -> Result<DateTime, ProtocolError> {
    let len = r.u8()?;
    let mut dt = DateTime::default();
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Err(ProtocolError::Malformed("bad DATETIME length"));
    }
    if len >= 4 {
        dt.date = Date {
            year: r.u16()?,
            month: r.u8()?,
            day: r.u8()?,
        };
    }
    if len >= 7 {
        dt.hour = r.u8()?;
        dt.minute = r.u8()?;
        dt.second = r.u8()?;
    }
    if len == 11 {
        dt.micros = r.u32()?;
    }
    Ok(dt)
}

fn decode_time(r: &mut WireReader<'_>) -> Result<Time, ProtocolError> {
    let len = r.u8()?;
    let mut t = Time::default();
    if !matches!(len, 0 | 8 | 12) {
        return Err(ProtocolError::Malformed("bad TIME length"));
    }
    if len >= 8 {
        t.negative = r.u8()? != 0;
        t.days = r.u32()?;
        t.hours = r.u8()?;
        t.minutes = r.u8()?;
        t.seconds = r.u8()?;
    }
    if len == 12 {
        t.micros = r.u32()?;
    }
    Ok(t)
}

fn put_datetime(out: &mut Vec<u8>, dt: &DateTime, date_only: bool) {
    let has_time = !date_only && (dt.hour | dt.minute | dt.second) != 0;
    let has_micros = !date_only && dt.micros != 0;
    let zero_date = dt.date == Date::default();
    if zero_date && !has_time && !has_micros {
        out.push(0);
        return;
    }
    let len = if has_micros {
        11
    } else if has_time {
        7
    } else {
        4
    };
    out.push(len);
    put_u16(out, dt.date.year);
    out.push(dt.date.month);
    out.push(dt.date.day);
    if len >= 7 {
        out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
    }
    if len == 11 {
        put_u32(out, dt.micros);
    }
}

fn put_time(out: &mut Vec<u8>, t: &Time) {
    if *t == Time::default()
        || (t.days | t.hours as u32 | t.minutes as u32 | t.seconds as u32 | t.micros) == 0
    {
        out.push(0);
        return;
    }
    out.push(if t.micros != 0 { 12 } else { 8 });
    out.push(t.negative as u8);
    put_u32(out, t.days);
    out.extend_from_slice(&[t.hours, t.minutes, t.seconds]);
    if t.micros != 0 {
        put_u32(out, t.micros);
    }
}

fn mismatch(v: &Value, ty: ColumnType) -> SqlError {
    SqlError::unknown(format!(
        "cannot encode {v:?} as a binary value of column type {}",
        ty.0
    ))
}

/// Appends the binary form of non-NULL `v` for a column of type `ty`.
pub fn encode_value(out: &mut Vec<u8>, v: &Value, ty: ColumnType) -> Result<(), SqlError> {
    use ColumnType as T;
    match ty {
        T::TINY => out.push(v.as_i64().ok_or_else(|| mismatch(v, ty))? as u8),
        T::SHORT | T::YEAR => put_u16(out, v.as_i64().ok_or_else(|| mismatch(v, ty))? as u16),
        T::LONG | T::INT24 => put_u32(out, v.as_i64().ok_or_else(|| mismatch(v, ty))? as u32),
        T::LONGLONG => put_u64(out, v.as_i64().ok_or_else(|| mismatch(v, ty))? as u64),
        T::FLOAT => put_u32(
            out,
            (v.as_f64().ok_or_else(|| mismatch(v, ty))? as f32).to_bits(),
        ),
        T::DOUBLE => put_u64(out, v.as_f64().ok_or_else(|| mismatch(v, ty))?.to_bits()),
        T::DATE | T::NEWDATE | T::DATETIME | T::TIMESTAMP | T::DATETIME2 | T::TIMESTAMP2 => {
            let dt = match v {
                Value::Date(d) => DateTime {
                    date: *d,
                    ..Default::default()
                },
                Value::DateTime(dt) => *dt,
                Value::Bytes(b) => parse_datetime(b).ok_or_else(|| mismatch(v, ty))?,
                _ => return Err(mismatch(v, ty)),
            };
            put_datetime(out, &dt, matches!(ty, T::DATE | T::NEWDATE));
        }
        T::TIME | T::TIME2 => {
            let t = match v {
                Value::Time(t) => *t,
                Value::Bytes(b) => parse_time(b).ok_or_else(|| mismatch(v, ty))?,
                _ => return Err(mismatch(v, ty)),
            };
            put_time(out, &t);
        }
        T::NULL => {}
        _ => match v {
            Value::Bytes(b) => put_lenenc_bytes(out, b),
            other => put_lenenc_bytes(out, &other.to_text().unwrap_or_default()),
        },
    }
    Ok(())
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

fn parse_micros(frac: &str) -> Option<u32> {
    if frac.is_empty() || frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(num::<u32>(frac)? * 10u32.pow(6 - frac.len() as u32))
}

/// Parses `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`.
pub fn parse_datetime(b: &[u8]) -> Option<DateTime> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut d = date.splitn(3, '-');
    let mut dt = DateTime {
        date: Date {
            year: num(d.next()?)?,
            month: num(d.next()?)?,
            day: num(d.next()?)?,
        },
        ..Default::default()
    };
    if let Some(t) = time {
        let (hms, frac) = t.split_once('.').unwrap_or((t, ""));
        let mut p = hms.splitn(3, ':');
        dt.hour = num(p.next()?)?;
        dt.minute = num(p.next()?)?;
        dt.second = num(p.next()?)?;
        if !frac.is_empty() {
            dt.micros = parse_micros(frac)?;
        }
    }
    Some(dt)
}

/// Parses `[-]HHH:MM:SS[.ffffff]`.
pub fn parse_time(b: &[u8]) -> Option<Time> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (hms, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut p = hms.splitn(3, ':');
    let hours: u32 = num(p.next()?)?;
    let mut t = Time {
        negative,
        days: hours / 24,
        hours: (hours % 24) as u8,
        minutes: num(p.next()?)?,
        seconds: num(p.next()?)?,
        micros: 0,
    };
    if !frac.is_empty() {
        t.micros = parse_micros(frac)?;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: Value, ty: ColumnType, unsigned: bool) -> Value {
        let mut out = Vec::new();
        encode_value(&mut out, &v, ty).unwrap();
        let mut r = WireReader::new(&out);
        let back = decode_value(&mut r, ty, unsigned).unwrap();
        assert!(r.is_empty(), "{ty:?} left bytes");
        back
    }

    #[test]
    fn integers() {
        assert_eq!(
            round_trip(Value::Int(-1), ColumnType::TINY, false),
            Value::Int(-1)
        );
        assert_eq!(
            round_trip(Value::Int(-1), ColumnType::TINY, true),
            Value::UInt(255)
        );
        assert_eq!(
            round_trip(Value::Int(-300), ColumnType::SHORT, false),
            Value::Int(-300)
        );
        assert_eq!(
            round_trip(Value::Int(-70000), ColumnType::LONG, false),
            Value::Int(-70000)
        );
        assert_eq!(
            round_trip(Value::UInt(u64::MAX), ColumnType::LONGLONG, true),
            Value::UInt(u64::MAX)
        );
        assert_eq!(
            round_trip(Value::Int(i64::MIN), ColumnType::LONGLONG, false),
            Value::Int(i64::MIN)
        );
        assert_eq!(
            round_trip(Value::from("51"), ColumnType::LONG, false),
            Value::Int(51)
        );
    }

    #[test]
    fn floats_and_decimals() {
        assert_eq!(
            round_trip(Value::Float(1.25), ColumnType::FLOAT, false),
            Value::Float(1.25)
        );
        assert_eq!(
            round_trip(Value::Double(-2.5e300), ColumnType::DOUBLE, false),
            Value::Double(-2.5e300)
        );
        assert_eq!(
            round_trip(
                Value::Decimal("-12.340".into()),
                ColumnType::NEWDECIMAL,
                false
            ),
            Value::Decimal("-12.340".into())
        );
    }

    #[test]
    fn dates_and_times() {
        let d = Date {
            year: 2023,
            month: 12,
            day: 31,
        };
        assert_eq!(
            round_trip(Value::Date(d), ColumnType::DATE, false),
            Value::Date(d)
        );
        let dt = DateTime {
            date: d,
            hour: 23,
            minute: 59,
            second: 58,
            micros: 0,
        };
        assert_eq!(
            round_trip(Value::DateTime(dt), ColumnType::DATETIME, false),
            Value::DateTime(dt)
        );
        let dtm = DateTime {
            micros: 123456,
            ..dt
        };
        assert_eq!(
            round_trip(Value::DateTime(dtm), ColumnType::TIMESTAMP, false),
            Value::DateTime(dtm)
        );
        assert_eq!(
            round_trip(
                Value::from("2023-12-31 23:59:58"),
                ColumnType::DATETIME,
                false
            ),
            Value::DateTime(dt)
        );
        let zero = DateTime::default();
        assert_eq!(
            round_trip(Value::DateTime(zero), ColumnType::DATETIME, false),
            Value::DateTime(zero)
        );
        let t = Time {
            negative: true,
            days: 2,
            hours: 3,
            minutes: 4,
            seconds: 5,
            micros: 6,
        };
        assert_eq!(
            round_trip(Value::Time(t), ColumnType::TIME, false),
            Value::Time(t)
        );
        assert_eq!(
            parse_time(b"-51:04:05.000006").map(Value::Time),
            Some(Value::Time(Time { micros: 6, ..t }))
        );
        let t0 = Time::default();
        assert_eq!(
            round_trip(Value::Time(t0), ColumnType::TIME, false),
            Value::Time(t0)
        );
    }

    #[test]
    fn strings_and_bad_types() {
        assert_eq!(
            round_trip(Value::from("héllo"), ColumnType::VAR_STRING, false),
            Value::from("héllo")
        );
        assert_eq!(
            round_trip(Value::Int(7), ColumnType::BLOB, false),
            Value::from("7")
        );
        let mut out = Vec::new();
        assert!(encode_value(&mut out, &Value::from("abc"), ColumnType::LONG).is_err());
        assert!(decode_value(&mut WireReader::new(&[1, 2]), ColumnType(100), false).is_err());
        assert!(decode_value(
            &mut WireReader::new(&[5, 1, 2]),
            ColumnType::DATETIME,
            false
        )
        .is_err());
        assert!(decode_value(
            &mut WireReader::new(&[11, 1, 2]),
            ColumnType::DATETIME,
            false
        )
        .is_err());
    }
}
