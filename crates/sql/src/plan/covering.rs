//! Covering reads: a table read in full (no usable range, not read in ORDER BY key order) is
//! read through the narrowest secondary index that holds every column the query needs, if any
//! (MariaDB's "Using index" on a full index scan).
//!
//! Invariant: only the access path's index changes, never its ranges; an index the table's
//! hints do not allow is never chosen, nor a clustering index (it is as wide as the primary tree).

use crate::catalog::index_entry::covers;
use crate::plan::from::{From, SrcKind};

/// Planning: a table read in full (no usable range, not read in ORDER BY key order) is read
/// through the narrowest secondary index that holds every column the query needs, if any.
/// Returns whether the first table's access changed (its key order may now serve ORDER BY).
pub fn prefer_covering_index(from: &mut From, key_ordered: bool) -> bool {
    let mut first_changed = false;
    for (i, s) in from.sources.iter_mut().enumerate() {
        let SrcKind::Table(t) = &s.kind else { continue };
        if !s.access.is_full_scan() || s.access.index.is_some() || (i == 0 && key_ordered) {
            continue;
        }
        // A clustering index covers everything but holds as much as the primary tree: a full
        // read stays there (primary key order).
        let best = (0..t.indexes.len())
            .filter(|&ix| !t.indexes[ix].clustering)
            .filter(|&ix| s.hints.allows(Some(ix)) && covers(t, ix, &s.needed))
            .min_by_key(|&ix| t.indexes[ix].columns.len());
        if let Some(ix) = best {
            s.access.index = Some(ix);
            first_changed |= i == 0;
        }
    }
    first_changed
}
