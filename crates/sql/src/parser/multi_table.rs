//! The grammar of multi-table UPDATE and DELETE and of the modifiers sqlparser does not read
//! (`LOW_PRIORITY`, `QUICK`, `IGNORE` after UPDATE / DELETE); executed by exec/multi_table.rs.
//!
//! Forms: `UPDATE [mods] refs SET ... [WHERE]` with several tables or a JOIN in `refs`,
//! `DELETE [mods] t1[.*], ... FROM refs [WHERE]` and `DELETE [mods] FROM t1[.*], ... USING refs
//! [WHERE]`. The statement is split here at its top-level keywords; the table references, the
//! assignments and WHERE are then read by sqlparser (so these statements are lexed twice: once
//! here, once in pieces). A single-table statement with modifiers is read without them.
//!
//! Invariant: [`parse`] says `None` exactly for the statements sqlparser reads as they are
//! (plain single-table UPDATE / DELETE); it decides that from the first tokens (up to SET, or
//! past DELETE FROM's name list), so such a statement, the common one, is lexed only by
//! sqlparser.

use sqlparser::ast;

use crate::error::db_error::{DbError, DbResult};
use crate::parser::parse as sql_parse;
use crate::parser::tokens::{lex, Lexer, Tok};

/// A statement of this grammar.
#[derive(Debug, Clone)]
pub enum MultiTable {
    /// A single-table UPDATE with modifiers, read without them.
    Update {
        update: Box<ast::Update>,
        ignore: bool,
    },
    /// A single-table DELETE with modifiers, read without them.
    Delete {
        delete: Box<ast::Delete>,
        ignore: bool,
    },
    MultiUpdate {
        refs: Vec<ast::TableWithJoins>,
        /// `UPDATE _betula_multi SET ... [WHERE ...]`: the assignments and the condition.
        update: Box<ast::Update>,
        ignore: bool,
    },
    MultiDelete {
        /// The tables rows are deleted from (each name's parts).
        targets: Vec<Vec<String>>,
        refs: Vec<ast::TableWithJoins>,
        /// `DELETE FROM _betula_multi [WHERE ...]`: the condition.
        delete: Box<ast::Delete>,
        ignore: bool,
    },
}

/// The statement split at its top-level keywords.
#[derive(Debug, PartialEq)]
enum Plan {
    /// Single-table UPDATE with modifiers: the statement without them.
    SingleUpdate { sql: String, ignore: bool },
    /// Single-table DELETE with modifiers: the statement without them.
    SingleDelete { sql: String, ignore: bool },
    MultiUpdate {
        refs: String,
        rest: String,
        ignore: bool,
    },
    MultiDelete {
        targets: Vec<Vec<String>>,
        refs: String,
        rest: String,
        ignore: bool,
    },
}

fn word(t: &Tok) -> Option<&str> {
    match t {
        Tok::Word {
            upper,
            quoted: false,
            ..
        } => Some(upper),
        _ => None,
    }
}

/// Parses `sql` (an UPDATE or DELETE) if it is of this grammar; `None`: sqlparser reads it.
pub fn parse(sql: &str) -> DbResult<Option<MultiTable>> {
    if is_plain(sql) {
        return Ok(None);
    }
    let Some(plan) = classify(sql) else {
        return Ok(None);
    };
    Ok(Some(match plan {
        Plan::SingleUpdate { sql, ignore } => match one(&sql)? {
            ast::Statement::Update(u) => MultiTable::Update {
                update: Box::new(u),
                ignore,
            },
            _ => return Err(DbError::syntax(sql)),
        },
        Plan::SingleDelete { sql, ignore } => match one(&sql)? {
            ast::Statement::Delete(d) => MultiTable::Delete {
                delete: Box::new(d),
                ignore,
            },
            _ => return Err(DbError::syntax(sql)),
        },
        Plan::MultiUpdate { refs, rest, ignore } => {
            let refs = parse_refs(&refs)?;
            let ast::Statement::Update(u) = parse_rest("UPDATE", &rest)? else {
                return Err(DbError::syntax(rest));
            };
            MultiTable::MultiUpdate {
                refs,
                update: Box::new(u),
                ignore,
            }
        }
        Plan::MultiDelete {
            targets,
            refs,
            rest,
            ignore,
        } => {
            let refs = parse_refs(&refs)?;
            let ast::Statement::Delete(d) = parse_rest("DELETE", &rest)? else {
                return Err(DbError::syntax(rest));
            };
            MultiTable::MultiDelete {
                targets,
                refs,
                delete: Box::new(d),
                ignore,
            }
        }
    }))
}

/// Whether `sql` (an UPDATE or DELETE) is of this grammar rather than sqlparser's.
pub fn is_own(sql: &str) -> bool {
    !is_plain(sql) && classify(sql).is_some()
}

/// The one statement of `sql` as sqlparser reads it (a syntax error if there are several).
fn one(sql: &str) -> DbResult<ast::Statement> {
    let mut stmts = sql_parse(sql)?;
    if stmts.len() != 1 {
        return Err(DbError::syntax(sql));
    }
    Ok(stmts.remove(0))
}

