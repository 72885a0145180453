//! String escapes sqlparser reads differently from MariaDB: inside a `'...'` or `"..."` literal
//! MariaDB reads `\a` as `a` and `\f` as `f` (only `\0 \b \n \r \t \Z \\ \' \"` are escapes; `\%`
//! and `\_` keep their backslash; any other escaped character is itself), where sqlparser reads
//! them as BEL and form feed. [`with_mariadb_escapes`] rewrites those two before sqlparser sees
//! the text.
//!
//! Invariant: only the two-byte sequences `\a` and `\f` inside string literals change (to `a`
//! and `f`); identifiers in backquotes, comments and everything else are left byte for byte, and
//! a text without them is not copied.

/// `sql` with `\a` / `\f` inside string literals replaced by `a` / `f` (`None`: nothing to change).
pub fn with_mariadb_escapes(sql: &str) -> Option<String> {
    let b = sql.as_bytes();
    // Most statements have no backslash before an `a` or `f` at all.
    if !b
        .windows(2)
        .any(|w| w[0] == b'\\' && matches!(w[1], b'a' | b'f'))
    {
        return None;
    }
    let mut drop = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => i = string_end(b, i + 1, q, &mut drop),
            b'`' => {
                i = b[i + 1..]
                    .iter()
                    .position(|&c| c == b'`')
                    .map_or(b.len(), |p| i + p + 2)
            }
            b'#' => i = line_end(b, i),
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i = line_end(b, i)
            }
            b'/' if b.get(i + 1) == Some(&b'*') && b.get(i + 2) != Some(&b'!') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |p| p + 2)
            }
            _ => i += 1,
        }
    }
    if drop.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    let mut from = 0;
    for at in drop {
        out.push_str(&sql[from..at]);
        from = at + 1;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// The index after the literal that starts at `i` (after its opening quote `q`), noting in `drop`
/// the backslash of each `\a` / `\f` in it.
fn string_end(b: &[u8], mut i: usize, q: u8, drop: &mut Vec<usize>) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() => {
                if matches!(b[i + 1], b'a' | b'f') {
                    drop.push(i);
                }
                i += 2;
            }
            c if c == q => {
                if b.get(i + 1) == Some(&q) {
                    i += 2;
                } else {
                    return i + 1;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p + 1)
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_and_f_escapes_inside_strings_change() {
        assert_eq!(
            with_mariadb_escapes(r"SELECT '\a\f\t\\f', `\a`, x -- '\f'").unwrap(),
            r"SELECT 'af\t\\f', `\a`, x -- '\f'"
        );
        assert_eq!(
            with_mariadb_escapes(r#"SELECT "it''s \f", 'don''t \a' /* '\f' */"#).unwrap(),
            r#"SELECT "it''s f", 'don''t a' /* '\f' */"#
        );
        assert_eq!(with_mariadb_escapes(r"SELECT '\n\t', 'a'"), None);
        assert_eq!(with_mariadb_escapes(r"SELECT 1 # '\f'"), None);
        assert_eq!(with_mariadb_escapes(r"SELECT '\\'"), None);
        // An unterminated literal or an escape at the very end never panics.
        assert_eq!(
            with_mariadb_escapes(r"SELECT '\f"),
            Some(r"SELECT 'f".into())
        );
        assert_eq!(with_mariadb_escapes("SELECT '\\"), None);
        assert_eq!(with_mariadb_escapes("é'\\aé"), Some("é'aé".into()));
    }
}
