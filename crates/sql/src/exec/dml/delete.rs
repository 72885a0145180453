//! DELETE of one table: the matching rows (matching.rs) and their index entries.

use sqlparser::ast::{self as ast};

use super::matching::{matching_rows, single_table, ReadTarget};
use super::{delete_row, table_scope};
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

/// DELETE FROM one table [WHERE] [ORDER BY] [LIMIT].
pub fn delete(cx: &mut Context, d: &ast::Delete) -> DbResult<Output> {
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    if from.len() != 1 || !d.tables.is_empty() || d.using.is_some() {
        return Err(DbError::unsupported("multi-table DELETE"));
    }
    // The schema lock before the definition is read: no DDL publishes another one until the
    // transaction ends (design.md SES3, OIX1).
    cx.begin_write()?;
    let (t, alias, selected, view) =
        single_table(cx, &from[0], super::view_target::WriteKind::Delete)?;
    let scope = match &view {
        Some(v) => v.scope(&alias),
        None => table_scope(&t, &alias),
    };
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
        d.selection.as_ref(),
        &d.order_by,
        d.limit.as_ref(),
    )?;
    // A cascade (design.md FKC3) may have deleted a later matching row already.
    let cascades = super::foreign_keys::involved(cx, &t);
    let mut n = 0;
    for (pk, row) in rows {
        cx.check_interrupted()?;
        if cascades && super::load(cx, &t, &pk)?.is_none() {
            continue;
        }
        delete_row(cx, &t, &pk, &row)?;
        cx.tally.deleted += 1;
        n += 1;
    }
    Ok(Output::done(n))
}
