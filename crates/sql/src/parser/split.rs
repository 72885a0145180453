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

/// The statements of `sql`, trimmed, without empty ones (nothing but blanks and comments), in one
/// pass over the text.
pub fn split_statements(sql: &str) -> Vec<&str> {
    // A CREATE FUNCTION / PROCEDURE holds `;`s in its body: it ends where its body does.
    if has_routine_word(sql) {
        return split_with_routines(sql);
    }
    // No `;` anywhere and a word first (so code): one statement, found without the scan.
    let whole = sql.trim();
    if !sql.as_bytes().contains(&b';')
        && whole
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_alphabetic)
    {
        return vec![whole];
    }
    // (end of the piece, whether it holds code) per piece
    let mut cuts = Vec::new();
    let mut code_seen = false;
    scan(sql, |i, c, code| {
        if code && c == b';' {
            cuts.push((i, code_seen));
            code_seen = false;
        } else if code && !c.is_ascii_whitespace() {
            code_seen = true;
        }
    });
    cuts.push((sql.len(), code_seen));
    let mut out = Vec::new();
    let mut start = 0;
    for (cut, has_code) in cuts {
        let piece = sql[start..cut].trim();
        if has_code && !piece.is_empty() {
            out.push(piece);
        }
        start = cut + 1;
    }
    out
}

/// Whether `sql` may hold a CREATE FUNCTION / PROCEDURE (it names both words).
fn has_routine_word(sql: &str) -> bool {
    let up = sql.to_ascii_uppercase();
    up.contains("CREATE") && (up.contains("PROCEDURE") || up.contains("FUNCTION"))
}

/// [`split_statements`] of a text that may hold routine definitions: each piece that starts a
/// CREATE FUNCTION / PROCEDURE ends where the routine's body ends (routines.rs), the others at
/// their first `;` outside quotes and comments.
fn split_with_routines(sql: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < sql.len() {
        let rest = &sql[start..];
        if crate::parser::routines::is_routine_statement(rest) {
            // One that does not parse is the rest of the text: its own error is reported.
            let len = crate::parser::routines::statement_len(rest).unwrap_or(rest.len());
            {
                out.push(rest[..len].trim());
                start += len;
                // the `;` that ends it, if any
                let after = &sql[start..];
                let skipped = after.len() - after.trim_start().len();
                start += skipped + usize::from(after.trim_start().starts_with(';'));
                continue;
            }
        }
        let mut cut = None;
        let mut code_seen = false;
        scan(rest, |i, c, code| {
            if cut.is_none() {
                if code && c == b';' {
                    cut = Some(i);
                } else if code && !c.is_ascii_whitespace() {
                    code_seen = true;
                }
            }
        });
        let end = cut.unwrap_or(rest.len());
        let piece = rest[..end].trim();
        if code_seen && !piece.is_empty() {
            out.push(piece);
        }
        start += end + 1;
    }
    out
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

/// What one pass over a statement's text finds (see [`prescan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prescan {
    /// [`nesting_cost`].
    pub nesting: usize,
    /// The text holds `/*!` or `/*M!` (anywhere, as versioned.rs looks for them).
    pub versioned: bool,
    /// `@@warning_count` or `@@error_count` appears in code.
    pub counters: bool,
}

/// A bound on how deeply the statement's expressions can nest: the largest number of operators
/// in one comma-separated item plus the parenthesis depth there. Parsing, compiling and dropping
/// an expression recurse once per level, so statements above a limit are refused up front
/// (a 100,000-term `1+1+...` would otherwise overflow the connection thread's stack).
pub fn nesting_cost(sql: &str) -> usize {
    prescan(sql).nesting
}

