//! Splits a COM_QUERY text into statements and numbers `?` placeholders.
//!
//! Owns: [`split_statements`] and [`number_placeholders`]. Both scan the text once, honouring
//! `'...'`, `"..."` (with backslash escapes and doubled quotes), `` `...` ``, `-- `, `#` and
//! `/* */` comments, so a `;` or `?` inside them is not a separator or a placeholder.
//! Invariant: concatenating the returned pieces with `;` gives back the text minus empty
//! statements; `?` becomes `?1`, `?2`, ... in textual order (sqlparser reads `?N` as a
//! numbered placeholder), so parameters bind by position whatever order the planner compiles.

#[derive(Clone, Copy, PartialEq)]
enum State {
    Code,
    Quote(u8),
    LineComment,
    BlockComment,
}

/// Walks `sql`, calling `f(index, byte, in_code)` for every byte.
fn scan(sql: &str, mut f: impl FnMut(usize, u8, bool)) {
    let b = sql.as_bytes();
    let mut st = State::Code;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match st {
            State::Code => {
                if c == b'\'' || c == b'"' || c == b'`' {
                    st = State::Quote(c);
                    f(i, c, false);
                } else if c == b'#'
                    || (c == b'-'
                        && b.get(i + 1) == Some(&b'-')
                        && b.get(i + 2).is_none_or(|x| x.is_ascii_whitespace()))
                {
                    st = State::LineComment;
                    f(i, c, false);
                } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
                    st = State::BlockComment;
                    f(i, c, false);
                    f(i + 1, b'*', false);
                    i += 1;
                } else {
                    f(i, c, true);
                }
            }
            State::Quote(q) => {
                f(i, c, false);
                if c == b'\\' && q != b'`' && i + 1 < b.len() {
                    f(i + 1, b[i + 1], false);
                    i += 1;
                } else if c == q {
                    if b.get(i + 1) == Some(&q) {
                        f(i + 1, q, false);
                        i += 1;
                    } else {
                        st = State::Code;
                    }
                }
            }
            State::LineComment => {
                f(i, c, false);
                if c == b'\n' {
                    st = State::Code;
                }
            }
            State::BlockComment => {
                f(i, c, false);
                if c == b'*' && b.get(i + 1) == Some(&b'/') {
                    f(i + 1, b'/', false);
                    i += 1;
                    st = State::Code;
                }
            }
        }
        i += 1;
    }
}

/// The statements of `sql`, trimmed, without empty ones.
pub fn split_statements(sql: &str) -> Vec<String> {
    let mut cuts = Vec::new();
    scan(sql, |i, c, code| {
        if code && c == b';' {
            cuts.push(i);
        }
    });
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain(std::iter::once(sql.len())) {
        let piece = sql[start..cut].trim();
        if !piece.is_empty() && !is_only_comments(piece) {
            out.push(piece.to_string());
        }
        start = cut + 1;
    }
    out
}

fn is_only_comments(s: &str) -> bool {
    let mut code = false;
    scan(s, |_, c, in_code| {
        if in_code && !c.is_ascii_whitespace() {
            code = true;
        }
    });
    !code
}

/// Replaces each `?` placeholder with `?N` (1-based); returns the new text and the count.
pub fn number_placeholders(sql: &str) -> (String, usize) {
    let mut marks = Vec::new();
    scan(sql, |i, c, code| {
        if code && c == b'?' {
            marks.push(i);
        }
    });
    if marks.is_empty() {
        return (sql.to_string(), 0);
    }
    let mut out = String::with_capacity(sql.len() + marks.len() * 2);
    let mut last = 0;
    for (n, &m) in marks.iter().enumerate() {
        out.push_str(&sql[last..m]);
        out.push('?');
        out.push_str(&(n + 1).to_string());
        // Keep a following digit from fusing with the number.
        if sql
            .as_bytes()
            .get(m + 1)
            .is_some_and(|b| b.is_ascii_digit())
        {
            out.push(' ');
        }
        last = m + 1;
    }
    out.push_str(&sql[last..]);
    (out, marks.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_outside_quotes_and_comments() {
        let v = split_statements("select ';' ; select 2 -- x;y\n; /* a;b */ ;select \"a\\\";\"");
        assert_eq!(
            v,
            vec!["select ';'", "select 2 -- x;y", "select \"a\\\";\""]
        );
        assert!(split_statements("  ; ;").is_empty());
    }

    #[test]
    fn numbers_placeholders_in_order() {
        let (s, n) = number_placeholders("insert into t values (?, '?', ?) -- ?");
        assert_eq!(n, 2);
        assert_eq!(s, "insert into t values (?1, '?', ?2) -- ?");
    }
}
