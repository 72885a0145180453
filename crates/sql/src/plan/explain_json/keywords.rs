//! MariaDB 10.11's keywords (its lexer's symbols, as information_schema.KEYWORDS lists them)
//! and how EXPLAIN FORMAT=JSON quotes a name with them: MariaDB prints its items there without
//! `sql_quote_show_create`, so a name is quoted only when it is a keyword (reserved or not) or
//! is not a plain identifier (`get_quote_char_for_identifier`, `require_quotes`).
//!
//! Invariant: [`KEYWORDS`] (keyword_list.rs) is sorted (binary search), upper case.

use super::keyword_list::KEYWORDS;

/// Whether `name` is one of MariaDB's keywords (any case).
pub fn is_keyword(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    KEYWORDS.binary_search(&upper.as_str()).is_ok()
}

/// Whether `name` must be quoted to read back as one identifier: a character other than an
/// ASCII letter, digit, `_` or `$`, or only digits, or empty.
fn requires_quotes(name: &str) -> bool {
    name.is_empty()
        || name.bytes().all(|b| b.is_ascii_digit())
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// `name` as EXPLAIN FORMAT=JSON prints it; `None` for a name holding a backquote (MariaDB
/// doubles it; not printed here).
pub fn explain_name(name: &str) -> Option<String> {
    if name.contains('`') {
        return None;
    }
    Some(if is_keyword(name) || requires_quotes(name) {
        format!("`{name}`")
    } else {
        name.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_mariadb_quotes_them_in_explain() {
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(explain_name("pk").as_deref(), Some("pk"));
        assert_eq!(explain_name("a$").as_deref(), Some("a$"));
        assert_eq!(explain_name("1a").as_deref(), Some("1a"));
        assert_eq!(explain_name("date").as_deref(), Some("`date`"));
        assert_eq!(explain_name("status").as_deref(), Some("`status`"));
        assert_eq!(explain_name("123").as_deref(), Some("`123`"));
        assert_eq!(explain_name("é").as_deref(), Some("`é`"));
        assert_eq!(
            explain_name("row_number() over ()").as_deref(),
            Some("`row_number() over ()`")
        );
        assert_eq!(explain_name("a`b"), None);
    }
}
