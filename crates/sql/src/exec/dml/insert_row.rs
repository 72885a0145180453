//! One completed row of an INSERT against the table's existing keys: put it, or replace the
//! rows it duplicates (REPLACE), skip it with a warning (IGNORE), update the existing row (ON
//! DUPLICATE KEY UPDATE), or send it as one blind upsert message.
//!
//! Invariants: every key is locked before it is checked (row_changes.rs); REPLACE deletes every
//! row the new one conflicts with, one at a time, before writing it; the affected-row count is
//! MySQL's (1 per insert or delete, 2 per row changed by ON DUPLICATE KEY UPDATE; 1 per blind
//! upsert).

use super::{delete_row, encode, find_conflict, load, put_row, update_row};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Expr;
use crate::store::upsert;
use crate::types::coerce::coerce_to_table_column;
use crate::types::value::Value;

/// What an INSERT does with a row whose key exists.
pub(super) struct RowPolicy<'p> {
    /// REPLACE: delete the existing rows.
    pub replace: bool,
    /// IGNORE: skip the row with a warning.
    pub ignore: bool,
    /// Strict coercion of ON DUPLICATE KEY UPDATE values.
    pub strict: bool,
    /// ON DUPLICATE KEY UPDATE assignments (empty: none).
    pub program: &'p [(usize, Expr)],
    /// Send the row and the program as one blind upsert message when they encode.
    pub blind: bool,
}

/// Writes row `rownum` (`row`, completed) as `policy` says; returns the rows affected.
pub(super) fn insert_row(
    cx: &mut Context,
    t: &TableDef,
    row: &[Value],
    rownum: u64,
    policy: &RowPolicy<'_>,
    warnings: &mut Vec<Warning>,
) -> DbResult<u64> {
    let pk = t.encode_pk(row)?;
    // A blind upsert cannot move a row whose partition columns it changes (PRT1).
    if policy.blind
        && !policy
            .program
            .iter()
            .any(|(c, _)| t.partition_columns().contains(c))
    {
        let bytes = encode(t, row)?;
        if let Some(arg) = upsert::encode_arg(&t.layout, &bytes, policy.program) {
            let tree = t.primary_tree_of(t.part_of_row(row)?);
            cx.ws.upsert(&cx.engine.store, &tree, pk, arg)?;
            cx.tally.upserted += 1;
            return Ok(1);
        }
    }
    let mut affected = 0;
    let mut skip = false;
    while let Some(c) = find_conflict(cx, t, row, &pk, true, None)? {
        if policy.replace {
            match load(cx, t, &c.pk)? {
                Some(old) => {
                    delete_row(cx, t, &c.pk, &old)?;
                    cx.tally.deleted += 1;
                    affected += 1;
                    continue;
                }
                None => break,
            }
        }
        skip = true;
        if !policy.program.is_empty() {
            let Some(old) = load(cx, t, &c.pk)? else {
                break;
            };
            let new = updated_row(cx, t, &old, row, rownum, policy, warnings)?;
            if update_row(cx, t, &c.pk, &old, &new)? {
                cx.tally.updated += 1;
                affected += 2;
            }
            break;
        }
        let e = DbError::duplicate(&t.dup_entry(&c.cols, row), &c.key);
        if policy.ignore {
            warnings.push(Warning {
                level: crate::error::sql_error::WarningLevel::Warning,
                code: ErrorCode::DupEntry,
                message: e.message,
            });
            break;
        }
        return Err(e);
    }
    if !skip {
        put_row(cx, t, &pk, row)?;
        cx.tally.inserted += 1;
        affected += 1;
    }
    Ok(affected)
}

/// The existing row `old` after the ON DUPLICATE KEY UPDATE program (which sees `row`, the row
/// that was to be inserted, as VALUES()).
fn updated_row(
    cx: &Context,
    t: &TableDef,
    old: &[Value],
    row: &[Value],
    rownum: u64,
    policy: &RowPolicy<'_>,
    warnings: &mut Vec<Warning>,
) -> DbResult<Vec<Value>> {
    let mut new = old.to_vec();
    let mode = cx.coerce_mode(policy.strict);
    for (col, e) in policy.program {
        if t.generated[*col].is_some() {
            super::value_for_generated(t, *col, policy.strict, warnings)?;
            continue;
        }
        let v = eval(
            e,
            &EvalCtx {
                row: &new,
                aggs: &[],
                insert: row,
                ..Default::default()
            },
        )?;
        let c = &t.columns[*col];
        new[*col] = coerce_to_table_column(&v, c, (&t.db, &t.name), rownum, mode, warnings)?;
    }
    if new != old {
        for (i, on) in t.on_update_now.iter().enumerate() {
            if *on && !policy.program.iter().any(|(c, _)| *c == i) {
                new[i] = cx.now_for(&t.columns[i]);
            }
        }
    }
    super::compute_generated(t, &mut new, rownum, mode, warnings)?;
    super::check_row(t, &new)?;
    Ok(new)
}
