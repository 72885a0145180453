//! Online index builds: ADD INDEX / CREATE INDEX (any kind: UNIQUE, clustering, prefix,
//! multi-column, several at once) while writers keep writing (design.md "Online index builds",
//! OIX1-OIX7).
//!
//! Protocol (the caller holds the schema lock exclusively when [`build`] begins):
//! 1. Create the new index trees (empty) and one change log tree per partition; register the
//!    logs (store/online.rs) at epoch 1; take the snapshot S. Start the online hold (other DDL
//!    waits, OIX1) and release the exclusive lock: writers go on, and every transaction that
//!    writes the table's primary trees appends the primary keys it wrote to the log, tagged with
//!    the epoch it entered (OIX2).
//! 2. Fill the index trees from the rows S sees (sorted, bottom-up: rebuild.rs), checking UNIQUE
//!    ones: the indexes are now those of S.
//! 3. Catch-up rounds, without any lock: advance the epoch to k + 1 (which waits until every
//!    transaction of epoch <= k ended, OIX3), take a view V, and for every primary key logged
//!    under epoch k or k + 1 that V sees, replace the entry of the row as the previous view saw
//!    it by the entry of the row as V sees it (OIX4). The indexes are now those of V.
//! 4. When a round had few keys, take the schema lock exclusively again (no transaction is in
//!    flight then) and run one last round against the latest committed state (OIX5).
//! 5. Unregister the logs and drop them; the caller writes the catalog entry (one write) while
//!    still holding the lock.
//!
//! On any error (1062 from a UNIQUE index, KILL QUERY, a lock timeout) the logs are unregistered
//! and every tree made here is dropped: the table is as it was (OIX6). A crash before the catalog
//! write leaves trees no catalog entry names, dropped when the engine opens (RBD2).

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use betula_storage::{Isolation, Op, TreeHandle, Txn, TxnOptions};

use crate::catalog::index_entry::entry_value;
use crate::catalog::TableDef;
use crate::codec::key::{prefix_successor, KeyDecoder};
use crate::codec::row::decode_row;
use crate::context::engine::Engine;
use crate::context::Context;
use crate::ddl::{online_maintain, rebuild};
use crate::error::db_error::{DbError, DbResult};
use crate::store::online::log_tree_of;
use crate::types::value::Value;

/// A catch-up round with at most this many logged keys is followed by the last one, under the
/// exclusive lock (OIX5).
const LAST_ROUND_KEYS: u64 = 1000;
/// Rounds without the lock at most; fewer when a round reads no fewer keys than the one before
/// (writers faster than the catch-up: the last round takes what is left).
const MAX_ROUNDS: u32 = 8;
/// Index changes of a round written per batch.
const BATCH: usize = 1024;

/// Builds the new indexes `which` of `new` (the definition that will be published; its primary
/// trees are `old`'s) while writers write. The caller holds the schema lock exclusively when
/// it calls and when it returns; between the two, only the online hold (OIX1).
pub fn build(cx: &mut Context, new: &TableDef, which: &[usize]) -> DbResult<()> {
    let store = &cx.engine.store;
    let mut made = rebuild::create_index_trees(cx, new, which)?;
    let mut logs = HashMap::new();
    for part in new.parts() {
        let primary = new.primary_tree_of(part);
        let log = log_tree_of(&primary);
        store.drop_tree(&log)?;
        store.create_tree(&log, None)?;
        made.push(log.clone());
        logs.insert(primary, log);
    }
    let mut guard = Cleanup {
        engine: cx.engine.clone(),
        session: cx.id,
        trees: made,
        logs: logs.into_values().collect(),
        done: false,
    };
    store
        .online
        .register(guard.logs.iter().map(|l| owner_of(l)).collect());
    let snapshot = begin_view(cx)?;
    store.schema_lock.hold_online(cx.id);
    cx.release_lock();
    if !which.iter().any(|&i| new.indexes[i].unique) {
        // Writers write the new entries once the fill is done (OIX8-OIX10).
        rebuild::fill_indexes(cx, new, which, Some(&snapshot))?;
        at_step(cx, "filled");
        let m = online_maintain::maintainer(new, which);
        let epoch = cx.engine.store.online.start_maintaining(m);
        cx.progress.stage("altering table", 3, 3, 1);
        at_step(cx, "maintaining");
        online_maintain::apply_log(cx, new, which, &snapshot, epoch)?;
        cx.progress
            .stage("committing alter table to storage engine", 3, 3, 1);
        cx.begin_ddl()?;
        return guard.finish();
    }
    let prev = fill_and_catch_up(cx, new, which, snapshot)?;
    // The last round: no transaction is in flight under the exclusive lock (SES3).
    cx.progress
        .stage("committing alter table to storage engine", 3, 3, 1);
    cx.begin_ddl()?;
    let epoch = cx.engine.store.online.advance();
    let view = begin_view(cx)?;
    catch_up(cx, new, which, (&prev, &view), epoch, true)?;
    guard.finish()
}

