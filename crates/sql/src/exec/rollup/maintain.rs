//! Keeping a base table's roll-ups in step with its rows, through the session's write set, in
//! the same transaction as the base change (design.md RUP3-RUP5).
//!
//! * A row added: one blind upsert message to its group row per roll-up ([`row_added`]; a
//!   statement's batch merges its rows per group first, [`batch_changes`]): no read.
//! * A row removed (DELETE, the old row of an UPDATE, a row REPLACE takes out), after the base
//!   change is in the write set ([`row_removed`]): the group row is locked and read; COUNTs
//!   and SUMs are taken back; a group whose COUNT(*) reaches 0 is deleted; MIN / MAX are
//!   recomputed from the base table's rows of that group only when the removed value was the
//!   group's extreme (a range read of the base primary key when its leading columns are group
//!   columns, else a scan of the base table).
//!
//! Invariants: the group row's key is locked before it is read or written; a removal reads the
//! group row at its latest committed version plus this session's changes, and every writer of a
//! group locks that group's row, so no concurrent change of the group is missed (SES1).

use std::ops::Bound;
use std::sync::Arc;

use super::fold::{arith, better, coerce, encode, encode_coerced, merge, partial, program};
use crate::catalog::rollup::RollupFunc;
use crate::catalog::{RollupDef, TableDef};
use crate::codec::key::{encode_key_value, prefix_successor};
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::BinOp;
use crate::store::upsert::ArgTemplate;
use crate::store::Change;
use crate::types::value::Value;

/// The roll-ups of base table `t`, each with its definition (none for a temporary table).
pub fn of(cx: &Context, t: &TableDef) -> Vec<(Arc<TableDef>, Arc<RollupDef>)> {
    if t.temporary.is_some() || t.rollup.is_some() {
        return Vec::new();
    }
    cx.engine
        .catalog
        .rollups_of(&t.db, &t.name)
        .into_iter()
        .filter_map(|r| r.rollup.clone().map(|d| (r, d)))
        .collect()
}

/// The message template of roll-up `r`.
fn template(r: &TableDef, def: &RollupDef) -> DbResult<ArgTemplate> {
    ArgTemplate::new(&r.layout, &program(def))
        .ok_or_else(|| DbError::internal(format!("roll-up {}: no upsert program", r.name)))
}

/// After base row `row` of `t` was written: one blind upsert to its group row per roll-up.
pub fn row_added(cx: &mut Context, t: &TableDef, row: &[Value]) -> DbResult<()> {
    for (r, def) in of(cx, t) {
        add_one(cx, &r, &def, row)?;
    }
    Ok(())
}

/// After base row `old` of `t` became `new` (the change already in the write set): each roll-up
/// that reads a changed column takes `old` out, then adds `new`. `old` is taken out with `new`
/// in place; a recomputed MIN / MAX may count `new` already, and merging it again changes
/// nothing (RUP4).
pub fn row_changed(cx: &mut Context, t: &TableDef, old: &[Value], new: &[Value]) -> DbResult<()> {
    for (r, def) in of(cx, t) {
        if (0..old.len()).any(|c| old[c] != new[c] && def.reads(c)) {
            remove_one(cx, t, &r, &def, old)?;
            add_one(cx, &r, &def, new)?;
        }
    }
    Ok(())
}

fn add_one(cx: &mut Context, r: &TableDef, def: &RollupDef, row: &[Value]) -> DbResult<()> {
    let p = partial(r, def, row)?;
    let (key, bytes) = encode(r, &p)?;
    let arg = template(r, def)?.arg(&bytes);
    let store = &cx.engine.store;
    cx.ws.upsert(store, &r.primary_tree_of(None), key, arg)
}

/// The blind upserts of a statement's new base rows for roll-up `r`: one per group, its rows
/// merged, in key order. Group values are coerced before the key is taken; the aggregates once
/// a group's rows are merged.
pub fn batch_changes(
    r: &TableDef,
    def: &RollupDef,
    rows: &[Vec<Value>],
) -> DbResult<Vec<(Vec<u8>, Change)>> {
    let n = def.groups.len();
    let mut parts = Vec::with_capacity(rows.len());
    for row in rows {
        let mut p = partial(r, def, row)?;
        coerce(r, &mut p, 0..n)?;
        parts.push((r.encode_pk(&p)?, p));
    }
    parts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let t = template(r, def)?;
    let mut out = Vec::with_capacity(parts.len());
    let mut parts = parts.into_iter().peekable();
    while let Some((key, mut acc)) = parts.next() {
        while let Some((_, p)) = parts.next_if(|(k, _)| *k == key) {
            merge(def, &mut acc, &p)?;
        }
        coerce(r, &mut acc, n..def.groups.len() + def.aggs.len())?;
        out.push((key, Change::Upsert(t.arg(&encode_coerced(r, &acc)?))));
    }
    Ok(out)
}

