//! The functions that give a changed document: JSON_SET, JSON_INSERT, JSON_REPLACE,
//! JSON_REMOVE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_MERGE_PATCH and JSON_MERGE /
//! JSON_MERGE_PRESERVE.
//!
//! Invariants: path/value pairs apply left to right, each to the document the previous one
//! left; a path whose parent does not exist changes nothing; paths may not hold wildcards
//! (4044) and JSON_REMOVE may not remove `$` (4051); a value is embedded as build.rs says.
//! `[n]` on a value that is not an array means the value itself for n = 0 (and `last`), and
//! JSON_SET / JSON_INSERT beyond it make an array of the value and the new one.
//! JSON_ARRAY_INSERT's path must end in an array position (NULL without a warning otherwise, as
//! MariaDB): `[n]` inserts before element n or appends past the end, `[last-k]` inserts before
//! element len-k (so `[last]` appends), on a value that is not an array nothing changes.
//! JSON_MERGE_PRESERVE merges two objects key by key (each member of the first, merged with
//! the first member of the second of that key, then the second's other keys) and otherwise
//! makes one array of both (a non-array as one element).

use super::build::value_of;
use super::doc::Json;
use super::path::{Index, Step};
use super::{json_text, ArgKind, Call, JsonFunc};
use crate::error::code::ErrorCode;
use crate::error::sql_error::WarningLevel;
use crate::types::value::Value;

pub(super) fn call(c: &Call<'_>) -> Value {
    let v = match c.func {
        JsonFunc::MergePatch => merge_patch(c),
        JsonFunc::Merge | JsonFunc::MergePreserve => merge_preserve_call(c),
        JsonFunc::ArrayInsert => array_insert(c),
        JsonFunc::Remove => remove(c),
        _ => pairs(c),
    };
    v.map_or(Value::Null, |j| json_text(&j))
}

/// The value `step` leads to from `j`.
fn child<'a>(j: &'a mut Json, step: &Step) -> Option<&'a mut Json> {
    match (step, j) {
        (Step::Key(k), Json::Object(m)) => m
            .iter_mut()
            .find(|(name, _)| super::doc::unescape(name) == *k)
            .map(|(_, v)| v),
        (Step::Index(i), Json::Array(items)) => {
            let n = i.resolve(items.len())?;
            items.get_mut(n)
        }
        (Step::Index(i), other) if i.resolve(1) == Some(0) => Some(other),
        _ => None,
    }
}

fn walk<'a>(j: &'a mut Json, steps: &[Step]) -> Option<&'a mut Json> {
    steps.iter().try_fold(j, |at, s| child(at, s))
}

/// JSON_SET, JSON_INSERT, JSON_REPLACE and JSON_ARRAY_APPEND: `(doc, path, value, ...)`.
fn pairs(c: &Call<'_>) -> Option<Json> {
    let mut d = c.doc(0)?;
    for i in (1..c.vals.len()).step_by(2) {
        let p = c.plain_path(i)?;
        let kind = c.kinds.get(i + 1).copied().unwrap_or(ArgKind::Plain);
        let v = value_of(&c.vals[i + 1], kind);
        if c.func == JsonFunc::ArrayAppend {
            if let Some(t) = walk(&mut d, &p.steps) {
                append(t, v);
            }
            continue;
        }
        let (insert, replace) = match c.func {
            JsonFunc::Set => (true, true),
            JsonFunc::Insert => (true, false),
            _ => (false, true),
        };
        let Some((last, parent)) = p.steps.split_last() else {
            if replace {
                d = v;
            }
            continue;
        };
        if let Some(parent) = walk(&mut d, parent) {
            put(parent, last, v, insert, replace);
        }
    }
    Some(d)
}

fn append(t: &mut Json, v: Json) {
    match t {
        Json::Array(items) => items.push(v),
        other => {
            let old = std::mem::replace(other, Json::Null);
            *other = Json::Array(vec![old, v]);
        }
    }
}

/// Puts `v` at `step` of `parent`: replacing an existing value if `replace`, adding a missing
/// one if `insert`.
fn put(parent: &mut Json, step: &Step, v: Json, insert: bool, replace: bool) {
    match (step, &mut *parent) {
        (Step::Key(k), Json::Object(m)) => {
            let at = m
                .iter()
                .position(|(name, _)| super::doc::unescape(name) == *k);
            match at {
                Some(n) if replace => m[n].1 = v,
                None if insert => m.push((super::doc::escape(k), v)),
                _ => {}
            }
        }
        (Step::Index(i), Json::Array(items)) => match i.resolve(items.len()) {
            Some(n) if n < items.len() && replace => items[n] = v,
            Some(n) if n < items.len() => {}
            _ if insert && matches!(i, Index::At(_)) => items.push(v),
            _ => {}
        },
        (Step::Index(i), _) => match i.resolve(1) {
            Some(0) if replace => *parent = v,
            Some(0) => {}
            _ if insert && matches!(i, Index::At(_)) => append(parent, v),
            _ => {}
        },
        _ => {}
    }
}

