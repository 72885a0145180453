//! WINDOW as a table alias: MariaDB's grammar takes `window` as a column name or a column alias
//! but not as the alias of a table in FROM (`FROM t AS window` is 1064 at `window`), where
//! sqlparser reads it as any other alias.
//!
//! Invariant: a token walk only (quotes and comments skipped by the lexer); each parenthesis
//! level tracks whether it is in a FROM clause (after FROM or JOIN, up to the next clause word),
//! so `(SELECT 1 AS window)` in FROM is a column alias.

use super::tokens::{lex, Tok};

/// The byte offset of `window` written as a table alias after AS in a FROM clause of `sql`, or
/// `None`.
pub fn syntax_error(sql: &str) -> Option<usize> {
    if !sql
        .as_bytes()
        .windows(6)
        .any(|w| w.eq_ignore_ascii_case(b"window"))
    {
        return None;
    }
    let toks = lex(sql);
    // per parenthesis level: in a FROM clause
    let mut in_from = vec![false];
    for (i, (t, at)) in toks.iter().enumerate() {
        match t {
            Tok::Sym('(') => in_from.push(false),
            Tok::Sym(')') if in_from.len() > 1 => {
                in_from.pop();
            }
            Tok::Word {
                upper,
                quoted: false,
                ..
            } => {
                let after_as = i > 0
                    && matches!(&toks[i - 1].0, Tok::Word { upper, quoted: false, .. } if upper == "AS");
                let from = in_from.last_mut().expect("the statement's level");
                match upper.as_str() {
                    "WINDOW" if *from && after_as => return Some(*at),
                    "FROM" | "JOIN" => *from = true,
                    "SELECT" | "WHERE" | "ON" | "USING" | "GROUP" | "ORDER" | "HAVING"
                    | "LIMIT" | "WINDOW" | "UNION" | "EXCEPT" | "INTERSECT" | "SET" => {
                        *from = false
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::syntax_error;

    fn near(sql: &str) -> Option<&str> {
        syntax_error(sql).map(|at| &sql[at..])
    }

    #[test]
    fn window_is_no_table_alias() {
        assert_eq!(near("SELECT id\nFROM door as window"), Some("window"));
        assert_eq!(
            near("select * from door join door as window on 1"),
            Some("window on 1")
        );
        assert_eq!(
            near("select * from door d, (select 1) as window"),
            Some("window")
        );
        for sql in [
            "SELECT id, window FROM door",
            "select 1 as window",
            "select * from (select 1 as window) d",
            "with window as (select 1) select * from window",
            "select a from t where b = 'as window'",
            "select rank() over w as window from t window w as ()",
        ] {
            assert_eq!(near(sql), None, "{sql}");
        }
    }
}
