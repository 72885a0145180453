//! MariaDB's regular expressions (PCRE2, compiled with `PCRE2_UTF | PCRE2_UCP` for text and
//! without them for binary strings) translated into the `regex` crate's syntax, so that a
//! translated pattern matches exactly what MariaDB's matches.
//!
//! Every construct is read and written again; nothing is passed through unread:
//! * `\d \w \s` and POSIX classes become the Unicode sets PCRE2 gives them with UCP (`\w` is
//!   `[\p{L}\p{N}_]`, `[[:alpha:]]` is `\p{L}`, ...), or their ASCII sets for binary strings.
//! * `$` and `\Z` match at the end or before a final newline in PCRE2; the caller picks what they
//!   become ([`End`]) from the subject, since the `regex` crate has no such assertion.
//! * PCRE2 never folds case for `\p{..}`, `[[:lower:]]`, `[[:upper:]]` and `[[:ascii:]]`; they
//!   are written inside `(?-i:...)`.
//! * A literal character is always escaped or written by code, so the `regex` crate's own class
//!   operators (`&&`, `--`, `~~`, nested `[`) can never appear by accident.
//!
//! Invariant: a construct the `regex` crate cannot express (back-references, look-around,
//! atomic groups, possessive quantifiers, recursion, `(?m)`, `(?x)`, ...) is an error naming it,
//! never a pattern that means something else.

/// What PCRE2's `$` and `\Z` become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The very end (`\z`): right for a subject that does not end with a newline.
    Absolute,
    /// The end or before any newline (`(?m:$)`): right for a subject whose only newline is its
    /// last character.
    BeforeFinalNewline,
}

/// A pattern in the `regex` crate's syntax.
pub struct Translation {
    pub regex: String,
    /// True if the pattern has a `$` or `\Z` (its meaning depends on [`End`]).
    pub has_end: bool,
}

/// `pattern` (MariaDB's syntax) in the `regex` crate's; `unicode` = text (UTF + UCP: the pattern
/// must be UTF-8), else bytes (each byte read as one character, as PCRE2 without UTF does). The
/// error is PCRE-style text: what is wrong and the character offset.
pub fn translate(pattern: &[u8], unicode: bool, end: End) -> Result<Translation, String> {
    let p = if unicode {
        std::str::from_utf8(pattern)
            .map_err(|_| "UTF-8 error in the pattern at offset 0".to_string())?
            .chars()
            .collect()
    } else {
        pattern.iter().map(|b| char::from(*b)).collect()
    };
    let mut t = Translator {
        p,
        i: 0,
        out: String::with_capacity(pattern.len() * 2),
        unicode,
        end,
        has_end: false,
    };
    while let Some(c) = t.next() {
        t.item(c)?;
    }
    Ok(Translation {
        regex: t.out,
        has_end: t.has_end,
    })
}

/// What every message of a construct PCRE2 accepts but the `regex` crate cannot express has
/// (made by [`Translator::unsupported`] only); other messages are of patterns PCRE2 refuses too.
const UNSUPPORTED: &str = " not supported at offset";

/// True if `msg` (of [`translate`]) names a construct Betula cannot express, not an invalid
/// pattern.
pub fn is_unsupported(msg: &str) -> bool {
    msg.contains(UNSUPPORTED)
}

pub(super) struct Translator {
    pub(super) p: Vec<char>,
    pub(super) i: usize,
    pub(super) out: String,
    pub(super) unicode: bool,
    end: End,
    has_end: bool,
}

pub(super) const SPACE_U: &str = r"\p{Z}\x09-\x0D\x{85}\x{180E}";
pub(super) const SPACE_A: &str = r"\x09-\x0D\x20";
pub(super) const WORD_U: &str = r"\p{L}\p{N}_";
pub(super) const WORD_A: &str = "0-9A-Za-z_";

