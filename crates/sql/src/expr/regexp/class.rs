//! Character classes (`[...]`) of MariaDB's patterns, translated for the `regex` crate (the rest
//! of a pattern: pattern.rs).
//!
//! A class is read member by member: characters and ranges, escapes (`\d`, `\w`, `\s` and their
//! negations, `\p{..}`, single characters), POSIX classes (`[:alpha:]`, `[:^digit:]`).
//! Invariants:
//! * `]` first (after an optional `^`) is a literal, as in PCRE2.
//! * Members PCRE2 never folds under caseless matching (`\p{..}`, `[:lower:]`, `[:upper:]`,
//!   `[:ascii:]`) are matched inside `(?-i:...)`: a class mixing them with other members becomes
//!   an alternation of the two halves; a negated class cannot be split that way and mixing is
//!   then refused.
//! * POSIX classes that PCRE2 defines by rules of its own under UCP (`graph`, `print`, `punct`)
//!   are refused.

use super::pattern::{Translator, SPACE_A, SPACE_U, WORD_A, WORD_U};

/// One member of a class, as written inside `[...]`.
enum Member {
    Char(u32),
    /// A set that case folding leaves as it is (`\d`, `[:alpha:]`, ...).
    Set(String),
    /// A set PCRE2 never folds (`\p{Lu}`, `[:upper:]`).
    Rigid(String),
    /// Nothing (`\E`).
    None,
}

impl Translator {
    /// After `[`: the class up to its `]`.
    pub(super) fn class(&mut self) -> Result<(), String> {
        let negated = self.eat('^');
        let (mut folded, mut rigid) = (String::new(), String::new());
        let mut first = true;
        loop {
            let c = self
                .next()
                .ok_or_else(|| self.error("missing terminating ] for character class"))?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let m = self.member(c)?;
            match m {
                Member::Char(lo) if self.peek() == Some('-') && !self.range_ends_class() => {
                    self.i += 1;
                    let hi = self.range_end()?;
                    if hi < lo {
                        return Err(self.error("range out of order in character class"));
                    }
                    folded.push_str(&self.class_char(lo));
                    folded.push('-');
                    folded.push_str(&self.class_char(hi));
                }
                Member::Char(c) => folded.push_str(&self.class_char(c)),
                Member::Set(s) => folded.push_str(&s),
                Member::Rigid(s) => rigid.push_str(&s),
                Member::None => {}
            }
        }
        let neg = if negated { "^" } else { "" };
        let s = match (folded.is_empty(), rigid.is_empty()) {
            (true, true) => return Err(self.error("empty character class")),
            (false, true) => format!("[{neg}{folded}]"),
            (true, false) => format!("(?-i:[{neg}{rigid}])"),
            (false, false) if !negated => format!("(?:(?-i:[{rigid}])|[{folded}])"),
            (false, false) => {
                return Err(self.unsupported(
                    "a negated class mixing case-sensitive classes with other members",
                ))
            }
        };
        self.out.push_str(&s);
        Ok(())
    }

    /// True if the `-` ahead ends the class (`[a-]`), so it is a literal.
    fn range_ends_class(&self) -> bool {
        matches!(self.peek_at(1), Some(']') | None)
    }

    fn range_end(&mut self) -> Result<u32, String> {
        let c = self
            .next()
            .ok_or_else(|| self.error("missing terminating ] for character class"))?;
        if c == '[' && matches!(self.peek(), Some(':' | '.' | '=')) {
            return Err(self.error("invalid range in character class"));
        }
        match self.member(c)? {
            Member::Char(hi) => Ok(hi),
            _ => Err(self.error("invalid range in character class")),
        }
    }

    fn member(&mut self, c: char) -> Result<Member, String> {
        match c {
            '[' if self.peek() == Some(':') => self.posix(),
            '[' if matches!(self.peek(), Some('.' | '=')) => {
                Err(self.unsupported("POSIX collating element"))
            }
            '\\' => self.class_escape(),
            c => Ok(Member::Char(c as u32)),
        }
    }

