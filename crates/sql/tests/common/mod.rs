//! Helpers shared by the integration tests: random column types and values (already coerced
//! to their types) for the property tests (this file), and an engine with a session for the
//! LOAD DATA tests (engine.rs).
#![allow(dead_code)]

pub mod engine;

use betula_sql::types::collation::Collation;
use betula_sql::types::decimal::Decimal;
use betula_sql::types::temporal::{Date, DateTime, Time, MICROS_PER_DAY, TIME_MAX_MICROS};
use betula_sql::types::value::Value;
use betula_sql::types::{IntWidth, LobSize, SqlType};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

const WIDTHS: [IntWidth; 5] = [
    IntWidth::Tiny,
    IntWidth::Small,
    IntWidth::Medium,
    IntWidth::Int,
    IntWidth::Big,
];

pub fn random_type(r: &mut SmallRng) -> SqlType {
    let fsp = r.gen_range(0..=6);
    match r.gen_range(0..17) {
        0..=2 => SqlType::Int {
            width: *WIDTHS.choose(r).unwrap(),
            unsigned: r.gen(),
        },
        3 => SqlType::FLOAT,
        4 => SqlType::DOUBLE,
        5 => {
            // up to 38 digits: i128 mantissas; 39..=65: MariaDB's wide DECIMALs
            let precision = r.gen_range(1..=65);
            SqlType::Decimal {
                precision,
                scale: r.gen_range(0..=precision.min(38)),
                unsigned: r.gen_range(0..4) == 0,
            }
        }
        6 => SqlType::Char { len: 8 },
        7 => SqlType::VarChar { len: 8 },
        8 => SqlType::Text(LobSize::Regular),
        9 => SqlType::Binary { len: 4 },
        10 => SqlType::VarBinary { len: 8 },
        11 => SqlType::Blob(LobSize::Tiny),
        12 => SqlType::Date,
        13 => {
            if r.gen() {
                SqlType::DateTime { fsp }
            } else {
                SqlType::Timestamp { fsp }
            }
        }
        14 => SqlType::Time { fsp },
        15 => SqlType::Bit {
            len: r.gen_range(1..=64),
        },
        _ => SqlType::Year,
    }
}

pub fn random_collation(r: &mut SmallRng, t: &SqlType) -> Collation {
    if t.is_binary() || !t.is_text() {
        return Collation::Binary;
    }
    *[
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4Bin,
        Collation::Utf8mb4_0900AiCi,
        Collation::Utf8mb4_0900Bin,
    ]
    .choose(r)
    .unwrap()
}

fn edge_or_uniform_i(r: &mut SmallRng, lo: i64, hi: i64) -> i64 {
    match r.gen_range(0..6) {
        0 => lo,
        1 => hi,
        2 => 0.clamp(lo, hi),
        3 => r.gen_range(-3i64..=3).clamp(lo, hi),
        _ => r.gen_range(lo..=hi),
    }
}

const TEXT_CHARS: [char; 12] = [
    'a', 'A', 'b', 'B', ' ', '\0', 'é', 'É', 'z', 'ß', '\t', '😀',
];
const BYTE_CHOICES: [u8; 7] = [0x00, 0x01, 0x20, 0x61, 0x7F, 0xFE, 0xFF];

