//! Scalar functions of already-evaluated arguments ([`call`]), by upper-case name.
//!
//! Context-dependent functions (NOW, DATABASE, CONNECTION_ID, LAST_INSERT_ID, ...) are not here:
//! the session folds them to constants at compile time. Every function here is deterministic,
//! which the blind-upsert path relies on (recovery re-runs it). NULL in gives NULL out unless
//! MySQL documents otherwise (CONCAT_WS skips NULLs).

use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{text_of, to_datetime, truth};
use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::temporal::{from_day_number, DateTime, MICROS_PER_DAY};
use crate::types::value::{sql_cmp, Value};

pub const KNOWN: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "NULLIF",
    "LENGTH",
    "OCTET_LENGTH",
    "CHAR_LENGTH",
    "CHARACTER_LENGTH",
    "UPPER",
    "UCASE",
    "LOWER",
    "LCASE",
    "SUBSTRING",
    "SUBSTR",
    "MID",
    "LEFT",
    "RIGHT",
    "TRIM",
    "LTRIM",
    "RTRIM",
    "TRIM_CHARS",
    "LTRIM_CHARS",
    "RTRIM_CHARS",
    "REPLACE",
    "REVERSE",
    "REPEAT",
    "LPAD",
    "RPAD",
    "LOCATE",
    "INSTR",
    "ABS",
    "ROUND",
    "TRUNCATE",
    "FLOOR",
    "CEIL",
    "CEILING",
    "MOD",
    "SIGN",
    "GREATEST",
    "LEAST",
    "POW",
    "POWER",
    "SQRT",
    "HEX",
    "BIN",
    "OCT",
    "FIND_IN_SET",
    "UNIX_TIMESTAMP",
    "FROM_UNIXTIME",
    "DATE_FORMAT",
    "DATE",
    "TIME",
    "YEAR",
    "MONTH",
    "DAY",
    "DAYOFMONTH",
    "HOUR",
    "MINUTE",
    "SECOND",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "WEEKDAY",
    "TO_DAYS",
    "FROM_DAYS",
    "DATEDIFF",
    "LAST_DAY",
    "IF",
    "IFNULL",
    "COALESCE",
    "NVL",
    "ISNULL",
    "SPACE",
    "ASCII",
    "ORD",
    "CHAR",
    "FIELD",
    "ELT",
    "STRCMP",
    "CRC32",
    "TIMESTAMP",
    "DAYNAME",
    "MONTHNAME",
    "EXP",
    "LN",
    "LOG",
    "LOG10",
    "LOG2",
    "PI",
    "SIN",
    "COS",
    "FORMAT",
    "QUOTE",
    "UUID_SHORT",
];

fn need(name: &str, a: &[Value], min: usize, max: usize) -> DbResult<()> {
    if a.len() < min || a.len() > max {
        Err(DbError::wrong_args(name))
    } else {
        Ok(())
    }
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i),
        Value::UInt(u) => Some(*u as i64),
        Value::Decimal(d) => {
            Some(d.round_to_i128().clamp(i64::MIN as i128, i64::MAX as i128) as i64)
        }
        other => other.to_f64_lenient().map(|f| f.round() as i64),
    }
}

fn text(v: String) -> Value {
    Value::Text(v)
}

fn substr(s: &str, pos: i64, len: Option<i64>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    let start = if pos > 0 {
        pos - 1
    } else if pos < 0 {
        n + pos
    } else {
        return String::new();
    };
    if start < 0 || start >= n {
        return String::new();
    }
    let end = match len {
        Some(l) if l <= 0 => return String::new(),
        Some(l) => (start + l).min(n),
        None => n,
    };
    chars[start as usize..end as usize].iter().collect()
}

