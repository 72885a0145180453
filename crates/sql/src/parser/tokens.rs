//! A small lexer ([`Lexer`], lazy: reading a statement's first keyword costs one token) and the
//! [`Cursor`] Betula's own grammars (parser/*.rs) read statements with, because sqlparser does
//! not accept them or loses parts of them (e.g. the LIKE pattern of SHOW TABLE STATUS); also
//! the grammars' error helpers ([`syntax`], [`expect_end`]) and two rewrites of MariaDB type
//! syntax for sqlparser's retry (parser/mod.rs).
//!
//! Invariant: the lexer accepts any input (unknown characters become one-character symbols);
//! words keep their original text, `upper` is for keyword matching; quoted identifiers never
//! match a keyword. Executable comments `/*! ... */` are lexed as statement text, other
//! comments skipped.

use crate::error::db_error::{DbError, DbResult};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Word {
        text: String,
        upper: String,
        quoted: bool,
    },
    Str(String),
    Num(String),
    Sym(char),
}

/// Every token of `s` with its byte offset.
pub fn lex(s: &str) -> Vec<(Tok, usize)> {
    Lexer::new(s).collect()
}

/// The tokens of a text, read one at a time (the first keyword of a statement costs one token).
pub struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    i: usize,
    /// Open executable comments (`/*!`): their `*/` is skipped.
    exec_comments: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || c == '@'
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            i: 0,
            exec_comments: 0,
        }
    }

    /// Byte offset of the next character (the text's length at the end).
    pub fn offset(&self) -> usize {
        self.i
    }

    fn at(&self, i: usize) -> Option<char> {
        let b = *self.src.as_bytes().get(i)?;
        if b < 0x80 {
            Some(b as char)
        } else {
            self.src[i..].chars().next()
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.src.as_bytes().get(i).copied()
    }

    /// The quoted text after the opening quote `q` (at `self.i`), escapes applied.
    fn quoted(&mut self, q: char) -> String {
        let mut v = String::new();
        self.i += 1;
        while let Some(c) = self.at(self.i) {
            if c == '\\' && q != '`' && self.i + 1 < self.src.len() {
                let o = self.at(self.i + 1).unwrap_or('\\');
                // MariaDB's escapes; `\%` and `\_` keep their backslash (for LIKE); any other
                // escaped character is itself.
                match o {
                    'n' => v.push('\n'),
                    't' => v.push('\t'),
                    '0' => v.push('\0'),
                    'r' => v.push('\r'),
                    'b' => v.push('\u{8}'),
                    'Z' => v.push('\u{1a}'),
                    '%' | '_' => {
                        v.push('\\');
                        v.push(o);
                    }
                    o => v.push(o),
                }
                self.i += 1 + o.len_utf8();
            } else if c == q {
                if self.at(self.i + 1) == Some(q) {
                    v.push(q);
                    self.i += 2;
                } else {
                    self.i += 1;
                    break;
                }
            } else {
                v.push(c);
                self.i += c.len_utf8();
            }
        }
        v
    }
}

impl Iterator for Lexer<'_> {
    type Item = (Tok, usize);

    fn next(&mut self) -> Option<(Tok, usize)> {
        let len = self.src.len();
        while let Some(c) = self.at(self.i) {
            let start = self.i;
            if c.is_whitespace() {
                self.i += c.len_utf8();
            } else if c == '#' || (c == '-' && self.byte(self.i + 1) == Some(b'-')) {
                while self.i < len && self.byte(self.i) != Some(b'\n') {
                    self.i += 1;
                }
            } else if c == '/'
                && self.byte(self.i + 1) == Some(b'*')
                && self.byte(self.i + 2) == Some(b'!')
            {
                // MySQL's executable comment `/*!NNNNN text */`: its text is part of the statement
                self.i += 3;
                while self.byte(self.i).is_some_and(|b| b.is_ascii_digit()) {
                    self.i += 1;
                }
                self.exec_comments += 1;
            } else if self.exec_comments > 0 && c == '*' && self.byte(self.i + 1) == Some(b'/') {
                self.i += 2;
                self.exec_comments -= 1;
            } else if c == '/' && self.byte(self.i + 1) == Some(b'*') {
                self.i += 2;
                while self.i + 1 < len
                    && !(self.byte(self.i) == Some(b'*') && self.byte(self.i + 1) == Some(b'/'))
                {
                    self.i += 1;
                }
                self.i = (self.i + 2).min(len);
            } else if c == '\'' || c == '"' || c == '`' {
                let v = self.quoted(c);
                let tok = if c == '`' {
                    Tok::Word {
                        upper: String::new(),
                        text: v,
                        quoted: true,
                    }
                } else {
                    Tok::Str(v)
                };
                return Some((tok, start));
            } else if c.is_ascii_digit() {
                while self
                    .byte(self.i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
                {
                    self.i += 1;
                }
                return Some((Tok::Num(self.src[start..self.i].to_string()), start));
            } else if is_word_char(c) {
                while let Some(w) = self.at(self.i).filter(|w| is_word_char(*w)) {
                    self.i += w.len_utf8();
                }
                let text = self.src[start..self.i].to_string();
                return Some((
                    Tok::Word {
                        upper: text.to_ascii_uppercase(),
                        text,
                        quoted: false,
                    },
                    start,
                ));
            } else {
                self.i += c.len_utf8();
                return Some((Tok::Sym(c), start));
            }
        }
        None
    }
}

