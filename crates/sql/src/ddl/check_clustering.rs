//! CHECK TABLE's comparison of clustering indexes with the table (design.md CIX4): in one
//! snapshot, every entry of every clustering index of every partition is decoded and compared
//! with the row its primary key names, and the entries are counted against the rows.
//!
//! Invariant: a clean result means each partition's clustering index holds exactly its rows
//! (an entry per row, each the row's index key with the row's values: CIX1); what it returns
//! is a list of problems naming the index and partition, at most [`MAX_REPORTED`] per index.

use std::ops::Bound;

use betula_storage::TxnOptions;

use crate::catalog::index_entry::decode_entry;
use crate::catalog::TableDef;
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::error::db_error::DbResult;

/// Problems reported per index and partition before the rest are only counted.
const MAX_REPORTED: usize = 10;

/// The problems found in `def`'s clustering indexes (none: each equals the table).
pub fn problems(cx: &Context, def: &TableDef) -> DbResult<Vec<String>> {
    let mut found = Vec::new();
    let clustering: Vec<usize> = (0..def.indexes.len())
        .filter(|&i| def.indexes[i].clustering)
        .collect();
    if clustering.is_empty() {
        return Ok(found);
    }
    let store = &cx.engine.store;
    let txn = store.env().begin(TxnOptions::default())?;
    for part in def.parts() {
        let primary = store.tree(&def.primary_tree_of(part))?;
        let mut rows = 0u64;
        for entry in txn.range(&primary, Bound::Unbounded, Bound::Unbounded, false) {
            cx.check_interrupted()?;
            entry?;
            rows += 1;
        }
        for &ix in &clustering {
            let where_ = match (part, &def.partitioning) {
                (Some(p), Some(parts)) => format!(
                    "clustering index '{}' of partition '{}'",
                    def.indexes[ix].name, parts.parts[p].name
                ),
                _ => format!("clustering index '{}'", def.indexes[ix].name),
            };
            let tree = store.tree(&def.index_tree_of(part, ix))?;
            let (mut entries, mut bad) = (0u64, 0usize);
            for entry in txn.range(&tree, Bound::Unbounded, Bound::Unbounded, false) {
                cx.check_interrupted()?;
                let (key, value) = entry?;
                entries += 1;
                let problem =
                    match check_entry(def, ix, &key, &value, |pk| Ok(txn.get(&primary, pk)?)) {
                        Ok(p) => p,
                        Err(e) => Some(format!("undecodable entry: {e}")),
                    };
                if let Some(p) = problem {
                    bad += 1;
                    if bad <= MAX_REPORTED {
                        found.push(format!("{where_}: {p}"));
                    }
                }
            }
            if bad > MAX_REPORTED {
                found.push(format!("{where_}: {} more bad entries", bad - MAX_REPORTED));
            }
            if entries != rows {
                found.push(format!(
                    "{where_} has {entries} entries, the table {rows} rows"
                ));
            }
        }
    }
    Ok(found)
}

/// What is wrong with one entry of clustering index `ix` (`None`: it equals its row), reading
/// the primary tree through `get`.
fn check_entry(
    def: &TableDef,
    ix: usize,
    key: &[u8],
    value: &[u8],
    get: impl FnOnce(&[u8]) -> DbResult<Option<Vec<u8>>>,
) -> DbResult<Option<String>> {
    let (entry_row, at) = decode_entry(def, ix, key, value)?;
    let pk = &key[at..];
    let Some(bytes) = get(pk)? else {
        return Ok(Some("an entry whose row does not exist".into()));
    };
    let row = decode_row(&def.layout, &bytes)?;
    if def.encode_index_key(ix, &row, pk)? != key {
        return Ok(Some("an entry whose key is not its row's".into()));
    }
    if entry_row != row {
        return Ok(Some("an entry whose values differ from its row's".into()));
    }
    Ok(None)
}
