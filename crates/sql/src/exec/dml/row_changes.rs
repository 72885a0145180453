//! Changes of one row and its index entries through the session's write set, and the
//! duplicate-key check they rest on.
//!
//! Invariants: a row is locked before it is read to decide a change ([`load`],
//! [`find_conflict`]); the primary tree and every secondary index change together; an index
//! entry's value is rewritten when its key stays but the text it carries changes. A partitioned
//! table's row is written to the trees of the partition its values give
//! ([`TableDef::part_of_row`], design.md PRT1), and an update that changes it moves the row.
//! The table's roll-ups change with the row, after it (exec/rollup/, design.md RUP3), and so
//! are its FOREIGN KEY constraints checked and their actions run (foreign_keys.rs, FKC2-FKC5).

use super::foreign_keys;
use crate::catalog::TableDef;
use crate::codec::key::prefix_successor;
use crate::codec::row::encode_row;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// The bytes of `row` as the table's primary tree stores them.
pub(crate) fn encode(t: &TableDef, row: &[Value]) -> DbResult<Vec<u8>> {
    let mut out = Vec::new();
    encode_row(&t.layout, row, &mut out)?;
    Ok(out)
}

/// A conflicting existing row: its primary key bytes and the key name.
pub(crate) struct Conflict {
    pub pk: Vec<u8>,
    pub key: String,
    pub cols: Vec<usize>,
}

/// The existing row whose primary key (when `check_pk`) or UNIQUE index values `row` would
/// duplicate; the keys are locked first. `itself`: the primary key the row had before an
/// update that changes it (its own old index entries are no conflict).
pub(crate) fn find_conflict(
    cx: &mut Context,
    t: &TableDef,
    row: &[Value],
    pk: &[u8],
    check_pk: bool,
    itself: Option<&[u8]>,
) -> DbResult<Option<Conflict>> {
    let engine = cx.engine.clone();
    let store = &engine.store;
    // A duplicate can only be in the row's own partition (PRT2).
    let part = t.part_of_row(row)?;
    let primary = t.primary_tree_of(part);
    // Lock, then read: a concurrent insert of the same key waits for this one to end.
    if check_pk && !t.pk.is_empty() {
        cx.ws.lock(store, &primary, pk)?;
    }
    if check_pk && !t.pk.is_empty() && cx.ws.get(store, &primary, pk, None)?.is_some() {
        return Ok(Some(Conflict {
            pk: pk.to_vec(),
            key: "PRIMARY".into(),
            cols: t.pk.clone(),
        }));
    }
    for (i, ix) in t.indexes.iter().enumerate() {
        if !ix.unique || ix.columns.iter().any(|&c| row[c].is_null()) {
            continue;
        }
        let prefix = t.encode_index_prefix(i, row)?;
        let tree = t.index_tree_of(part, i);
        // The unique value itself is locked (as a key of the index tree), so two sessions
        // inserting it with different primary keys are serialized.
        cx.ws.lock(store, &tree, &prefix)?;
        let hi = match prefix_successor(&prefix) {
            Some(s) => std::ops::Bound::Excluded(s),
            None => std::ops::Bound::Unbounded,
        };
        let mut scan = cx.ws.scan(
            store,
            &tree,
            std::ops::Bound::Included(prefix.clone()),
            hi,
            false,
            None,
        )?;
        while let Some((k, _)) = scan.next_entry()? {
            let other = &k[prefix.len()..];
            if other != pk && Some(other) != itself {
                return Ok(Some(Conflict {
                    pk: other.to_vec(),
                    key: ix.name.clone(),
                    cols: ix.columns.clone(),
                }));
            }
        }
    }
    Ok(None)
}

/// Locks the row at `pk`, then reads its latest committed version (with this session's changes),
/// in the partition its key names (or each partition, when the key does not tell).
pub(crate) fn load(cx: &mut Context, t: &TableDef, pk: &[u8]) -> DbResult<Option<Vec<Value>>> {
    for part in t.parts_of_pk(pk)? {
        let primary = t.primary_tree_of(part);
        cx.ws.lock(&cx.engine.store, &primary, pk)?;
        if let Some(v) = cx.ws.get(&cx.engine.store, &primary, pk, None)? {
            return Ok(Some(crate::codec::row::decode_row(&t.layout, &v)?));
        }
    }
    Ok(None)
}

