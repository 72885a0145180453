//! UPDATE of one table (UPDATE IGNORE included): assignments left to right, each seeing the
//! previous ones, over the matching rows (matching.rs).
//!
//! Invariants: rows are locked before they are read (no lost updates); ON UPDATE
//! CURRENT_TIMESTAMP columns change only when the row does and no assignment names them.

use sqlparser::ast::{self as ast};

use super::matching::{matching_rows, single_table, ReadTarget};
use super::{is_default_kw, table_scope, update_row};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{object_name_parts, Expr, Scope};
use crate::plan::access::{choose_access, conjuncts};
use crate::result::Output;
use crate::types::coerce::coerce_to_table_column;

/// UPDATE (without IGNORE).
pub fn update(cx: &mut Context, u: &ast::Update) -> DbResult<Output> {
    update_with(cx, u, false)
}

/// EXPLAIN of an UPDATE: a single-table UPDATE's target, assignments and WHERE clause are
/// resolved and compiled as a run would (MariaDB reports their errors first, such as an unknown
/// column or a subquery's unknown window name; the uncorrelated subqueries run, as in a
/// SELECT's EXPLAIN). An UPDATE of a table that is not partitioned nor a view, without ORDER BY
/// or LIMIT, whose rows are read by a full scan, shows that read and the subqueries' blocks
/// (plan/explain.rs); any other is then refused (1235): Betula does not render that plan.
pub fn explain_update(cx: &mut Context, u: &ast::Update) -> DbResult<Output> {
    if u.from.is_some() || !u.table.joins.is_empty() {
        return Err(DbError::unsupported("EXPLAIN of this statement"));
    }
    let kind = super::view_target::WriteKind::Update;
    let (t, alias, selected, view) = single_table(cx, &u.table, kind)?;
    let scope = match &view {
        Some(v) => v.scope(&alias),
        None => table_scope(&t, &alias),
    };
    let outer = cx.explained_subqueries.replace(Vec::new());
    let compiled = (|| {
        compile_assignments(cx, &t, view.as_ref(), &scope, &u.assignments)?;
        u.selection
            .as_ref()
            .map(|w| cx.compile(&scope, w, "WHERE"))
            .transpose()
    })();
    let subqueries = std::mem::replace(&mut cx.explained_subqueries, outer).unwrap_or_default();
    let where_c = compiled?;
    let plain = view.is_none()
        && selected.is_none()
        && t.partitioning.is_none()
        && u.order_by.is_empty()
        && u.limit.is_none();
    let mut conj = Vec::new();
    if let Some(w) = &where_c {
        conjuncts(w, &mut conj);
    }
    let access = choose_access(&t, 0, &conj, &|e| e.is_const());
    if !plain || !access.is_full_scan() || access.index.is_some() {
        return Err(DbError::unsupported("EXPLAIN of this statement"));
    }
    let filtered = conj.iter().any(|e| {
        let mut reads = false;
        e.visit_cols(&mut |_| reads = true);
        reads || !e.is_const()
    });
    Ok(crate::plan::explain::update_full_scan(
        cx, &t, &alias, filtered, subqueries,
    ))
}

