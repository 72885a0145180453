//! Multi-table UPDATE and DELETE, and the modifiers sqlparser does not read
//! (`LOW_PRIORITY`, `QUICK`, `IGNORE` after UPDATE/DELETE).
//!
//! Forms: `UPDATE [mods] refs SET ... [WHERE]` with several tables or a JOIN in `refs`,
//! `DELETE [mods] t1[.*], ... FROM refs [WHERE]` and `DELETE [mods] FROM t1[.*], ... USING refs
//! [WHERE]`. The statement is split here at its top-level keywords; the table references, the
//! assignments and WHERE are then parsed by sqlparser. A single-table statement with modifiers
//! is handed to dml.rs (which keeps ORDER BY/LIMIT); other statements are left to sqlparser.
//!
//! Execution: the join (select.rs's FROM planning and access paths) is read first, collecting
//! for every target table the primary keys of its matching rows, each once (the first
//! combination that matches is the one UPDATE's expressions see). Then every collected row is
//! locked and read again (dml::load); if it changed since the join read it, WHERE and the ON
//! conditions are checked again against the new version and the row is skipped if they no
//! longer hold, as the single-table path does. ORDER BY and LIMIT are errors (1221), as in MySQL.
//! IGNORE turns duplicate-key and coercion errors into warnings, and a scalar subquery
//! returning several rows into NULL with warning 1242.

use std::collections::HashSet;

use sqlparser::ast::{self as ast};

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::dml;
use crate::exec::query::run_query;
use crate::exec::scan::{read_rows, Output};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Expr;
use crate::parser::parse;
use crate::parser::tokens::{lex, Tok};
use crate::plan::access::conjuncts;
use crate::plan::from::{plan_access, plan_from, From, SrcKind};
use crate::types::coerce::coerce_to_table_column;
use crate::types::value::Value;

/// A statement this module takes over from sqlparser.
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

/// True if `sql` is a statement of this module (sqlparser alone would not read it).
pub fn is_special(sql: &str) -> bool {
    classify(sql).is_some()
}

/// Runs `sql` if it is a statement of this module.
pub fn special(cx: &mut Context, sql: &str) -> Option<DbResult<Output>> {
    let plan = classify(sql)?;
    Some(match plan {
        Plan::SingleUpdate { sql, ignore } => single(cx, &sql, ignore),
        Plan::SingleDelete { sql, ignore } => single(cx, &sql, ignore),
        Plan::MultiUpdate { refs, rest, ignore } => multi_update(cx, &refs, &rest, ignore),
        Plan::MultiDelete {
            targets,
            refs,
            rest,
            ignore,
        } => multi_delete(cx, &targets, &refs, &rest, ignore),
    })
}

fn single(cx: &mut Context, sql: &str, ignore: bool) -> DbResult<Output> {
    let stmts = parse(sql)?;
    match stmts.as_slice() {
        [ast::Statement::Update(u)] => dml::update_with(cx, u, ignore),
        [ast::Statement::Delete(d)] => {
            let mut d = d.clone();
            if ignore {
                if let Some(w) = d.selection.as_mut() {
                    soften_subqueries(cx, w)?;
                }
            }
            dml::delete(cx, &d)
        }
        _ => Err(DbError::syntax(sql)),
    }
}

/// The table references of a multi-table statement, as sqlparser's FROM list.
fn parse_refs(refs: &str) -> DbResult<Vec<ast::TableWithJoins>> {
    let stmts = parse(&format!("SELECT 1 FROM {refs}"))?;
    match stmts.into_iter().next() {
        Some(ast::Statement::Query(q)) => match *q.body {
            ast::SetExpr::Select(s) => Ok(s.from),
            _ => Err(DbError::syntax(refs)),
        },
        _ => Err(DbError::syntax(refs)),
    }
}

/// With IGNORE, a scalar subquery returning several rows reads as NULL (warning 1242).
fn soften_subqueries(cx: &mut Context, e: &mut ast::Expr) -> DbResult<()> {
    use ast::Expr as E;
    match e {
        E::Subquery(q) => {
            if let Output::Rows { rows, .. } = run_query(cx, q)? {
                if rows.len() > 1 {
                    cx.warnings.push(Warning {
                        level: WarningLevel::Warning,
                        code: 1242,
                        message: "Subquery returns more than 1 row".into(),
                    });
                    *e = E::Value(ast::Value::Null.into());
                }
            }
        }
        E::BinaryOp { left, right, .. } => {
            soften_subqueries(cx, left)?;
            soften_subqueries(cx, right)?;
        }
        E::UnaryOp { expr, .. } | E::Nested(expr) | E::IsNull(expr) | E::IsNotNull(expr) => {
            soften_subqueries(cx, expr)?
        }
        _ => {}
    }
    Ok(())
}