/// Writes `row` at `pk` and its entry in every secondary index, in the row's partition.
pub(crate) fn put_row(cx: &mut Context, t: &TableDef, pk: &[u8], row: &[Value]) -> DbResult<()> {
    let bytes = encode(t, row)?;
    let part = t.part_of_row(row)?;
    let store = &cx.engine.store;
    cx.ws
        .put(store, &t.primary_tree_of(part), pk.to_vec(), bytes)?;
    for i in 0..t.indexes.len() {
        let k = t.encode_index_key(i, row, pk)?;
        let v = crate::catalog::index_entry::entry_value(t, i, row)?;
        cx.ws.put(store, &t.index_tree_of(part, i), k, v)?;
    }
    crate::exec::rollup::row_added(cx, t, row)?;
    // After the row: a row may reference itself (design.md FKC2).
    foreign_keys::check_child(cx, t, row, None)
}

/// Deletes the row at `pk` (whose values are `row`) and its index entries.
pub fn delete_row(cx: &mut Context, t: &TableDef, pk: &[u8], row: &[Value]) -> DbResult<()> {
    let part = t.part_of_row(row)?;
    let store = &cx.engine.store;
    cx.ws.delete(store, &t.primary_tree_of(part), pk.to_vec())?;
    for i in 0..t.indexes.len() {
        let k = t.encode_index_key(i, row, pk)?;
        cx.ws.delete(store, &t.index_tree_of(part, i), k)?;
    }
    crate::exec::rollup::row_removed(cx, t, row)?;
    foreign_keys::on_parent_change(cx, t, row, foreign_keys::ParentChange::Deleted)
}

/// Replaces `old` (at `old_pk`) by `new`; returns whether anything changed.
pub(crate) fn update_row(
    cx: &mut Context,
    t: &TableDef,
    old_pk: &[u8],
    old: &[Value],
    new: &[Value],
) -> DbResult<bool> {
    if old == new {
        return Ok(false);
    }
    let new_pk = if t.pk.is_empty() || t.pk.iter().all(|&c| old[c] == new[c]) {
        old_pk.to_vec()
    } else {
        t.encode_pk(new)?
    };
    let pk_changed = new_pk != old_pk;
    let part = t.part_of_row(new)?;
    if let Some(c) = find_conflict(cx, t, new, &new_pk, pk_changed, Some(old_pk))? {
        return Err(DbError::duplicate(&t.dup_entry(&c.cols, new), &c.key));
    }
    if t.part_of_row(old)? != part {
        // The row moves to another partition (PRT1): out of the old one, into the new one
        // (partitioned tables have no foreign keys, and no key references them).
        delete_row(cx, t, old_pk, old)?;
        put_row(cx, t, &new_pk, new)?;
        return Ok(true);
    }
    let store = &cx.engine.store;
    let primary = t.primary_tree_of(part);
    if pk_changed {
        cx.ws.delete(store, &primary, old_pk.to_vec())?;
    }
    cx.ws
        .put(store, &primary, new_pk.clone(), encode(t, new)?)?;
    for i in 0..t.indexes.len() {
        let ok = t.encode_index_key(i, old, old_pk)?;
        let nk = t.encode_index_key(i, new, &new_pk)?;
        let nv = crate::catalog::index_entry::entry_value(t, i, new)?;
        let tree = t.index_tree_of(part, i);
        if ok != nk {
            cx.ws.delete(store, &tree, ok)?;
            cx.ws.put(store, &tree, nk, nv)?;
        } else if crate::catalog::index_entry::entry_value(t, i, old)? != nv {
            // Same key, other text carried ('a' -> 'A' under a case-insensitive collation).
            cx.ws.put(store, &tree, nk, nv)?;
        }
    }
    crate::exec::rollup::row_changed(cx, t, old, new)?;
    foreign_keys::check_child(cx, t, new, Some(old))?;
    foreign_keys::on_parent_change(cx, t, old, foreign_keys::ParentChange::Updated(new))?;
    Ok(true)
}