/// UPDATE; with `ignore` (UPDATE IGNORE) duplicate-key and conversion errors become warnings
/// and the row is left as it was.
pub fn update_with(cx: &mut Context, u: &ast::Update, ignore: bool) -> DbResult<Output> {
    let _div_zero = cx.storing_values(ignore);
    if u.from.is_some() {
        return Err(DbError::unsupported("UPDATE ... FROM"));
    }
    // The schema lock before the definition is read: no DDL publishes another one until the
    // transaction ends (design.md SES3, OIX1).
    cx.begin_write()?;
    let (t, alias, selected, view) =
        single_table(cx, &u.table, super::view_target::WriteKind::Update)?;
    let scope = match &view {
        Some(v) => v.scope(&alias),
        None => table_scope(&t, &alias),
    };
    let (assigns, given) = compile_assignments(cx, &t, view.as_ref(), &scope, &u.assignments)?;
    // Lock before reading: the rows read are the rows changed (no lost updates).
    cx.begin_write()?;
    let target = ReadTarget {
        t: &t,
        scope: &scope,
        selected: selected.as_deref(),
        view_cond: view.as_ref().and_then(|v| v.cond.as_ref()),
    };
    let rows = matching_rows(
        cx,
        target,
        u.selection.as_ref(),
        &u.order_by,
        u.limit.as_ref(),
    )?;
    let strict = cx.strict() && !ignore;
    let mut warnings = Vec::new();
    let (mut matched, mut changed) = (0u64, 0u64);
    'rows: for (n, (pk, old)) in rows.into_iter().enumerate() {
        cx.check_interrupted()?;
        matched += 1;
        let mut new = old.clone();
        for &c in &given {
            super::value_for_generated(&t, c, strict, &mut warnings)?;
        }
        for (c, e) in &assigns {
            let v = eval(e, &EvalCtx::row(&new))?;
            new[*c] = match coerce_to_table_column(
                &v,
                &t.columns[*c],
                (&t.db, &t.name),
                n as u64 + 1,
                cx.coerce_mode(strict),
                &mut warnings,
            ) {
                Ok(v) => v,
                Err(e) if ignore => {
                    let e = DbError::from(e);
                    warnings.push(Warning {
                        level: crate::error::sql_error::WarningLevel::Warning,
                        code: e.code,
                        message: e.message,
                    });
                    continue 'rows;
                }
                Err(e) => return Err(e.into()),
            };
        }
        if new != old {
            for (i, on) in t.on_update_now.iter().enumerate() {
                if *on && !assigns.iter().any(|(c, _)| *c == i) {
                    new[i] = cx.now_for(&t.columns[i]);
                }
            }
        }
        let mode = cx.coerce_mode(strict);
        super::compute_generated(&t, &mut new, n as u64 + 1, mode, &mut warnings)?;
        super::check_row(&t, &new)?;
        if let Some(v) = &view {
            v.check_row(&new)?;
        }
        match update_row(cx, &t, &pk, &old, &new) {
            Ok(true) => {
                changed += 1;
                cx.tally.updated += 1;
            }
            Ok(false) => {}
            Err(e) if ignore && e.code == ErrorCode::DupEntry => warnings.push(Warning {
                level: crate::error::sql_error::WarningLevel::Warning,
                code: e.code,
                message: e.message,
            }),
            Err(e) => return Err(e),
        }
    }
    let nwarn = warnings.len();
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

/// An UPDATE's assignments (column, expression), and the generated columns given a value.
type Assignments = (Vec<(usize, Expr)>, Vec<usize>);

/// The SET assignments of an UPDATE: (column, expression), DEFAULT as the column's default;
/// and the generated columns given a value other than DEFAULT (1906), which are not assigned.
fn compile_assignments(
    cx: &mut Context,
    t: &TableDef,
    view: Option<&super::view_target::ViewTarget>,
    scope: &Scope,
    assignments: &[ast::Assignment],
) -> DbResult<Assignments> {
    let mut assigns = Vec::new();
    let mut given = Vec::new();
    for a in assignments {
        let n = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => object_name_parts(n),
            _ => return Err(DbError::unsupported("tuple assignment")),
        };
        let col = n.last().cloned().unwrap_or_default();
        // Through a view, its columns by its names (view_target.rs).
        let c = match view {
            Some(v) => v.column(&col),
            None => t.col_index(&col),
        }
        .ok_or_else(|| DbError::bad_field(&n.join("."), "SET"))?;
        if t.generated[c].is_some() {
            if !is_default_kw(&a.value) {
                given.push(c);
            }
            continue;
        }
        let e = if is_default_kw(&a.value) {
            Expr::Lit(t.columns[c].default_value())
        } else {
            cx.compile(scope, &a.value, "SET")?
        };
        assigns.push((c, e));
    }
    Ok((assigns, given))
}