/// Steps 2 and 3: fills the indexes from `snapshot`, then catch-up rounds while they shrink;
/// returns the view the indexes now match.
fn fill_and_catch_up(
    cx: &mut Context,
    new: &TableDef,
    which: &[usize],
    snapshot: Txn,
) -> DbResult<Txn> {
    rebuild::fill_indexes(cx, new, which, Some(&snapshot))?;
    at_step(cx, "filled");
    let mut prev = snapshot;
    let (mut rounds, mut before) = (0, u64::MAX);
    loop {
        cx.check_interrupted()?;
        let epoch = cx.engine.store.online.advance();
        let view = begin_view(cx)?;
        let keys = catch_up(cx, new, which, (&prev, &view), epoch, false)?;
        prev = view;
        rounds += 1;
        at_step(cx, "round");
        if keys <= LAST_ROUND_KEYS || rounds >= MAX_ROUNDS || keys >= before {
            return Ok(prev);
        }
        before = keys;
    }
}

/// Runs the engine's test hook, if one is set, at step `step` (`Engine::online_build_hook`).
fn at_step(cx: &Context, step: &str) {
    let hook = cx.engine.online_build_hook.lock().clone();
    if let Some(h) = hook {
        h(step);
    }
}

/// The primary tree a change log belongs to, with it.
fn owner_of(log: &str) -> (String, String) {
    let primary = log.strip_suffix("\0online").unwrap_or(log).to_string();
    (primary, log.to_string())
}

fn begin_view(cx: &Context) -> DbResult<Txn> {
    Ok(cx.engine.store.env().begin(TxnOptions {
        isolation: Isolation::RepeatableRead,
        ..Default::default()
    })?)
}

/// Undoes what [`build`] set up, on every way out: unregisters the logs (waiting for the
/// transactions writing them), drops the logs, and the index trees too unless the build
/// finished; ends the online hold.
struct Cleanup {
    engine: Arc<Engine>,
    session: u64,
    /// Every tree made: index trees and logs.
    trees: Vec<String>,
    logs: Vec<String>,
    done: bool,
}

impl Cleanup {
    /// The indexes are complete: only the logs go.
    fn finish(&mut self) -> DbResult<()> {
        self.done = true;
        self.engine.store.online.unregister();
        for log in &self.logs {
            self.engine.store.drop_tree(log)?;
        }
        self.engine.store.schema_lock.end_online(self.session);
        Ok(())
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let store = &self.engine.store;
        store.online.unregister();
        for tree in &self.trees {
            let _ = store.drop_tree(tree);
        }
        store.schema_lock.end_online(self.session);
    }
}

/// One entry of an index: key and value.
type Entry = (Vec<u8>, Vec<u8>);

/// Row `row` (primary key `pk`)'s entry in index `i` of `t`.
fn entry_of(t: &TableDef, i: usize, pk: &[u8], row: &[Value]) -> DbResult<Entry> {
    Ok((t.encode_index_key(i, row, pk)?, entry_value(t, i, row)?))
}

/// Appends to `ops` the changes of the entry in index `i` of `t` of the row at `pk` going from
/// `before` to `after` (None: absent): the old entry's delete when its key changes, the new
/// entry's put when the entry changes (OIX4, OIX9). Returns the key put, if any.
pub(super) fn entry_ops(
    t: &TableDef,
    i: usize,
    pk: &[u8],
    before: Option<&[Value]>,
    after: Option<&[Value]>,
    ops: &mut Vec<(Vec<u8>, Op)>,
) -> DbResult<Option<Vec<u8>>> {
    let old = before.map(|r| entry_of(t, i, pk, r)).transpose()?;
    let new = after.map(|r| entry_of(t, i, pk, r)).transpose()?;
    if old == new {
        return Ok(None);
    }
    if let Some((ok, _)) = &old {
        if new.as_ref().map(|(nk, _)| nk) != Some(ok) {
            ops.push((ok.clone(), Op::Delete));
        }
    }
    Ok(new.map(|(nk, nv)| {
        ops.push((nk.clone(), Op::Put(nv)));
        nk
    }))
}