fn usage_error(stmt: &str, what: &str) -> DbError {
    DbError::new(
        1221,
        "HY000",
        format!("Incorrect usage of {stmt} and {what}"),
    )
}

/// The planned join with compiled ON conditions and WHERE.
struct Join {
    from: From,
    where_c: Option<Expr>,
}

fn plan_join(
    cx: &mut Context,
    refs: &[ast::TableWithJoins],
    selection: Option<&ast::Expr>,
    ignore: bool,
) -> DbResult<Join> {
    let mut from = plan_from(cx, refs)?;
    // The join is walked once per target table: derived tables are run once, up front.
    crate::exec::join::materialize_in_place(cx, &mut from)?;
    for i in 0..from.sources.len() {
        if let Some(mut on) = from.sources[i].on.clone() {
            if ignore {
                soften_subqueries(cx, &mut on)?;
            }
            from.sources[i].on_c = Some(cx.compile(&from.scope, &on, "on clause")?);
        }
        // Targets are rewritten whole: read every column of every table.
        let n = from.sources[i].needed.len();
        from.sources[i].needed = vec![true; n];
    }
    let where_c = match selection {
        Some(w) => {
            let mut w = w.clone();
            if ignore {
                soften_subqueries(cx, &mut w)?;
            }
            Some(cx.compile(&from.scope, &w, "where clause")?)
        }
        None => None,
    };
    let mut conj = Vec::new();
    if let Some(w) = &where_c {
        conjuncts(w, &mut conj);
    }
    plan_access(&mut from, &conj);
    Ok(Join { from, where_c })
}

/// Rows of one target table: primary key and the joined row it first matched in.
struct Matches {
    source: usize,
    seen: HashSet<Vec<u8>>,
    rows: Vec<(Vec<u8>, Vec<Value>)>,
}

fn passes(e: Option<&Expr>, row: &[Value]) -> DbResult<bool> {
    Ok(match e {
        None => true,
        Some(e) => truth(&eval(e, &EvalCtx::row(row))?) == Some(true),
    })
}

/// Reads the join (no snapshot: the latest committed rows plus this session's changes) and
/// collects each target's matching rows, each once.
fn collect(cx: &Context, j: &Join, targets: &mut [Matches]) -> DbResult<()> {
    let width = j.from.scope.cols.len();
    let mut row = vec![Value::Null; width];
    let mut pks = vec![Vec::new(); j.from.sources.len()];
    walk(cx, j, 0, &mut row, &mut pks, targets)
}

fn walk(
    cx: &Context,
    j: &Join,
    i: usize,
    row: &mut Vec<Value>,
    pks: &mut Vec<Vec<u8>>,
    targets: &mut [Matches],
) -> DbResult<()> {
    let from = &j.from;
    if i == from.sources.len() {
        if passes(j.where_c.as_ref(), row)? {
            for m in targets.iter_mut() {
                let pk = &pks[m.source];
                if !pk.is_empty() && m.seen.insert(pk.clone()) {
                    m.rows.push((pk.clone(), row.clone()));
                }
            }
        }
        return Ok(());
    }
    let s = &from.sources[i];
    let mut matched = false;
    let mut visit = |pk: Vec<u8>,
                     vals: &[Value],
                     row: &mut Vec<Value>,
                     pks: &mut Vec<Vec<u8>>,
                     targets: &mut [Matches]|
     -> DbResult<()> {
        row[s.offset..s.offset + s.ncols].clone_from_slice(&vals[..s.ncols]);
        if !passes(s.on_c.as_ref(), row)? {
            return Ok(());
        }
        matched = true;
        pks[i] = pk;
        walk(cx, j, i + 1, row, pks, targets)
    };
    match &s.kind {
        SrcKind::Rows(rows) => {
            for r in rows {
                visit(Vec::new(), r, row, pks, targets)?;
            }
        }
        SrcKind::Derived(_) => {
            return Err(DbError::internal(
                "a derived table was not run before the join",
            ))
        }
        SrcKind::Table(t) => {
            let outer = row.clone();
            let mut inner = row.clone();
            read_rows(
                cx,
                t,
                &s.access,
                &outer,
                &s.needed,
                false,
                None,
                &mut |pk, vals| {
                    visit(pk, &vals, &mut inner, pks, targets)?;
                    Ok(true)
                },
            )?;
        }
    }
    if !matched && s.left {
        for v in &mut row[s.offset..s.offset + s.ncols] {
            *v = Value::Null;
        }
        pks[i] = Vec::new();
        walk(cx, j, i + 1, row, pks, targets)?;
    }
    Ok(())
}

