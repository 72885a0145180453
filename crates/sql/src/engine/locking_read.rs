//! Locking reads: what `SELECT ... FOR UPDATE` / `LOCK IN SHARE MODE` locks before it reads.
//!
//! Owns: [`lock_for_query`], called before a locking read runs (it then reads the latest committed
//! rows, not the transaction's snapshot, as InnoDB does).
//!
//! Invariants: design.md, "SQL sessions on top of transactions": the locks cover every row the query
//! can return, present or inserted later by another session, until the transaction ends (SES4: the key
//! ranges of a single-table primary-key access path, a superset of the matching rows by range.rs's
//! invariant, else the tables' whole primary trees; a writer locks its key first, SES1, so it waits);
//! nothing is locked outside a transaction (SES5); both forms lock exclusively (SES6).

use std::ops::Bound;
use std::sync::Arc;

use sqlparser::ast;

use super::catalog::TableDef;
use super::dberror::DbResult;
use super::range::{conjuncts, KeyRange};
use super::select::{locked_trees, plan_access, plan_from, SrcKind};
use super::session::Session;
use crate::value::Value;

/// Locks what the locking read `q` may return (SES4), if the session is in a transaction (SES5).
pub fn lock_for_query(sess: &mut Session, q: &ast::Query) -> DbResult<()> {
    if !sess.in_explicit_or_implicit_txn() {
        return Ok(());
    }
    match primary_ranges(sess, q)? {
        Some((t, ranges)) => lock_primary_ranges(sess, &t, &ranges),
        None => {
            let trees = locked_trees(sess, q)?;
            sess.lock_trees(&trees)
        }
    }
}

/// Locks `ranges` of `t`'s primary tree, gaps included, until the transaction ends (UPDATE and
/// DELETE inside a transaction, design.md SES7).
pub fn lock_primary_ranges(sess: &mut Session, t: &TableDef, ranges: &[KeyRange]) -> DbResult<()> {
    let bounds: Vec<(Vec<u8>, Option<Vec<u8>>)> = ranges.iter().map(half_open).collect();
    sess.lock_key_ranges(&t.primary_tree(), &bounds)
}

/// The table and key ranges a single-table query reads through its primary key; None when
/// the query reads anything else (joins, unions, derived tables, secondary indexes, full scans).
fn primary_ranges(
    sess: &mut Session,
    q: &ast::Query,
) -> DbResult<Option<(Arc<TableDef>, Vec<KeyRange>)>> {
    let ast::SetExpr::Select(sel) = &*q.body else {
        return Ok(None);
    };
    let [twj] = sel.from.as_slice() else {
        return Ok(None);
    };
    if !twj.joins.is_empty() || !matches!(twj.relation, ast::TableFactor::Table { .. }) {
        return Ok(None);
    }
    let Some(selection) = &sel.selection else {
        return Ok(None);
    };
    let mut from = plan_from(sess, &sel.from)?;
    if from.sources.len() != 1 {
        return Ok(None);
    }
    let where_c = sess.compile(&from.scope, selection, "where clause")?;
    let mut conj = Vec::new();
    conjuncts(&where_c, &mut conj);
    plan_access(&mut from, &conj);
    let src = &from.sources[0];
    let SrcKind::Table(t) = &src.kind else {
        return Ok(None);
    };
    if src.access.index.is_some() || src.access.is_full_scan() {
        return Ok(None);
    }
    // The bounds of the first source's access path read no columns (nothing comes before it).
    let outer = vec![Value::Null; from.scope.cols.len()];
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
