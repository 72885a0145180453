//! Enforcing FOREIGN KEY constraints (catalog/foreign_key_def.rs) on every row change that goes
//! through row_changes.rs: the child side (a written row's key must have a referenced row) and
//! the parent side (a deleted or changed referenced row's referencing rows are refused, deleted,
//! changed or set to NULL, as the constraint's action says).
//!
//! Invariants: design.md FKC2-FKC6. Nothing is checked while `foreign_key_checks = 0`; a key
//! with a NULL column references nothing; lookups read the latest committed rows with the
//! statement's own changes (not the snapshot), through the referenced table's primary key or
//! the index its columns start ([`parent_key`]), and lock the referenced row they find, so a
//! concurrent DELETE of it waits for this transaction; cascades run inside the statement and
//! its transaction (an error undoes them with it) and stop at [`MAX_CASCADE_DEPTH`].

use std::cell::Cell;
use std::ops::Bound;

use crate::catalog::foreign_key_def::parent_key;
use crate::catalog::{FkAction, ForeignKeyDef, TableDef};
use crate::codec::key::{encode_key_value, prefix_successor, KeyDecoder};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// How many cascaded changes may nest (InnoDB's limit).
pub const MAX_CASCADE_DEPTH: usize = 15;

thread_local! {
    /// Nesting of the cascade being run on this thread.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Whether the session checks foreign keys.
pub(crate) fn checks_on(cx: &Context) -> bool {
    cx.int_var("foreign_key_checks") != 0
}

/// Whether writes to `t` must take the row-at-a-time path (a constraint to check on either
/// side), so that no bulk path skips them.
pub(crate) fn involved(cx: &Context, t: &TableDef) -> bool {
    checks_on(cx)
        && t.temporary.is_none()
        && (!t.foreign_keys.is_empty() || !cx.engine.catalog.referencing(&t.db, &t.name).is_empty())
}

/// The column positions of `names` in `t` (a constraint naming a missing column is refused).
fn positions(t: &TableDef, names: &[String]) -> DbResult<Vec<usize>> {
    names
        .iter()
        .map(|n| t.col_index(n).ok_or_else(|| DbError::bad_field(n, &t.name)))
        .collect()
}

fn no_referenced_row(child: &TableDef, fk: &ForeignKeyDef) -> DbError {
    DbError::new(
        ErrorCode::NoReferencedRow2,
        format!(
            "Cannot add or update a child row: a foreign key constraint fails (`{}`.`{}`, {})",
            child.db,
            child.name,
            fk.line(&child.db)
        ),
    )
}

fn row_is_referenced(child: &TableDef, fk: &ForeignKeyDef) -> DbError {
    DbError::new(
        ErrorCode::RowIsReferenced2,
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails (`{}`.`{}`, {})",
            child.db,
            child.name,
            fk.line(&child.db)
        ),
    )
}

/// The key bytes of `vals` as the first columns of key `key` of `t` (`None`: primary).
fn key_prefix(t: &TableDef, key: Option<usize>, vals: &[Value]) -> DbResult<Vec<u8>> {
    let mut out = Vec::new();
    for (p, v) in vals.iter().enumerate() {
        encode_key_value(&t.key_column(key, p), v, &mut out)?;
    }
    Ok(out)
}

/// The primary keys of the rows of `t` whose key `key` starts with `vals` (at most `limit`).
fn rows_with(
    cx: &mut Context,
    t: &TableDef,
    key: Option<usize>,
    vals: &[Value],
    limit: usize,
) -> DbResult<Vec<Vec<u8>>> {
    if t.partitioning.is_some() {
        return Err(DbError::new(
            ErrorCode::ForeignKeyOnPartitioned,
            "Partitioned tables do not support FOREIGN KEY",
        ));
    }
    let prefix = key_prefix(t, key, vals)?;
    let tree = match key {
        None => t.primary_tree(),
        Some(i) => t.index_tree(i),
    };
    let hi = prefix_successor(&prefix).map_or(Bound::Unbounded, Bound::Excluded);
    let engine = cx.engine.clone();
    let mut scan = cx.ws.scan(
        &engine.store,
        &tree,
        Bound::Included(prefix),
        hi,
        false,
        None,
    )?;
    let mut out = Vec::new();
    while out.len() < limit {
        let Some((k, _)) = scan.next_entry()? else {
            break;
        };
        out.push(match key {
            None => k.to_vec(),
            Some(i) => {
                let mut d = KeyDecoder::new(&k);
                for p in 0..t.indexes[i].columns.len() {
                    d.next(&t.key_column(Some(i), p))?;
                }
                k[d.position()..].to_vec()
            }
        });
    }
    Ok(out)
}

