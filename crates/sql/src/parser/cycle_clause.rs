//! MariaDB's `CYCLE col, ... RESTRICT` clause after a WITH element (`WITH RECURSIVE cte AS
//! (...) CYCLE a, b RESTRICT SELECT ...`), which sqlparser does not read.
//!
//! [`take`] finds each clause (a `)` closing a WITH element, then `CYCLE`, names separated by
//! commas, `RESTRICT`) and blanks it out of the text; after sqlparser has read the rest,
//! [`attach`] writes the clause's columns into the element's [`ast::Cte`] as its `from` (a
//! field the MySQL dialect never sets), where [`columns`] reads them back (plan/cte.rs).
//!
//! Invariants: blanking keeps every other byte where it was (spaces for the clause's characters,
//! its line breaks kept), so spans and computed column names are those of the text as written;
//! a clause is attached to the element of the top-level query, a CTE body or a derived table
//! (at any depth) it follows, found by name; a clause after an element of a WITH without
//! RECURSIVE is 1064 at `CYCLE`, as in MariaDB; one that cannot be attached (a WITH inside an
//! expression's subquery) is refused (1235), never dropped.

use sqlparser::ast;

use super::tokens::{lex, Tok};
use crate::error::db_error::{DbError, DbResult};

/// One clause: the WITH element it follows, its columns, where `CYCLE` starts.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleClause {
    pub cte: String,
    pub columns: Vec<String>,
    pub at: usize,
}

/// What marks a `from` written by [`attach`] (a character no identifier read from text has;
/// the printer of stored queries reads it back too).
use crate::catalog::query_print::CYCLE_MARK as MARK;

fn is_word(t: Option<&(Tok, usize)>, upper_kw: &str) -> bool {
    matches!(t, Some((Tok::Word { upper, quoted: false, .. }, _)) if upper == upper_kw)
}

/// The index of the token opening the parenthesis closed at `close`.
fn opening(toks: &[(Tok, usize)], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match toks[i].0 {
            Tok::Sym(')') => depth += 1,
            Tok::Sym('(') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The name of the WITH element whose body closes at token `close`: `name [(cols)] AS (`.
fn element_name(toks: &[(Tok, usize)], close: usize) -> Option<String> {
    let open = opening(toks, close)?;
    if !is_word(toks.get(open.checked_sub(1)?), "AS") {
        return None;
    }
    let mut i = open.checked_sub(2)?;
    if matches!(toks[i].0, Tok::Sym(')')) {
        i = opening(toks, i)?.checked_sub(1)?;
    }
    match &toks[i].0 {
        Tok::Word { text, .. } => Some(text.clone()),
        _ => None,
    }
}

/// The clause starting at token `i` (`CYCLE`): its columns and the token after `RESTRICT`.
fn clause_at(toks: &[(Tok, usize)], i: usize) -> Option<(Vec<String>, usize)> {
    let mut columns = Vec::new();
    let mut j = i + 1;
    loop {
        match toks.get(j) {
            Some((Tok::Word { text, .. }, _)) => columns.push(text.clone()),
            _ => return None,
        }
        match toks.get(j + 1) {
            Some((Tok::Sym(','), _)) => j += 2,
            _ if is_word(toks.get(j + 1), "RESTRICT") => return Some((columns, j + 2)),
            _ => return None,
        }
    }
}

/// `sql` with its CYCLE clauses blanked out, and the clauses; `None` if it has none.
pub fn take(sql: &str) -> Option<(String, Vec<CycleClause>)> {
    if !sql.to_ascii_uppercase().contains("CYCLE") {
        return None;
    }
    let toks = lex(sql);
    let mut clauses = Vec::new();
    let mut text = sql.to_string().into_bytes();
    for i in 1..toks.len() {
        if !is_word(toks.get(i), "CYCLE") || !matches!(toks[i - 1].0, Tok::Sym(')')) {
            continue;
        }
        let (Some(cte), Some((columns, next))) = (element_name(&toks, i - 1), clause_at(&toks, i))
        else {
            continue;
        };
        let at = toks[i].1;
        let end = toks[next - 1].1 + "RESTRICT".len();
        for b in &mut text[at..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        clauses.push(CycleClause { cte, columns, at });
    }
    // only ASCII bytes were replaced, by ASCII spaces: still UTF-8
    let text = String::from_utf8(text).ok()?;
    (!clauses.is_empty()).then_some((text, clauses))
}

/// The columns of `cte`'s CYCLE clause, if it has one.
pub fn columns(cte: &ast::Cte) -> Option<Vec<String>> {
    crate::catalog::query_print::cycle_columns(cte)
}

/// Writes each clause into its element of `stmt` (see the module doc); `sql` is the text as
/// written, for the 1064 of a clause in a WITH without RECURSIVE.
pub fn attach(sql: &str, stmt: &mut ast::Statement, clauses: &[CycleClause]) -> DbResult<()> {
    for c in clauses {
        let mut found = None;
        if let Some(q) = top_query(stmt) {
            find_in_query(q, &c.cte, &mut found);
        }
        let Some((cte, recursive)) = found else {
            return Err(DbError::unsupported("CYCLE ... RESTRICT here"));
        };
        if !recursive {
            return Err(DbError::syntax_near(sql, c.at));
        }
        let mut mark = String::new();
        for col in &c.columns {
            mark.push(MARK);
            mark.push_str(col);
        }
        cte.from = Some(ast::Ident::new(mark));
    }
    Ok(())
}

/// The query of a statement that holds one (SELECT, CREATE VIEW, INSERT ... SELECT, CREATE
/// TABLE ... SELECT).
fn top_query(stmt: &mut ast::Statement) -> Option<&mut ast::Query> {
    match stmt {
        ast::Statement::Query(q) => Some(q),
        ast::Statement::CreateView(v) => Some(&mut v.query),
        ast::Statement::Insert(i) => i.source.as_deref_mut(),
        ast::Statement::CreateTable(t) => t.query.as_deref_mut(),
        _ => None,
    }
}

type Found<'a> = Option<(&'a mut ast::Cte, bool)>;

/// The first element named `name` without a clause yet, in `q`'s WITH, its elements' bodies
/// and its derived tables; with whether its WITH is RECURSIVE.
fn find_in_query<'a>(q: &'a mut ast::Query, name: &str, found: &mut Found<'a>) {
    if let Some(with) = q.with.as_mut() {
        let recursive = with.recursive;
        for cte in with.cte_tables.iter_mut() {
            if found.is_some() {
                return;
            }
            if cte.alias.name.value == name && cte.from.is_none() {
                *found = Some((cte, recursive));
                return;
            }
            find_in_query(&mut cte.query, name, found);
        }
    }
    if found.is_none() {
        find_in_set(&mut q.body, name, found);
    }
}

fn find_in_set<'a>(s: &'a mut ast::SetExpr, name: &str, found: &mut Found<'a>) {
    match s {
        ast::SetExpr::Query(q) => find_in_query(q, name, found),
        ast::SetExpr::SetOperation { left, right, .. } => {
            find_in_set(left, name, found);
            if found.is_none() {
                find_in_set(right, name, found);
            }
        }
        ast::SetExpr::Select(sel) => {
            for t in sel.from.iter_mut() {
                find_in_factor(&mut t.relation, name, found);
                for j in t.joins.iter_mut() {
                    find_in_factor(&mut j.relation, name, found);
                }
            }
        }
        _ => {}
    }
}

