//! MariaDB statement forms sqlparser refuses, rewritten into equivalent ones it reads, for
//! [`super::parse`]'s retry (MariaDB's Spider engine sends both to its data nodes):
//!
//! - a user variable named by a quoted string, `` @`name` ``, `@'name'` or `@"name"` (Spider sets
//!   `` @`spider_lc_./db/table` ``), becomes the quoted identifier `` `@name` ``, which the
//!   expression and SET code read as the user variable `@name`;
//! - a trailing `LOCK IN SHARE MODE` becomes `FOR SHARE` (a locking read either way,
//!   plan/locks.rs).
//!
//! Invariant: text inside quotes and comments is never changed (the lexer skips it); `'u'@'h'`
//! account names are left alone (the `@` follows a quote).

use super::tokens::{lex, Lexer, Tok};

/// Where the token starting at byte `start` of `sql` ends.
fn token_end(sql: &str, start: usize) -> usize {
    let mut l = Lexer::new(&sql[start..]);
    l.next();
    start + l.offset()
}

/// Applies `(start, end, replacement)` edits (in order, not overlapping) to `sql`.
fn apply(sql: &str, edits: Vec<(usize, usize, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut from = 0;
    for (a, b, text) in edits {
        out.push_str(&sql[from..a]);
        out.push_str(&text);
        from = b;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// `sql` with every `` @`name` `` / `@'name'` / `@"name"` written `` `@name` ``; `None` if there
/// is none.
pub fn with_quoted_user_vars(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        let [(Tok::Word { text: at, quoted: false, .. }, at_pos), (next, start)] = w else {
            continue;
        };
        if at != "@" || *start != at_pos + 1 || sql[..*at_pos].ends_with(['\'', '"', '`']) {
            continue;
        }
        let name = match next {
            Tok::Word {
                text, quoted: true, ..
            } => text,
            Tok::Str(s) => s,
            _ => continue,
        };
        let ident = format!("`@{}`", name.replace('`', "``"));
        edits.push((*at_pos, token_end(sql, *start), ident));
    }
    apply(sql, edits)
}

/// `sql` with a final `LOCK IN SHARE MODE` written `FOR SHARE`; `None` if it has none.
pub fn with_share_mode_as_for_share(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let n = toks.len();
    if n < 4 {
        return None;
    }
    let words: Vec<&str> = toks[n - 4..]
        .iter()
        .filter_map(|(t, _)| match t {
            Tok::Word {
                upper,
                quoted: false,
                ..
            } => Some(upper.as_str()),
            _ => None,
        })
        .collect();
    if words != ["LOCK", "IN", "SHARE", "MODE"] {
        return None;
    }
    let (start, last) = (toks[n - 4].1, toks[n - 1].1);
    apply(sql, vec![(start, token_end(sql, last), "FOR SHARE".into())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_user_variable_names_become_quoted_identifiers() {
        assert_eq!(
            with_quoted_user_vars("set @`spider_lc_./s1/t` = '-x-'").as_deref(),
            Some("set `@spider_lc_./s1/t` = '-x-'")
        );
        assert_eq!(
            with_quoted_user_vars("select @'a b', @\"c\", @`d``e`").as_deref(),
            Some("select `@a b`, `@c`, `@d``e`")
        );
        // plain variables, strings and account names stay
        assert_eq!(with_quoted_user_vars("set @a = '@`x`'"), None);
        assert_eq!(with_quoted_user_vars("grant all on *.* to 'u'@'h'"), None);
        assert_eq!(with_quoted_user_vars("select @ `x`"), None);
    }

    #[test]
    fn lock_in_share_mode_becomes_for_share() {
        assert_eq!(
            with_share_mode_as_for_share("select * from t where (a = 1) lock in share mode")
                .as_deref(),
            Some("select * from t where (a = 1) FOR SHARE")
        );
        assert_eq!(
            with_share_mode_as_for_share("select 'lock in share mode'"),
            None
        );
        assert_eq!(with_share_mode_as_for_share("select 1"), None);
    }
}