/// Locks the collected row and reads it again; returns the joined row with the table's
/// current version, or None if the row is gone or no longer matches.
fn relock(
    cx: &mut Context,
    j: &Join,
    source: usize,
    pk: &[u8],
    joined: &[Value],
) -> DbResult<Option<Vec<Value>>> {
    let s = &j.from.sources[source];
    let SrcKind::Table(t) = &s.kind else {
        return Ok(None);
    };
    let t = t.clone();
    let Some(now) = dml::load(cx, &t, pk)? else {
        return Ok(None);
    };
    let mut row = joined.to_vec();
    if now[..] == joined[s.offset..s.offset + s.ncols] {
        return Ok(Some(row));
    }
    row[s.offset..s.offset + s.ncols].clone_from_slice(&now);
    for src in &j.from.sources {
        if !passes(src.on_c.as_ref(), &row)? {
            return Ok(None);
        }
    }
    if !passes(j.where_c.as_ref(), &row)? {
        return Ok(None);
    }
    Ok(Some(row))
}

fn parse_rest(kind: &str, rest: &str) -> DbResult<ast::Statement> {
    let sql = match kind {
        "UPDATE" => format!("UPDATE _betula_multi {rest}"),
        _ => format!("DELETE FROM _betula_multi {rest}"),
    };
    parse(&sql)?
        .into_iter()
        .next()
        .ok_or_else(|| DbError::syntax(rest))
}

