//! Conversions between the SQL layer's types and the protocol layer's: values both ways,
//! result-column definitions, errors, and the session status flags.
//!
//! Invariant: a result column's protocol type is the column's SQL type when known; otherwise it
//! is inferred from the values (all of one kind → that kind's type, mixed → VAR_STRING), so
//! every value converts to its column's type in the binary protocol.

use betula_sql::types::temporal::{Date, DateTime, Time};
use betula_sql::types::value::Value as SqlValue;
use betula_sql::types::SqlType;
use betula_sql::{DbError, ErrorCode, OutCol};

use crate::protocol::column::{charset, flags};
use crate::protocol::value::{Date as PDate, DateTime as PDateTime, Time as PTime};
use crate::protocol::{ColumnDef, ColumnType, SqlError, Value};

pub fn error(e: DbError) -> SqlError {
    // A storage engine failure (I/O error, corruption, the failure latch) is the operator's business
    // too: its message names the file and the block.
    if e.code == ErrorCode::GetErrno {
        eprintln!("betula: error {}: {}", e.code.number(), e.message);
    }
    let state: [u8; 5] = e.code.sqlstate().as_bytes().try_into().unwrap_or(*b"HY000");
    SqlError::new(e.code.number(), &state, e.message)
}

fn pdate(d: &Date) -> PDate {
    PDate {
        year: d.year,
        month: d.month,
        day: d.day,
    }
}

/// What the text of a result column's values depends on besides the value: the column's SQL type
/// (BIT width, FLOAT(M,D) decimals, YEAR) and, for ZEROFILL columns, the width to pad to.
#[derive(Clone, Copy, Debug, Default)]
pub struct ColumnText {
    pub ty: Option<SqlType>,
    /// Display length of the column (YEAR(2): 2).
    pub length: u32,
    pub zerofill: bool,
    /// A computed item's fixed decimals for its DOUBLE values (`ROUND(x, 2)`).
    pub double_decimals: Option<u8>,
}

impl ColumnText {
    pub fn of(c: &OutCol) -> ColumnText {
        let length = match c.ty {
            _ if c.length > 0 => c.length,
            Some(t) => t.display_length(c.collation),
            None => 0,
        };
        ColumnText {
            ty: c.ty,
            length,
            zerofill: c.flags & betula_sql::types::column_flag::ZEROFILL != 0,
            double_decimals: c.double_decimals,
        }
    }
}

/// [`to_protocol`] for a value of a result column described by `col`, as MariaDB sends it: a
/// BIT(M) value as its (M+7)/8 bytes big-endian, a YEAR as 4 digits (YEAR(2): 2), a FLOAT(M,D) /
/// DOUBLE(M,D) with exactly D decimals, a DATETIME(n) / TIMESTAMP(n) / TIME(n) with n digits of
/// fraction, and a ZEROFILL column's value left-padded with `0` to the
/// column's display length. (Text values of numeric columns still convert to numbers in the binary
/// protocol.)
pub fn to_protocol_typed(v: &SqlValue, col: &ColumnText) -> Value {
    let text = match (v, col.ty) {
        (SqlValue::UInt(u), Some(SqlType::Bit { len })) => {
            let n = betula_sql::codec::row::bit_width(len);
            return Value::Bytes(u.to_be_bytes()[8 - n..].to_vec());
        }
        (SqlValue::UInt(y), Some(SqlType::Year)) if col.length == 2 => format!("{:02}", y % 100),
        (SqlValue::UInt(y), Some(SqlType::Year)) => format!("{y:04}"),
        (SqlValue::Double(d), _) if col.double_decimals.is_some() => {
            betula_sql::types::text_format::format_fixed(*d, col.double_decimals.unwrap_or(0))
        }
        (SqlValue::Float(_) | SqlValue::Double(_), Some(t)) if t.float_decimals().is_some() => v
            .to_text(Some(&t))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
        // DATETIME(n) / TIMESTAMP(n) / TIME(n): exactly n fraction digits, as MariaDB sends them.
        (SqlValue::DateTime(_) | SqlValue::Time(_), Some(t)) if t.fsp() > 0 => v
            .to_text(Some(&t))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
        (SqlValue::Null, _) => return Value::Null,
        _ if col.zerofill => v
            .to_text(col.ty.as_ref())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
        _ => return to_protocol(v),
    };
    let pad = (col.length as usize).saturating_sub(text.len());
    if col.zerofill && pad > 0 {
        Value::Bytes(format!("{}{text}", "0".repeat(pad)).into_bytes())
    } else {
        Value::Bytes(text.into_bytes())
    }
}

pub fn to_protocol(v: &SqlValue) -> Value {
    match v {
        SqlValue::Null => Value::Null,
        SqlValue::Int(i) => Value::Int(*i),
        SqlValue::UInt(u) => Value::UInt(*u),
        SqlValue::Float(f) => Value::Float(*f),
        SqlValue::Double(d) => Value::Double(*d),
        SqlValue::Decimal(d) => Value::Decimal(d.to_string()),
        SqlValue::Text(s) => Value::Bytes(s.clone().into_bytes()),
        SqlValue::Bytes(b) => Value::Bytes(b.clone()),
        SqlValue::Date(d) => Value::Date(pdate(d)),
        SqlValue::DateTime(dt) => {
            let (h, m, s, us) = dt.hms();
            Value::DateTime(PDateTime {
                date: pdate(&dt.date),
                hour: h as u8,
                minute: m as u8,
                second: s as u8,
                micros: us,
            })
        }
        SqlValue::Time(t) => {
            let neg = t.micros < 0;
            let us = t.micros.unsigned_abs();
            let secs = us / 1_000_000;
            Value::Time(PTime {
                negative: neg,
                days: (secs / 86_400) as u32,
                hours: ((secs / 3600) % 24) as u8,
                minutes: ((secs / 60) % 60) as u8,
                seconds: (secs % 60) as u8,
                micros: (us % 1_000_000) as u32,
            })
        }
    }
}

