//! A small lexer and cursor for the statements Betula parses itself (SHOW, USE, transaction
//! control, database/user/index DDL) because sqlparser does not accept them or loses parts of
//! them (e.g. the LIKE pattern of SHOW TABLE STATUS).
//!
//! Invariant: the lexer accepts any input (unknown bytes become one-character symbols); words
//! keep their original text, `upper` is for keyword matching; quoted identifiers never match a
//! keyword. Executable comments `/*! ... */` are lexed as statement text, other comments skipped.

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

pub fn lex(s: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = s.chars().collect();
    let mut byte_pos = Vec::with_capacity(b.len() + 1);
    let mut acc = 0;
    for c in &b {
        byte_pos.push(acc);
        acc += c.len_utf8();
    }
    byte_pos.push(acc);
    let mut out = Vec::new();
    let mut i = 0;
    let mut exec_comments = 0;
    while i < b.len() {
        let c = b[i];
        let start = byte_pos[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' || (c == '-' && b.get(i + 1) == Some(&'-')) {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') && b.get(i + 2) == Some(&'!') {
            // MySQL's executable comment `/*!NNNNN text */`: its text is part of the statement
            i += 3;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            exec_comments += 1;
        } else if exec_comments > 0 && c == '*' && b.get(i + 1) == Some(&'/') {
            i += 2;
            exec_comments -= 1;
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '\'' || c == '"' || c == '`' {
            let q = c;
            let mut v = String::new();
            i += 1;
            while i < b.len() {
                if b[i] == '\\' && q != '`' && i + 1 < b.len() {
                    v.push(match b[i + 1] {
                        'n' => '\n',
                        't' => '\t',
                        '0' => '\0',
                        'r' => '\r',
                        o => o,
                    });
                    i += 2;
                } else if b[i] == q {
                    if b.get(i + 1) == Some(&q) {
                        v.push(q);
                        i += 2;
                    } else {
                        i += 1;
                        break;
                    }
                } else {
                    v.push(b[i]);
                    i += 1;
                }
            }
            out.push((
                if q == '`' {
                    Tok::Word {
                        upper: String::new(),
                        text: v,
                        quoted: true,
                    }
                } else {
                    Tok::Str(v)
                },
                start,
            ));
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '.') {
                i += 1;
            }
            out.push((Tok::Num(b[st..i].iter().collect()), start));
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '@' {
            let st = i;
            while i < b.len()
                && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '$' || b[i] == '@')
            {
                i += 1;
            }
            let text: String = b[st..i].iter().collect();
            out.push((
                Tok::Word {
                    upper: text.to_ascii_uppercase(),
                    text,
                    quoted: false,
                },
                start,
            ));
        } else {
            out.push((Tok::Sym(c), start));
            i += 1;
        }
    }
    out
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
                return Some((a.to_string(), b.to_string()));
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
