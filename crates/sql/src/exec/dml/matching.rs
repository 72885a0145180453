//! The rows an UPDATE or DELETE of one table changes: WHERE, ORDER BY and LIMIT over the
//! access path the planner chooses, each row then locked and read again.
//!
//! Invariants: inside a transaction a primary-key range is locked, gaps included, before it is
//! read (design.md SES7); every row returned is locked and in its latest committed version
//! (with this session's changes), and still matches WHERE.

use std::sync::Arc;

use sqlparser::ast::{self as ast};

use super::view_target::ViewTarget;
use super::{load, KeyedRow};
use crate::catalog::TableDef;
use crate::context::plan_memo::{Stamp, TableMemo};
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::read_rows;
use crate::exec::subqueries::{split_where, Subqueries};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::{object_name_parts, Expr, Scope};
use crate::plan::access::{choose_access, conjuncts, Access};
use crate::types::value::Value;

/// The target of a single-table UPDATE or DELETE: its table, the name it goes by (its alias, else
/// its name), the partitions its `PARTITION (...)` list selects, and the view it was named
/// through, if it was (view_target.rs: the table is then the view's base table).
pub(super) type SingleTarget = (
    Arc<TableDef>,
    String,
    Option<Vec<usize>>,
    Option<ViewTarget>,
);

/// The target of a single-table UPDATE or DELETE ([`SingleTarget`]).
pub(super) fn single_table(
    cx: &mut Context,
    twj: &ast::TableWithJoins,
    kind: super::view_target::WriteKind,
) -> DbResult<SingleTarget> {
    if !twj.joins.is_empty() {
        return Err(DbError::unsupported("multi-table UPDATE/DELETE"));
    }
    match &twj.relation {
        ast::TableFactor::Table {
            name,
            alias,
            partitions,
            ..
        } => {
            let parts = object_name_parts(name);
            let names: Vec<String> = partitions.iter().map(|i| i.value.clone()).collect();
            let alias_name = alias.as_ref().map(|a| a.name.value.as_str());
            // A prepared statement's later run takes the table from its memo (design.md PLC2),
            // after the schema lock its caller took; the table-lock check runs every time (PLC6).
            if let Some(hit) = cx.memo_table(&parts, alias_name, true) {
                cx.check_table_lock(&hit.def, &hit.name)?;
                let selected = crate::plan::pruning::selection(&hit.def, &names)?;
                return Ok((hit.def, hit.alias_or_name, selected, None));
            }
            let stamp = cx.plan_memo.is_some().then(|| Stamp::of(cx));
            let (db, tname) = cx.resolve_table_name(&parts)?;
            cx.check_db_access(&db)?;
            let alias_s = alias
                .as_ref()
                .map(|a| a.name.value.clone())
                .unwrap_or(tname.clone());
            if let Some(vt) = super::view_target::resolve_target(cx, &db, &tname, kind)? {
                if !partitions.is_empty() {
                    return Err(DbError::wrong_object(&db, &tname, "BASE TABLE"));
                }
                // The base table's definition through the schema lock's checks.
                let t = cx.get_table(&vt.base.db, &vt.base.name)?;
                return Ok((t, alias_s, None, Some(vt)));
            }
            let t = cx.get_table(&db, &tname)?;
            if let Some(stamp) = stamp {
                let entry = TableMemo {
                    parts,
                    alias: alias_name.map(str::to_string),
                    target: true,
                    db,
                    name: tname,
                    alias_or_name: alias_s.clone(),
                    def: t.clone(),
                    cols: Vec::new(),
                };
                cx.memo_remember(stamp, entry);
            }
            let selected = crate::plan::pruning::selection(&t, &names)?;
            Ok((t, alias_s, selected, None))
        }
        other => Err(DbError::unsupported(format!("UPDATE/DELETE of {other}"))),
    }
}

/// What an UPDATE or DELETE reads: the table, the names its expressions see, the partitions
/// selected and the condition of the view the table was named through (view_target.rs).
pub(super) struct ReadTarget<'a> {
    pub t: &'a TableDef,
    pub scope: &'a Scope,
    pub selected: Option<&'a [usize]>,
    pub view_cond: Option<&'a Expr>,
}

