//! TokuDB's clustering keys in CREATE TABLE, rewritten into a form sqlparser reads: Percona's
//! `CLUSTERING KEY|INDEX`, `UNIQUE CLUSTERING KEY|INDEX` and `CLUSTERING UNIQUE [KEY|INDEX]`
//! lose the word CLUSTERING, MariaDB's engine-defined index option `CLUSTERING [=] value`
//! (also `` `clustering`=yes ``, as SHOW CREATE TABLE prints it) is taken out, and a clustering
//! key gets the index option `USING `#clustering`` ([`CLUSTERING_MARK`], a type no user writes)
//! at its end, which catalog/create_table/keys.rs reads back as `IndexDef::clustering`.
//! [`option_value`] is the option's value rule, shared with ALTER TABLE / CREATE INDEX
//! (alter.rs).
//!
//! Invariants: only tokens of the table's element list (depth 1) are looked at, only key
//! definitions (KEY, INDEX, UNIQUE, PRIMARY, CONSTRAINT ...) are changed, and only the tokens
//! named above move; the rest of the text is copied byte for byte. A PRIMARY KEY takes the
//! option and ignores it (the primary tree always holds the rows). A value other than YES, NO,
//! ON, OFF, TRUE, FALSE, 1, 0 or DEFAULT is error 1912.

use std::borrow::Cow;

use crate::catalog::create_table::CLUSTERING_MARK;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::tokens::{lex, Tok};

/// The words that start a key definition in a table's element list.
const KEY_STARTS: &[&str] = &[
    "KEY",
    "INDEX",
    "UNIQUE",
    "PRIMARY",
    "CONSTRAINT",
    "FULLTEXT",
    "SPATIAL",
];

fn upper(t: &Tok) -> Option<&str> {
    match t {
        Tok::Word {
            upper,
            quoted: false,
            ..
        } => Some(upper),
        _ => None,
    }
}

/// `CLUSTERING` as a word, quoted or not (MariaDB prints option names quoted).
fn is_clustering_word(t: &Tok) -> bool {
    matches!(t, Tok::Word { text, .. } if text.eq_ignore_ascii_case("CLUSTERING"))
}

/// Whether `value` (the text of the option's value) turns the option on (MariaDB's boolean
/// option values); error 1912 for anything else.
pub fn option_value(value: &str) -> DbResult<bool> {
    match value.to_ascii_uppercase().as_str() {
        "YES" | "ON" | "TRUE" | "1" => Ok(true),
        "NO" | "OFF" | "FALSE" | "0" | "DEFAULT" => Ok(false),
        _ => Err(DbError::new(
            ErrorCode::BadOptionValue,
            format!("Incorrect value '{value}' for option 'clustering'"),
        )),
    }
}

/// The text of a value token.
fn token_text(t: &Tok) -> Option<&str> {
    match t {
        Tok::Word { text, .. } => Some(text),
        Tok::Num(n) => Some(n),
        Tok::Str(s) => Some(s),
        Tok::Sym(_) => None,
    }
}

/// One element of the list: tokens `[from, to)` at depth 1.
struct Element {
    from: usize,
    to: usize,
}

