//! CHECK TABLE's reading: every tree of the table is read whole (each node decoded and checksummed, the
//! tree's structural invariants checked: `TreeHandle::check_invariants`), then the rows of the primary
//! tree and the entries of every secondary index are counted in one snapshot (a storage transaction's
//! REPEATABLE READ view, so concurrent writers cannot make them differ); a clustering index is also
//! compared entry by entry with the rows (check_clustering.rs, design.md CIX4).
//!
//! Invariant: every secondary index holds exactly one entry per row (index entries are written and
//! deleted with their row, design.md), so unequal counts mean a lost or extra entry. What it returns is a
//! list of problems, each naming the tree; an empty list is a clean table. Writers of a tree wait while
//! its invariants are checked (the walk holds the tree's read lock); readers do not.

use std::ops::Bound;

use betula_storage::TxnOptions;

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::DbResult;

/// The problems CHECK TABLE finds in `def` (none: the table is clean). A storage error (I/O, corruption)
/// is a problem too, named with its tree.
pub fn problems(cx: &Context, def: &TableDef) -> DbResult<Vec<String>> {
    let store = &cx.engine.store;
    let mut found = Vec::new();
    let trees = def.all_trees();
    for name in &trees {
        if let Err(e) = store.tree(name)?.check_invariants() {
            found.push(format!("{}: {e}", display(name)));
        }
    }
    if !found.is_empty() {
        return Ok(found);
    }
    let txn = store.env().begin(TxnOptions::default())?;
    let mut counts = Vec::with_capacity(trees.len());
    for name in &trees {
        let t = store.tree(name)?;
        let mut n = 0u64;
        for entry in txn.range(&t, Bound::Unbounded, Bound::Unbounded, false) {
            cx.check_interrupted()?;
            if let Err(e) = entry {
                found.push(format!("{}: {e}", display(name)));
                break;
            }
            n += 1;
        }
        counts.push(n);
    }
    drop(txn);
    if found.is_empty() {
        for (i, ix) in def.indexes.iter().enumerate() {
            if counts[i + 1] != counts[0] {
                found.push(format!(
                    "index '{}' has {} entries, the table {} rows",
                    ix.name,
                    counts[i + 1],
                    counts[0]
                ));
            }
        }
    }
    if found.is_empty() {
        found.extend(crate::ddl::check_clustering::problems(cx, def)?);
    }
    Ok(found)
}

/// A tree's name as a message shows it (the NUL of reserved prefixes made visible).
fn display(name: &str) -> String {
    name.replace('\0', "\\0")
}