/// The table references of a multi-table statement, as sqlparser's FROM list.
fn parse_refs(refs: &str) -> DbResult<Vec<ast::TableWithJoins>> {
    let stmts = sql_parse(&format!("SELECT 1 FROM {refs}"))?;
    match stmts.into_iter().next() {
        Some(ast::Statement::Query(q)) => match *q.body {
            ast::SetExpr::Select(s) => Ok(s.from),
            _ => Err(DbError::syntax(refs)),
        },
        _ => Err(DbError::syntax(refs)),
    }
}

fn parse_rest(kind: &str, rest: &str) -> DbResult<ast::Statement> {
    let sql = match kind {
        "UPDATE" => format!("UPDATE _betula_multi {rest}"),
        _ => format!("DELETE FROM _betula_multi {rest}"),
    };
    sql_parse(&sql)?
        .into_iter()
        .next()
        .ok_or_else(|| DbError::syntax(rest))
}

/// True when `classify` would say `None` for a reason visible in the first tokens: no
/// modifier, and an UPDATE whose table references (up to SET) hold no top-level `,` or JOIN,
/// or a `DELETE FROM` whose name list is not followed by USING. False when unsure.
fn is_plain(sql: &str) -> bool {
    let mut toks = Lexer::new(sql);
    let Some(first) = toks.next() else {
        return false;
    };
    let is_update = match word(&first.0) {
        Some("UPDATE") => true,
        Some("DELETE") => false,
        _ => return false,
    };
    let Some((next, _)) = toks.next() else {
        return false;
    };
    if matches!(word(&next), Some("LOW_PRIORITY" | "QUICK" | "IGNORE")) {
        return false;
    }
    if is_update {
        // Up to the first top-level SET: a `,` or JOIN there makes it multi-table.
        let mut depth = 0i32;
        let mut t = Some(next);
        while let Some(tok) = t {
            match &tok {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                _ if depth != 0 => {}
                Tok::Sym(',') => return false,
                _ => match word(&tok) {
                    Some("JOIN") => return false,
                    Some("SET") => return true,
                    _ => {}
                },
            }
            t = toks.next().map(|x| x.0);
        }
        return true;
    }
    if word(&next) != Some("FROM") {
        return false;
    }
    // DELETE FROM: a name list (words, `.`, `*`, `,`) then USING is the multi-table form;
    // anything else before a USING is not (classify declines it too).
    for (tok, _) in toks {
        match &tok {
            Tok::Word { .. } if word(&tok) == Some("USING") => return false,
            Tok::Word { .. } | Tok::Sym('.' | '*' | ',') => {}
            _ => return true,
        }
    }
    true
}

/// Index of the first top-level token at or after `from` satisfying `stop`.
fn find_top(toks: &[(Tok, usize)], from: usize, stop: &dyn Fn(&Tok) -> bool) -> usize {
    let mut depth = 0i32;
    for (i, (t, _)) in toks.iter().enumerate().skip(from) {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            _ if depth == 0 && stop(t) => return i,
            _ => {}
        }
    }
    toks.len()
}

fn has_top(toks: &[(Tok, usize)], a: usize, b: usize, pred: &dyn Fn(&Tok) -> bool) -> bool {
    find_top(toks, a, pred) < b
}

