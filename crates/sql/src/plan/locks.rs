//! Locking reads: what `SELECT ... FOR UPDATE` / `LOCK IN SHARE MODE` locks before it reads.
//!
//! Owns: [`lock_for_plan`], called with a locking read's plan before it runs (it then reads the latest committed
//! rows, not the transaction's snapshot, as InnoDB does).
//!
//! Invariants: design.md, "SQL sessions on top of transactions": the locks cover every row the
//! query can return, present or inserted later by another session, until the transaction ends
//! (SES4: the key ranges of a single-table primary-key access path, a superset of the matching
//! rows by access.rs's invariant, else the whole primary trees of the tables the plan reads,
//! derived tables' included; a writer locks its key first, SES1, so it waits); nothing is locked
//! outside a transaction (SES5); both forms lock exclusively (SES6).

use std::ops::Bound;
use std::sync::Arc;

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::plan::access::KeyRange;
use crate::plan::from::SrcKind;
use crate::plan::query::QueryPlan;
use crate::types::value::Value;

/// Locks what the locking read planned as `plan` may return (SES4), if the session is in a
/// transaction (SES5).
pub fn lock_for_plan(cx: &mut Context, plan: &QueryPlan) -> DbResult<()> {
    if !cx.in_explicit_or_implicit_txn() {
        return Ok(());
    }
    match primary_ranges(plan)? {
        Some((t, ranges)) => lock_primary_ranges(cx, &t, &ranges),
        None => {
            let mut trees = Vec::new();
            for s in plan.selects() {
                for src in &s.from.sources {
                    if let SrcKind::Table(t) = &src.kind {
                        for part in src.access.read_parts(t) {
                            trees.push(t.primary_tree_of(part));
                        }
                    }
                }
            }
            cx.lock_trees(&trees)
        }
    }
}

/// Locks `ranges` of `t`'s primary tree, gaps included, until the transaction ends (UPDATE and
/// DELETE inside a transaction, design.md SES7).
pub fn lock_primary_ranges(cx: &mut Context, t: &TableDef, ranges: &[KeyRange]) -> DbResult<()> {
    let bounds: Vec<(Vec<u8>, Option<Vec<u8>>)> = ranges.iter().map(half_open).collect();
    // A key of the ranges may be in any partition (a row moved there by another session too).
    for part in t.parts() {
        cx.lock_key_ranges(&t.primary_tree_of(part), &bounds)?;
    }
    Ok(())
}

/// The table and key ranges a single-table query reads through its primary key; None when
/// the plan reads anything else (joins, unions, derived tables, secondary indexes, full scans).
fn primary_ranges(plan: &QueryPlan) -> DbResult<Option<(Arc<TableDef>, Vec<KeyRange>)>> {
    let QueryPlan::Select(s) = plan else {
        return Ok(None);
    };
    let [src] = s.from.sources.as_slice() else {
        return Ok(None);
    };
    let SrcKind::Table(t) = &src.kind else {
        return Ok(None);
    };
    if src.access.index.is_some() || src.access.is_full_scan() {
        return Ok(None);
    }
    // The bounds of the first source's access path read no columns (nothing comes before it).
    let outer = vec![Value::Null; s.from.scope.cols.len()];
    let ranges = src.access.key_ranges(t, &outer)?;
    Ok(Some((t.clone(), ranges)))
}

/// A byte range as the lock table takes it: [lo, hi), hi None = to the end of the tree.
fn half_open(r: &KeyRange) -> (Vec<u8>, Option<Vec<u8>>) {
    let lo = match &r.0 {
        Bound::Included(k) => k.clone(),
        // The smallest key above k is k followed by a zero byte.
        Bound::Excluded(k) => [k.as_slice(), &[0]].concat(),
        Bound::Unbounded => Vec::new(),
    };
    let hi = match &r.1 {
        Bound::Included(k) => Some([k.as_slice(), &[0]].concat()),
        Bound::Excluded(k) => Some(k.clone()),
        Bound::Unbounded => None,
    };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_open_bounds_cover_exactly_the_range() {
        let inc = |k: &[u8]| Bound::Included(k.to_vec());
        let exc = |k: &[u8]| Bound::Excluded(k.to_vec());
        assert_eq!(
            half_open(&(inc(b"a"), exc(b"c"))),
            (b"a".to_vec(), Some(b"c".to_vec()))
        );
        // (a, c]: a itself excluded, c included.
        let (lo, hi) = half_open(&(exc(b"a"), inc(b"c")));
        assert!(lo.as_slice() > b"a".as_slice() && lo.as_slice() <= b"a\0".as_slice());
        let hi = hi.unwrap();
        assert!(hi.as_slice() > b"c".as_slice() && hi.as_slice() < b"c\x01".as_slice());
        assert_eq!(
            half_open(&(Bound::Unbounded, Bound::Unbounded)),
            (Vec::new(), None)
        );
    }
}