    fn class_escape(&mut self) -> Result<Member, String> {
        let c = self
            .next()
            .ok_or_else(|| self.error("\\ at end of pattern"))?;
        let u = self.unicode;
        let set = |s: &str| Ok(Member::Set(s.to_string()));
        match c {
            'd' if u => set(r"\p{Nd}"),
            'D' if u => set(r"\P{Nd}"),
            'd' => set("0-9"),
            'D' => set("[^0-9]"),
            'w' => set(if u { WORD_U } else { WORD_A }),
            'W' => set(&format!("[^{}]", if u { WORD_U } else { WORD_A })),
            's' => set(if u { SPACE_U } else { SPACE_A }),
            'S' => set(&format!("[^{}]", if u { SPACE_U } else { SPACE_A })),
            'b' => Ok(Member::Char(8)),
            'E' => Ok(Member::None),
            'Q' => Err(self.unsupported("\\Q inside a character class")),
            'p' | 'P' => Ok(Member::Rigid(self.property(c)?)),
            '1'..='9' => Err(self.unsupported("an octal escape inside a character class")),
            'B' | 'A' | 'z' | 'Z' => {
                Err(self.error("escape sequence is invalid in character class"))
            }
            _ => Ok(Member::Char(self.char_escape(c)?)),
        }
    }

    /// After `[` with `:` ahead: `[:name:]` or `[:^name:]`.
    fn posix(&mut self) -> Result<Member, String> {
        self.i += 1;
        let negated = self.eat('^');
        let mut name = String::new();
        while let Some(c) = self.next() {
            if c == ':' && self.eat(']') {
                return self.posix_set(&name, negated);
            }
            if !c.is_ascii_lowercase() {
                break;
            }
            name.push(c);
        }
        Err(self.error("malformed POSIX class"))
    }

    fn posix_set(&self, name: &str, negated: bool) -> Result<Member, String> {
        let u = self.unicode;
        if !u {
            // The `regex` crate's POSIX classes are ASCII, as PCRE2's are without UCP.
            let s = format!("[:{}{name}:]", if negated { "^" } else { "" });
            return Ok(match name {
                "lower" | "upper" | "ascii" => Member::Rigid(s),
                "alpha" | "alnum" | "digit" | "space" | "word" | "blank" | "cntrl" | "xdigit"
                | "graph" | "print" | "punct" => Member::Set(s),
                _ => return Err(self.error("unknown POSIX class name")),
            });
        }
        let (set, rigid) = match name {
            "alpha" => (r"\p{L}".to_string(), false),
            "alnum" => (r"\p{L}\p{N}".into(), false),
            "digit" => (r"\p{Nd}".into(), false),
            "space" => (SPACE_U.into(), false),
            "word" => (WORD_U.into(), false),
            "blank" => (
                r"\x09\x20\xA0\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}".into(),
                false,
            ),
            "cntrl" => (r"\p{Cc}".into(), false),
            "xdigit" => ("0-9A-Fa-f".into(), false),
            "lower" => (r"\p{Ll}".into(), true),
            "upper" => (r"\p{Lu}".into(), true),
            "ascii" => (r"\x00-\x7F".into(), true),
            "graph" | "print" | "punct" => {
                return Err(self.unsupported(&format!("[:{name}:] in a text pattern")))
            }
            _ => return Err(self.error("unknown POSIX class name")),
        };
        let set = if negated { format!("[^{set}]") } else { set };
        Ok(if rigid {
            Member::Rigid(set)
        } else {
            Member::Set(set)
        })
    }

    /// A character as a class member: ASCII punctuation escaped, other characters (or, for
    /// bytes, bytes beyond ASCII) by code.
    fn class_char(&self, code: u32) -> String {
        match char::from_u32(code) {
            Some(c) if c.is_ascii_punctuation() => format!("\\{c}"),
            Some(c) if c.is_ascii_alphanumeric() || c == ' ' => c.to_string(),
            _ => format!(r"\x{{{code:X}}}"),
        }
    }
}