/// The row at `pk` of `primary` as `view` sees it.
fn row_in(
    t: &TableDef,
    view: &Txn,
    primary: &TreeHandle,
    pk: &[u8],
) -> DbResult<Option<Vec<Value>>> {
    match view.get(primary, pk)? {
        Some(v) => Ok(Some(decode_row(&t.layout, &v)?)),
        None => Ok(None),
    }
}

/// One catch-up round (OIX4): for every primary key logged under `epoch` or `epoch + 1` that
/// `views.1` sees, the entry of the row as `views.0` saw it is replaced by its entry in
/// `views.1`; then every UNIQUE entry written is checked against the index. Returns the number
/// of keys read from the logs.
fn catch_up(
    cx: &mut Context,
    t: &TableDef,
    which: &[usize],
    (prev, view): (&Txn, &Txn),
    epoch: u64,
    last: bool,
) -> DbResult<u64> {
    if !last {
        cx.progress.stage("altering table", 3, 3, 1);
    }
    let store = &cx.engine.store;
    let lo = epoch.to_be_bytes();
    let hi = (epoch + 2).to_be_bytes();
    let mut keys = 0u64;
    for part in t.parts() {
        let primary = store.tree(&t.primary_tree_of(part))?;
        let log = store.tree(&log_tree_of(&t.primary_tree_of(part)))?;
        let indexes: Vec<TreeHandle> = which
            .iter()
            .map(|&i| store.tree(&t.index_tree_of(part, i)))
            .collect::<DbResult<_>>()?;
        let mut seen = HashSet::new();
        let mut unique_puts: Vec<(usize, Vec<u8>, Vec<Value>)> = Vec::new();
        // Per index: its changes not written yet (keys of different rows never collide: an index
        // key ends with the primary key).
        let mut pending: Vec<Vec<(Vec<u8>, Op)>> = vec![Vec::new(); which.len()];
        for item in view.range(&log, Bound::Included(&lo), Bound::Excluded(&hi), false) {
            let (k, _) = item?;
            cx.check_interrupted()?;
            keys += 1;
            let pk = &k[8..];
            if !seen.insert(pk.to_vec()) {
                continue;
            }
            let before = row_in(t, prev, &primary, pk)?;
            let after = row_in(t, view, &primary, pk)?;
            for (n, &i) in which.iter().enumerate() {
                let put = entry_ops(
                    t,
                    i,
                    pk,
                    before.as_deref(),
                    after.as_deref(),
                    &mut pending[n],
                )?;
                if let (Some(key), true) = (put, t.indexes[i].unique) {
                    let row = after.clone().unwrap_or_default();
                    unique_puts.push((n, key, row));
                }
                if pending[n].len() >= BATCH {
                    indexes[n].write_batch(std::mem::take(&mut pending[n]))?;
                }
            }
        }
        for (n, ops) in pending.into_iter().enumerate() {
            if !ops.is_empty() {
                indexes[n].write_batch(ops)?;
            }
        }
        for (n, key, row) in unique_puts {
            check_unique(t, which[n], &indexes[n], &key, &row)?;
        }
    }
    Ok(keys)
}

/// 1062 if another entry of UNIQUE index `i` has the key columns of `key` (none of them NULL).
fn check_unique(
    t: &TableDef,
    i: usize,
    index: &TreeHandle,
    key: &[u8],
    row: &[Value],
) -> DbResult<()> {
    let ix = &t.indexes[i];
    let columns = t.index_key_columns(i);
    let mut d = KeyDecoder::new(key);
    for kc in &columns[..ix.columns.len()] {
        if key.get(d.position()) == Some(&0) {
            return Ok(());
        }
        d.next(kc)?;
    }
    let prefix = &key[..d.position()];
    let upper = prefix_successor(prefix);
    let hi = match &upper {
        Some(u) => Bound::Excluded(u.as_slice()),
        None => Bound::Unbounded,
    };
    let mut n = 0;
    for item in index.range(Bound::Included(prefix), hi, false) {
        item?;
        n += 1;
        if n > 1 {
            return Err(DbError::duplicate(&t.dup_entry(&ix.columns, row), &ix.name));
        }
    }
    Ok(())
}