/// The rows of `target` matching WHERE (and the view's condition), ordered and limited: (pk
/// bytes, row).
pub(super) fn matching_rows(
    cx: &mut Context,
    target: ReadTarget<'_>,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
) -> DbResult<Vec<KeyedRow>> {
    let ReadTarget {
        t,
        scope,
        selected,
        view_cond,
    } = target;
    let where_c = match selection {
        Some(w) => Some(cx.compile(scope, w, "WHERE")?),
        None => None,
    };
    // Through a view, only the rows it shows (view_target.rs).
    let where_c = super::view_target::both(where_c, view_cond.cloned());
    let mut order = Vec::new();
    for o in order_by {
        order.push((
            cx.compile(scope, &o.expr, "ORDER BY")?,
            matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
        ));
    }
    let limit = compile_limit(cx, limit)?;
    let mut conj = Vec::new();
    if let Some(w) = &where_c {
        conjuncts(w, &mut conj);
    }
    let mut access = choose_access(t, 0, &conj, &|e| e.is_const());
    access.select_parts(selected);
    lock_range_read(cx, t, &access)?;
    let needed = vec![true; t.columns.len()];
    let mut out = Vec::new();
    // Correlated subqueries run once the scan is over (exec/subqueries.rs).
    let (scan_c, post) = split_where(where_c.as_ref());
    let stop = if order.is_empty() && post.is_empty() {
        limit
    } else {
        None
    };
    let sref: &Context = cx;
    read_rows(
        sref,
        t,
        &access,
        &[],
        &needed,
        false,
        None,
        &mut |pk, row| {
            let ok = match &scan_c {
                Some(w) => truth(&eval(w, &EvalCtx::row(&row))?) == Some(true),
                None => true,
            };
            if ok {
                out.push((pk, row));
            }
            Ok(stop.is_none_or(|s| out.len() < s))
        },
    )?;
    if !post.is_empty() {
        out = passing(cx, &post, out)?;
    }
    if !order.is_empty() {
        out = sort_rows(&order, out);
    }
    if let Some(l) = limit {
        out.truncate(l);
    }
    lock_and_recheck(cx, t, where_c.as_ref(), out)
}

/// The LIMIT's row count (a constant).
fn compile_limit(cx: &mut Context, limit: Option<&ast::Expr>) -> DbResult<Option<usize>> {
    Ok(match limit {
        Some(l) => {
            let e = cx.compile(&Scope::default(), l, "limit")?;
            match eval(&e, &EvalCtx::default())? {
                Value::Int(i) if i >= 0 => Some(i as usize),
                Value::UInt(u) => Some(u as usize),
                _ => return Err(DbError::syntax(l)),
            }
        }
        None => None,
    })
}

/// Inside a transaction, a primary-key range is locked before it is read, gaps included: no
/// other session can insert into it until this transaction ends (design.md SES7).
/// (A point key is locked as its row is; ranges of a secondary index or full scans are not.)
fn lock_range_read(cx: &mut Context, t: &TableDef, access: &Access) -> DbResult<()> {
    if cx.in_explicit_or_implicit_txn()
        && access.index.is_none()
        && !access.is_full_scan()
        && !access.is_point(t)
    {
        let ranges = access.key_ranges(t, &[])?;
        crate::plan::locks::lock_primary_ranges(cx, t, &ranges)?;
    }
    Ok(())
}

/// `rows` in ORDER BY order: each `(expression, descending)` of `order` in turn, NULLs first.
fn sort_rows(order: &[(Expr, bool)], rows: Vec<KeyedRow>) -> Vec<KeyedRow> {
    let mut keyed: Vec<(Vec<Value>, KeyedRow)> = rows
        .into_iter()
        .map(|r| {
            let k = order
                .iter()
                .map(|(e, _)| eval(e, &EvalCtx::row(&r.1)).unwrap_or(Value::Null))
                .collect();
            (k, r)
        })
        .collect();
    keyed.sort_by(|a, b| {
        for (i, (_, d)) in order.iter().enumerate() {
            let o = crate::types::value::cmp_nulls_first(
                &a.0[i],
                &b.0[i],
                crate::types::collation::Collation::default(),
            );
            if o != std::cmp::Ordering::Equal {
                return if *d { o.reverse() } else { o };
            }
        }
        std::cmp::Ordering::Equal
    });
    keyed.into_iter().map(|(_, r)| r).collect()
}

/// Whether `w` holds for `row`, its correlated subqueries run (exec/subqueries.rs).
fn holds(cx: &mut Context, w: &Expr, row: &[Value]) -> DbResult<bool> {
    let sub = Subqueries::new(cx);
    let ecx = EvalCtx {
        row,
        subq: Some(&sub),
        ..Default::default()
    };
    Ok(truth(&eval(w, &ecx)?) == Some(true))
}

/// The rows for which every condition of `conds` holds.
fn passing(cx: &mut Context, conds: &[Expr], rows: Vec<KeyedRow>) -> DbResult<Vec<KeyedRow>> {
    let mut out = Vec::with_capacity(rows.len());
    'rows: for r in rows {
        for c in conds {
            if !holds(cx, c, &r.1)? {
                continue 'rows;
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// Locks each row about to be changed, then reads it again: a row changed by a session that
/// committed between the scan and the lock is taken in its new version (dropped if it no
/// longer matches WHERE), so no committed change is overwritten unseen.
fn lock_and_recheck(
    cx: &mut Context,
    t: &TableDef,
    where_c: Option<&Expr>,
    rows: Vec<KeyedRow>,
) -> DbResult<Vec<KeyedRow>> {
    let mut out = Vec::with_capacity(rows.len());
    for (pk, row) in rows {
        cx.check_interrupted()?;
        let Some(now) = load(cx, t, &pk)? else {
            continue;
        };
        if now != row {
            let still = match where_c {
                Some(w) => holds(cx, w, &now)?,
                None => true,
            };
            if !still {
                continue;
            }
        }
        out.push((pk, now));
    }
    Ok(out)
}
