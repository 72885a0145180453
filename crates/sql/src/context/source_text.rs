//! The text of the statement behind a span of its parse tree: a select item without an alias is
//! named after its text as written (MySQL's column names), which sqlparser's printed form would
//! change (spacing, case, quotes).

use sqlparser::tokenizer::Span;

use super::Context;

impl Context {
    /// The original text of a span of the current statement.
    pub fn source_text(&self, span: Span) -> Option<String> {
        if span.start.line == 0 {
            return None;
        }
        let offset = |line: u64, col: u64| -> Option<usize> {
            let mut off = 0usize;
            for (i, l) in self.cur_sql.split_inclusive('\n').enumerate() {
                if i as u64 + 1 == line {
                    let by: usize = l.chars().take(col as usize - 1).map(char::len_utf8).sum();
                    return Some(off + by);
                }
                off += l.len();
            }
            None
        };
        let s = offset(span.start.line, span.start.column)?;
        let e = offset(span.end.line, span.end.column)?;
        self.cur_sql.get(s..e).map(|x| x.trim().to_string())
    }

    /// The text of a select item starting at `span.start`: up to the next top-level `,`, `)`
    /// closing an enclosing parenthesis, or clause keyword (FROM, AS, WHERE, ...).
    pub fn item_text(&self, span: Span) -> Option<String> {
        self.text_from(self.offset_of(span)?)
    }

    /// The text of a select item starting at byte `off` of the statement.
    pub fn text_at(&self, off: usize) -> Option<String> {
        self.text_from(off)
    }

    /// Where the name of the innermost call enclosing byte `off` starts (sqlparser's
    /// `EXTRACT(HOUR FROM d)` spans only `d`).
    pub fn enclosing_call_start(&self, off: usize) -> Option<usize> {
        let head = self.cur_sql.get(..off)?.as_bytes();
        let mut depth = 0;
        let mut open = None;
        for (i, b) in head.iter().enumerate().rev() {
            match b {
                b')' => depth += 1,
                b'(' if depth == 0 => {
                    open = Some(i);
                    break;
                }
                b'(' => depth -= 1,
                _ => {}
            }
        }
        let name_end = self.cur_sql.get(..open?)?.trim_end().len();
        let word = head[..name_end]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        (word > 0).then_some(name_end - word)
    }

    /// The byte offset of a span's start in the statement.
    pub fn offset_of(&self, span: Span) -> Option<usize> {
        if span.start.line == 0 {
            return None;
        }
        let mut off = 0usize;
        for (i, l) in self.cur_sql.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == span.start.line {
                let by: usize = l
                    .chars()
                    .take(span.start.column as usize - 1)
                    .map(char::len_utf8)
                    .sum();
                return Some(off + by);
            }
            off += l.len();
        }
        None
    }

    /// Where the unary operators and opening parentheses written right before `off` start.
    pub fn unary_start(&self, mut off: usize) -> usize {
        let b = self.cur_sql.as_bytes();
        loop {
            let mut i = off;
            while i > 0 && b[i - 1].is_ascii_whitespace() {
                i -= 1;
            }
            if i > 0 && matches!(b[i - 1], b'(' | b'-' | b'+' | b'~' | b'!') {
                off = i - 1;
            } else if let Some(w) = [&b"NOT"[..], b"BINARY", b"EXISTS"].into_iter().find(|w| {
                i >= w.len()
                    && b[i - w.len()..i].eq_ignore_ascii_case(w)
                    && (i == w.len()
                        || !(b[i - w.len() - 1].is_ascii_alphanumeric()
                            || b[i - w.len() - 1] == b'_'))
            }) {
                off = i - w.len();
            } else if let Some(start) = introducer_start(b, i, off) {
                off = start;
            } else {
                return off;
            }
        }
    }

    /// The start of the name of a call whose first argument starts at `off` (after any unary
    /// operators written before that argument).
    pub fn call_start(&self, off: usize) -> Option<usize> {
        let head = self.cur_sql.get(..off)?.trim_end();
        let head = head
            .trim_end_matches(|c: char| matches!(c, '-' | '+' | '~' | '!') || c.is_whitespace());
        let head = head.strip_suffix('(')?.trim_end();
        let word = head
            .bytes()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        (word > 0).then(|| head.len() - word)
    }

    /// The text of a select item starting at byte `off`.
    fn text_from(&self, off: usize) -> Option<String> {
        let text = self.cur_sql.get(off..)?;
        const STOP: &[&str] = &[
            "FROM", "AS", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTO", "FOR",
            "WINDOW", "LOCK",
        ];
        let bytes = text.as_bytes();
        // A subquery's own text (inside its parentheses) ends only at its closing parenthesis.
        let query = ["SELECT", "WITH"].iter().any(|k| {
            text.get(..k.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(k))
                && text[k.len()..].starts_with(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        });
        let mut depth = 0i32;
        let mut quote: Option<u8> = None;
        // The last word read at depth 0 (`WITHIN GROUP` does not end an item).
        let mut prev = String::new();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if let Some(q) = quote {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b',' if depth == 0 && !query => break,
                b';' if depth == 0 => break,
                c if depth == 0
                    && !query
                    && c.is_ascii_alphabetic()
                    && (i == 0
                        || !bytes[i - 1].is_ascii_alphanumeric()
                            && bytes[i - 1] != b'_'
                            && bytes[i - 1] != b'@') =>
                {
                    let end = bytes[i..]
                        .iter()
                        .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                        .map_or(bytes.len(), |p| i + p);
                    let word = text[i..end].to_ascii_uppercase();
                    let within_group = word == "GROUP" && prev == "WITHIN";
                    if i > 0 && STOP.contains(&word.as_str()) && !within_group {
                        break;
                    }
                    prev = word;
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        let t = text[..i].trim();
        (!t.is_empty()).then(|| t.to_string())
    }
}

/// Where a character set introducer (`_latin1`) or the type of a typed literal (`DATE`, `TIME`,
/// `TIMESTAMP`) written before the literal at `off` starts (`end` is where the text before the
/// literal, blanks left out, ends): MariaDB names `_latin1 0xFF` and `DATE'2020-01-01' + ...`
/// with it.
fn introducer_start(b: &[u8], end: usize, off: usize) -> Option<usize> {
    let literal = matches!(b.get(off), Some(b'\'' | b'"' | b'0'..=b'9'))
        || b.get(off..off + 2)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"x'") || p.eq_ignore_ascii_case(b"b'"));
    if !literal {
        return None;
    }
    let word = b[..end]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    let start = end - word;
    let name = &b[start..end];
    let introducer = word > 1
        && name[0] == b'_'
        && name[1].is_ascii_alphabetic()
        && (start == 0 || !matches!(b[start - 1], b'.' | b'`' | b'@'));
    let typed = b[off] == b'\''
        && [&b"DATE"[..], b"TIME", b"TIMESTAMP"]
            .iter()
            .any(|w| name.eq_ignore_ascii_case(w))
        && (start == 0 || !matches!(b[start - 1], b'.' | b'`' | b'@'));
    (introducer || typed).then_some(start)
}