fn find_in_factor<'a>(f: &'a mut ast::TableFactor, name: &str, found: &mut Found<'a>) {
    if found.is_some() {
        return;
    }
    match f {
        ast::TableFactor::Derived { subquery, .. } => find_in_query(subquery, name, found),
        ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            find_in_factor(&mut table_with_joins.relation, name, found);
            for j in table_with_joins.joins.iter_mut() {
                find_in_factor(&mut j.relation, name, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL: &str = "WITH RECURSIVE cte (d, f) AS (SELECT 1, 2 UNION SELECT d + 1, f FROM cte)\n  CYCLE f, `d` RESTRICT\nSELECT d + 1 FROM cte";

    #[test]
    fn clauses_are_blanked_in_place() {
        let (text, clauses) = take(SQL).unwrap();
        assert_eq!(text.len(), SQL.len());
        assert_eq!(text.lines().count(), SQL.lines().count());
        assert!(!text.contains("CYCLE") && text.ends_with("SELECT d + 1 FROM cte"));
        assert_eq!(
            clauses,
            vec![CycleClause {
                cte: "cte".into(),
                columns: vec!["f".into(), "d".into()],
                at: SQL.find("CYCLE").unwrap(),
            }]
        );
        assert!(take("SELECT cycle FROM t").is_none());
    }

    #[test]
    fn clauses_attach_to_their_element() {
        let (text, clauses) = take(SQL).unwrap();
        let mut stmts = super::super::parse(&text).unwrap();
        attach(SQL, &mut stmts[0], &clauses).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else {
            panic!("not a query")
        };
        let cte = &q.with.as_ref().unwrap().cte_tables[0];
        assert_eq!(columns(cte), Some(vec!["f".to_string(), "d".to_string()]));

        let plain = "WITH cte AS (SELECT 1 AS a) CYCLE a RESTRICT SELECT * FROM cte";
        let (text, clauses) = take(plain).unwrap();
        let mut stmts = super::super::parse(&text).unwrap();
        let e = attach(plain, &mut stmts[0], &clauses).unwrap_err();
        assert!(e.message.contains("near 'CYCLE a RESTRICT SELECT"));
    }
}
