//! The set-oriented path of an INSERT that is a whole transaction ([`insert_batch`]): every row
//! completed and encoded, sorted by primary key, checked for duplicates within the statement and
//! against the table in one batched read, locked in one call to the lock table, and written
//! straight through the session's storage transaction (no overlay), one batch per tree.
//!
//! Taken when [`batch_kind`] says so: an autocommit statement that began with an empty write set
//! (so the statement is its transaction and nothing reads its rows before it commits), or the
//! first change of an explicit transaction whose caller asked for it (SES10), no IGNORE
//! or REPLACE, a table without UNIQUE secondary indexes, and either a plain INSERT or an ON
//! DUPLICATE KEY UPDATE that the row-at-a-time path would send as blind upserts (then every row is
//! one upsert message, in key order, and nothing is checked).
//!
//! Invariants: the statement's outcome is the row-at-a-time path's (insert_row.rs): the same rows,
//! warnings and AUTO_INCREMENT values on success; on failure the error of the first row, in
//! statement order, at which that path would stop (its completion, then its primary key found in
//! the table or in an earlier row, then its encoding), nothing written (the transaction rolls
//! back), and the AUTO_INCREMENT values drawn for later rows given back unless another session
//! drew one since. Every key is locked before it is read (SES1). One difference under
//! concurrency: the keys of all rows are locked before any is checked, so a statement whose
//! early row is a duplicate may first wait for a later row's lock held by another session.
//! With `unique_checks = 0` on a table without secondary indexes the rows are taken to be new
//! (SES9): the table is not read, and a row whose key exists replaces it.

use std::sync::atomic::Ordering;

use super::complete::{complete_row, Slot};
use super::encode;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::result::Output;
use crate::store::upsert::ArgTemplate;
use crate::store::Change;
use crate::types::value::Value;

use super::insert::KILL_CHECK_ROWS;
use super::insert_row::RowPolicy;

/// How a statement's rows are written on the set-oriented path.
pub(super) enum BatchKind {
    /// New rows: duplicates are errors.
    Insert,
    /// Blind upserts (ON DUPLICATE KEY UPDATE that needs no read), one argument per row.
    Upsert(ArgTemplate),
}

/// Whether (and how) an INSERT with `policy` into `t` takes the set-oriented path.
pub(super) fn batch_kind(cx: &Context, t: &TableDef, policy: &RowPolicy<'_>) -> Option<BatchKind> {
    // Or the first change of an explicit transaction whose later statements never read the
    // table (SES10: the write set refuses such a read).
    let whole_txn = cx.ws.is_empty() && (!cx.in_explicit_or_implicit_txn() || cx.batch_in_txn);
    if !whole_txn
        || policy.replace
        || policy.ignore
        || t.indexes.iter().any(|ix| ix.unique)
        || super::foreign_keys::involved(cx, t)
    {
        return None;
    }
    if policy.program.is_empty() {
        return Some(BatchKind::Insert);
    }
    // A blind upsert cannot move a row whose partition columns it changes (PRT1).
    if policy
        .program
        .iter()
        .any(|(c, _)| t.partition_columns().contains(c))
    {
        return None;
    }
    // The row-at-a-time path sends blind upserts exactly when their program encodes.
    policy
        .blind
        .then(|| ArgTemplate::new(&t.layout, policy.program))
        .flatten()
        .map(BatchKind::Upsert)
}

/// Where, in the row-at-a-time path's order, a row stops the statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// Completing the row or encoding its primary key.
    Completion,
    /// Its primary key exists in the table or in an earlier row.
    Duplicate,
    /// Encoding the row or its index entries.
    Write,
}

/// The first stop seen so far, in (row, phase) order.
#[derive(Default)]
struct FirstStop(Option<(usize, Phase, DbError)>);

impl FirstStop {
    fn offer(&mut self, row: usize, phase: Phase, error: impl FnOnce() -> DbError) {
        if self
            .0
            .as_ref()
            .is_none_or(|(r, p, _)| (row, phase) < (*r, *p))
        {
            self.0 = Some((row, phase, error()));
        }
    }
}

/// A statement's rows, completed, with their encoded primary keys (index = statement order).
struct Completed {
    rows: Vec<Vec<Value>>,
    pks: Vec<Vec<u8>>,
    /// The AUTO_INCREMENT counter after each row (empty: the table has no such column).
    counter_after: Vec<u64>,
    first_id: Option<u64>,
    warnings: Vec<Warning>,
}

