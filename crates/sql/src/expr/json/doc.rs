//! A JSON document as a tree ([`Json`]): MariaDB's text → tree ([`parse`]) with MariaDB's
//! error kinds and positions, and tree → text ([`Json::write`]) in MariaDB's output format.
//!
//! Invariants:
//! * A scalar keeps the text it was written with: a number its digits (`1.0E2` stays `1.0E2`),
//!   a string the escaped text between its quotes (`"\u00e9"` stays so); only containers are
//!   written anew, as MariaDB writes them: `[1, 2]`, `{"a": 1, "b": []}` (", " between members,
//!   ": " after a key, nothing inside an empty one).
//! * [`parse`] accepts exactly RFC 8259 text as MariaDB's json_lib does: whitespace is space,
//!   tab, CR and LF; no leading zeros; a control character inside a string is refused; `\u`
//!   needs four hex digits, any other escaped character stands for itself (as MariaDB); fewer
//!   than [`MAX_DEPTH`] nested containers (MariaDB 10.11 refuses the 32nd). `parse(write(t)) == t` for every tree.
//! * An error's position is the byte offset just past the character that stopped the parse
//!   (MariaDB's `at position N`).

/// MariaDB's JSON_DEPTH_LIMIT: the container that would be nested this deep is error 4040 (at
/// most 31 nested containers, whose deepest value JSON_DEPTH counts as level 32).
pub const MAX_DEPTH: usize = 32;

/// One JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number as written.
    Number(String),
    /// A string: its escaped text, without the quotes.
    Str(String),
    Array(Vec<Json>),
    /// Members in written order; a repeated key is kept (MariaDB keeps both).
    Object(Vec<(String, Json)>),
}

/// Why a text is not JSON, in MariaDB's terms (error numbers 4036, 4037, 4038, 4040).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// 4037: the text ends inside a value.
    End,
    /// 4038 at the position.
    Syntax(usize),
    /// 4036: a character not allowed (a control character in a string) at the position.
    BadChar(usize),
    /// 4040: nested deeper than [`MAX_DEPTH`] at the position.
    Depth(usize),
}

/// Parses `text` as one JSON value (whitespace around it allowed).
pub fn parse(text: &str) -> Result<Json, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
    };
    let v = p.value(0)?;
    p.skip_space();
    if p.at < p.s.len() {
        return Err(ParseError::Syntax(p.at + 1));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.at) {
            self.at += 1;
        }
    }

    /// The next non-space byte, consumed.
    fn next(&mut self) -> Result<u8, ParseError> {
        self.skip_space();
        let c = *self.s.get(self.at).ok_or(ParseError::End)?;
        self.at += 1;
        Ok(c)
    }

    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        let c = self.next()?;
        match c {
            b'{' | b'[' if depth + 1 >= MAX_DEPTH => Err(ParseError::Depth(self.at)),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => Ok(Json::Str(self.string()?)),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word("rue", Json::Bool(true)),
            b'f' => self.word("alse", Json::Bool(false)),
            b'n' => self.word("ull", Json::Null),
            _ => Err(ParseError::Syntax(self.at)),
        }
    }

    fn word(&mut self, rest: &str, v: Json) -> Result<Json, ParseError> {
        for &want in rest.as_bytes() {
            match self.s.get(self.at) {
                None => return Err(ParseError::End),
                Some(&c) => {
                    self.at += 1;
                    if c != want {
                        return Err(ParseError::Syntax(self.at));
                    }
                }
            }
        }
        Ok(v)
    }

    fn digits(&mut self) -> Result<usize, ParseError> {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.s.get(self.at) {
            self.at += 1;
        }
        match self.at - start {
            0 if self.at >= self.s.len() => Err(ParseError::End),
            0 => Err(ParseError::Syntax(self.at + 1)),
            n => Ok(n),
        }
    }

    /// A number; its first byte (`-` or a digit) is consumed.
    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.at - 1;
        if self.s[start] == b'-' {
            self.digits()?;
        } else {
            self.at = start;
            self.digits()?;
        }
        let int = &self.s[start..self.at];
        let int = int.strip_prefix(b"-").unwrap_or(int);
        if int.len() > 1 && int[0] == b'0' {
            return Err(ParseError::Syntax(
                start + 2 + usize::from(self.s[start] == b'-'),
            ));
        }
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.s.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.s.get(self.at) {
                self.at += 1;
            }
            self.digits()?;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
        Ok(Json::Number(text))
    }

    /// A string's escaped text; its opening quote is consumed.
    fn string(&mut self) -> Result<String, ParseError> {
        let start = self.at;
        loop {
            let c = *self.s.get(self.at).ok_or(ParseError::End)?;
            self.at += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.s.get(self.at).ok_or(ParseError::End)?;
                    self.at += 1;
                    match e {
                        b'u' => {
                            for _ in 0..4 {
                                let h = *self.s.get(self.at).ok_or(ParseError::End)?;
                                if !h.is_ascii_hexdigit() {
                                    return Err(ParseError::Syntax(self.at));
                                }
                                self.at += 1;
                            }
                        }
                        0..=0x1f => return Err(ParseError::BadChar(self.at)),
                        // MariaDB takes any other escaped character as itself.
                        _ => {}
                    }
                }
                0..=0x1f => return Err(ParseError::BadChar(self.at)),
                _ => {}
            }
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.at - 1]).into_owned())
    }

    fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
        let mut items = Vec::new();
        self.skip_space();
        if self.s.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            match self.next()? {
                b',' => {}
                b']' => return Ok(Json::Array(items)),
                _ => return Err(ParseError::Syntax(self.at)),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
        let mut members = Vec::new();
        self.skip_space();
        if self.s.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            if self.next()? != b'"' {
                return Err(ParseError::Syntax(self.at));
            }
            let key = self.string()?;
            if self.next()? != b':' {
                return Err(ParseError::Syntax(self.at));
            }
            members.push((key, self.value(depth)?));
            match self.next()? {
                b',' => {}
                b'}' => return Ok(Json::Object(members)),
                _ => return Err(ParseError::Syntax(self.at)),
            }
        }
    }
}