fn round_value(v: &Value, d: i64, truncate: bool) -> Value {
    match v {
        Value::Int(_) | Value::UInt(_) if d >= 0 => v.clone(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            let dec = match v {
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::from_u64(*u),
                Value::Decimal(x) => *x,
                _ => return Value::Null,
            };
            let d = d.clamp(-30, 30);
            if d >= 0 {
                let s = d as u8;
                if truncate {
                    return Value::Decimal(dec.truncate_to(s));
                }
                match dec.rescale(s.min(dec.scale().max(s))) {
                    Some((x, _)) => Value::Decimal(x),
                    None => Value::Null,
                }
            } else {
                let p = 10f64.powi((-d) as i32);
                let f = dec.to_f64() / p;
                let r = if truncate { f.trunc() } else { f.round() } * p;
                Value::Int(r as i64)
            }
        }
        other => match other.to_f64_lenient() {
            Some(f) => {
                let p = 10f64.powi(d.clamp(-300, 300) as i32);
                let x = f * p;
                let r = if truncate {
                    x.trunc()
                } else {
                    round_half_even_away(x)
                };
                Value::Double(r / p)
            }
            None => Value::Null,
        },
    }
}

fn round_half_even_away(x: f64) -> f64 {
    // MySQL rounds DOUBLE with rint (half to even).
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        let t = x.trunc();
        if t % 2.0 == 0.0 {
            t
        } else {
            r
        }
    } else {
        r
    }
}

fn unix_seconds(v: &Value) -> Option<Value> {
    let dt = to_datetime(v)?;
    let us = dt.unix_micros()?;
    if us < 0 {
        return Some(Value::Int(0));
    }
    if us % 1_000_000 == 0 {
        Some(Value::Int(us / 1_000_000))
    } else {
        Decimal::new(us as i128, 6).map(Value::Decimal)
    }
}

