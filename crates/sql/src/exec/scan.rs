//! Reading table rows through an access path ([`read_rows`]).
//!
//! Invariants: every row handed out comes with its primary-key bytes (its identity for UPDATE
//! and DELETE); only the columns the statement uses (`needed`) are filled, the others are NULL:
//! a row read decodes only those, and a covering index read is chosen only when the index
//! entries give all of them back (index_entry.rs); a KILL of the connection stops the read
//! before the next entry.

use std::ops::Bound;

use crate::catalog::index_entry::covers;
use crate::catalog::TableDef;
use crate::codec::key::KeyDecoder;
use crate::codec::row::decode_row_needed;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::plan::access::Access;
use crate::plan::index_condition::Pushed;
use crate::store::Merged;
use crate::types::value::Value;

/// Whether the pushed condition holds for an index entry (the row is then fetched).
fn pushed_holds(
    t: &TableDef,
    ix: usize,
    p: &Pushed,
    outer: &[Value],
    key: &[u8],
    value: &[u8],
) -> DbResult<bool> {
    let (row, _) = crate::catalog::index_entry::decode_entry(t, ix, key, value)?;
    let mut flat = outer.to_vec();
    let end = p.offset + row.len();
    if flat.len() < end {
        flat.resize(end, Value::Null);
    }
    flat[p.offset..end].clone_from_slice(&row);
    Ok(truth(&eval(&p.cond, &EvalCtx::row(&flat))?) == Some(true))
}

/// The row's values; the columns `needed` marks false (by position; empty: none) read as NULL.
fn decode(t: &TableDef, bytes: &[u8], needed: &[bool]) -> DbResult<Vec<Value>> {
    decode_row_needed(&t.layout, bytes, needed).map_err(DbError::from)
}

/// A merged scan of `trees` (one per partition read) within `lo`..`hi`.
fn merged<'t>(
    cx: &Context,
    trees: &[String],
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    reverse: bool,
    snap: Option<&'t betula_storage::Txn>,
) -> DbResult<Merged<'t>> {
    let mut scans = Vec::with_capacity(trees.len());
    for tree in trees {
        scans.push(cx.ws.scan(
            &cx.engine.store,
            tree,
            lo.clone(),
            hi.clone(),
            reverse,
            snap,
        )?);
    }
    Merged::new(scans, reverse)
}

/// Calls `f(pk_bytes, row)` for each row in the access path's ranges (evaluated against
/// `outer`), in key order or reverse, until `f` returns `false`. `snap` is the read view (None:
/// latest committed). A partitioned table is read in the partitions the access path keeps, their
/// scans merged in key order (design.md PRT7).
/// The rows handed to `f` count in the engine's rows-read counter, once per call.
#[allow(clippy::too_many_arguments)] // each argument is one independent knob of the read
pub fn read_rows(
    cx: &Context,
    t: &TableDef,
    access: &Access,
    outer: &[Value],
    needed: &[bool],
    reverse: bool,
    snap: Option<&betula_storage::Txn>,
    f: &mut dyn FnMut(Vec<u8>, Vec<Value>) -> DbResult<bool>,
) -> DbResult<()> {
    let mut n = 0u64;
    let r = {
        let mut counted = |pk: Vec<u8>, row: Vec<Value>| {
            n += 1;
            f(pk, row)
        };
        read_access_path(cx, t, access, outer, needed, reverse, snap, &mut counted)
    };
    crate::context::metrics::add(&cx.engine.metrics.rows.read, n);
    r
}

