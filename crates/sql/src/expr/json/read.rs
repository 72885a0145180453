//! The functions that read a document: JSON_VALID, JSON_EXTRACT, JSON_VALUE, JSON_QUERY,
//! JSON_UNQUOTE, JSON_QUOTE, JSON_TYPE, JSON_LENGTH, JSON_DEPTH, JSON_KEYS, JSON_CONTAINS,
//! JSON_CONTAINS_PATH and JSON_EXISTS.
//!
//! Invariants: JSON_EXTRACT gives the one value a single path without wildcards selects, and
//! an array of every selected value otherwise (NULL when nothing is selected); JSON_CONTAINS
//! compares numbers by value and strings by their unescaped text; an object contains another
//! when it has each of its keys with a value containing the other's; an array contains a
//! value when one of its elements does, and another array when it contains each element.

use super::doc::{self, unescape, Json};
use super::{json_text, Call, JsonFunc};
use crate::error::sql_error::WarningLevel;
use crate::types::value::Value;

pub(super) fn call(c: &Call<'_>) -> Value {
    let v = match c.func {
        JsonFunc::Valid => valid(c),
        JsonFunc::Extract => extract(c),
        JsonFunc::Value => first_match(c).and_then(|j| value_text(&j)),
        JsonFunc::Query => first_match(c)
            .filter(|j| !j.is_scalar())
            .map(|j| json_text(&j)),
        JsonFunc::Unquote => unquote(c),
        JsonFunc::Quote => quote(c),
        JsonFunc::Type => c.doc(0).map(|d| Value::Text(d.type_name().into())),
        JsonFunc::Length => target(c).map(|j| Value::Int(length(&j))),
        JsonFunc::Depth => c.doc(0).map(|d| Value::Int(d.depth() as i64)),
        JsonFunc::Keys => keys(c),
        JsonFunc::Contains => contains_call(c),
        JsonFunc::ContainsPath => contains_path(c),
        JsonFunc::Exists => exists(c),
        _ => None,
    };
    v.unwrap_or(Value::Null)
}

fn valid(c: &Call<'_>) -> Option<Value> {
    c.text(0)?;
    Some(Value::Int(
        c.doc_at(0, Some(WarningLevel::Note)).is_some() as i64
    ))
}

fn extract(c: &Call<'_>) -> Option<Value> {
    let d = c.doc(0)?;
    let mut paths = Vec::new();
    for i in 1..c.vals.len() {
        paths.push(c.path(i)?);
    }
    let mut found: Vec<Json> = Vec::new();
    for p in &paths {
        found.extend(p.select(&d).into_iter().cloned());
    }
    let single = paths.len() == 1 && !paths[0].has_wildcard();
    match (found.len(), single) {
        (0, _) => None,
        (1, true) => Some(json_text(&found[0])),
        _ => Some(json_text(&Json::Array(found))),
    }
}

/// The first value argument 1's path selects in argument 0 (JSON_VALUE, JSON_QUERY): no
/// warnings.
fn first_match(c: &Call<'_>) -> Option<Json> {
    let d = c.doc_at(0, None)?;
    let p = super::path::parse(&c.text(1)?).ok()?;
    p.select(&d).first().map(|j| (*j).clone())
}

/// JSON_VALUE's text of a scalar: a string unescaped, `true` / `false` as 1 / 0, NULL for
/// `null` and for a container.
fn value_text(j: &Json) -> Option<Value> {
    match j {
        Json::Null => None,
        Json::Bool(b) => Some(Value::Text(if *b { "1" } else { "0" }.into())),
        other => other.scalar_text().map(Value::Text),
    }
}

/// The document, or the value the optional path (argument 1) selects in it.
fn target(c: &Call<'_>) -> Option<Json> {
    let d = c.doc(0)?;
    if c.vals.len() < 2 {
        return Some(d);
    }
    let p = c.path(1)?;
    p.select(&d).first().map(|j| (*j).clone())
}

fn length(j: &Json) -> i64 {
    match j {
        Json::Array(items) => items.len() as i64,
        Json::Object(m) => m.len() as i64,
        _ => 1,
    }
}

fn unquote(c: &Call<'_>) -> Option<Value> {
    let s = c.text(0)?;
    if !s.starts_with('"') {
        return Some(Value::Text(s));
    }
    match doc::parse(&s) {
        Ok(Json::Str(inner)) => Some(Value::Text(unescape(&inner))),
        Ok(_) => Some(Value::Text(s)),
        Err(e) => {
            c.doc_error(0, e, WarningLevel::Warning);
            Some(Value::Text(s))
        }
    }
}

fn quote(c: &Call<'_>) -> Option<Value> {
    match c.vals.first()? {
        Value::Null
        | Value::Int(_)
        | Value::UInt(_)
        | Value::Decimal(_)
        | Value::Float(_)
        | Value::Double(_) => None,
        _ => Some(Value::Text(format!("\"{}\"", doc::escape(&c.text(0)?)))),
    }
}

fn keys(c: &Call<'_>) -> Option<Value> {
    let d = c.doc_at(0, None)?;
    let j = match c.vals.len() {
        1 => d,
        _ => {
            let p = super::path::parse(&c.text(1)?).ok()?;
            p.select(&d).first().map(|j| (*j).clone())?
        }
    };
    let Json::Object(m) = j else { return None };
    let names = m.into_iter().map(|(k, _)| Json::Str(k)).collect();
    Some(json_text(&Json::Array(names)))
}

fn contains_call(c: &Call<'_>) -> Option<Value> {
    let d = c.doc(0)?;
    let candidate = c.doc(1)?;
    let within = match c.vals.len() {
        2 => d,
        _ => {
            let p = c.plain_path(2)?;
            p.select(&d).first().map(|j| (*j).clone())?
        }
    };
    Some(Value::Int(contains(&within, &candidate) as i64))
}

/// True if `target` contains `candidate` (JSON_CONTAINS).
pub(super) fn contains(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Object(_), Json::Object(want)) => want.iter().all(|(k, v)| {
            target
                .member(&unescape(k))
                .is_some_and(|have| contains(have, v))
        }),
        (Json::Array(items), Json::Array(want)) => {
            want.iter().all(|w| items.iter().any(|i| contains(i, w)))
        }
        (Json::Array(items), _) => items.iter().any(|i| contains(i, candidate)),
        _ => scalar_equal(target, candidate),
    }
}

fn scalar_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            x == y || matches!((x.parse::<f64>(), y.parse::<f64>()), (Ok(p), Ok(q)) if p == q)
        }
        (Json::Str(x), Json::Str(y)) => unescape(x) == unescape(y),
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::Null, Json::Null) => true,
        _ => false,
    }
}

fn contains_path(c: &Call<'_>) -> Option<Value> {
    let d = c.doc(0)?;
    let all = c.one_or_all(1)?;
    let mut paths = Vec::new();
    for i in 2..c.vals.len() {
        paths.push(c.path(i)?);
    }
    let found = |p: &super::path::Path| !p.select(&d).is_empty();
    let hit = match all {
        true => paths.iter().all(found),
        false => paths.iter().any(found),
    };
    Some(Value::Int(hit as i64))
}

fn exists(c: &Call<'_>) -> Option<Value> {
    let d = c.doc_at(0, None)?;
    let p = super::path::parse(&c.text(1)?).ok()?;
    Some(Value::Int(!p.select(&d).is_empty() as i64))
}