/// A value of type `t`, as coercion would produce it; `null_pct` percent are NULL.
pub fn random_value(r: &mut SmallRng, t: &SqlType, null_pct: u32) -> Value {
    if r.gen_range(0..100) < null_pct {
        return Value::Null;
    }
    match *t {
        SqlType::Bit { len } => {
            let v: u64 = r.gen();
            Value::UInt(if len == 64 { v } else { v >> (64 - len) })
        }
        // never drawn by random_type (they need members); '' is valid for any member list
        SqlType::Enum { .. } | SqlType::Set { .. } => Value::Text(String::new()),
        SqlType::Int {
            width,
            unsigned: false,
        } => {
            let (lo, hi) = width.signed_range();
            Value::Int(edge_or_uniform_i(r, lo, hi))
        }
        SqlType::Int {
            width,
            unsigned: true,
        } => {
            let hi = width.unsigned_max();
            Value::UInt(match r.gen_range(0..5) {
                0 => 0,
                1 => hi,
                2 => r.gen_range(0..=3),
                _ => r.gen_range(0..=hi),
            })
        }
        SqlType::Year => Value::UInt(if r.gen_range(0..10) == 0 {
            0
        } else {
            r.gen_range(1901..=2155)
        }),
        SqlType::Float { .. } => Value::Float(random_f64(r) as f32),
        SqlType::Double { .. } => Value::Double(random_f64(r)),
        SqlType::Decimal {
            precision, scale, ..
        } => {
            // the mantissa as digits: all nines (the extremes), tiny, or random of any length
            let p = precision as usize;
            let digits: String = match r.gen_range(0..5) {
                0 | 1 => "9".repeat(p),
                2 => r.gen_range(0..=3).to_string(),
                _ => {
                    let n = r.gen_range(1..=p);
                    (0..n)
                        .map(|_| char::from(b'0' + r.gen_range(0..10u8)))
                        .collect()
                }
            };
            let sign = if r.gen() { "-" } else { "" };
            let m = Decimal::parse(&format!("{sign}{digits}")).unwrap();
            Value::Decimal(Decimal::from_wide(m.wide_mantissa(), scale).unwrap())
        }
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text(_) => {
            let n = r.gen_range(0..5);
            let mut s: String = (0..n).map(|_| *TEXT_CHARS.choose(r).unwrap()).collect();
            if matches!(t, SqlType::Char { .. }) {
                s = s.trim_end_matches(' ').to_string();
            }
            Value::Text(s)
        }
        SqlType::Binary { len } => {
            Value::Bytes((0..len).map(|_| *BYTE_CHOICES.choose(r).unwrap()).collect())
        }
        SqlType::VarBinary { .. } | SqlType::Blob(_) => {
            let n = r.gen_range(0..5);
            Value::Bytes((0..n).map(|_| *BYTE_CHOICES.choose(r).unwrap()).collect())
        }
        SqlType::Date => Value::Date(random_date(r)),
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => {
            let unit = 10u64.pow(6 - fsp as u32);
            let micros = r.gen_range(0..MICROS_PER_DAY / unit) * unit;
            let micros = if r.gen_range(0..4) == 0 { 0 } else { micros };
            Value::DateTime(DateTime {
                date: random_date(r),
                micros,
            })
        }
        SqlType::Time { fsp } => {
            let unit = 10i64.pow(6 - fsp as u32);
            let micros = r.gen_range(-TIME_MAX_MICROS / unit..=TIME_MAX_MICROS / unit) * unit;
            Value::Time(Time {
                micros: if r.gen_range(0..4) == 0 {
                    r.gen_range(-2..=2) * unit
                } else {
                    micros
                },
            })
        }
    }
}

fn random_date(r: &mut SmallRng) -> Date {
    if r.gen_range(0..12) == 0 {
        return Date::ZERO;
    }
    let y = if r.gen() {
        r.gen_range(2020..=2021)
    } else {
        r.gen_range(0..=9999)
    };
    let m = r.gen_range(1..=12);
    let d = r.gen_range(1..=betula_sql::types::temporal::days_in_month(y, m));
    Date::new(y, m, d).unwrap()
}

fn random_f64(r: &mut SmallRng) -> f64 {
    match r.gen_range(0..8) {
        0 => 0.0,
        1 => -0.0,
        2 => *[
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            1e300,
            -1e300,
        ]
        .choose(r)
        .unwrap(),
        3 => r.gen_range(-3..=3) as f64 * 0.5,
        _ => {
            let bits: u64 = r.gen();
            let f = f64::from_bits(bits);
            if f.is_nan() {
                1.5
            } else {
                f
            }
        }
    }
}