fn classify(sql: &str) -> Option<Plan> {
    let toks = lex(sql);
    let first = word(&toks.first()?.0)?;
    let is_update = first == "UPDATE";
    if !is_update && first != "DELETE" {
        return None;
    }
    let off = |i: usize| toks.get(i).map_or(sql.len(), |t| t.1);
    let mut i = 1;
    let (mut ignore, mut mods) = (false, false);
    while let Some(w) = toks.get(i).and_then(|t| word(&t.0)) {
        match w {
            "LOW_PRIORITY" | "QUICK" => mods = true,
            "IGNORE" => {
                ignore = true;
                mods = true
            }
            _ => break,
        }
        i += 1;
    }
    let body = i;
    let is_kw = |k: &'static str| move |t: &Tok| word(t) == Some(k);
    if is_update {
        let set = find_top(&toks, body, &is_kw("SET"));
        let multi = has_top(&toks, body, set, &|t| {
            *t == Tok::Sym(',') || word(t) == Some("JOIN")
        });
        let refs = sql[off(body)..off(set)].to_string();
        let rest = sql[off(set)..].to_string();
        if multi {
            return Some(Plan::MultiUpdate { refs, rest, ignore });
        }
        if mods {
            return Some(Plan::SingleUpdate {
                sql: format!("UPDATE {refs}{rest}"),
                ignore,
            });
        }
        return None;
    }
    let end_refs = |from: usize| {
        find_top(&toks, from, &|t| {
            matches!(word(t), Some("WHERE" | "ORDER" | "LIMIT"))
        })
    };
    let (targets_at, targets_end, refs_at) = if word(&toks.get(body)?.0) == Some("FROM") {
        let using = find_top(&toks, body + 1, &is_kw("USING"));
        if using == toks.len() {
            if !mods {
                return None;
            }
            return Some(Plan::SingleDelete {
                sql: format!("DELETE {}", &sql[off(body)..]),
                ignore,
            });
        }
        (body + 1, using, using + 1)
    } else {
        let from = find_top(&toks, body, &is_kw("FROM"));
        if from == toks.len() {
            return None;
        }
        (body, from, from + 1)
    };
    let refs_end = end_refs(refs_at);
    // Target list: names, optionally qualified, optionally followed by `.*`.
    let mut targets = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    for (t, _) in &toks[targets_at..targets_end] {
        match t {
            Tok::Word { text, .. } => cur.push(text.clone()),
            Tok::Sym('.') | Tok::Sym('*') => {}
            Tok::Sym(',') => targets.push(std::mem::take(&mut cur)),
            _ => return None,
        }
    }
    if !cur.is_empty() {
        targets.push(cur);
    }
    Some(Plan::MultiDelete {
        targets,
        refs: sql[off(refs_at)..off(refs_end)].to_string(),
        rest: sql[off(refs_end)..].to_string(),
        ignore,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;

    #[test]
    fn classifies_forms() {
        assert!(classify("UPDATE t SET a=1").is_none());
        assert!(classify("DELETE FROM t WHERE a=1").is_none());
        assert!(matches!(
            classify("UPDATE IGNORE t SET a=1"),
            Some(Plan::SingleUpdate { ignore: true, .. })
        ));
        assert!(matches!(
            classify("DELETE QUICK FROM t"),
            Some(Plan::SingleDelete { ignore: false, .. })
        ));
        match classify("UPDATE t1, t2 SET t1.a=1 WHERE a=b") {
            Some(Plan::MultiUpdate { refs, rest, .. }) => {
                assert_eq!(refs.trim(), "t1, t2");
                assert_eq!(rest, "SET t1.a=1 WHERE a=b");
            }
            _ => panic!("not a multi-table UPDATE"),
        }
        match classify("DELETE t2.* FROM t1, t2 WHERE c < (SELECT 1)") {
            Some(Plan::MultiDelete {
                targets,
                refs,
                rest,
                ..
            }) => {
                assert_eq!(targets, vec![vec!["t2".to_string()]]);
                assert_eq!(refs.trim(), "t1, t2");
                assert_eq!(rest, "WHERE c < (SELECT 1)");
            }
            _ => panic!("not a multi-table DELETE"),
        }
        match classify("DELETE LOW_PRIORITY FROM t2, db.t1.* USING t2 JOIN t1 ON a=c") {
            Some(Plan::MultiDelete { targets, refs, .. }) => {
                assert_eq!(targets.len(), 2);
                assert_eq!(targets[1], vec!["db".to_string(), "t1".to_string()]);
                assert_eq!(refs.trim(), "t2 JOIN t1 ON a=c");
            }
            _ => panic!("not a multi-table DELETE"),
        }
    }

    #[test]
    fn the_first_tokens_decide_as_the_whole_split_does() {
        for sql in [
            "UPDATE t SET a=1",
            "UPDATE t SET a=(SELECT 1, 2)",
            "UPDATE t AS x SET a=1 WHERE b IN (1, 2)",
            "UPDATE t1, t2 SET t1.a=1",
            "UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.b = 2",
            "UPDATE (t1) SET a=1",
            "UPDATE IGNORE t SET a=1",
            "UPDATE t",
            "UPDATE",
            "DELETE FROM t WHERE a=1",
            "DELETE FROM t WHERE flag",
            "DELETE FROM t WHERE flag USING x",
            "DELETE FROM t1, t2 USING t1 JOIN t2 ON a=b",
            "DELETE FROM `t` AS x WHERE (a, b) IN (SELECT 1 USING)",
            "DELETE FROM db.t.* USING db.t",
            "DELETE QUICK FROM t",
            "DELETE t1 FROM t1, t2",
            "DELETE t1",
            "DELETE FROM",
            "DELETE FROM t ORDER BY a LIMIT 1",
        ] {
            if is_plain(sql) {
                assert_eq!(classify(sql), None, "{sql}");
            }
        }
        assert!(is_plain("UPDATE sbtest1 SET k=k+1 WHERE id=?1"));
        assert!(is_plain("DELETE FROM sbtest1 WHERE id=?1"));
        assert!(matches!(parse("UPDATE t SET a=1"), Ok(None)));
        assert!(matches!(
            parse("DELETE IGNORE FROM t WHERE a=1"),
            Ok(Some(MultiTable::Delete { ignore: true, .. }))
        ));
        assert!(matches!(
            parse("UPDATE t1, t2 SET t1.a = t2.b WHERE t1.k = t2.k"),
            Ok(Some(MultiTable::MultiUpdate { ref refs, .. })) if refs.len() == 2
        ));
        assert_eq!(
            parse("UPDATE t1, t2 SET").unwrap_err().code,
            ErrorCode::ParseError
        );
    }
}
