//! JSON_SEARCH(doc, 'one' | 'all', pattern [, escape [, path ...]]): the paths of the scalars
//! whose text matches `pattern` with LIKE's rules, as MariaDB 10.11's `Item_func_json_search`.
//!
//! Invariants:
//! * Scalars are visited in document order; a scalar's text is a string's unescaped value and
//!   any other scalar's text as written (`true`, `null`, `1.50`). LIKE compares under the
//!   collation of the document argument (a JSON column's `utf8mb4_bin` is case-sensitive).
//! * With paths, only scalars at or below a place one of them selects count.
//! * A found place is written `$`, then `.key` with the key as written in the document (never
//!   quoted) or `[n]`. One found (or `one`): that path as a JSON string; several: a JSON array of
//!   them; none: NULL.
//! * NULL document or pattern: NULL before anything else is looked at; then a mode other than
//!   `one` / `all` is 4046, a bad path or document its warning, a NULL path NULL. The escape
//!   character was checked when the statement was compiled (compile/json.rs: a constant of at
//!   most one character, NULL or `''` meaning `\`; 1210 otherwise).

use super::doc::{unescape, Json};
use super::path::{Path, Step};
use super::Call;
use crate::expr::eval::like_match;
use crate::types::value::Value;

/// One step of a place in a document: a key as written, or an element number of an array of
/// `len` elements.
enum Place<'a> {
    Key(&'a str),
    Element(usize, usize),
}

pub(super) fn call(c: &Call<'_>) -> Value {
    search(c).unwrap_or(Value::Null)
}

fn search(c: &Call<'_>) -> Option<Value> {
    if c.vals[0].is_null() || c.vals[2].is_null() {
        return None;
    }
    let all = c.one_or_all(1)?;
    let pattern = c.text(2)?;
    let escape = c.text(3).and_then(|e| e.chars().next()).unwrap_or('\\');
    let mut paths = Vec::new();
    for i in 4..c.vals.len() {
        paths.push(c.path(i)?);
    }
    let d = c.doc(0)?;
    let mut found = Vec::new();
    let mut s = Search {
        pattern: &pattern,
        escape,
        ci: c.doc_collation.case_insensitive(),
        paths: &paths,
        first_only: !all,
        found: &mut found,
    };
    s.walk(&d, &mut Vec::new());
    match found.len() {
        0 => None,
        1 => Some(Value::Text(format!("\"{}\"", found[0]))),
        _ => {
            let quoted: Vec<String> = found.iter().map(|p| format!("\"{p}\"")).collect();
            Some(Value::Text(format!("[{}]", quoted.join(", "))))
        }
    }
}

struct Search<'a> {
    pattern: &'a str,
    escape: char,
    ci: bool,
    paths: &'a [Path],
    first_only: bool,
    found: &'a mut Vec<String>,
}

impl<'d> Search<'_> {
    fn walk(&mut self, j: &'d Json, at: &mut Vec<Place<'d>>) {
        if self.first_only && !self.found.is_empty() {
            return;
        }
        match j {
            Json::Array(items) => {
                for (n, v) in items.iter().enumerate() {
                    at.push(Place::Element(n, items.len()));
                    self.walk(v, at);
                    at.pop();
                }
            }
            Json::Object(members) => {
                for (k, v) in members {
                    at.push(Place::Key(k));
                    self.walk(v, at);
                    at.pop();
                }
            }
            scalar => {
                let wanted =
                    self.paths.is_empty() || self.paths.iter().any(|p| covers(&p.steps, at));
                let text = scalar.scalar_text().unwrap_or_default();
                if wanted && like_match(&text, self.pattern, self.escape, self.ci) {
                    self.found.push(written(at));
                }
            }
        }
    }
}

/// True if the place `at` is one `steps` select or lies below one.
fn covers(steps: &[Step], at: &[Place<'_>]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    if let Step::Descend = step {
        return covers(rest, at) || (!at.is_empty() && covers(steps, &at[1..]));
    }
    let Some((place, below)) = at.split_first() else {
        return false;
    };
    let hit = match (step, place) {
        (Step::Key(k), Place::Key(name)) => unescape(name) == *k,
        (Step::AnyKey, Place::Key(_)) => true,
        (Step::Index(i), Place::Element(n, len)) => i.resolve(*len) == Some(*n),
        (Step::AnyIndex, Place::Element(..)) => true,
        (Step::Range(a, b), Place::Element(n, len)) => match (a.resolve(*len), b.resolve(*len)) {
            (Some(a), Some(b)) => a <= *n && *n <= b,
            _ => false,
        },
        _ => false,
    };
    hit && covers(rest, below)
}

/// The text of a place: `$.key[n]...`.
fn written(at: &[Place<'_>]) -> String {
    let mut out = String::from("$");
    for p in at {
        match p {
            Place::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Place::Element(n, _) => out.push_str(&format!("[{n}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::doc::parse;
    use super::super::path;
    use super::*;

    fn places(doc: &str, pattern: &str, paths: &[&str]) -> Vec<String> {
        let d = parse(doc).unwrap();
        let paths: Vec<Path> = paths.iter().map(|p| path::parse(p).unwrap()).collect();
        let mut found = Vec::new();
        let mut s = Search {
            pattern,
            escape: '\\',
            ci: true,
            paths: &paths,
            first_only: false,
            found: &mut found,
        };
        s.walk(&d, &mut Vec::new());
        found
    }

    #[test]
    fn finds_scalars_in_document_order_below_the_paths() {
        let doc = r#"{"a":"abc","b":["abc","x",{"c":"abd"}],"k b":"ABx"}"#;
        assert_eq!(
            places(doc, "ab%", &[]),
            ["$.a", "$.b[0]", "$.b[2].c", "$.k b"]
        );
        assert_eq!(places(doc, "ab%", &["$.b"]), ["$.b[0]", "$.b[2].c"]);
        assert_eq!(places(doc, "ab_", &["$**.c", "$.a"]), ["$.a", "$.b[2].c"]);
        assert_eq!(places(doc, "%", &["$.b[last]"]), ["$.b[2].c"]);
        assert_eq!(places(doc, "%", &["$.b[0 to 1]"]), ["$.b[0]", "$.b[1]"]);
        assert_eq!(
            places(r#"[true, null, 1.50, "1.5"]"#, "1.5%", &[]),
            ["$[2]", "$[3]"]
        );
    }
}