fn remove(c: &Call<'_>) -> Option<Json> {
    let mut d = c.doc(0)?;
    for i in 1..c.vals.len() {
        let p = c.plain_path(i)?;
        let Some((last, parent)) = p.steps.split_last() else {
            c.warn(
                WarningLevel::Warning,
                ErrorCode::JsonPathEmpty,
                format!(
                    "Path expression '$' is not allowed in argument {} to function '{}'.",
                    i + 1,
                    c.func.name()
                ),
            );
            return None;
        };
        match (last, walk(&mut d, parent)) {
            (Step::Key(k), Some(Json::Object(m))) => {
                m.retain(|(name, _)| super::doc::unescape(name) != *k)
            }
            (Step::Index(ix), Some(Json::Array(items))) => {
                if let Some(n) = ix.resolve(items.len()).filter(|n| *n < items.len()) {
                    items.remove(n);
                }
            }
            _ => {}
        }
    }
    Some(d)
}

fn merge_patch(c: &Call<'_>) -> Option<Json> {
    let mut d = c.doc(0)?;
    for i in 1..c.vals.len() {
        let patch = c.doc(i)?;
        d = merge(d, patch);
    }
    Some(d)
}

/// RFC 7396: `patch` applied to `target`.
fn merge(target: Json, patch: Json) -> Json {
    let Json::Object(changes) = patch else {
        return patch;
    };
    let mut members = match target {
        Json::Object(m) => m,
        _ => Vec::new(),
    };
    for (k, v) in changes {
        let at = members.iter().position(|(name, _)| *name == k);
        match (at, v) {
            (Some(n), Json::Null) => {
                members.remove(n);
            }
            (None, Json::Null) => {}
            (Some(n), v) => {
                let old = std::mem::replace(&mut members[n].1, Json::Null);
                members[n].1 = merge(old, v);
            }
            (None, v) => members.push((k, merge(Json::Null, v))),
        }
    }
    Json::Object(members)
}

/// JSON_ARRAY_INSERT(doc, path, value, ...).
fn array_insert(c: &Call<'_>) -> Option<Json> {
    let mut d = c.doc(0)?;
    for i in (1..c.vals.len()).step_by(2) {
        let p = c.plain_path(i)?;
        let Some((Step::Index(at), parent)) = p.steps.split_last() else {
            return None;
        };
        let kind = c.kinds.get(i + 1).copied().unwrap_or(ArgKind::Plain);
        let v = value_of(&c.vals[i + 1], kind);
        if let Some(Json::Array(items)) = walk(&mut d, parent) {
            let pos = match *at {
                Index::At(n) => n,
                Index::Last(k) => items.len().checked_sub(k).unwrap_or(usize::MAX),
            };
            items.insert(pos.min(items.len()), v);
        }
    }
    Some(d)
}

fn merge_preserve_call(c: &Call<'_>) -> Option<Json> {
    let mut d = c.doc(0)?;
    for i in 1..c.vals.len() {
        let next = c.doc(i)?;
        d = merge_preserve(d, next);
    }
    Some(d)
}

/// JSON_MERGE_PRESERVE of two documents.
fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(first), Json::Object(second)) => {
            let key = |k: &str| super::doc::unescape(k);
            let first_keys: Vec<String> = first.iter().map(|(k, _)| key(k)).collect();
            let mut out = Vec::with_capacity(first.len() + second.len());
            for (k, v) in first {
                let name = key(&k);
                match second.iter().find(|(k2, _)| key(k2) == name) {
                    Some((_, v2)) => out.push((k, merge_preserve(v, v2.clone()))),
                    None => out.push((k, v)),
                }
            }
            for (k, v) in second {
                if !first_keys.contains(&key(&k)) {
                    out.push((k, v));
                }
            }
            Json::Object(out)
        }
        (a, b) => {
            let mut items = elements(a);
            items.extend(elements(b));
            Json::Array(items)
        }
    }
}

/// An array's elements, or the value as the one element.
fn elements(j: Json) -> Vec<Json> {
    match j {
        Json::Array(items) => items,
        other => vec![other],
    }
}