/// Whether `t` has a row whose columns `cols` are `vals` (key `key` starts with them); the row
/// found is locked and read again.
fn has_row(
    cx: &mut Context,
    t: &TableDef,
    key: Option<usize>,
    cols: &[usize],
    vals: &[Value],
) -> DbResult<bool> {
    let want = key_prefix(t, key, vals)?;
    for pk in rows_with(cx, t, key, vals, 2)? {
        let Some(row) = super::load(cx, t, &pk)? else {
            continue;
        };
        let now: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
        if key_prefix(t, key, &now)? == want {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Error 1452 when `row`, written to `t`, has a non-NULL key of a constraint of `t` that no
/// row of the referenced table has (FKC2); `old` (an update's previous row) limits the check to
/// the constraints whose columns changed.
pub(crate) fn check_child(
    cx: &mut Context,
    t: &TableDef,
    row: &[Value],
    old: Option<&[Value]>,
) -> DbResult<()> {
    if t.foreign_keys.is_empty() || !checks_on(cx) {
        return Ok(());
    }
    for fk in &t.foreign_keys {
        let cols = positions(t, &fk.columns)?;
        if cols.iter().any(|&c| row[c].is_null()) {
            continue;
        }
        if old.is_some_and(|o| cols.iter().all(|&c| o[c] == row[c])) {
            continue;
        }
        let vals: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
        let holder;
        let parent: &TableDef = if fk.references(&t.db, &t.name) {
            t
        } else {
            match cx.engine.catalog.table(&fk.ref_db, &fk.ref_table) {
                Some(p) => {
                    holder = p;
                    &holder
                }
                None => return Err(no_referenced_row(t, fk)),
            }
        };
        let refs = match positions(parent, &fk.ref_columns) {
            Ok(r) => r,
            Err(_) => return Err(no_referenced_row(t, fk)),
        };
        let Some(key) = parent_key(parent, &refs) else {
            return Err(no_referenced_row(t, fk));
        };
        if !has_row(cx, parent, key, &refs, &vals)? {
            return Err(no_referenced_row(t, fk));
        }
    }
    Ok(())
}

/// What happened to a referenced row.
#[derive(Clone, Copy)]
pub(crate) enum ParentChange<'a> {
    Deleted,
    /// Updated to this row.
    Updated(&'a [Value]),
}

/// Applies the constraints that reference `t` to the rows referencing `old`, a row of `t` just
/// deleted or updated (FKC3-FKC5).
pub(crate) fn on_parent_change(
    cx: &mut Context,
    t: &TableDef,
    old: &[Value],
    change: ParentChange<'_>,
) -> DbResult<()> {
    if !checks_on(cx) || t.temporary.is_some() {
        return Ok(());
    }
    let referencing = cx.engine.catalog.referencing(&t.db, &t.name);
    for (child, fk) in referencing {
        let refs = positions(t, &fk.ref_columns)?;
        if refs.iter().any(|&c| old[c].is_null()) {
            continue;
        }
        let action = match change {
            ParentChange::Updated(new) if refs.iter().all(|&c| old[c] == new[c]) => continue,
            ParentChange::Updated(_) => fk.on_update,
            ParentChange::Deleted => fk.on_delete,
        };
        let cols = positions(&child, &fk.columns)?;
        let Some(key) = parent_key(&child, &cols) else {
            continue;
        };
        let vals: Vec<Value> = refs.iter().map(|&c| old[c].clone()).collect();
        let limit = if action.restricts() { 1 } else { usize::MAX };
        let pks = rows_with(cx, &child, key, &vals, limit)?;
        for pk in pks {
            let Some(row) = super::load(cx, &child, &pk)? else {
                continue;
            };
            if key_prefix(
                &child,
                key,
                &cols.iter().map(|&c| row[c].clone()).collect::<Vec<_>>(),
            )? != key_prefix(&child, key, &vals)?
            {
                continue;
            }
            act(cx, &child, &fk, &cols, (&pk, &row), action, change, &refs)?;
        }
    }
    Ok(())
}

/// Carries out `action` on the referencing row `row` (at `pk`) of `child`.
#[allow(clippy::too_many_arguments)]
fn act(
    cx: &mut Context,
    child: &TableDef,
    fk: &ForeignKeyDef,
    cols: &[usize],
    (pk, row): (&[u8], &[Value]),
    action: FkAction,
    change: ParentChange<'_>,
    refs: &[usize],
) -> DbResult<()> {
    let new_row = match (action, change) {
        (FkAction::Restrict | FkAction::NoAction, _) => {
            return Err(row_is_referenced(child, fk));
        }
        (FkAction::SetDefault, _) => {
            return Err(DbError::new(
                ErrorCode::NotSupportedYet,
                "This version of Betula doesn't yet support 'ON DELETE / ON UPDATE SET DEFAULT'",
            ));
        }
        (FkAction::Cascade, ParentChange::Deleted) => None,
        (FkAction::Cascade, ParentChange::Updated(new)) => {
            let mut r = row.to_vec();
            for (&c, &p) in cols.iter().zip(refs) {
                r[c] = new[p].clone();
            }
            Some(r)
        }
        (FkAction::SetNull, _) => {
            let mut r = row.to_vec();
            for &c in cols {
                r[c] = Value::Null;
            }
            Some(r)
        }
    };
    if let Some(new) = &new_row {
        super::check_row(child, new)?;
    }
    let depth = DEPTH.with(|d| d.get());
    if depth >= MAX_CASCADE_DEPTH {
        return Err(row_is_referenced(child, fk));
    }
    DEPTH.with(|d| d.set(depth + 1));
    let r = match new_row {
        None => super::delete_row(cx, child, pk, row),
        Some(new) => super::update_row(cx, child, pk, row, &new).map(|_| ()),
    };
    DEPTH.with(|d| d.set(depth));
    r
}