/// After base row `row` of `t` was removed (the change already in the write set): its
/// contribution taken out of each roll-up's group row.
pub fn row_removed(cx: &mut Context, t: &TableDef, row: &[Value]) -> DbResult<()> {
    for (r, def) in of(cx, t) {
        remove_one(cx, t, &r, &def, row)?;
    }
    Ok(())
}

/// Takes base row `row` out of its group row of roll-up `r`.
fn remove_one(
    cx: &mut Context,
    t: &TableDef,
    r: &TableDef,
    def: &RollupDef,
    row: &[Value],
) -> DbResult<()> {
    let p = partial(r, def, row)?;
    let n = def.groups.len();
    let key = r.encode_pk(&p)?;
    let tree = r.primary_tree_of(None);
    let engine = cx.engine.clone();
    cx.ws.lock(&engine.store, &tree, &key)?;
    let Some(bytes) = cx.ws.get(&engine.store, &tree, &key, None)? else {
        return Ok(());
    };
    let mut cur = decode_row(&r.layout, &bytes)?;
    // Counts first: SUM, MIN and MAX read how many values are left.
    for (j, a) in def.aggs.iter().enumerate() {
        if matches!(a.func, RollupFunc::CountStar | RollupFunc::Count) {
            cur[n + j] = arith(BinOp::Sub, &cur[n + j], &p[n + j])?;
        }
    }
    if !positive(&cur[n + def.count_star()]) {
        return cx.ws.delete(&engine.store, &tree, key);
    }
    let mut recompute = Vec::new();
    for (j, a) in def.aggs.iter().enumerate() {
        let k = n + j;
        let v = &p[k];
        if v.is_null() || matches!(a.func, RollupFunc::CountStar | RollupFunc::Count) {
            continue;
        }
        let left = match a.col.and_then(|c| def.count_of(c)) {
            Some(ci) => positive(&cur[n + ci]),
            None => true,
        };
        if !left {
            cur[k] = Value::Null;
        } else if a.func == RollupFunc::Sum {
            cur[k] = arith(BinOp::Sub, &cur[k], v)?;
        } else if !better(a.func, &cur[k], v) {
            // The removed value was the extreme (or tied with it).
            recompute.push(j);
        }
    }
    if !recompute.is_empty() {
        let best = extremes(cx, t, r, def, &key, &p[..n], &recompute)?;
        for (j, v) in recompute.into_iter().zip(best) {
            cur[n + j] = v;
        }
    }
    let (key, bytes) = encode(r, &cur)?;
    cx.ws.put(&engine.store, &tree, key, bytes)
}

/// Whether a count is above 0.
fn positive(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i > 0,
        Value::UInt(u) => *u > 0,
        Value::Decimal(d) => !d.is_zero() && !d.is_negative(),
        _ => false,
    }
}

/// MIN / MAX (aggregates `which`) of the base rows of the group whose roll-up key is `key`
/// (group values `group`), as this session sees the base table now.
fn extremes(
    cx: &mut Context,
    t: &TableDef,
    r: &TableDef,
    def: &RollupDef,
    key: &[u8],
    group: &[Value],
    which: &[usize],
) -> DbResult<Vec<Value>> {
    let (lo, hi) = base_range(t, def, group)?;
    let engine = cx.engine.clone();
    let mut scan = cx
        .ws
        .scan(&engine.store, &t.primary_tree_of(None), lo, hi, false, None)?;
    let mut best = vec![Value::Null; which.len()];
    while let Some((_, v)) = scan.next_entry()? {
        let row = decode_row(&t.layout, &v)?;
        let g = def.group_values(&row)?;
        if g.iter().any(Value::is_null) || r.encode_pk(&g)? != key {
            continue;
        }
        for (b, &j) in best.iter_mut().zip(which) {
            let a = &def.aggs[j];
            let v = a.col.map_or(Value::Null, |c| row[c].clone());
            if better(a.func, &v, b) {
                *b = v;
            }
        }
    }
    Ok(best)
}

/// A key range: lower and upper bounds.
type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// The base primary-key range that holds a group's rows: the prefix of the base key's leading
/// columns that are plain group columns, or the whole table.
fn base_range(t: &TableDef, def: &RollupDef, group: &[Value]) -> DbResult<KeyRange> {
    let mut prefix = Vec::new();
    for (p, c) in t.pk.iter().enumerate() {
        let g = def
            .groups
            .iter()
            .position(|g| g.width.is_none() && g.col == *c);
        let Some(g) = g else { break };
        if t.pk_prefix.get(p).copied().flatten().is_some() {
            break;
        }
        encode_key_value(&t.key_column(None, p), &group[g], &mut prefix)?;
    }
    if prefix.is_empty() {
        return Ok((Bound::Unbounded, Bound::Unbounded));
    }
    let hi = match prefix_successor(&prefix) {
        Some(s) => Bound::Excluded(s),
        None => Bound::Unbounded,
    };
    Ok((Bound::Included(prefix), hi))
}
