//! JSON_NORMALIZE, JSON_EQUALS and JSON_OVERLAPS: documents compared as values, as MariaDB
//! 10.11 compares them (`json_normalize.c`, `json_find_overlap_with_*`).
//!
//! Invariants:
//! * The normal form ([`normal`]) is compact; a number is written `d.dddE<exp>` with its exact
//!   digits (`100` → `1.0E2`, `-0.0` → `0.0E0`), a string as written between its quotes (escapes
//!   kept: `"\u0061"` is not `"a"`), an object's members sorted by key bytes, then by value
//!   (repeated keys kept, in MariaDB 10.11's order, [`value_order`]), arrays in their order.
//! * JSON_EQUALS is 1 when both normal forms are the same text; a document that does not
//!   parse gives NULL with its warning.
//! * JSON_OVERLAPS is 1 when two arrays share an element, an array holds the other (non-array)
//!   value, two objects share a key with the same value, or two scalars are the same; "the
//!   same" is [`same`]: numbers by value, strings by their written text, arrays element by
//!   element in order, objects member by member in any order. A document that does not parse
//!   gives 0 with its warning (as MariaDB).

use std::cmp::Ordering;

use super::doc::Json;
use super::{Call, JsonFunc};
use crate::types::value::Value;

pub(super) fn call(c: &Call<'_>) -> Value {
    if c.vals.iter().any(Value::is_null) {
        return Value::Null;
    }
    match c.func {
        JsonFunc::Normalize => c.doc(0).map_or(Value::Null, |d| Value::Text(normal(&d))),
        // The second document is read only when the first parses (one warning at most).
        JsonFunc::Equals => match c.doc(0).and_then(|a| Some((a, c.doc(1)?))) {
            Some((a, b)) => Value::Int((normal(&a) == normal(&b)) as i64),
            None => Value::Null,
        },
        _ => match c.doc(0).and_then(|a| Some((a, c.doc(1)?))) {
            Some((a, b)) => Value::Int(overlaps(&a, &b) as i64),
            None => Value::Int(0),
        },
    }
}

/// The normal form of a value (JSON_NORMALIZE).
pub(super) fn normal(j: &Json) -> String {
    write_normal(&sorted(j))
}

/// `j` with its numbers normalized and every object's members in normal order.
fn sorted(j: &Json) -> Json {
    match j {
        Json::Number(n) => Json::Number(normal_number(n)),
        Json::Array(items) => Json::Array(items.iter().map(sorted).collect()),
        Json::Object(members) => {
            let mut m: Vec<(String, Json)> = members
                .iter()
                .map(|(k, v)| (k.clone(), sorted(v)))
                .collect();
            m.sort_by(|(k1, v1), (k2, v2)| {
                k1.as_bytes()
                    .cmp(k2.as_bytes())
                    .then_with(|| value_order(v1, v2))
            });
            Json::Object(m)
        }
        scalar => scalar.clone(),
    }
}