/// Runs the INSERT of `source` (one slot vector per row) into `t` on the set-oriented path.
pub(super) fn insert_batch(
    cx: &mut Context,
    t: &TableDef,
    source: Vec<Vec<Slot>>,
    strict: bool,
    kind: BatchKind,
) -> DbResult<Output> {
    let mut stop = FirstStop::default();
    let mut done = complete_all(cx, t, source, strict, &mut stop);
    let order = key_order(&done.pks);
    // Each partition's rows go to its own trees (design.md PRT1; one group if not partitioned).
    let (groups, unplaced) = t.group_by_part(&done.rows, &order);
    for (i, e) in unplaced {
        stop.offer(i, Phase::Duplicate, || e);
    }
    let engine = cx.engine.clone();
    let store = &engine.store;
    for (part, order) in &groups {
        let primary = t.primary_tree_of(*part);
        cx.ws.lock_batch(
            store,
            &primary,
            order.iter().map(|&i| done.pks[i].as_slice()),
        )?;
        // Without a primary key every row has a new hidden row id: nothing to check. Upserts take
        // any key.
        if !t.pk.is_empty() && matches!(kind, BatchKind::Insert) {
            let present = if reads_for_duplicates(cx, t) {
                let keys: Vec<&[u8]> = order.iter().map(|&i| done.pks[i].as_slice()).collect();
                cx.ws.contains_locked(store, &primary, &keys)?
            } else {
                vec![false; order.len()]
            };
            for (j, &i) in order.iter().enumerate() {
                let repeats_earlier = j > 0 && done.pks[order[j - 1]] == done.pks[i];
                if present[j] || repeats_earlier {
                    offer_duplicate(&mut stop, t, &done, i);
                }
            }
        }
    }
    let mut encoded = encode_rows(t, &done, &mut stop);
    if let Some((row, phase, error)) = stop.0 {
        if phase != Phase::Completion {
            give_back_auto_increment(t, &done.counter_after, row);
        }
        return Err(error);
    }
    let rows = done.rows.len() as u64;
    // New rows whose keys were looked up under their locks, or that get new hidden row ids.
    let proven_new =
        matches!(kind, BatchKind::Insert) && (t.pk.is_empty() || reads_for_duplicates(cx, t));
    for (part, order) in &groups {
        let changes = order
            .iter()
            .map(|&i| {
                let pk = std::mem::take(&mut done.pks[i]);
                let row = std::mem::take(&mut encoded.rows[i]);
                match &kind {
                    BatchKind::Insert => (pk, Change::Put(row)),
                    BatchKind::Upsert(template) => (pk, Change::Upsert(template.arg(&row))),
                }
            })
            .collect();
        let primary = t.primary_tree_of(*part);
        if proven_new {
            cx.ws.write_through_new(store, &primary, changes)?;
        } else {
            cx.ws.write_through(store, &primary, changes)?;
        }
    }
    for (i, mut entries) in encoded.index_entries.into_iter().enumerate() {
        for (part, order) in &groups {
            let mut changes: Vec<(Vec<u8>, Change)> = order
                .iter()
                .map(|&r| std::mem::take(&mut entries[r]))
                .map(|(k, v)| (k, Change::Put(v)))
                .collect();
            changes.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let tree = t.index_tree_of(*part, i);
            cx.ws
                .lock_batch(store, &tree, changes.iter().map(|(k, _)| k.as_slice()))?;
            cx.ws.write_through(store, &tree, changes)?;
        }
    }
    // One blind upsert per group of each roll-up, in the same transaction (design.md RUP3).
    for (r, def) in crate::exec::rollup::of(cx, t) {
        let changes = crate::exec::rollup::batch_changes(&r, &def, &done.rows)?;
        let tree = r.primary_tree_of(None);
        cx.ws
            .lock_batch(store, &tree, changes.iter().map(|(k, _)| k.as_slice()))?;
        cx.ws.write_through(store, &tree, changes)?;
    }
    match kind {
        BatchKind::Insert => cx.tally.inserted += rows,
        BatchKind::Upsert(_) => cx.tally.upserted += rows,
    }
    Ok(super::insert::finish_insert(
        cx,
        rows,
        done.first_id,
        done.warnings,
    ))
}