/// `sql` with `REAL (M,D)` and `DOUBLE PRECISION (M,D)` written as `DOUBLE (M,D)` (MariaDB's
/// synonyms, which sqlparser accepts only without the digits), or `None` if there is none.
pub fn with_double_for_real_digits(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let kw = |i: usize, k: &str| matches!(toks.get(i), Some((Tok::Word { upper, quoted: false, .. }, _)) if upper == k);
    let open = |i: usize| matches!(toks.get(i), Some((Tok::Sym('('), _)));
    // (start byte, end byte) of the words to replace by DOUBLE
    let mut cut = Vec::new();
    for i in 0..toks.len() {
        if kw(i, "REAL") && open(i + 1) {
            cut.push((toks[i].1, toks[i + 1].1));
        } else if kw(i, "DOUBLE") && kw(i + 1, "PRECISION") && open(i + 2) {
            cut.push((toks[i].1, toks[i + 2].1));
        }
    }
    if cut.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    let mut from = 0;
    for (a, b) in cut {
        out.push_str(&sql[from..a]);
        out.push_str("DOUBLE");
        from = b;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// Numeric type names that take UNSIGNED / ZEROFILL (BOOL does not: MariaDB refuses it).
const NUMERIC_TYPES: [&str; 18] = [
    "TINYINT",
    "SMALLINT",
    "MEDIUMINT",
    "INT",
    "INTEGER",
    "BIGINT",
    "INT1",
    "INT2",
    "INT3",
    "INT4",
    "INT8",
    "FLOAT",
    "DOUBLE",
    "REAL",
    "DECIMAL",
    "DEC",
    "NUMERIC",
    "FIXED",
];

/// `sql` with the numeric type modifiers sqlparser does not accept rewritten into types it does:
/// `<type>[(..)] [UNSIGNED|SIGNED]... ZEROFILL ...` becomes the custom type `ZEROFILL_<type>[(..)]`
/// (ZEROFILL implies UNSIGNED; `type_text::parse_type` reads it back), and `NUMERIC|FIXED[(..)]
/// UNSIGNED` becomes `DECIMAL[(..)] UNSIGNED`. `None` if nothing changed.
pub fn with_numeric_modifiers_as_types(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let word = |i: usize| match toks.get(i) {
        Some((
            Tok::Word {
                upper,
                quoted: false,
                ..
            },
            _,
        )) => Some(upper.as_str()),
        _ => None,
    };
    let start_of = |i: usize| toks.get(i).map_or(sql.len(), |t| t.1);
    // (start byte, end byte, replacement)
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some(name) = word(i).filter(|w| NUMERIC_TYPES.contains(w)) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        let mut name = name.to_string();
        if name == "DOUBLE" && word(j) == Some("PRECISION") {
            j += 1;
        }
        // the parenthesized digits, kept as written
        let mut args = String::new();
        if matches!(toks.get(j), Some((Tok::Sym('('), _))) {
            let open = j;
            while j < toks.len() && !matches!(toks[j].0, Tok::Sym(')')) {
                j += 1;
            }
            j = (j + 1).min(toks.len());
            args = sql[start_of(open)..start_of(j).min(sql.len())]
                .trim_end()
                .to_string();
        }
        let mods_start = j;
        let (mut zerofill, mut unsigned) = (false, false);
        while let Some(m @ ("UNSIGNED" | "SIGNED" | "ZEROFILL")) = word(j) {
            zerofill |= m == "ZEROFILL";
            unsigned |= m == "UNSIGNED";
            j += 1;
        }
        if name == "REAL" || name == "DOUBLE" {
            name = "DOUBLE".into();
        }
        if zerofill {
            edits.push((start_of(i), start_of(j), format!("ZEROFILL_{name}{args} ")));
        } else if unsigned && (name == "NUMERIC" || name == "FIXED") {
            edits.push((start_of(i), start_of(j), format!("DECIMAL{args} UNSIGNED ")));
        }
        i = j.max(mods_start).max(i + 1);
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    let mut from = 0;
    for (a, b, r) in edits {
        out.push_str(&sql[from..a]);
        out.push_str(&r);
        from = b;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// Error 1064 near the cursor's position.
pub fn syntax(c: &Cursor<'_>) -> DbError {
    DbError::syntax(c.rest().chars().take(80).collect::<String>())
}

/// Ok at the end of the statement, 1064 otherwise.
pub fn expect_end(c: &Cursor<'_>) -> DbResult<()> {
    if c.at_end() {
        Ok(())
    } else {
        Err(syntax(c))
    }
}

pub struct Cursor<'a> {
    pub src: &'a str,
    toks: Vec<(Tok, usize)>,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor {
            src,
            toks: lex(src),
            pos: 0,
        }
    }
    pub fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    pub fn peek_kw(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Word {
                upper,
                quoted: false,
                ..
            }) => Some(upper),
            _ => None,
        }
    }
    /// The token `n` after the current one.
    pub fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.0)
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    /// Consumes `kw` if it is next.
    pub fn kw(&mut self, kw: &str) -> bool {
        if self.peek_kw() == Some(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// Consumes the keywords in order if they are all next.
    pub fn kws(&mut self, kws: &[&str]) -> bool {
        let save = self.pos;
        for k in kws {
            if !self.kw(k) {
                self.pos = save;
                return false;
            }
        }
        true
    }
    pub fn sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// An identifier or a string used as a name.
    pub fn name(&mut self) -> Option<String> {
        match self.peek()?.clone() {
            Tok::Word { text, .. } => {
                self.pos += 1;
                Some(text)
            }
            Tok::Str(s) => {
                self.pos += 1;
                Some(s)
            }
            Tok::Num(n) => {
                self.pos += 1;
                Some(n)
            }
            Tok::Sym(_) => None,
        }
    }
    pub fn string(&mut self) -> Option<String> {
        match self.peek()?.clone() {
            Tok::Str(s) => {
                self.pos += 1;
                Some(s)
            }
            _ => None,
        }
    }
    /// `a` or `a.b` as parts.
    pub fn qualified(&mut self) -> Option<Vec<String>> {
        let mut v = vec![self.name()?];
        while self.sym('.') {
            v.push(self.name()?);
        }
        Some(v)
    }
    /// `'user'@'host'` (host defaults to `%`).
    pub fn user(&mut self) -> Option<(String, String)> {
        let u = self.name()?;
        if let Some((a, b)) = u.split_once('@') {
            if !a.is_empty() {
                // `u@'host'` lexes as the word `u@` and the string.
                let host = if b.is_empty() {
                    self.name()?
                } else {
                    b.to_string()
                };
                return Some((a.to_string(), host));
            }
        }
        let host = if self.sym('@') {
            self.name()?
        } else if let Some(Tok::Word {
            text,
            quoted: false,
            ..
        }) = self.peek().cloned()
        {
            match text.strip_prefix('@') {
                Some("") => {
                    self.pos += 1;
                    self.name()?
                }
                Some(h) => {
                    self.pos += 1;
                    h.to_string()
                }
                None => "%".into(),
            }
        } else {
            "%".into()
        };
        Some((u, host))
    }
    /// Consumes tokens up to (not including) a top-level `,` or the end; returns their text.
    pub fn clause(&mut self) -> &'a str {
        let start = self.toks.get(self.pos).map_or(self.src.len(), |t| t.1);
        let mut depth = 0i32;
        while let Some((t, _)) = self.toks.get(self.pos) {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(',') if depth <= 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        let end = self.toks.get(self.pos).map_or(self.src.len(), |t| t.1);
        &self.src[start..end]
    }

    /// Byte offset of the current token in `src` (its length at the end).
    pub fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.len(), |t| t.1)
    }

    /// The keyword `n` tokens before the current one (upper case), if it is an unquoted word.
    pub fn toks_back(&self, n: usize) -> Option<&str> {
        match self.toks.get(self.pos.checked_sub(n)?) {
            Some((
                Tok::Word {
                    upper,
                    quoted: false,
                    ..
                },
                _,
            )) => Some(upper),
            _ => None,
        }
    }

    /// The source text from the current token on.
    pub fn rest(&self) -> &'a str {
        match self.toks.get(self.pos) {
            Some((_, off)) => &self.src[*off..],
            None => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_escapes_read_as_mariadb_reads_them() {
        let toks = lex(r"'\f\v\a\t\b\Z\0\%\_\q\n\r\\' 'it''s'");
        let strs: Vec<&str> = toks
            .iter()
            .filter_map(|(t, _)| match t {
                Tok::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(strs, ["fva\t\u{8}\u{1a}\0\\%\\_q\n\r\\", "it's"]);
    }

    #[test]
    fn numeric_modifiers_become_parseable_types() {
        let r = with_numeric_modifiers_as_types(
            "CREATE TABLE t (a INT(5) UNSIGNED ZEROFILL NOT NULL, b NUMERIC(10,2) UNSIGNED, c INT)",
        )
        .unwrap();
        assert_eq!(
            r,
            "CREATE TABLE t (a ZEROFILL_INT(5) NOT NULL, b DECIMAL(10,2) UNSIGNED , c INT)"
        );
        assert_eq!(
            with_numeric_modifiers_as_types("x DOUBLE PRECISION ZEROFILL").unwrap(),
            "x ZEROFILL_DOUBLE "
        );
        assert!(with_numeric_modifiers_as_types("SELECT CAST(a AS DECIMAL(5,2))").is_none());
        assert!(with_numeric_modifiers_as_types("b BOOL ZEROFILL").is_none());
        assert_eq!(
            with_double_for_real_digits("r REAL(1,1), d DOUBLE PRECISION (10,10)").unwrap(),
            "r DOUBLE(1,1), d DOUBLE(10,10)"
        );
    }
}
