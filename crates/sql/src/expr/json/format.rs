//! JSON_COMPACT, JSON_LOOSE and JSON_DETAILED (JSON_PRETTY): a document written anew in one of
//! MariaDB's three layouts (`json_nice` in `item_jsonfunc.cc`).
//!
//! Invariants: scalars keep the text they were written with (doc.rs); only the space between
//! tokens changes.
//! * compact: nothing between tokens (`{"a":1,"b":[1,2]}`);
//! * loose: `, ` between members and `": ` after a key ([`Json::write`], the layout every
//!   function that gives a document uses);
//! * detailed: each member of an object and each element of an array on a line of its own,
//!   indented by the tab size (the second argument, 4 by default, held to 0..=8) per level,
//!   `,` ending a line; a container after a key starts on the next line; an empty array or an
//!   array of one scalar stays on its line (`[]`, `[3]`); an empty object is `{`, a new line,
//!   `}`.

use super::doc::Json;
use super::{json_text, Call, JsonFunc};
use crate::types::value::Value;

/// MariaDB's largest tab size for JSON_DETAILED.
const TAB_SIZE_MAX: i64 = 8;
const TAB_SIZE_DEFAULT: usize = 4;

pub(super) fn call(c: &Call<'_>) -> Value {
    let v = match c.func {
        JsonFunc::Loose => c.doc(0).map(|d| json_text(&d)),
        JsonFunc::Compact => c.doc(0).map(|d| {
            let mut out = String::new();
            compact(&d, &mut out);
            Value::Text(out)
        }),
        _ => detailed_call(c),
    };
    v.unwrap_or(Value::Null)
}

fn detailed_call(c: &Call<'_>) -> Option<Value> {
    let d = c.doc(0)?;
    let tab = match c.vals.get(1) {
        None => TAB_SIZE_DEFAULT,
        Some(Value::Null) => return None,
        Some(v) => v
            .to_f64_lenient()
            .map_or(0, |n| (n as i64).clamp(0, TAB_SIZE_MAX) as usize),
    };
    let mut out = String::new();
    detailed(&d, 0, tab, &mut out);
    Some(Value::Text(out))
}

fn compact(j: &Json, out: &mut String) {
    match j {
        Json::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(v, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                out.push_str(k);
                out.push_str("\":");
                compact(v, out);
            }
            out.push('}');
        }
        scalar => scalar.write_to(out),
    }
}

fn new_line(out: &mut String, depth: usize, tab: usize) {
    out.push('\n');
    out.push_str(&" ".repeat(depth * tab));
}

fn detailed(j: &Json, depth: usize, tab: usize, out: &mut String) {
    match j {
        Json::Array(items) if items.is_empty() || (items.len() == 1 && items[0].is_scalar()) => {
            out.push('[');
            if let Some(v) = items.first() {
                v.write_to(out);
            }
            out.push(']');
        }
        Json::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                new_line(out, depth + 1, tab);
                detailed(v, depth + 1, tab, out);
            }
            new_line(out, depth, tab);
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                new_line(out, depth + 1, tab);
                out.push('"');
                out.push_str(k);
                out.push_str("\": ");
                if !v.is_scalar() {
                    new_line(out, depth + 1, tab);
                }
                detailed(v, depth + 1, tab, out);
            }
            new_line(out, depth, tab);
            out.push('}');
        }
        scalar => scalar.write_to(out),
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc::parse;
    use super::*;

    fn layout(text: &str, tab: usize) -> (String, String) {
        let d = parse(text).unwrap();
        let (mut c, mut p) = (String::new(), String::new());
        compact(&d, &mut c);
        detailed(&d, 0, tab, &mut p);
        (c, p)
    }

    #[test]
    fn compact_and_detailed_layouts_are_mariadbs() {
        let (c, p) = layout(r#"{ "a" : 1, "b" : [ 1 , 2 , {"c":[ ]} ], "d":{ } }"#, 4);
        assert_eq!(c, r#"{"a":1,"b":[1,2,{"c":[]}],"d":{}}"#);
        assert_eq!(
            p,
            "{\n    \"a\": 1,\n    \"b\": \n    [\n        1,\n        2,\n        {\n            \"c\": \n            []\n        }\n    ],\n    \"d\": \n    {\n    }\n}"
        );
        assert_eq!(layout("[[1], [2]]", 2).1, "[\n  [1],\n  [2]\n]");
        assert_eq!(layout("[ 1.0E2 ]", 4).1, "[1.0E2]");
        assert_eq!(layout("{}", 4).1, "{\n}");
        assert_eq!(layout("[1,2]", 0).1, "[\n1,\n2\n]");
    }
}