/// The elements of the first parenthesized list at depth 0 of `toks` (the table's columns and
/// keys), and the index of its closing parenthesis.
fn elements(toks: &[(Tok, usize)]) -> Vec<Element> {
    let Some(open) = toks.iter().position(|(t, _)| *t == Tok::Sym('(')) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut from = open + 1;
    for (i, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => {
                depth -= 1;
                if depth == 0 {
                    out.push(Element { from, to: i });
                    return out;
                }
            }
            Tok::Sym(',') if depth == 1 => {
                out.push(Element { from, to: i });
                from = i + 1;
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The edits of one key element: (byte from, byte to, replacement).
fn edit_element(
    sql: &str,
    toks: &[(Tok, usize)],
    e: &Element,
    edits: &mut Vec<(usize, usize, String)>,
) -> DbResult<()> {
    let kw = |i: usize| toks.get(i).filter(|_| i < e.to).and_then(|t| upper(&t.0));
    let end_of = |i: usize| toks.get(i + 1).map_or(sql.len(), |t| t.1);
    let mut i = e.from;
    if kw(i) == Some("CONSTRAINT") {
        i += 1;
        if !matches!(kw(i), Some("PRIMARY" | "UNIQUE" | "FOREIGN" | "CHECK")) {
            i += 1;
        }
    }
    let is_key = match kw(e.from) {
        Some("CLUSTERING") => matches!(kw(e.from + 1), Some("KEY" | "INDEX" | "UNIQUE")),
        Some(k) => KEY_STARTS.contains(&k),
        None => false,
    };
    if !is_key {
        return Ok(());
    }
    let mut clustering = false;
    // Percona's forms: the word before (or after) UNIQUE, before KEY / INDEX.
    let drop_word = |i: usize, edits: &mut Vec<(usize, usize, String)>| {
        edits.push((toks[i].1, end_of(i), " ".into()));
    };
    match (kw(i), kw(i + 1), kw(i + 2)) {
        (Some("CLUSTERING"), Some("KEY" | "INDEX" | "UNIQUE"), _) => {
            drop_word(i, edits);
            clustering = true;
        }
        (Some("UNIQUE"), Some("CLUSTERING"), Some("KEY" | "INDEX")) => {
            drop_word(i + 1, edits);
            clustering = true;
        }
        _ => {}
    }
    let primary = kw(i) == Some("PRIMARY");
    // MariaDB's form: `CLUSTERING [=] value` among the options, outside parentheses.
    let mut depth = 0i32;
    let mut j = e.from;
    while j < e.to {
        match &toks[j].0 {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            t if depth == 0 && is_clustering_word(t) && j > i + 1 => {
                let mut v = j + 1;
                if toks.get(v).map(|t| &t.0) == Some(&Tok::Sym('=')) {
                    v += 1;
                }
                if let Some(text) = toks
                    .get(v)
                    .filter(|_| v < e.to)
                    .and_then(|t| token_text(&t.0))
                {
                    clustering = option_value(text)?;
                    edits.push((toks[j].1, end_of(v), " ".into()));
                    j = v + 1;
                    continue;
                }
            }
            _ => {}
        }
        j += 1;
    }
    if clustering && !primary {
        let at = toks.get(e.to).map_or(sql.len(), |t| t.1);
        edits.push((at, at, format!(" USING `{CLUSTERING_MARK}`")));
    }
    Ok(())
}

/// The CREATE TABLE text `sql` with its clustering keys in sqlparser's form (borrowed when it
/// has none).
pub fn rewrite_create(sql: &str) -> DbResult<Cow<'_, str>> {
    if !sql.to_ascii_uppercase().contains("CLUSTERING") {
        return Ok(Cow::Borrowed(sql));
    }
    let toks = lex(sql);
    let mut edits = Vec::new();
    for e in elements(&toks) {
        edit_element(sql, &toks, &e, &mut edits)?;
    }
    if edits.is_empty() {
        return Ok(Cow::Borrowed(sql));
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(sql.len() + 32);
    let mut from = 0;
    for (a, b, ins) in edits {
        out.push_str(&sql[from..a.max(from)]);
        out.push_str(&ins);
        from = from.max(b);
    }
    out.push_str(&sql[from..]);
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> String {
        rewrite_create(sql).unwrap().into_owned()
    }

    #[test]
    fn percona_and_mariadb_forms_become_the_marker() {
        assert_eq!(
            rw("CREATE TABLE t (a INT, b INT, CLUSTERING KEY k (b))"),
            "CREATE TABLE t (a INT, b INT,  KEY k (b) USING `#clustering`)"
        );
        assert_eq!(
            rw("CREATE TABLE t (a INT, UNIQUE CLUSTERING INDEX (a) COMMENT 'c', KEY (a))"),
            "CREATE TABLE t (a INT, UNIQUE  INDEX (a) COMMENT 'c' USING `#clustering`, KEY (a))"
        );
        assert_eq!(
            rw("CREATE TABLE t (a INT, KEY `k` (`a`) `clustering`=yes, b INT)"),
            "CREATE TABLE t (a INT, KEY `k` (`a`)   USING `#clustering`, b INT)"
        );
        assert_eq!(
            rw("CREATE TABLE t (a INT, KEY k (a) CLUSTERING = NO)"),
            "CREATE TABLE t (a INT, KEY k (a)  )"
        );
        // the primary key is always clustered: the option goes, nothing is marked
        assert_eq!(
            rw("CREATE TABLE t (a INT, PRIMARY KEY (a) CLUSTERING=YES)"),
            "CREATE TABLE t (a INT, PRIMARY KEY (a)  )"
        );
    }

    #[test]
    fn columns_and_indexes_named_clustering_are_left_alone() {
        for sql in [
            "CREATE TABLE t (clustering INT, KEY clustering (clustering))",
            "CREATE TABLE t (a INT COMMENT 'CLUSTERING=YES', UNIQUE clustering (a))",
            "CREATE TABLE t (a INT) COMMENT 'clustering'",
        ] {
            assert_eq!(rw(sql), sql);
        }
    }

    #[test]
    fn bad_values_are_1912() {
        let e = rewrite_create("CREATE TABLE t (a INT, KEY (a) CLUSTERING=maybe)").unwrap_err();
        assert_eq!(e.code, ErrorCode::BadOptionValue);
        assert!(option_value("On").unwrap() && !option_value("0").unwrap());
    }
}