/// Whether new rows' keys are looked up in the table: not under `unique_checks = 0` on a table
/// without secondary indexes (SES9; the statement's own rows are still compared with each other).
/// A secondary index keeps the check: a replaced row would leave its old entries behind.
fn reads_for_duplicates(cx: &Context, t: &TableDef) -> bool {
    // A replaced row would stay counted in the roll-ups (design.md RUP3).
    !t.indexes.is_empty()
        || cx.int_var("unique_checks") != 0
        || !crate::exec::rollup::of(cx, t).is_empty()
}

/// Completes rows in statement order until one fails (offered as a stop at its row).
fn complete_all(
    cx: &mut Context,
    t: &TableDef,
    source: Vec<Vec<Slot>>,
    strict: bool,
    stop: &mut FirstStop,
) -> Completed {
    let auto_inc = t.columns.iter().any(|c| c.auto_increment);
    let mut done = Completed {
        rows: Vec::with_capacity(source.len()),
        pks: Vec::with_capacity(source.len()),
        counter_after: Vec::new(),
        first_id: None,
        warnings: Vec::new(),
    };
    for (i, slots) in source.into_iter().enumerate() {
        if i % KILL_CHECK_ROWS == KILL_CHECK_ROWS - 1 {
            if let Err(e) = cx.check_interrupted() {
                stop.offer(i, Phase::Completion, || e);
                break;
            }
        }
        let row = complete_row(
            cx,
            t,
            slots,
            i as u64 + 1,
            strict,
            &mut done.first_id,
            &mut done.warnings,
        )
        .and_then(|row| Ok((t.encode_pk(&row)?, row)));
        if auto_inc {
            done.counter_after
                .push(t.counters.auto_inc.load(Ordering::SeqCst));
        }
        match row {
            Ok((pk, row)) => {
                done.pks.push(pk);
                done.rows.push(row);
            }
            Err(e) => {
                stop.offer(i, Phase::Completion, || e);
                break;
            }
        }
    }
    done
}

/// Statement positions in key order (equal keys in statement order).
fn key_order(pks: &[Vec<u8>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pks.len()).collect();
    if !pks.windows(2).all(|w| w[0] <= w[1]) {
        order.sort_by(|&a, &b| pks[a].cmp(&pks[b]));
    }
    order
}

fn offer_duplicate(stop: &mut FirstStop, t: &TableDef, done: &Completed, row: usize) {
    stop.offer(row, Phase::Duplicate, || {
        DbError::duplicate(&t.dup_entry(&t.pk, &done.rows[row]), "PRIMARY")
    });
}

/// The rows' bytes and their secondary index entries, encoded in statement order.
struct Encoded {
    rows: Vec<Vec<u8>>,
    /// Per secondary index, (key, value) of each row's entry.
    index_entries: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
}

/// Encodes each row and its index entries as the row-at-a-time path writes them; the first row
/// that fails is offered as a stop (and ends the encoding).
fn encode_rows(t: &TableDef, done: &Completed, stop: &mut FirstStop) -> Encoded {
    let n = done.rows.len();
    let mut out = Encoded {
        rows: Vec::with_capacity(n),
        index_entries: (0..t.indexes.len())
            .map(|_| Vec::with_capacity(n))
            .collect(),
    };
    for (r, (row, pk)) in done.rows.iter().zip(&done.pks).enumerate() {
        let encoded = encode(t, row).and_then(|bytes| {
            out.rows.push(bytes);
            for (i, entries) in out.index_entries.iter_mut().enumerate() {
                let k = t.encode_index_key(i, row, pk)?;
                let v = crate::catalog::index_entry::entry_value(t, i, row)?;
                entries.push((k, v));
            }
            Ok(())
        });
        if let Err(e) = encoded {
            stop.offer(r, Phase::Write, || e);
            break;
        }
    }
    out
}

/// After a stop at `row` (past its completion), the counter as the row-at-a-time path leaves it:
/// as it was after that row, if no other session drew a value since this statement's last row.
fn give_back_auto_increment(t: &TableDef, counter_after: &[u64], row: usize) {
    if let (Some(&then), Some(&now)) = (counter_after.get(row), counter_after.last()) {
        let _ = t
            .counters
            .auto_inc
            .compare_exchange(now, then, Ordering::SeqCst, Ordering::SeqCst);
    }
}
