//! The JSON document of EXPLAIN FORMAT=JSON, printed as MariaDB 10.11's `Json_writer` prints
//! it: objects one member a line, indented by 2 spaces a level, `"name": value`; an array of
//! objects one element a line; an array of scalars on one line (`["a", "b"]`) when it fits in
//! MariaDB's 80-character line, else one element a line.
//!
//! Invariants: members keep the order they were added in (MariaDB's key order is the order its
//! explain code writes them); strings are escaped as JSON requires.

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Str(String),
    Int(i64),
    Bool(bool),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// MariaDB's `Single_line_formatting_helper::MAX_LINE_LEN`.
const MAX_LINE_LEN: usize = 80;

impl Json {
    /// An object of `members`, in order.
    pub fn object(members: Vec<(&str, Json)>) -> Json {
        Json::Object(
            members
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    pub fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    /// The document as MariaDB prints it (no trailing newline).
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(0, &mut out);
        out
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    fn write(&self, indent: usize, out: &mut String) {
        match self {
            Json::Str(s) => quote(s, out),
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    pad(indent + 2, out);
                    quote(k, out);
                    out.push_str(": ");
                    v.write_member(k, indent + 2, out);
                }
                out.push('\n');
                pad(indent, out);
                out.push('}');
            }
            Json::Array(items) => self.write_lines(items, indent, out),
        }
    }

    /// A member's value: an array of scalars that fits goes on the member's line.
    fn write_member(&self, name: &str, indent: usize, out: &mut String) {
        if let Json::Array(items) = self {
            if !items.is_empty() && items.iter().all(Json::is_scalar) {
                let texts: Vec<String> = items.iter().map(|v| v.pretty()).collect();
                // The helper gives up when the buffered `"name": [a, b` would pass the line.
                let mut len = name.len() + 4;
                let fits = texts.iter().all(|t| {
                    len += t.len() + 2;
                    len <= MAX_LINE_LEN
                });
                if fits {
                    out.push('[');
                    out.push_str(&texts.join(", "));
                    out.push(']');
                    return;
                }
            }
        }
        self.write(indent, out)
    }

    fn write_lines(&self, items: &[Json], indent: usize, out: &mut String) {
        out.push('[');
        for (i, v) in items.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            pad(indent + 2, out);
            v.write(indent + 2, out);
        }
        out.push('\n');
        pad(indent, out);
        out.push(']');
    }
}

fn pad(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// `s` as a JSON string.
fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_nest_by_two_spaces_and_short_arrays_stay_on_one_line() {
        let table = Json::object(vec![
            ("table_name", Json::str("t1")),
            ("used_key_parts", Json::Array(vec![Json::str("pk")])),
            ("rows", Json::Int(11)),
            ("using_index", Json::Bool(true)),
        ]);
        let doc = Json::object(vec![(
            "nested_loop",
            Json::Array(vec![Json::object(vec![("table", table)])]),
        )]);
        let want = "{\n  \"nested_loop\": [\n    {\n      \"table\": {\n        \
                    \"table_name\": \"t1\",\n        \"used_key_parts\": [\"pk\"],\n        \
                    \"rows\": 11,\n        \"using_index\": true\n      }\n    }\n  ]\n}";
        assert_eq!(doc.pretty(), want);
    }

    #[test]
    fn long_scalar_arrays_take_a_line_each() {
        let parts: Vec<Json> = (0..8).map(|i| Json::Str(format!("column_{i}"))).collect();
        let doc = Json::object(vec![("used_key_parts", Json::Array(parts))]);
        let text = doc.pretty();
        assert!(text.starts_with("{\n  \"used_key_parts\": [\n    \"column_0\",\n"));
        assert!(text.ends_with("    \"column_7\"\n  ]\n}"));
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(Json::str("a\"b\\c").pretty(), "\"a\\\"b\\\\c\"");
    }
}