impl Json {
    /// The text MariaDB writes for this value.
    pub fn write(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }

    pub fn write_to(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::Str(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Json::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_to(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\": ");
                    v.write_to(out);
                }
                out.push('}');
            }
        }
    }

    /// A string value of unescaped text `s`.
    pub fn string(s: &str) -> Json {
        Json::Str(escape(s))
    }

    /// The member `key` (unescaped) of an object.
    pub fn member(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| unescape(k) == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// JSON_TYPE's name of the value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Number(n) if n.contains('.') => "DOUBLE",
            Json::Number(_) => "INTEGER",
            Json::Str(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    /// JSON_DEPTH: 1 for a scalar or an empty container, one more than the deepest member.
    pub fn depth(&self) -> usize {
        let inner = match self {
            Json::Array(items) => items.iter().map(Json::depth).max(),
            Json::Object(m) => m.iter().map(|(_, v)| v.depth()).max(),
            _ => None,
        };
        inner.map_or(1, |d| d + 1)
    }

    /// The text a scalar stands for (a string unescaped, a number as written); `None` for a
    /// container.
    pub fn scalar_text(&self) -> Option<String> {
        Some(match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.clone(),
            Json::Str(s) => unescape(s),
            _ => return None,
        })
    }
}

/// `s` escaped for the inside of a JSON string (as MariaDB's JSON_QUOTE escapes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The text of a string's escaped inside (escapes already checked by [`parse`]).
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let first = hex_unit(&mut it);
                let code = if (0xd800..0xdc00).contains(&first) {
                    match it.as_str().starts_with("\\u") {
                        true => {
                            it.next();
                            it.next();
                            let low = hex_unit(&mut it);
                            0x10000 + ((first - 0xd800) << 10) + (low.wrapping_sub(0xdc00) & 0x3ff)
                        }
                        false => 0xfffd,
                    }
                } else {
                    first
                };
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The four hex digits of a `\u` escape.
fn hex_unit(it: &mut std::str::Chars<'_>) -> u32 {
    let h: String = it.take(4).collect();
    u32::from_str_radix(&h, 16).unwrap_or(0xfffd)
}