impl Translator {
    pub(super) fn next(&mut self) -> Option<char> {
        let c = self.p.get(self.i).copied();
        self.i += usize::from(c.is_some());
        c
    }
    pub(super) fn peek(&self) -> Option<char> {
        self.p.get(self.i).copied()
    }
    pub(super) fn peek_at(&self, k: usize) -> Option<char> {
        self.p.get(self.i + k).copied()
    }
    pub(super) fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        self.i += usize::from(hit);
        hit
    }
    pub(super) fn unsupported(&self, what: &str) -> String {
        format!("{what}{UNSUPPORTED} {}", self.i)
    }
    pub(super) fn error(&self, what: &str) -> String {
        format!("{what} at offset {}", self.i)
    }

    fn item(&mut self, c: char) -> Result<(), String> {
        match c {
            '\\' => self.escape(),
            '[' => self.class(),
            '(' => self.group(),
            ')' | '|' | '.' | '^' => {
                self.out.push(c);
                Ok(())
            }
            '$' => {
                self.end_anchor();
                Ok(())
            }
            '*' | '+' | '?' => {
                self.out.push(c);
                self.quantifier_suffix()
            }
            '{' => self.brace(),
            c => {
                self.literal(c as u32);
                Ok(())
            }
        }
    }

    fn end_anchor(&mut self) {
        self.has_end = true;
        self.out.push_str(match self.end {
            End::Absolute => r"\z",
            End::BeforeFinalNewline => "(?m:$)",
        });
    }

    /// After a quantifier: `?` makes it lazy (as in the `regex` crate); `+` (possessive) cannot
    /// be expressed.
    fn quantifier_suffix(&mut self) -> Result<(), String> {
        if self.eat('?') {
            self.out.push('?');
        } else if self.peek() == Some('+') {
            return Err(self.unsupported("possessive quantifier"));
        }
        Ok(())
    }

    /// `{n}`, `{n,}`, `{n,m}` are quantifiers; any other `{` is a literal, as in PCRE2 10.42.
    fn brace(&mut self) -> Result<(), String> {
        let digits = |t: &Translator, from: usize| {
            (from..t.p.len())
                .take_while(|k| t.p[*k].is_ascii_digit())
                .count()
        };
        let n = digits(self, self.i);
        let mut k = self.i + n;
        let mut ok = n > 0;
        if ok && self.p.get(k) == Some(&',') {
            k += 1;
            k += digits(self, k);
        }
        ok &= self.p.get(k) == Some(&'}');
        if !ok {
            self.literal('{' as u32);
            return Ok(());
        }
        let q: String = self.p[self.i - 1..=k].iter().collect();
        self.out.push_str(&q);
        self.i = k + 1;
        self.quantifier_suffix()
    }

    /// A literal character: ASCII punctuation escaped, other characters (or, for bytes, bytes
    /// beyond ASCII) by code.
    fn literal(&mut self, code: u32) {
        match char::from_u32(code) {
            Some(c) if c.is_ascii_punctuation() => {
                self.out.push('\\');
                self.out.push(c)
            }
            Some(c) if c.is_ascii_alphanumeric() || c == ' ' => self.out.push(c),
            _ => self.out.push_str(&format!(r"\x{{{code:X}}}")),
        }
    }

    fn group(&mut self) -> Result<(), String> {
        if self.peek() == Some('*') {
            return Err(self.unsupported("(*VERB)"));
        }
        if !self.eat('?') {
            self.out.push('(');
            return Ok(());
        }
        match self.peek() {
            Some(':') => {
                self.i += 1;
                self.out.push_str("(?:");
                Ok(())
            }
            Some('#') => {
                while let Some(c) = self.next() {
                    if c == ')' {
                        return Ok(());
                    }
                }
                Err(self.error("missing ) after (?# comment"))
            }
            Some('<') if matches!(self.peek_at(1), Some('=' | '!')) => {
                Err(self.unsupported("look-behind assertion"))
            }
            Some('=' | '!') => Err(self.unsupported("look-ahead assertion")),
            Some('>') => Err(self.unsupported("atomic group")),
            Some('|') => Err(self.unsupported("branch reset group")),
            Some('(') => Err(self.unsupported("conditional group")),
            Some('P') if self.peek_at(1) == Some('<') => {
                self.i += 2;
                self.named_group('>')
            }
            Some('<') => {
                self.i += 1;
                self.named_group('>')
            }
            Some('\'') => {
                self.i += 1;
                self.named_group('\'')
            }
            Some(c) if c == 'R' || c == 'P' || c == '&' || c == '+' || c.is_ascii_digit() => {
                Err(self.unsupported("recursion or back-reference"))
            }
            Some('C') => Err(self.unsupported("callout")),
            _ => self.flags(),
        }
    }

    fn named_group(&mut self, close: char) -> Result<(), String> {
        let mut name = String::new();
        loop {
            match self.next() {
                Some(c) if c == close => break,
                Some(c) if c.is_ascii_alphanumeric() || c == '_' => name.push(c),
                _ => return Err(self.error("syntax error in subpattern name")),
            }
        }
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.error("subpattern name expected"));
        }
        self.out.push_str(&format!("(?P<{name}>"));
        Ok(())
    }

    /// `(?flags)` / `(?flags:`: `i`, `s` and `U` (and `-`) mean the same in both syntaxes.
    fn flags(&mut self) -> Result<(), String> {
        let mut f = String::new();
        loop {
            match self.next() {
                Some(c @ (')' | ':')) => {
                    self.out.push_str(&format!("(?{f}{c}"));
                    return Ok(());
                }
                Some(c @ ('i' | 's' | 'U' | '-')) => f.push(c),
                Some('m') => return Err(self.unsupported("the (?m) option")),
                Some('x') => return Err(self.unsupported("the (?x) option")),
                Some(c @ ('n' | 'J' | '^')) => {
                    return Err(self.unsupported(&format!("the (?{c}) option")))
                }
                _ => return Err(self.error("unrecognized character after (? or (?-")),
            }
        }
    }

    /// The escape after a `\` outside a class.
    fn escape(&mut self) -> Result<(), String> {
        let Some(c) = self.next() else {
            return Err(self.error("\\ at end of pattern"));
        };
        let u = self.unicode;
        let s: String = match c {
            'd' if u => r"\p{Nd}".into(),
            'D' if u => r"\P{Nd}".into(),
            'd' => "[0-9]".into(),
            'D' => "[^0-9]".into(),
            'w' => format!("[{}]", if u { WORD_U } else { WORD_A }),
            'W' => format!("[^{}]", if u { WORD_U } else { WORD_A }),
            's' => format!("[{}]", if u { SPACE_U } else { SPACE_A }),
            'S' => format!("[^{}]", if u { SPACE_U } else { SPACE_A }),
            'b' | 'B' if u => format!("\\{c}"),
            'b' | 'B' => format!("(?-u:\\{c})"),
            'A' => r"\A".into(),
            'z' => r"\z".into(),
            'Z' => {
                self.end_anchor();
                return Ok(());
            }
            'E' => return Ok(()),
            'Q' => {
                while let Some(q) = self.next() {
                    if q == '\\' && self.eat('E') {
                        break;
                    }
                    self.literal(q as u32);
                }
                return Ok(());
            }
            'p' | 'P' => format!("(?-i:{})", self.property(c)?),
            '1'..='9' => return Err(self.unsupported("back-reference")),
            _ => {
                let code = self.char_escape(c)?;
                self.literal(code);
                return Ok(());
            }
        };
        self.out.push_str(&s);
        Ok(())
    }

    /// `\p{Name}`, `\pL` (and `\P`): Unicode properties, for text only; the names PCRE2 and the
    /// `regex` crate share are written as they are, `L&` as `LC`.
    pub(super) fn property(&mut self, c: char) -> Result<String, String> {
        if !self.unicode {
            return Err(self.unsupported("\\p in a binary string pattern"));
        }
        let name: String = if self.eat('{') {
            let mut n = String::new();
            loop {
                match self.next() {
                    Some('}') => break,
                    Some(ch) if ch.is_ascii_alphanumeric() || matches!(ch, '_' | ' ' | '&') => {
                        n.push(ch)
                    }
                    _ => return Err(self.error("malformed \\p or \\P sequence")),
                }
            }
            n
        } else {
            match self.next() {
                Some(ch) if ch.is_ascii_alphabetic() => ch.to_string(),
                _ => return Err(self.error("malformed \\p or \\P sequence")),
            }
        };
        // PCRE2's `L&` (a cased letter: Lu, Ll or Lt) is the `regex` crate's `LC`.
        let name = if name == "L&" { "LC".to_string() } else { name };
        Ok(format!("\\{c}{{{name}}}"))
    }

    /// The code of an escaped single character (`\n`, `\x41`, `\x{263A}`, `\012`, `\cA`, `\.`).
    pub(super) fn char_escape(&mut self, c: char) -> Result<u32, String> {
        Ok(match c {
            'a' => 7,
            'e' => 0x1B,
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'x' => self.hex_escape()?,
            '0' => {
                let mut v = 0;
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            self.i += 1;
                        }
                        None => break,
                    }
                }
                v
            }
            'o' if self.eat('{') => self.braced_number(8)?,
            'c' => match self.next() {
                Some(x) if x.is_ascii() && !x.is_ascii_control() => {
                    (x.to_ascii_uppercase() as u32) ^ 0x40
                }
                _ => return Err(self.error("\\c must be followed by a printable ASCII character")),
            },
            'g' | 'k' => return Err(self.unsupported("back-reference")),
            'G' | 'K' | 'R' | 'X' | 'C' | 'N' | 'h' | 'H' | 'v' | 'V' => {
                return Err(self.unsupported(&format!("\\{c}")))
            }
            c if c.is_ascii_alphanumeric() => {
                return Err(self.error("unrecognized character follows \\"))
            }
            c => c as u32,
        })
    }

    fn hex_escape(&mut self) -> Result<u32, String> {
        if self.eat('{') {
            return self.braced_number(16);
        }
        let mut v = 0;
        for _ in 0..2 {
            match self.peek().and_then(|d| d.to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.i += 1;
                }
                None => break,
            }
        }
        Ok(v)
    }

    fn braced_number(&mut self, radix: u32) -> Result<u32, String> {
        let mut v: u32 = 0;
        let mut any = false;
        loop {
            match self.next() {
                Some('}') if any => break,
                Some(d) if d.is_digit(radix) => {
                    any = true;
                    v = v
                        .checked_mul(radix)
                        .and_then(|v| v.checked_add(d.to_digit(radix).unwrap_or(0)))
                        .filter(|v| *v <= 0x10FFFF)
                        .ok_or_else(|| self.error("character code point value is too large"))?;
                }
                _ => return Err(self.error("malformed number or name in escape")),
            }
        }
        if !self.unicode && v > 0xFF {
            return Err(self.error("character code point value is too large"));
        }
        Ok(v)
    }
}
