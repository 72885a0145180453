//! JSON paths ([`Path`]) as MariaDB 10.11 reads them: `$` then steps `.key`, `."quoted key"`,
//! `.*`, `[n]`, `[last]`, `[last-n]`, `[n to m]`, `[*]` and `**` (any depth); and the values a
//! path selects in a document ([`Path::select`]).
//!
//! A `lax` or `strict` mode word before `$` is read and ignored (MariaDB has no other mode); no
//! space may follow `$` or a step, and a bare key runs to the next `.` or `[` (spaces included).
//!
//! Invariants: a path is parsed whole or refused with MariaDB's error kind and position (the
//! byte offset just past the character that stopped it: 4042, or 4041 when the text ends inside
//! a step); selection returns values in document order, each at most once per way it is
//! reached (as MariaDB, a `**` path may reach one value twice).

use super::doc::{unescape, Json};

/// MariaDB's JSON_DEPTH_LIMIT for paths (4043 beyond it).
pub const MAX_PATH_STEPS: usize = 32;

/// An array position: from the start, or back from the last element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    At(usize),
    /// `last - n`.
    Last(usize),
}

impl Index {
    /// The element number this means in an array of `len` elements, if any.
    pub fn resolve(self, len: usize) -> Option<usize> {
        match self {
            Index::At(n) => Some(n),
            Index::Last(n) => len.checked_sub(1 + n),
        }
    }
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.key` (unescaped).
    Key(String),
    /// `.*`
    AnyKey,
    /// `[n]`, `[last-n]`.
    Index(Index),
    /// `[n to m]`
    Range(Index, Index),
    /// `[*]`
    AnyIndex,
    /// `**`: this value and every value below it.
    Descend,
}

/// A parsed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub steps: Vec<Step>,
}

/// Why a text is not a path (4041 / 4042 / 4043).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    End,
    Syntax(usize),
    Depth(usize),
}

impl Path {
    /// True if a step may select more than one value (`*`, `**`, a range).
    pub fn has_wildcard(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(
                s,
                Step::AnyKey | Step::AnyIndex | Step::Descend | Step::Range(..)
            )
        })
    }

    /// The values the path selects in `doc`, in document order.
    pub fn select<'a>(&self, doc: &'a Json) -> Vec<&'a Json> {
        let mut out = Vec::new();
        select_from(&self.steps, doc, &mut out);
        out
    }
}

fn select_from<'a>(steps: &[Step], v: &'a Json, out: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(v);
        return;
    };
    match (step, v) {
        (Step::Key(k), Json::Object(_)) => {
            if let Some(m) = v.member(k) {
                select_from(rest, m, out);
            }
        }
        (Step::AnyKey, Json::Object(m)) => m.iter().for_each(|(_, x)| select_from(rest, x, out)),
        (Step::Index(i), Json::Array(items)) => {
            if let Some(x) = i.resolve(items.len()).and_then(|n| items.get(n)) {
                select_from(rest, x, out);
            }
        }
        // A scalar or an object is an array of one element for `[0]` / `[last]`.
        (Step::Index(i), _) if i.resolve(1) == Some(0) => select_from(rest, v, out),
        (Step::AnyIndex, Json::Array(items)) => {
            items.iter().for_each(|x| select_from(rest, x, out))
        }
        (Step::Range(a, b), Json::Array(items)) => {
            let (Some(a), Some(b)) = (a.resolve(items.len()), b.resolve(items.len())) else {
                return;
            };
            for x in items.iter().take(b + 1).skip(a) {
                select_from(rest, x, out);
            }
        }
        (Step::Descend, _) => {
            select_from(rest, v, out);
            match v {
                Json::Array(items) => items.iter().for_each(|x| select_from(steps, x, out)),
                Json::Object(m) => m.iter().for_each(|(_, x)| select_from(steps, x, out)),
                _ => {}
            }
        }
        _ => {}
    }
}

/// Parses a path's text.
pub fn parse(text: &str) -> Result<Path, PathError> {
    let s = text.as_bytes();
    let mut at = skip_space(s, 0);
    for mode in [&b"lax"[..], b"strict"] {
        if s[at..].starts_with(mode) && matches!(s.get(at + mode.len()), Some(b' ' | b'\t')) {
            at = skip_space(s, at + mode.len());
        }
    }
    match s.get(at) {
        Some(b'$') => at += 1,
        Some(_) => return Err(PathError::Syntax(at + 1)),
        None => return Err(PathError::End),
    }
    let mut steps = Vec::new();
    while let Some(&c) = s.get(at) {
        at += 1;
        let step = match c {
            b'.' => key_step(s, &mut at)?,
            b'[' => index_step(s, &mut at)?,
            b'*' if s.get(at) == Some(&b'*') => {
                at += 1;
                Step::Descend
            }
            _ => return Err(PathError::Syntax(at)),
        };
        steps.push(step);
        if steps.len() > MAX_PATH_STEPS {
            return Err(PathError::Depth(at));
        }
    }
    if let Some(Step::Descend) = steps.last() {
        return Err(PathError::Syntax(at + 1));
    }
    Ok(Path { steps })
}

fn skip_space(s: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = s.get(at) {
        at += 1;
    }
    at
}

/// After `.`: `*`, a bare name or a quoted one.
fn key_step(s: &[u8], at: &mut usize) -> Result<Step, PathError> {
    match s.get(*at) {
        None => Err(PathError::End),
        Some(b'*') => {
            *at += 1;
            Ok(Step::AnyKey)
        }
        Some(b'"') => {
            let start = *at + 1;
            let mut i = start;
            loop {
                match s.get(i) {
                    None => return Err(PathError::End),
                    Some(b'\\') => i += 2,
                    Some(b'"') => break,
                    Some(_) => i += 1,
                }
            }
            *at = i + 1;
            let raw = String::from_utf8_lossy(&s[start..i.min(s.len())]);
            Ok(Step::Key(unescape(&raw)))
        }
        Some(_) => {
            let start = *at;
            while let Some(&c) = s.get(*at) {
                if matches!(c, b'.' | b'[') {
                    break;
                }
                *at += 1;
            }
            if *at == start {
                return Err(PathError::Syntax(*at + 1));
            }
            Ok(Step::Key(
                String::from_utf8_lossy(&s[start..*at]).into_owned(),
            ))
        }
    }
}

/// After `[`: `*`, an index, or `a to b`, then `]`.
fn index_step(s: &[u8], at: &mut usize) -> Result<Step, PathError> {
    *at = skip_space(s, *at);
    if s.get(*at) == Some(&b'*') {
        *at += 1;
        close(s, at)?;
        return Ok(Step::AnyIndex);
    }
    let first = index(s, at)?;
    *at = skip_space(s, *at);
    if s[*at..].starts_with(b"to") {
        *at += 2;
        let second = index(s, at)?;
        close(s, at)?;
        return Ok(Step::Range(first, second));
    }
    close(s, at)?;
    Ok(Step::Index(first))
}

fn close(s: &[u8], at: &mut usize) -> Result<(), PathError> {
    *at = skip_space(s, *at);
    match s.get(*at) {
        Some(b']') => {
            *at += 1;
            Ok(())
        }
        Some(_) => Err(PathError::Syntax(*at + 1)),
        None => Err(PathError::End),
    }
}

fn number(s: &[u8], at: &mut usize) -> Result<usize, PathError> {
    let start = *at;
    while let Some(b'0'..=b'9') = s.get(*at) {
        *at += 1;
    }
    if *at == start {
        return match s.get(*at) {
            None => Err(PathError::End),
            Some(_) => Err(PathError::Syntax(*at + 1)),
        };
    }
    std::str::from_utf8(&s[start..*at])
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or(PathError::Syntax(*at))
}

/// `n`, `last` or `last - n`.
fn index(s: &[u8], at: &mut usize) -> Result<Index, PathError> {
    *at = skip_space(s, *at);
    if !s[*at..].starts_with(b"last") {
        return number(s, at).map(Index::At);
    }
    *at += 4;
    let after = skip_space(s, *at);
    if s.get(after) != Some(&b'-') {
        return Ok(Index::Last(0));
    }
    *at = skip_space(s, after + 1);
    number(s, at).map(Index::Last)
}
