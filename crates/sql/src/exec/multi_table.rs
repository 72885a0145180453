//! Multi-table UPDATE and DELETE, and single-table ones with the modifiers sqlparser does not
//! read (`LOW_PRIORITY`, `QUICK`, `IGNORE` after UPDATE/DELETE); grammar: parser/multi_table.rs.
//! A single-table statement with modifiers is handed to dml.rs (which keeps ORDER BY/LIMIT).
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
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::dml;
use crate::exec::query::run_query;
use crate::exec::scan::read_rows;
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Expr;
use crate::parser::multi_table::MultiTable;
use crate::plan::access::conjuncts;
use crate::plan::from::{plan_access, plan_from, From, SrcKind};
use crate::result::Output;
use crate::types::coerce::coerce_to_table_column;
use crate::types::value::Value;

/// Runs a statement of the multi-table grammar.
pub fn run(cx: &mut Context, stmt: MultiTable) -> DbResult<Output> {
    // The schema lock before the definition is read: no DDL publishes another one until the
    // transaction ends (design.md SES3, OIX1).
    cx.begin_write()?;
    match stmt {
        MultiTable::Update { update, ignore } => dml::update_with(cx, &update, ignore),
        MultiTable::Delete { mut delete, ignore } => {
            if ignore {
                if let Some(w) = delete.selection.as_mut() {
                    soften_subqueries(cx, w)?;
                }
            }
            dml::delete(cx, &delete)
        }
        MultiTable::MultiUpdate {
            refs,
            update,
            ignore,
        } => {
            let _div_zero = cx.storing_values(ignore);
            multi_update(cx, &refs, &update, ignore)
        }
        MultiTable::MultiDelete {
            targets,
            refs,
            delete,
            ignore,
        } => multi_delete(cx, &targets, &refs, &delete, ignore),
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
                        code: ErrorCode::SubqueryNo1Row,
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
        ErrorCode::WrongUsage,
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
            from.sources[i].on_c = Some(cx.compile(&from.scope, &on, "ON")?);
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
            Some(cx.compile(&from.scope, &w, "WHERE")?)
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
        cx.check_interrupted()?;
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
        SrcKind::Sequence(seq) => {
            for v in seq.values() {
                visit(Vec::new(), &[Value::UInt(v)], row, pks, targets)?;
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

fn multi_update(
    cx: &mut Context,
    refs: &[ast::TableWithJoins],
    u: &ast::Update,
    ignore: bool,
) -> DbResult<Output> {
    if !u.order_by.is_empty() {
        return Err(usage_error("UPDATE", "ORDER BY"));
    }
    if u.limit.is_some() {
        return Err(usage_error("UPDATE", "LIMIT"));
    }
    let j = plan_join(cx, refs, u.selection.as_ref(), ignore)?;
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
        let Some(g) = cx.compile(&j.from.scope, &target, "SET")?.col_index() else {
            return Err(DbError::bad_field(&parts.join("."), "SET"));
        };
        let Some(src) = j
            .from
            .sources
            .iter()
            .position(|s| g >= s.offset && g < s.offset + s.ncols)
        else {
            return Err(DbError::bad_field(&parts.join("."), "SET"));
        };
        let SrcKind::Table(t) = &j.from.sources[src].kind else {
            return Err(DbError::new(
                ErrorCode::NonUpdatableTable,
                format!(
                    "The target table {} of the UPDATE is not updatable",
                    j.from.sources[src].alias
                ),
            ));
        };
        if t.rollup.is_some() {
            // A roll-up is read-only to DML (design.md RUP1).
            return Err(DbError::new(
                ErrorCode::NonUpdatableTable,
                format!(
                    "The target table {} of the UPDATE is not updatable",
                    j.from.sources[src].alias
                ),
            ));
        }
        let c = g - j.from.sources[src].offset;
        let e = if is_default_kw(&a.value) {
            Expr::Lit(t.columns[c].default_value())
        } else {
            cx.compile(&j.from.scope, &a.value, "SET")?
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
            cx.check_interrupted()?;
            let Some(mut row) = relock(cx, &j, m.source, pk, joined)? else {
                continue;
            };
            matched += 1;
            let old: Vec<Value> = row[range.clone()].to_vec();
            for (g, e) in assigns {
                let c = g - s.offset;
                if t.generated[c].is_some() {
                    dml::value_for_generated(&t, c, strict, &mut warnings)?;
                    continue;
                }
                let v = eval(e, &EvalCtx::row(&row))?;
                row[*g] = match coerce_to_table_column(
                    &v,
                    &t.columns[c],
                    (&t.db, &t.name),
                    n as u64 + 1,
                    cx.coerce_mode(strict),
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
                        new[i] = cx.now_for(&t.columns[i]);
                    }
                }
            }
            let mode = cx.coerce_mode(strict);
            dml::compute_generated(&t, &mut new, n as u64 + 1, mode, &mut warnings)?;
            dml::check_row(&t, &new)?;
            match dml::update_row(cx, &t, pk, &old, &new) {
                Ok(true) => {
                    changed += 1;
                    cx.tally.updated += 1;
                }
                Ok(false) => {}
                Err(e) if ignore && e.code == ErrorCode::DupEntry => warnings.push(as_warning(e)),
                Err(e) => return Err(e),
            }
        }
    }
    let nwarn = warnings.len() + cx.warnings.len();
    cx.warnings.extend(warnings);
    Ok(Output::Done {
        // A client that asked for CLIENT_FOUND_ROWS is told the rows matched (MySQL's rule).
        affected: if cx.client_found_rows {
            matched
        } else {
            changed
        },
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
    refs: &[ast::TableWithJoins],
    d: &ast::Delete,
    ignore: bool,
) -> DbResult<Output> {
    if !d.order_by.is_empty() {
        return Err(usage_error("DELETE", "ORDER BY"));
    }
    if d.limit.is_some() {
        return Err(usage_error("DELETE", "LIMIT"));
    }
    let j = plan_join(cx, refs, d.selection.as_ref(), ignore)?;
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
            if let Ok((db, t)) = cx.resolve_table_name(name) {
                // A view in a multi-table DELETE is not deleted through (1288).
                if cx.temp.get(&db, &t).is_none() && cx.engine.catalog.view(&db, &t).is_some() {
                    use crate::exec::dml::view_target::{refusal, WriteKind};
                    return Err(refusal(WriteKind::Delete, &t));
                }
            }
            return Err(DbError::new(
                ErrorCode::UnknownTable,
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
            cx.check_interrupted()?;
            let Some(row) = relock(cx, &j, m.source, pk, joined)? else {
                continue;
            };
            dml::delete_row(cx, &t, pk, &row[s.offset..s.offset + s.ncols])?;
            deleted += 1;
            cx.tally.deleted += 1;
        }
    }
    Ok(Output::done(deleted))
}