/// One pass over `sql`: its [`nesting_cost`], whether it holds executable comments and whether
/// it reads the diagnostics counters.
pub fn prescan(sql: &str) -> Prescan {
    let b = sql.as_bytes();
    let mut depth = 0usize;
    let mut seg = 0usize;
    let mut max = 0usize;
    let mut versioned = false;
    let mut counters = false;
    // The current word: where it starts, and the `@` signs right before it (in code).
    let mut word: Option<usize> = None;
    let mut ats = 0usize;
    let mut word_ats = 0usize;
    let flush_word = |word: &[u8], seg: &mut usize, counters: &mut bool, word_ats: usize| {
        // Operators spelled as words; numbers and longer names are none of them.
        const OPS: [&[u8]; 10] = [
            b"AND", b"OR", b"XOR", b"NOT", b"IS", b"LIKE", b"DIV", b"MOD", b"BETWEEN", b"IN",
        ];
        if (2..=7).contains(&word.len())
            && !word[0].is_ascii_digit()
            && OPS.iter().any(|op| word.eq_ignore_ascii_case(op))
        {
            *seg += 1;
        }
        if word_ats >= 2
            && (word.eq_ignore_ascii_case(b"warning_count")
                || word.eq_ignore_ascii_case(b"error_count"))
        {
            *counters = true;
        }
    };
    scan(sql, |i, c, code| {
        if c == b'/'
            && b.get(i + 1) == Some(&b'*')
            && (b.get(i + 2) == Some(&b'!')
                || (b.get(i + 2) == Some(&b'M') && b.get(i + 3) == Some(&b'!')))
        {
            versioned = true;
        }
        if code && (c.is_ascii_alphanumeric() || c == b'_') {
            if word.is_none() {
                word = Some(i);
                word_ats = ats;
            }
            return;
        }
        if let Some(w) = word.take() {
            flush_word(&b[w..i], &mut seg, &mut counters, word_ats);
        }
        if code && c == b'@' {
            ats += 1;
        } else {
            ats = 0;
        }
        if !code {
            return;
        }
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b',' => seg = 0,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'=' | b'<' | b'>' | b'&' | b'|' | b'^' | b'!'
            | b'~' => seg += 1,
            _ => {}
        }
        max = max.max(seg + depth);
    });
    if let Some(w) = word {
        flush_word(&b[w..], &mut seg, &mut counters, word_ats);
    }
    Prescan {
        nesting: max.max(seg + depth),
        versioned,
        counters,
    }
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
    fn nesting_cost_counts_chains_not_lists() {
        let chain = format!("SELECT {}", vec!["1"; 5000].join("+"));
        assert!(nesting_cost(&chain) >= 4999);
        let rows: Vec<String> = (0..5000).map(|i| format!("({i}, -{i}, 'a+b')")).collect();
        let insert = format!("INSERT INTO t VALUES {}", rows.join(","));
        assert!(nesting_cost(&insert) < 10);
        assert!(nesting_cost("SELECT ((((1))))") >= 4);
        assert_eq!(
            nesting_cost("SELECT a FROM t WHERE x = 1 AND y < 2 OR z"),
            4
        );
    }

    #[test]
    fn prescan_finds_executable_comments_and_counters() {
        let p = prescan("SELECT 1 /*!40101 + 1 */");
        assert!(p.versioned && !p.counters);
        assert!(prescan("SELECT 1 /*M!100100 + 1 */").versioned);
        assert!(
            prescan("SELECT '/*!'").versioned,
            "as versioned.rs looks: anywhere"
        );
        assert!(!prescan("SELECT 1 /* plain */").versioned);
        assert!(prescan("SELECT @@warning_count").counters);
        assert!(prescan("select @@ERROR_COUNT, 1").counters);
        assert!(!prescan("SELECT @warning_count").counters);
        assert!(!prescan("SELECT '@@warning_count'").counters);
        assert!(!prescan("SELECT @@session.warning_count").counters);
        assert_eq!(
            prescan("SELECT a AND b").nesting,
            nesting_cost("SELECT a AND b")
        );
    }

    #[test]
    fn numbers_placeholders_in_order() {
        let (s, n) = number_placeholders("insert into t values (?, '?', ?) -- ?");
        assert_eq!(n, 2);
        assert_eq!(s, "insert into t values (?1, '?', ?2) -- ?");
    }

    #[test]
    fn a_routine_body_is_one_statement() {
        let sql = "SET @a = 1; CREATE PROCEDURE p(n INT) BEGIN DECLARE i INT; \
                   IF n > 0 THEN SET i = 1; END IF; SELECT i; END; CALL p(1); \
                   CREATE FUNCTION f() RETURNS INT RETURN 1;SELECT f()";
        assert_eq!(
            split_statements(sql),
            vec![
                "SET @a = 1",
                "CREATE PROCEDURE p(n INT) BEGIN DECLARE i INT; \
                   IF n > 0 THEN SET i = 1; END IF; SELECT i; END",
                "CALL p(1)",
                "CREATE FUNCTION f() RETURNS INT RETURN 1",
                "SELECT f()",
            ]
        );
    }
}