pub fn from_unix_micros(us: i64) -> Option<DateTime> {
    if us < 0 {
        return None;
    }
    const EPOCH: i64 = 719_468;
    let days = us.div_euclid(MICROS_PER_DAY as i64) + EPOCH;
    let micros = us.rem_euclid(MICROS_PER_DAY as i64) as u64;
    Some(DateTime {
        date: from_day_number(days),
        micros,
    })
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

fn weekday(dt: &DateTime) -> usize {
    // day_number 0 = 0000-03-01, a Wednesday.
    ((crate::types::temporal::day_number(dt.date) + 2).rem_euclid(7)) as usize
}

fn day_of_year(dt: &DateTime) -> u32 {
    let y = dt.date.year as u32;
    (1..dt.date.month as u32)
        .map(|m| crate::types::temporal::days_in_month(y, m))
        .sum::<u32>()
        + dt.date.day as u32
}

pub fn date_format(dt: &DateTime, fmt: &str) -> String {
    let (h, mi, s, us) = dt.hms();
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(f) = it.next() else { break };
        let d = &dt.date;
        match f {
            'Y' => out.push_str(&format!("{:04}", d.year)),
            'y' => out.push_str(&format!("{:02}", d.year % 100)),
            'm' => out.push_str(&format!("{:02}", d.month)),
            'c' => out.push_str(&d.month.to_string()),
            'd' => out.push_str(&format!("{:02}", d.day)),
            'e' => out.push_str(&d.day.to_string()),
            'H' => out.push_str(&format!("{h:02}")),
            'k' => out.push_str(&h.to_string()),
            'h' | 'I' => out.push_str(&format!("{:02}", if h % 12 == 0 { 12 } else { h % 12 })),
            'l' => out.push_str(&(if h % 12 == 0 { 12 } else { h % 12 }).to_string()),
            'i' => out.push_str(&format!("{mi:02}")),
            's' | 'S' => out.push_str(&format!("{s:02}")),
            'f' => out.push_str(&format!("{us:06}")),
            'p' => out.push_str(if h < 12 { "AM" } else { "PM" }),
            'T' => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
            'r' => out.push_str(&format!(
                "{:02}:{mi:02}:{s:02} {}",
                if h % 12 == 0 { 12 } else { h % 12 },
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
            other => out.push(other),
        }
    }
    out
}

fn extract(unit: &str, v: &Value) -> Value {
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

fn greatest(a: &[Value], want: std::cmp::Ordering) -> Value {
    if a.iter().any(Value::is_null) {
        return Value::Null;
    }
    let mut best = a[0].clone();
    for v in &a[1..] {
        if sql_cmp(v, &best, Collation::default()) == Some(want) {
            best = v.clone();
        }
    }
    best
}

pub fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    if let Some(unit) = name.strip_prefix("__EXTRACT_") {
        return Ok(a.first().map(|v| extract(unit, v)).unwrap_or(Value::Null));
    }
    let null_in = a.iter().any(Value::is_null);
    let t = |i: usize| a.get(i).and_then(text_of);
    Ok(match name {
        "__COLLATE" => a.first().cloned().unwrap_or(Value::Null),
        "CONCAT" => {
            if null_in {
                Value::Null
            } else if a.iter().any(|v| matches!(v, Value::Bytes(_))) {
                let mut out = Vec::new();
                for v in a {
                    match v {
                        Value::Bytes(b) => out.extend_from_slice(b),
                        other => out.extend(text_of(other).unwrap_or_default().into_bytes()),
                    }
                }
                Value::Bytes(out)
            } else {
                text(a.iter().filter_map(text_of).collect())
            }
        }
        "CONCAT_WS" => {
            need(name, a, 1, usize::MAX)?;
            match t(0) {
                None => Value::Null,
                Some(sep) => text(
                    a[1..]
                        .iter()
                        .filter_map(text_of)
                        .collect::<Vec<_>>()
                        .join(&sep),
                ),
            }
        }
        "NULLIF" => {
            need(name, a, 2, 2)?;
            if sql_cmp(&a[0], &a[1], Collation::default()) == Some(std::cmp::Ordering::Equal) {
                Value::Null
            } else {
                a[0].clone()
            }
        }
        "ISNULL" => {
            need(name, a, 1, 1)?;
            Value::Int(a[0].is_null() as i64)
        }
        "IF" => {
            need(name, a, 3, 3)?;
            if truth(&a[0]) == Some(true) {
                a[1].clone()
            } else {
                a[2].clone()
            }
        }
        "IFNULL" | "COALESCE" | "NVL" => a
            .iter()
            .find(|v| !v.is_null())
            .cloned()
            .unwrap_or(Value::Null),
        _ if null_in && name != "CONCAT_WS" => {
            // Every remaining function returns NULL on a NULL argument.
            match name {
                "GREATEST" | "LEAST" | "FIELD" | "ELT" | "CHAR" => Value::Null,
                _ => Value::Null,
            }
        }
        "LENGTH" | "OCTET_LENGTH" => {
            need(name, a, 1, 1)?;
            match &a[0] {
                Value::Bytes(b) => Value::Int(b.len() as i64),
                v => Value::Int(text_of(v).unwrap_or_default().len() as i64),
            }
        }
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
            need(name, a, 1, 1)?;
            Value::Int(t(0).unwrap_or_default().chars().count() as i64)
        }
        "UPPER" | "UCASE" => text(t(0).unwrap_or_default().to_uppercase()),
        "LOWER" | "LCASE" => text(t(0).unwrap_or_default().to_lowercase()),
        "SUBSTRING" | "SUBSTR" | "MID" => {
            need(name, a, 2, 3)?;
            let s = t(0).unwrap_or_default();
            text(substr(&s, int(&a[1]).unwrap_or(0), a.get(2).and_then(int)))
        }
        "LEFT" => {
            need(name, a, 2, 2)?;
            let n = int(&a[1]).unwrap_or(0).max(0) as usize;
            text(t(0).unwrap_or_default().chars().take(n).collect())
        }
        "RIGHT" => {
            need(name, a, 2, 2)?;
            let s: Vec<char> = t(0).unwrap_or_default().chars().collect();
            let n = (int(&a[1]).unwrap_or(0).max(0) as usize).min(s.len());
            text(s[s.len() - n..].iter().collect())
        }
        "TRIM" => text(t(0).unwrap_or_default().trim_matches(' ').to_string()),
        "LTRIM" => text(t(0).unwrap_or_default().trim_start_matches(' ').to_string()),
        "RTRIM" => text(t(0).unwrap_or_default().trim_end_matches(' ').to_string()),
        "TRIM_CHARS" | "LTRIM_CHARS" | "RTRIM_CHARS" => {
            let mut s = t(0).unwrap_or_default();
            let w = t(1).unwrap_or_default();
            if !w.is_empty() {
                if name != "RTRIM_CHARS" {
                    while let Some(r) = s.strip_prefix(w.as_str()) {
                        s = r.to_string();
                    }
                }
                if name != "LTRIM_CHARS" {
                    while let Some(r) = s.strip_suffix(w.as_str()) {
                        s = r.to_string();
                    }
                }
            }
            text(s)
        }
        "REPLACE" => {
            need(name, a, 3, 3)?;
            let from = t(1).unwrap_or_default();
            if from.is_empty() {
                a[0].clone()
            } else {
                text(
                    t(0).unwrap_or_default()
                        .replace(&from, &t(2).unwrap_or_default()),
                )
            }
        }
        "REVERSE" => text(t(0).unwrap_or_default().chars().rev().collect()),
        "REPEAT" => {
            need(name, a, 2, 2)?;
            let n = int(&a[1]).unwrap_or(0).clamp(0, 1 << 20) as usize;
            let s = t(0).unwrap_or_default();
            if s.len().saturating_mul(n) > 64 << 20 {
                Value::Null
            } else {
                text(s.repeat(n))
            }
        }
        "SPACE" => text(" ".repeat(int(&a[0]).unwrap_or(0).clamp(0, 1 << 20) as usize)),
        "LPAD" | "RPAD" => {
            need(name, a, 3, 3)?;
            let s: Vec<char> = t(0).unwrap_or_default().chars().collect();
            let n = int(&a[1]).unwrap_or(0);
            let pad: Vec<char> = t(2).unwrap_or_default().chars().collect();
            if !(0..=(1 << 20)).contains(&n) {
                return Ok(Value::Null);
            }
            let n = n as usize;
            if s.len() >= n {
                return Ok(text(s[..n].iter().collect()));
            }
            if pad.is_empty() {
                return Ok(Value::Null);
            }
            let fill: String = pad.iter().cycle().take(n - s.len()).collect();
            let body: String = s.iter().collect();
            text(if name == "LPAD" {
                fill + &body
            } else {
                body + &fill
            })
        }
        "LOCATE" | "INSTR" => {
            need(name, a, 2, 3)?;
            let (needle, hay) = if name == "INSTR" {
                (t(1), t(0))
            } else {
                (t(0), t(1))
            };
            let (needle, hay) = (
                needle.unwrap_or_default().to_uppercase(),
                hay.unwrap_or_default().to_uppercase(),
            );
            let start = a.get(2).and_then(int).unwrap_or(1).max(1) as usize - 1;
            let hc: Vec<char> = hay.chars().collect();
            if start > hc.len() {
                return Ok(Value::Int(0));
            }
            let rest: String = hc[start..].iter().collect();
            Value::Int(match rest.find(&needle) {
                Some(b) => (rest[..b].chars().count() + start + 1) as i64,
                None => 0,
            })
        }
        "ASCII" | "ORD" => Value::Int(t(0).and_then(|s| s.bytes().next()).unwrap_or(0) as i64),
        "CHAR" => Value::Bytes(a.iter().filter_map(int).map(|i| i as u8).collect()),
        "STRCMP" => {
            need(name, a, 2, 2)?;
            Value::Int(match sql_cmp(&a[0], &a[1], Collation::default()) {
                Some(std::cmp::Ordering::Less) => -1,
                Some(std::cmp::Ordering::Greater) => 1,
                _ => 0,
            })
        }
        "FIELD" => {
            let pos = a[1..].iter().position(|v| {
                sql_cmp(&a[0], v, Collation::default()) == Some(std::cmp::Ordering::Equal)
            });
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        "ELT" => {
            let i = int(&a[0]).unwrap_or(0);
            if i >= 1 && (i as usize) < a.len() {
                a[i as usize].clone()
            } else {
                Value::Null
            }
        }
        "BIN" | "OCT" => {
            need(name, a, 1, 1)?;
            let n = match &a[0] {
                Value::UInt(u) => *u,
                v => int(v).unwrap_or(0) as u64,
            };
            text(if name == "BIN" {
                format!("{n:b}")
            } else {
                format!("{n:o}")
            })
        }
        "FIND_IN_SET" => {
            need(name, a, 2, 2)?;
            let (s, list) = (t(0).unwrap_or_default(), t(1).unwrap_or_default());
            let c = Collation::default();
            let pos = if s.contains(',') || list.is_empty() {
                None
            } else {
                list.split(',')
                    .position(|m| c.compare(m.as_bytes(), s.as_bytes()).is_eq())
            };
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        "HEX" => match &a[0] {
            Value::Int(_) | Value::UInt(_) => text(format!("{:X}", int(&a[0]).unwrap_or(0))),
            // Byte strings are hexed as they are (text_of would replace non-UTF-8 bytes).
            Value::Bytes(b) => text(b.iter().map(|b| format!("{b:02X}")).collect()),
            v => text(
                text_of(v)
                    .unwrap_or_default()
                    .bytes()
                    .map(|b| format!("{b:02X}"))
                    .collect(),
            ),
        },
        "QUOTE" => text(format!(
            "'{}'",
            t(0).unwrap_or_default()
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
        )),
        "CRC32" => {
            let s = t(0).unwrap_or_default();
            let mut crc: u32 = 0xFFFF_FFFF;
            for b in s.bytes() {
                crc ^= b as u32;
                for _ in 0..8 {
                    crc = if crc & 1 != 0 {
                        (crc >> 1) ^ 0xEDB8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            Value::UInt(!crc as u64)
        }
        "ABS" => match &a[0] {
            Value::Int(i) => Value::Int(i.checked_abs().unwrap_or(i64::MAX)),
            Value::UInt(u) => Value::UInt(*u),
            Value::Decimal(d) => Value::Decimal(d.abs()),
            v => Value::Double(v.to_f64_lenient().unwrap_or(0.0).abs()),
        },
        "SIGN" => Value::Int(match a[0].to_f64_lenient().unwrap_or(0.0) {
            f if f > 0.0 => 1,
            f if f < 0.0 => -1,
            _ => 0,
        }),
        "ROUND" => {
            need(name, a, 1, 2)?;
            round_value(&a[0], a.get(1).and_then(int).unwrap_or(0), false)
        }
        "TRUNCATE" => {
            need(name, a, 2, 2)?;
            round_value(&a[0], int(&a[1]).unwrap_or(0), true)
        }
        "FLOOR" | "CEIL" | "CEILING" => match &a[0] {
            Value::Int(_) | Value::UInt(_) => a[0].clone(),
            Value::Decimal(d) => {
                let f = d.to_f64();
                let r = if name == "FLOOR" { f.floor() } else { f.ceil() };
                Value::Int(r as i64)
            }
            v => {
                let f = v.to_f64_lenient().unwrap_or(0.0);
                Value::Double(if name == "FLOOR" { f.floor() } else { f.ceil() })
            }
        },
        "MOD" => {
            need(name, a, 2, 2)?;
            crate::expr::eval::eval(
                &crate::expr::Expr::Binary(
                    crate::expr::BinOp::Mod,
                    Box::new(crate::expr::Expr::Lit(a[0].clone())),
                    Box::new(crate::expr::Expr::Lit(a[1].clone())),
                    Collation::default(),
                ),
                &crate::expr::eval::EvalCtx::default(),
            )?
        }
        "POW" | "POWER" => {
            need(name, a, 2, 2)?;
            let r = a[0]
                .to_f64_lenient()
                .unwrap_or(0.0)
                .powf(a[1].to_f64_lenient().unwrap_or(0.0));
            if r.is_finite() {
                Value::Double(r)
            } else {
                Value::Null
            }
        }
        "SQRT" | "EXP" | "LN" | "LOG" | "LOG10" | "LOG2" | "SIN" | "COS" => {
            let f = a[0].to_f64_lenient().unwrap_or(0.0);
            let r = match name {
                "SQRT" => f.sqrt(),
                "EXP" => f.exp(),
                "LN" | "LOG" if a.len() == 1 => f.ln(),
                "LOG" => a[1].to_f64_lenient().unwrap_or(0.0).ln() / f.ln(),
                "LOG10" => f.log10(),
                "LOG2" => f.log2(),
                "SIN" => f.sin(),
                _ => f.cos(),
            };
            if r.is_finite() {
                Value::Double(r)
            } else {
                Value::Null
            }
        }
        "PI" => Value::Double(std::f64::consts::PI),
        "FORMAT" => {
            need(name, a, 2, 3)?;
            let d = int(&a[1]).unwrap_or(0).clamp(0, 30) as usize;
            let s = format!("{:.*}", d, a[0].to_f64_lenient().unwrap_or(0.0));
            let (ip, fp) = s
                .split_once('.')
                .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
            let (neg, ip) = ip.strip_prefix('-').map_or((false, ip), |r| (true, r));
            let mut grouped = String::new();
            for (i, c) in ip.chars().enumerate() {
                if i > 0 && (ip.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            text(format!(
                "{}{}{}",
                if neg { "-" } else { "" },
                grouped,
                fp.map(|f| format!(".{f}")).unwrap_or_default()
            ))
        }
        "GREATEST" => greatest(a, std::cmp::Ordering::Greater),
        "LEAST" => greatest(a, std::cmp::Ordering::Less),
        "UNIX_TIMESTAMP" => a.first().and_then(unix_seconds).unwrap_or(Value::Null),
        "FROM_UNIXTIME" => {
            need(name, a, 1, 2)?;
            let us = match &a[0] {
                Value::Decimal(d) => (d.to_f64() * 1e6).round() as i64,
                v => (v.to_f64_lenient().unwrap_or(-1.0) * 1e6).round() as i64,
            };
            match from_unix_micros(us) {
                None => Value::Null,
                Some(dt) => match a.get(1) {
                    Some(f) => text(date_format(&dt, &text_of(f).unwrap_or_default())),
                    None => Value::DateTime(dt),
                },
            }
        }
        "DATE_FORMAT" => {
            need(name, a, 2, 2)?;
            match to_datetime(&a[0]) {
                Some(dt) => text(date_format(&dt, &t(1).unwrap_or_default())),
                None => Value::Null,
            }
        }
        "DATE" => to_datetime(&a[0])
            .map(|d| Value::Date(d.date))
            .unwrap_or(Value::Null),
        "TIMESTAMP" => to_datetime(&a[0])
            .map(Value::DateTime)
            .unwrap_or(Value::Null),
        "TIME" => crate::expr::eval::cast(&a[0], crate::expr::CastTo::Time),
        "YEAR" => extract("Year", &a[0]),
        "MONTH" => extract("Month", &a[0]),
        "DAY" | "DAYOFMONTH" => extract("Day", &a[0]),
        "HOUR" => extract("Hour", &a[0]),
        "MINUTE" => extract("Minute", &a[0]),
        "SECOND" => extract("Second", &a[0]),
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
            .map(|d| Value::Int(crate::types::temporal::day_number(d.date) + 60))
            .unwrap_or(Value::Null),
        "FROM_DAYS" => Value::Date(from_day_number(
            int(&a[0]).unwrap_or(0).clamp(60, 3_652_500) - 60,
        )),
        "DATEDIFF" => {
            need(name, a, 2, 2)?;
            match (to_datetime(&a[0]), to_datetime(&a[1])) {
                (Some(x), Some(y)) => Value::Int(
                    crate::types::temporal::day_number(x.date)
                        - crate::types::temporal::day_number(y.date),
                ),
                _ => Value::Null,
            }
        }
        "LAST_DAY" => match to_datetime(&a[0]) {
            Some(dt) if dt.date.month >= 1 => {
                let d = crate::types::temporal::days_in_month(
                    dt.date.year as u32,
                    dt.date.month as u32,
                );
                crate::types::temporal::Date::new(dt.date.year as u32, dt.date.month as u32, d)
                    .map(Value::Date)
                    .unwrap_or(Value::Null)
            }
            _ => Value::Null,
        },
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}