/// The order of two normalized values under one key, as MariaDB 10.11's JSON_NORMALIZE
/// sorts them: by kind (object, array, string, number, true, false, null), then objects and
/// arrays by their size and then member by member (key, then value), strings and numbers by
/// the length of their text and then its bytes.
fn value_order(a: &Json, b: &Json) -> Ordering {
    fn kind(j: &Json) -> u8 {
        match j {
            Json::Object(_) => 1,
            Json::Array(_) => 2,
            Json::Str(_) => 3,
            Json::Number(_) => 4,
            Json::Bool(true) => 5,
            Json::Bool(false) => 6,
            Json::Null => 7,
        }
    }
    let text = |x: &str, y: &str| {
        x.len()
            .cmp(&y.len())
            .then_with(|| x.as_bytes().cmp(y.as_bytes()))
    };
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => x.len().cmp(&y.len()).then_with(|| {
            x.iter()
                .zip(y)
                .map(|((k1, v1), (k2, v2))| {
                    k1.as_bytes()
                        .cmp(k2.as_bytes())
                        .then_with(|| value_order(v1, v2))
                })
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        (Json::Array(x), Json::Array(y)) => x.len().cmp(&y.len()).then_with(|| {
            x.iter()
                .zip(y)
                .map(|(v1, v2)| value_order(v1, v2))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        (Json::Str(x), Json::Str(y)) | (Json::Number(x), Json::Number(y)) => text(x, y),
        _ => kind(a).cmp(&kind(b)),
    }
}

/// The text of a [`sorted`] value, compact.
fn write_normal(j: &Json) -> String {
    match j {
        Json::Array(items) => {
            let parts: Vec<String> = items.iter().map(write_normal).collect();
            format!("[{}]", parts.join(","))
        }
        Json::Object(members) => {
            let parts: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("\"{k}\":{}", write_normal(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Json::Number(n) => n.clone(),
        scalar => scalar.write(),
    }
}

/// A number's text as `d.dddE<exp>` with its significant digits (MariaDB's
/// `json_normalize_number`).
fn normal_number(n: &str) -> String {
    let (sign, body) = match n.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", n),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, ""),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let lead = digits.bytes().take_while(|b| *b == b'0').count();
    let significant = digits[lead..].trim_end_matches('0');
    let Some(first) = significant.get(..1) else {
        return "0.0E0".into();
    };
    let rest = match &significant[1..] {
        "" => "0",
        more => more,
    };
    let magnitude = int.len() as i64 - lead as i64 + exp.parse::<i64>().unwrap_or(0);
    format!("{sign}{first}.{rest}E{}", magnitude - 1)
}

/// JSON_OVERLAPS of two documents.
fn overlaps(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.iter().any(|i| y.iter().any(|j| same(i, j))),
        (Json::Array(x), other) | (other, Json::Array(x)) => x.iter().any(|i| same(i, other)),
        (Json::Object(x), Json::Object(y)) => x
            .iter()
            .any(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2))),
        (Json::Object(_), _) | (_, Json::Object(_)) => false,
        (s, t) => same(s, t),
    }
}

/// True if two values are the same for JSON_OVERLAPS.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => normal_number(x) == normal_number(y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(i, j)| same(i, j))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc::parse;
    use super::*;

    fn norm(text: &str) -> String {
        normal(&parse(text).unwrap())
    }

    #[test]
    fn numbers_normalize_to_their_significant_digits() {
        for (n, want) in [
            ("1", "1.0E0"),
            ("1.5", "1.5E0"),
            ("100", "1.0E2"),
            ("0.1e-2", "1.0E-3"),
            ("-0.0", "0.0E0"),
            ("-1.50", "-1.5E0"),
            ("12345678901234567890", "1.234567890123456789E19"),
            ("2E3", "2.0E3"),
            ("0.000", "0.0E0"),
            ("1e+5", "1.0E5"),
        ] {
            assert_eq!(normal_number(n), want, "{n}");
        }
    }

    #[test]
    fn objects_sort_by_key_then_value() {
        assert_eq!(
            norm(r#"{"bb":1,"a":2,"c":3,"B":4}"#),
            r#"{"B":4.0E0,"a":2.0E0,"bb":1.0E0,"c":3.0E0}"#
        );
        assert_eq!(
            norm(r#"{"a":2,"a":10,"a":"x","a":true}"#),
            r#"{"a":"x","a":1.0E1,"a":2.0E0,"a":true}"#
        );
        // MariaDB 10.11's answers
        assert_eq!(
            norm(r#"{"a":"b","a":"ab","a":"c","a":"B","a":""}"#),
            r#"{"a":"","a":"B","a":"b","a":"c","a":"ab"}"#
        );
        assert_eq!(
            norm(r#"{"a":10,"a":9,"a":-1,"a":1e1,"a":2.5,"a":100}"#),
            r#"{"a":1.0E1,"a":1.0E1,"a":1.0E2,"a":2.5E0,"a":9.0E0,"a":-1.0E0}"#
        );
        assert_eq!(
            norm(r#"{"a":[2],"a":[1,5],"a":[1],"a":["x"],"a":[1,2]}"#),
            r#"{"a":["x"],"a":[1.0E0],"a":[2.0E0],"a":[1.0E0,2.0E0],"a":[1.0E0,5.0E0]}"#
        );
        assert_eq!(
            norm(r#"{"a":{"b":1},"a":{"a":2},"a":{"a":1},"a":{"c":0,"a":1},"a":{"a":1,"b":0}}"#),
            r#"{"a":{"a":1.0E0},"a":{"a":2.0E0},"a":{"b":1.0E0},"a":{"a":1.0E0,"b":0.0E0},"a":{"a":1.0E0,"c":0.0E0}}"#
        );
        assert_eq!(
            norm(r#"{"a":null,"a":false,"a":true,"a":[],"a":{},"a":"s","a":1}"#),
            r#"{"a":{},"a":[],"a":"s","a":1.0E0,"a":true,"a":false,"a":null}"#
        );
        assert_eq!(norm(r#" [1 , {}, "\u0061"] "#), r#"[1.0E0,{},"\u0061"]"#);
    }

    #[test]
    fn overlaps_as_mariadb() {
        let o = |a: &str, b: &str| overlaps(&parse(a).unwrap(), &parse(b).unwrap());
        assert!(o("[1,2]", "[2,3]"));
        assert!(!o("[1,[2]]", "2"));
        assert!(o("[1,[2]]", "[[2]]"));
        assert!(!o("[[1,2]]", "[[2,1]]"));
        assert!(o(r#"{"a":{"b":1,"c":2}}"#, r#"{"a":{"c":2,"b":1}}"#));
        assert!(!o(r#"{"a":{"b":1}}"#, r#"{"a":{"b":1,"c":2}}"#));
        assert!(o(r#"{"a":1}"#, r#"[{"a":1.0}, 2]"#));
        assert!(!o("[]", "[]"));
        assert!(!o("{}", "{}"));
        assert!(o("1", "1.0"));
        assert!(!o("1", "true"));
        assert!(!o(r#""\u0061""#, r#""a""#));
    }
}