pub fn from_protocol(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Int(i) => SqlValue::Int(*i),
        Value::UInt(u) => SqlValue::UInt(*u),
        Value::Float(f) => SqlValue::Float(*f),
        Value::Double(d) => SqlValue::Double(*d),
        Value::Decimal(s) => match betula_sql::types::decimal::Decimal::parse(s) {
            Ok(d) => SqlValue::Decimal(d),
            Err(_) => SqlValue::Text(s.clone()),
        },
        Value::Bytes(b) => match String::from_utf8(b.clone()) {
            Ok(s) => SqlValue::Text(s),
            Err(_) => SqlValue::Bytes(b.clone()),
        },
        Value::Date(d) => Date::new(d.year as u32, d.month as u32, d.day as u32)
            .map(SqlValue::Date)
            .unwrap_or(SqlValue::Null),
        Value::DateTime(dt) => Date::new(
            dt.date.year as u32,
            dt.date.month as u32,
            dt.date.day as u32,
        )
        .and_then(|d| {
            DateTime::new(
                d,
                dt.hour as u32,
                dt.minute as u32,
                dt.second as u32,
                dt.micros,
            )
        })
        .map(SqlValue::DateTime)
        .unwrap_or(SqlValue::Null),
        Value::Time(t) => {
            let us = ((t.days as i64 * 24 + t.hours as i64) * 3600
                + t.minutes as i64 * 60
                + t.seconds as i64)
                * 1_000_000
                + t.micros as i64;
            Time::from_micros(if t.negative { -us } else { us })
                .map(SqlValue::Time)
                .unwrap_or(SqlValue::Null)
        }
    }
}

fn kind(v: &SqlValue) -> u8 {
    match v {
        SqlValue::Null => 0,
        SqlValue::Int(_) => 1,
        SqlValue::UInt(_) => 2,
        SqlValue::Float(_) => 3,
        SqlValue::Double(_) => 4,
        SqlValue::Decimal(_) => 5,
        SqlValue::Text(_) => 6,
        SqlValue::Bytes(_) => 7,
        SqlValue::Date(_) => 8,
        SqlValue::DateTime(_) => 9,
        SqlValue::Time(_) => 10,
    }
}

/// The protocol definition of result column `i`.
pub fn column(c: &OutCol, i: usize, rows: &[Vec<SqlValue>]) -> ColumnDef {
    let mut def = match &c.ty {
        Some(t) => {
            let mut d = ColumnDef::new(c.name.clone(), ColumnType(t.protocol_type()));
            let sent = c.collation.as_sent();
            d.length = if c.length > 0 {
                c.length
            } else {
                t.display_length(sent)
            };
            d.decimals = t.protocol_decimals();
            d.charset = if t.is_text() {
                sent.id()
            } else {
                charset::BINARY
            };
            if t.is_text() {
                d.flags &= !flags::BINARY;
            }
            if let SqlType::Int { unsigned: true, .. } | SqlType::Year = t {
                d.flags |= flags::UNSIGNED;
            }
            d.flags |= c.flags;
            d
        }
        None => {
            let mut k = None;
            let mut mixed = false;
            let mut scale = 0u8;
            for r in rows {
                let Some(v) = r.get(i) else { continue };
                if let SqlValue::Decimal(d) = v {
                    scale = scale.max(d.scale());
                }
                let kv = kind(v);
                if kv == 0 {
                    continue;
                }
                match k {
                    None => k = Some(kv),
                    Some(x) if x != kv => mixed = true,
                    _ => {}
                }
            }
            let ty = if mixed {
                ColumnType::VAR_STRING
            } else {
                match k {
                    Some(1) | Some(2) => ColumnType::LONGLONG,
                    Some(3) => ColumnType::FLOAT,
                    Some(4) => ColumnType::DOUBLE,
                    Some(5) => ColumnType::NEWDECIMAL,
                    Some(8) => ColumnType::DATE,
                    Some(9) => ColumnType::DATETIME,
                    Some(10) => ColumnType::TIME,
                    Some(7) => ColumnType::BLOB,
                    _ => ColumnType::VAR_STRING,
                }
            };
            let mut d = ColumnDef::new(c.name.clone(), ty);
            if k == Some(2) && !mixed {
                d.flags |= flags::UNSIGNED;
            }
            if ty == ColumnType::NEWDECIMAL {
                d.decimals = scale;
            }
            if k == Some(6) || ty == ColumnType::VAR_STRING {
                d.charset = charset::UTF8MB4_GENERAL_CI;
                d.flags &= !flags::BINARY;
            }
            d
        }
    };
    def.table = c.table.clone();
    def.db = c.db.clone();
    def
}
