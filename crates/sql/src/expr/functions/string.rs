//! String functions: CONCAT, CONCAT_WS, LENGTH, SUBSTRING, LEFT/RIGHT, TRIM, REPLACE, REPEAT,
//! LPAD/RPAD, LOCATE/INSTR, SUBSTRING_INDEX, FIELD/ELT/FIND_IN_SET, STRCMP, QUOTE, FORMAT, INSERT.
//!
//! Invariants: positions and lengths count characters, not bytes (LENGTH and OCTET_LENGTH count
//! bytes); a result that would exceed 64 MiB (REPEAT) or a pad length past 1 Mi characters
//! (LPAD/RPAD) is NULL rather than an allocation of any size. Text comparisons (FIELD, STRCMP,
//! FIND_IN_SET, LOCATE) use the default case-insensitive collation.

use super::{int, need, text};
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::collation::Collation;
use crate::types::value::{sql_cmp, Value};

pub(super) const NAMES: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
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
    "SPACE",
    "LPAD",
    "RPAD",
    "LOCATE",
    "INSTR",
    "SUBSTRING_INDEX",
    "STRCMP",
    "FIELD",
    "ELT",
    "FIND_IN_SET",
    "QUOTE",
    "FORMAT",
    "INSERT",
];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    let t = |i: usize| a.get(i).and_then(text_of);
    Ok(match name {
        "CONCAT" => concat(a),
        "CONCAT_WS" => {
            need(name, a, 1, usize::MAX)?;
            concat_ws(a)
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
        "UPPER" | "UCASE" => text(simple_case(&t(0).unwrap_or_default(), true)),
        "LOWER" | "LCASE" => text(simple_case(&t(0).unwrap_or_default(), false)),
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
            trim_chars(name, t(0).unwrap_or_default(), t(1).unwrap_or_default())
        }
        "REPLACE" => {
            need(name, a, 3, 3)?;
            replace(a)
        }
        "REVERSE" => text(t(0).unwrap_or_default().chars().rev().collect()),
        "INSERT" => {
            need(name, a, 4, 4)?;
            let (pos, len) = (int(&a[1]).unwrap_or(0), int(&a[2]).unwrap_or(0));
            text(insert(
                &t(0).unwrap_or_default(),
                pos,
                len,
                &t(3).unwrap_or_default(),
            ))
        }
        "REPEAT" => {
            need(name, a, 2, 2)?;
            repeat(&t(0).unwrap_or_default(), int(&a[1]).unwrap_or(0))
        }
        "SPACE" => text(" ".repeat(int(&a[0]).unwrap_or(0).clamp(0, 1 << 20) as usize)),
        "LPAD" | "RPAD" => {
            need(name, a, 3, 3)?;
            pad(
                name,
                &t(0).unwrap_or_default(),
                int(&a[1]).unwrap_or(0),
                t(2),
            )
        }
        "LOCATE" | "INSTR" => {
            need(name, a, 2, 3)?;
            let (needle, hay) = if name == "INSTR" {
                (t(1), t(0))
            } else {
                (t(0), t(1))
            };
            let start = a.get(2).and_then(int).unwrap_or(1);
            locate(&needle.unwrap_or_default(), &hay.unwrap_or_default(), start)
        }
        "SUBSTRING_INDEX" => {
            need(name, a, 3, 3)?;
            let count = int(&a[2]).unwrap_or(0);
            text(substring_index(
                &t(0).unwrap_or_default(),
                &t(1).unwrap_or_default(),
                count,
            ))
        }
        "STRCMP" => {
            need(name, a, 2, 2)?;
            Value::Int(match sql_cmp(&a[0], &a[1], Collation::default()) {
                Some(std::cmp::Ordering::Less) => -1,
                Some(std::cmp::Ordering::Greater) => 1,
                _ => 0,
            })
        }
        "FIELD" => field(a),
        "ELT" => elt(a),
        "FIND_IN_SET" => {
            need(name, a, 2, 2)?;
            find_in_set(&t(0).unwrap_or_default(), &t(1).unwrap_or_default())
        }
        "QUOTE" => text(format!(
            "'{}'",
            t(0).unwrap_or_default()
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
        )),
        "FORMAT" => {
            need(name, a, 2, 3)?;
            let d = int(&a[1]).unwrap_or(0).clamp(0, 30) as usize;
            // An exact number rounds half away from zero (MariaDB's decimal path), anything
            // else as a DOUBLE, to even on its binary value (as printf).
            let exact = match &a[0] {
                Value::Decimal(x) => Some(*x),
                Value::Int(i) => Some(crate::types::decimal::Decimal::from_i64(*i)),
                Value::UInt(u) => Some(crate::types::decimal::Decimal::from_u64(*u)),
                _ => None,
            };
            match exact.and_then(|x| x.rescale(d as u8)) {
                Some((x, _)) => text(group_digits(&x.to_string())),
                None => text(format_number(a[0].to_f64_lenient().unwrap_or(0.0), d)),
            }
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// INSERT(s, pos, len, new): `s` with the `len` characters from position `pos` (1-based) replaced
/// by `new`; `s` itself when `pos` is not a position of it, the rest of `s` when `len` is
/// negative or reaches past its end (MariaDB's).
fn insert(s: &str, pos: i64, len: i64, new: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    if pos < 1 || pos > n {
        return s.to_string();
    }
    let start = (pos - 1) as usize;
    let end = if len < 0 || len > n - start as i64 {
        chars.len()
    } else {
        start + len as usize
    };
    let mut out: String = chars[..start].iter().collect();
    out.push_str(new);
    out.extend(&chars[end..]);
    out
}

/// CONCAT: NULL if any argument is; bytes if any argument is bytes, else text.
fn concat(a: &[Value]) -> Value {
    if a.iter().any(Value::is_null) {
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

/// CONCAT_WS(sep, ...): the non-NULL arguments joined by `sep`; NULL if `sep` is.
fn concat_ws(a: &[Value]) -> Value {
    match a.first().and_then(text_of) {
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

/// REPLACE(s, from, to); an empty `from` leaves `s` as it is.
fn replace(a: &[Value]) -> Value {
    let t = |i: usize| a.get(i).and_then(text_of).unwrap_or_default();
    let from = t(1);
    if from.is_empty() {
        a[0].clone()
    } else {
        text(t(0).replace(&from, &t(2)))
    }
}

/// REPEAT(s, n); NULL past 64 MiB.
fn repeat(s: &str, n: i64) -> Value {
    let n = n.clamp(0, 1 << 20) as usize;
    if s.len().saturating_mul(n) > 64 << 20 {
        Value::Null
    } else {
        text(s.repeat(n))
    }
}

/// FIELD(x, a, b, ...): 1-based position of `x` among the rest, else 0.
fn field(a: &[Value]) -> Value {
    let pos = a[1..]
        .iter()
        .position(|v| sql_cmp(&a[0], v, Collation::default()) == Some(std::cmp::Ordering::Equal));
    Value::Int(pos.map_or(0, |p| p as i64 + 1))
}

/// ELT(n, a, b, ...): the n-th of the rest, NULL past them.
fn elt(a: &[Value]) -> Value {
    let i = int(&a[0]).unwrap_or(0);
    if i >= 1 && (i as usize) < a.len() {
        a[i as usize].clone()
    } else {
        Value::Null
    }
}

/// SUBSTRING(s, pos[, len]): 1-based `pos`, negative from the end, 0 gives ''.
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

/// TRIM([BOTH | LEADING | TRAILING] what FROM s): removes whole repetitions of `what`.
fn trim_chars(name: &str, mut s: String, w: String) -> Value {
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

/// LPAD / RPAD to `n` characters; a longer `s` is cut to `n`.
fn pad(name: &str, s: &str, n: i64, pad: Option<String>) -> Value {
    let s: Vec<char> = s.chars().collect();
    let pad: Vec<char> = pad.unwrap_or_default().chars().collect();
    if !(0..=(1 << 20)).contains(&n) {
        return Value::Null;
    }
    let n = n as usize;
    if s.len() >= n {
        return text(s[..n].iter().collect());
    }
    if pad.is_empty() {
        return Value::Null;
    }
    let fill: String = pad.iter().cycle().take(n - s.len()).collect();
    let body: String = s.iter().collect();
    text(if name == "LPAD" {
        fill + &body
    } else {
        body + &fill
    })
}

/// LOCATE(needle, hay[, start]): 1-based character position, 0 if absent; case-insensitive.
fn locate(needle: &str, hay: &str, start: i64) -> Value {
    let (needle, hay) = (needle.to_uppercase(), hay.to_uppercase());
    let start = start.max(1) as usize - 1;
    let hc: Vec<char> = hay.chars().collect();
    if start > hc.len() {
        return Value::Int(0);
    }
    let rest: String = hc[start..].iter().collect();
    Value::Int(match rest.find(&needle) {
        Some(b) => (rest[..b].chars().count() + start + 1) as i64,
        None => 0,
    })
}

/// FIND_IN_SET(s, list): 1-based position of `s` among the comma-separated `list`, else 0.
/// The text before the `count`-th `delim` (from the end when `count` < 0); the delimiter is
/// matched byte for byte, as MariaDB does.
fn substring_index(s: &str, delim: &str, count: i64) -> String {
    if delim.is_empty() || count == 0 {
        return String::new();
    }
    let hits: Vec<usize> = s.match_indices(delim).map(|(i, _)| i).collect();
    let n = count.unsigned_abs() as usize;
    if n > hits.len() {
        return s.to_string();
    }
    if count > 0 {
        s[..hits[n - 1]].to_string()
    } else {
        s[hits[hits.len() - n] + delim.len()..].to_string()
    }
}

fn find_in_set(s: &str, list: &str) -> Value {
    let c = Collation::default();
    let pos = if s.contains(',') || list.is_empty() {
        None
    } else {
        list.split(',')
            .position(|m| c.compare(m.as_bytes(), s.as_bytes()).is_eq())
    };
    Value::Int(pos.map_or(0, |p| p as i64 + 1))
}

/// UPPER / LOWER by each character's one-character mapping, as MariaDB's collations map case:
/// `ß` stays `ß` (no one-character upper case), `İ` lowers to `i`.
fn simple_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|c| {
            let mut m: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            match (m.len(), upper) {
                (1, _) => m[0],
                (_, false) => m.swap_remove(0),
                (_, true) => c,
            }
        })
        .collect()
}

/// FORMAT(x, d): `d` decimals, thousands grouped with `,`.
fn format_number(x: f64, d: usize) -> String {
    group_digits(&format!("{:.*}", d, x))
}

/// A number's text with `,` between groups of three integer digits, without the sign of a
/// value that is zero at the shown scale.
fn group_digits(s: &str) -> String {
    let (ip, fp) = s.split_once('.').map_or((s, None), |(i, f)| (i, Some(f)));
    let (neg, ip) = ip.strip_prefix('-').map_or((false, ip), |r| (true, r));
    // A value that rounds to zero has no sign (MariaDB: FORMAT(-0.001, 2) is `0.00`).
    let neg = neg && s.bytes().any(|b| matches!(b, b'1'..=b'9'));
    let mut grouped = String::new();
    for (i, c) in ip.chars().enumerate() {
        if i > 0 && (ip.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!(
        "{}{}{}",
        if neg { "-" } else { "" },
        grouped,
        fp.map(|f| format!(".{f}")).unwrap_or_default()
    )
}