/// 1412 when a REPEATABLE READ view (low limit `limit`) would read trees a rebuild or an index
/// build made after it began: they hold rows it must not see, not the versions it needs
/// (design.md OIX7), as InnoDB refuses a table rebuilt or an index built after a read view.
fn snapshot_may_read(
    cx: &Context,
    t: &TableDef,
    access: &Access,
    parts: &[Option<usize>],
    limit: u64,
) -> DbResult<()> {
    let births = &cx.engine.store.births;
    let stale = parts.iter().any(|&p| {
        births.younger_than(&t.primary_tree_of(p), limit)
            || access
                .index
                .is_some_and(|i| births.younger_than(&t.index_tree_of(p, i), limit))
    });
    if stale {
        return Err(crate::error::db_error::DbError::new(
            crate::error::code::ErrorCode::TableDefChanged,
            "Table definition has changed, please retry transaction",
        ));
    }
    Ok(())
}

/// [`read_rows`] without the counting.
#[allow(clippy::too_many_arguments)]
fn read_access_path(
    cx: &Context,
    t: &TableDef,
    access: &Access,
    outer: &[Value],
    needed: &[bool],
    reverse: bool,
    snap: Option<&betula_storage::Txn>,
    f: &mut dyn FnMut(Vec<u8>, Vec<Value>) -> DbResult<bool>,
) -> DbResult<()> {
    let store = &cx.engine.store;
    let ranges = access.key_ranges(t, outer)?;
    let parts = access.read_parts(t);
    if let Some(limit) = snap.and_then(|s| s.view_low_limit()) {
        snapshot_may_read(cx, t, access, &parts, limit)?;
    }
    let ranges: Box<dyn Iterator<Item = _>> = if reverse {
        Box::new(ranges.into_iter().rev())
    } else {
        Box::new(ranges.into_iter())
    };
    match access.index {
        None => {
            let mut ranges = ranges.peekable();
            if access.is_point(t) {
                if let Some((Bound::Included(k), _)) = ranges.peek() {
                    for part in t.parts_of_pk(k)? {
                        if !parts.contains(&part) {
                            continue;
                        }
                        if let Some(v) = cx.ws.get(store, &t.primary_tree_of(part), k, snap)? {
                            f(k.clone(), decode(t, &v, needed)?)?;
                            break;
                        }
                    }
                    return Ok(());
                }
            }
            let trees: Vec<String> = parts.iter().map(|&p| t.primary_tree_of(p)).collect();
            for (lo, hi) in ranges {
                let mut scan = merged(cx, &trees, lo, hi, reverse, snap)?;
                while let Some((_, k, v)) = scan.next_entry()? {
                    cx.check_interrupted()?;
                    if !f(k, decode(t, &v, needed)?)? {
                        return Ok(());
                    }
                }
            }
        }
        Some(ix) => {
            let trees: Vec<String> = parts.iter().map(|&p| t.index_tree_of(p, ix)).collect();
            let kcols = t.index_key_columns(ix);
            let nix = t.indexes[ix].columns.len();
            let covering = covers(t, ix, needed);
            let entries = crate::catalog::index_entry::EntryDecoder::new(t, ix);
            for (lo, hi) in ranges {
                let mut scan = merged(cx, &trees, lo, hi, reverse, snap)?;
                while let Some((from, k, v)) = scan.next_entry()? {
                    cx.check_interrupted()?;
                    let (pk, row) = if covering {
                        let (row, at) = entries.decode(&k, &v)?;
                        (k[at..].to_vec(), row)
                    } else {
                        if let Some(p) = &access.pushed {
                            if !pushed_holds(t, ix, p, outer, &k, &v)? {
                                continue;
                            }
                        }
                        let mut d = KeyDecoder::new(&k);
                        for kc in &kcols[..nix] {
                            d.next(kc)?;
                        }
                        let pk = k[d.position()..].to_vec();
                        // The row is in the partition of the index entry.
                        let primary = t.primary_tree_of(parts[from]);
                        match cx.ws.get(store, &primary, &pk, snap)? {
                            Some(v) => (pk, decode(t, &v, needed)?),
                            // Index entry without row (a concurrent delete): skip.
                            None => continue,
                        }
                    };
                    if !f(pk, row)? {
                        return Ok(());
                    }
                }
            }
        }
    }
    Ok(())
}
