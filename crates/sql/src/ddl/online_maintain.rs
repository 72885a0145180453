//! Online index builds whose writers write the new entries (design.md "Online index builds",
//! OIX8-OIX10): the function writers call to turn a row change into the new indexes' entry
//! changes ([`maintainer`]), and the build's application of what writers logged during the fill
//! ([`apply_log`]).
//!
//! Invariants: [`apply_log`] runs after maintenance is on and every transaction of the logged
//! epoch ended, so the log no longer changes and every later write of a logged key maintained
//! the indexes itself (OIX8); it changes a key's entries only while it holds the key's row lock,
//! in its own transactions, and never waits long for a lock: a batch that meets a held lock rolls
//! back and is tried again (OIX10), until `innodb_lock_wait_timeout` (then 1205: the build ends
//! and leaves nothing, OIX6).

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use betula_storage::{Durability, Isolation, Op, TreeHandle, Txn, TxnOptions};

use super::online_index::entry_ops;
use crate::catalog::TableDef;
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::store::online::{log_key, log_tree_of, Maintain};
use crate::types::value::Value;

/// Logged keys applied per transaction of the build.
const BATCH: usize = 256;
/// How long the build waits for a row lock before it rolls its batch back and tries again.
const LOCK_WAIT: Duration = Duration::from_millis(50);

/// The writers' half (OIX9): for a row of a primary tree of `t` written from `before` to
/// `after`, the changes of its entries in the indexes `which`.
pub fn maintainer(t: &TableDef, which: &[usize]) -> Maintain {
    let t = Arc::new(t.clone());
    let mut trees: HashMap<String, Vec<(usize, String)>> = HashMap::new();
    for part in t.parts() {
        let ix = which
            .iter()
            .map(|&i| (i, t.index_tree_of(part, i)))
            .collect();
        trees.insert(t.primary_tree_of(part), ix);
    }
    Arc::new(move |primary, pk, before, after, out| {
        let Some(ix) = trees.get(primary) else {
            return Ok(());
        };
        let old = decode(&t, before)?;
        let new = decode(&t, after)?;
        for (i, tree) in ix {
            let ops = out.entry(tree.clone()).or_default();
            entry_ops(&t, *i, pk, old.as_deref(), new.as_deref(), ops)?;
        }
        Ok(())
    })
}

fn decode(t: &TableDef, bytes: Option<&[u8]>) -> DbResult<Option<Vec<Value>>> {
    Ok(match bytes {
        Some(b) => Some(decode_row(&t.layout, b)?),
        None => None,
    })
}

/// The trees one partition's log is applied to.
struct PartTrees {
    primary: TreeHandle,
    log: TreeHandle,
    indexes: Vec<(usize, TreeHandle)>,
}

/// Applies the log of `epoch` (every key written without maintaining the indexes since
/// `snapshot`, the view the fill read) to the indexes `which` of `t` (OIX10).
pub fn apply_log(
    cx: &mut Context,
    t: &TableDef,
    which: &[usize],
    snapshot: &Txn,
    epoch: u64,
) -> DbResult<()> {
    cx.check_interrupted()?;
    let engine = cx.engine.clone();
    let store = &engine.store;
    let hi = (epoch + 1).to_be_bytes();
    for part in t.parts() {
        let primary_name = t.primary_tree_of(part);
        let trees = PartTrees {
            primary: store.tree(&primary_name)?,
            log: store.tree(&log_tree_of(&primary_name))?,
            indexes: which
                .iter()
                .map(|&i| Ok((i, store.tree(&t.index_tree_of(part, i))?)))
                .collect::<DbResult<_>>()?,
        };
        let mut from = epoch.to_be_bytes().to_vec();
        loop {
            let mut keys = Vec::with_capacity(BATCH);
            let range = trees.log.range(
                Bound::Excluded(from.as_slice()),
                Bound::Excluded(&hi[..]),
                false,
            );
            for item in range.take(BATCH) {
                keys.push(item?.0[8..].to_vec());
            }
            let Some(last) = keys.last() else { break };
            from = log_key(epoch, last);
            apply_batch(cx, t, &trees, snapshot, &keys)?;
        }
    }
    Ok(())
}

/// Applies one batch of logged keys in a transaction of its own, trying again (after the
/// writers holding them went on) while one of their row locks is held; 1205 once that lasted
/// `innodb_lock_wait_timeout` (a transaction holding a logged row open).
fn apply_batch(
    cx: &mut Context,
    t: &TableDef,
    trees: &PartTrees,
    snapshot: &Txn,
    keys: &[Vec<u8>],
) -> DbResult<()> {
    let deadline = std::time::Instant::now() + cx.lock_wait_timeout();
    loop {
        cx.check_interrupted()?;
        if std::time::Instant::now() > deadline {
            return Err(crate::error::db_error::DbError::lock_timeout());
        }
        let mut txn = cx.engine.store.env().begin(TxnOptions {
            isolation: Isolation::ReadCommitted,
            lock_timeout: LOCK_WAIT,
            durability: Some(Durability::NoSync),
        })?;
        match txn.lock_keys(&trees.primary, keys.iter().map(Vec::as_slice)) {
            Ok(()) => {}
            Err(betula_storage::Error::LockTimeout | betula_storage::Error::Deadlock) => {
                drop(txn);
                std::thread::sleep(LOCK_WAIT);
                continue;
            }
            Err(e) => return Err(e.into()),
        }
        let mut ops: BTreeMap<usize, Vec<(Vec<u8>, Op)>> = BTreeMap::new();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let latest = txn.get_latest_many(&trees.primary, &refs)?;
        for (pk, after) in keys.iter().zip(latest) {
            let before = decode(t, snapshot.get(&trees.primary, pk)?.as_deref())?;
            let after = decode(t, after.as_deref())?;
            for (n, (i, _)) in trees.indexes.iter().enumerate() {
                let out = ops.entry(n).or_default();
                entry_ops(t, *i, pk, before.as_deref(), after.as_deref(), out)?;
            }
        }
        for (n, ops) in ops {
            txn.write_batch(&trees.indexes[n].1, ops)?;
        }
        txn.commit()?;
        return Ok(());
    }
}