fn multi_update(cx: &mut Context, refs: &str, rest: &str, ignore: bool) -> DbResult<Output> {
    let refs = parse_refs(refs)?;
    let ast::Statement::Update(u) = parse_rest("UPDATE", rest)? else {
        return Err(DbError::syntax(rest));
    };
    if !u.order_by.is_empty() {
        return Err(usage_error("UPDATE", "ORDER BY"));
    }
    if u.limit.is_some() {
        return Err(usage_error("UPDATE", "LIMIT"));
    }
    let j = plan_join(cx, &refs, u.selection.as_ref(), ignore)?;
    // Assignments: (global column, expression), grouped by the target source.
    let mut targets: Vec<Matches> = Vec::new();
    let mut assigns: Vec<Vec<(usize, Expr)>> = Vec::new();
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(n) = &a.target else {
            return Err(DbError::unsupported("tuple assignment"));
        };
        let parts = crate::expr::object_name_parts(n);
        let target = match parts.as_slice() {
            [c] => ast::Expr::Identifier(ast::Ident::new(c)),
            _ => ast::Expr::CompoundIdentifier(parts.iter().map(ast::Ident::new).collect()),
        };
        let Expr::Col(g) = cx.compile(&j.from.scope, &target, "field list")? else {
            return Err(DbError::bad_field(&parts.join("."), "field list"));
        };
        let Some(src) = j
            .from
            .sources
            .iter()
            .position(|s| g >= s.offset && g < s.offset + s.ncols)
        else {
            return Err(DbError::bad_field(&parts.join("."), "field list"));
        };
        let SrcKind::Table(t) = &j.from.sources[src].kind else {
            return Err(DbError::new(
                1288,
                "HY000",
                format!(
                    "The target table {} of the UPDATE is not updatable",
                    j.from.sources[src].alias
                ),
            ));
        };
        let c = g - j.from.sources[src].offset;
        let e = if is_default_kw(&a.value) {
            Expr::Lit(t.columns[c].default_value())
        } else {
            cx.compile(&j.from.scope, &a.value, "field list")?
        };
        let k = match targets.iter().position(|m| m.source == src) {
            Some(k) => k,
            None => {
                targets.push(Matches {
                    source: src,
                    seen: HashSet::new(),
                    rows: Vec::new(),
                });
                assigns.push(Vec::new());
                targets.len() - 1
            }
        };
        assigns[k].push((g, e));
    }
    cx.begin_write()?;
    collect(cx, &j, &mut targets)?;
    let strict = cx.strict() && !ignore;
    let mut warnings = Vec::new();
    let (mut matched, mut changed) = (0u64, 0u64);
    for (m, assigns) in targets.iter().zip(&assigns) {
        let s = &j.from.sources[m.source];
        let SrcKind::Table(t) = &s.kind else { continue };
        let t = t.clone();
        let range = s.offset..s.offset + s.ncols;
        for (n, (pk, joined)) in m.rows.iter().enumerate() {
            let Some(mut row) = relock(cx, &j, m.source, pk, joined)? else {
                continue;
            };
            matched += 1;
            let old: Vec<Value> = row[range.clone()].to_vec();
            for (g, e) in assigns {
                let v = eval(e, &EvalCtx::row(&row))?;
                let c = g - s.offset;
                row[*g] = match coerce_to_table_column(
                    &v,
                    &t.columns[c],
                    (&t.db, &t.name),
                    n as u64 + 1,
                    crate::types::coerce::SqlMode { strict },
                    &mut warnings,
                ) {
                    Ok(v) => v,
                    Err(e) if ignore => {
                        warnings.push(as_warning(e.into()));
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
            }
            let mut new: Vec<Value> = row[range.clone()].to_vec();
            if new != old {
                for (i, on) in t.on_update_now.iter().enumerate() {
                    if *on && !assigns.iter().any(|(g, _)| *g == s.offset + i) {
                        new[i] = Value::DateTime(cx.now);
                    }
                }
            }
            match dml::update_row(cx, &t, pk, &old, &new) {
                Ok(true) => changed += 1,
                Ok(false) => {}
                Err(e) if ignore && e.code == 1062 => warnings.push(as_warning(e)),
                Err(e) => return Err(e),
            }
        }
    }
    let nwarn = warnings.len() + cx.warnings.len();
    cx.warnings.extend(warnings);
    Ok(Output::Done {
        affected: changed,
        last_insert_id: 0,
        info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: {nwarn}"),
    })
}

fn as_warning(e: DbError) -> Warning {
    Warning {
        level: WarningLevel::Warning,
        code: e.code,
        message: e.message,
    }
}

fn is_default_kw(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

fn multi_delete(
    cx: &mut Context,
    target_names: &[Vec<String>],
    refs: &str,
    rest: &str,
    ignore: bool,
) -> DbResult<Output> {
    let refs = parse_refs(refs)?;
    let ast::Statement::Delete(d) = parse_rest("DELETE", rest)? else {
        return Err(DbError::syntax(rest));
    };
    if !d.order_by.is_empty() {
        return Err(usage_error("DELETE", "ORDER BY"));
    }
    if d.limit.is_some() {
        return Err(usage_error("DELETE", "LIMIT"));
    }
    let j = plan_join(cx, &refs, d.selection.as_ref(), ignore)?;
    let mut targets: Vec<Matches> = Vec::new();
    for name in target_names {
        let alias = name.last().cloned().unwrap_or_default();
        let found = j.from.sources.iter().position(|s| {
            s.alias == alias
                && match (&s.kind, name.len()) {
                    (SrcKind::Table(t), 2) => t.db == name[0],
                    (SrcKind::Table(_), _) => true,
                    _ => false,
                }
        });
        let Some(src) = found else {
            return Err(DbError::new(
                1109,
                "42S02",
                format!("Unknown table '{alias}' in MULTI DELETE"),
            ));
        };
        if !targets.iter().any(|m| m.source == src) {
            targets.push(Matches {
                source: src,
                seen: HashSet::new(),
                rows: Vec::new(),
            });
        }
    }
    cx.begin_write()?;
    collect(cx, &j, &mut targets)?;
    let mut deleted = 0u64;
    for m in &targets {
        let SrcKind::Table(t) = &j.from.sources[m.source].kind else {
            continue;
        };
        let t = t.clone();
        let s = &j.from.sources[m.source];
        for (pk, joined) in &m.rows {
            let Some(row) = relock(cx, &j, m.source, pk, joined)? else {
                continue;
            };
            dml::delete_row(cx, &t, pk, &row[s.offset..s.offset + s.ncols])?;
            deleted += 1;
        }
    }
    Ok(Output::done(deleted))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
