//! Sorting (within `sort_buffer_size`, external_sort.rs), de-duplication and LIMIT over rows: ORDER BY that no key order serves
//! (MariaDB's "Using filesort"), DISTINCT and UNION's duplicate removal ("Using temporary").
//!
//! Invariants: sorts are stable, NULLs first ascending (last descending), values compared as
//! MySQL compares them, text under its expression's collation; duplicates are detected with
//! [`group_key`], so rows MySQL groups together are one.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::exec::external_sort::{sort_rows, KeyOrder, SortBudget};
use crate::expr::aggregate::group_key;
use crate::types::collation::Collation;
use crate::types::value::{cmp_nulls_first, Value};

/// Rows with their sort keys: `(keys, row)`.
pub type Keyed = (Vec<Value>, Vec<Value>);

/// The order of ORDER BY keys: `desc[i]` reverses key `i`, text of key `i` compares under
/// `colls[i]`.
pub fn key_order<'a>(desc: &'a [bool], colls: &'a [Collation]) -> KeyOrder<'a> {
    Box::new(move |a: &[Value], b: &[Value]| {
        for (i, d) in desc.iter().enumerate() {
            let coll = colls.get(i).copied().unwrap_or_default();
            let o = cmp_nulls_first(&a[i], &b[i], coll);
            if o != Ordering::Equal {
                return if *d { o.reverse() } else { o };
            }
        }
        Ordering::Equal
    })
}

/// Sorts `rows` by their keys (as [`key_order`]) within the session's `sort_buffer_size`
/// (external_sort.rs), counting the sort in the status counters; with `limit`, only the first
/// `offset + limit` rows are kept.
pub fn sort_keyed(
    cx: &mut Context,
    rows: Vec<Keyed>,
    desc: &[bool],
    colls: &[Collation],
    limit: Option<u64>,
    offset: u64,
) -> DbResult<Vec<Keyed>> {
    let keep = limit.map(|l| usize::try_from(l.saturating_add(offset)).unwrap_or(usize::MAX));
    let budget = SortBudget::of(cx);
    let (rows, stats) = sort_rows(rows, key_order(desc, colls), budget, keep)?;
    cx.count_sorts(stats);
    Ok(rows)
}

/// Keeps the first of each set of equal rows (keys are not compared); text of column `i`
/// compares under `colls[i]`.
pub fn dedup_keyed(rows: &mut Vec<Keyed>, colls: &[Collation]) {
    let mut seen = HashSet::new();
    rows.retain(|(_, v)| seen.insert(group_key(v, colls)));
}

/// Keeps the first of each set of equal rows (text of column `i` under `colls[i]`).
pub fn dedup(rows: &mut Vec<Vec<Value>>, colls: &[Collation]) {
    let mut seen = HashSet::new();
    rows.retain(|r| seen.insert(group_key(r, colls)));
}

/// Drops `offset` rows from the front and keeps at most `limit`.
pub fn apply_limit(rows: &mut Vec<Vec<Value>>, limit: Option<u64>, offset: u64) {
    let off = (offset as usize).min(rows.len());
    rows.drain(..off);
    if let Some(l) = limit {
        rows.truncate(l as usize);
    }
}
