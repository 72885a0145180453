//! The copy of a write set's written-through changes kept while the binary log is on
//! ([`ThroughLog`]), and their row diffs against the committed trees at commit.
//!
//! Changes are kept as the batches they were written in (one tree each, in write order). A batch
//! written with its keys proven absent from the committed tree (under their locks, design.md
//! BLG7) needs no read for its before images; any other key's before image is read at commit.
//!
//! Invariants: the diffs come out in (tree, key) order, each key once, its changes applied in
//! write order; a key is taken as absent before the transaction only if the first batch that
//! wrote it said so.

use std::collections::BTreeMap;

use super::write_set::{Change, RowDiff};
use super::{upsert, Store};
use crate::error::db_error::DbResult;

/// One written-through batch of one tree.
struct Batch {
    tree: String,
    /// Every key was proven absent from the committed tree before it was written.
    new_keys: bool,
    changes: Vec<(Vec<u8>, Change)>,
}

/// The written-through batches of a transaction, in write order.
#[derive(Default)]
pub(super) struct ThroughLog {
    batches: Vec<Batch>,
}

impl ThroughLog {
    pub(super) fn clear(&mut self) {
        self.batches.clear();
    }

    /// Keeps a copy of a batch of `tree`.
    pub(super) fn push(&mut self, tree: &str, new_keys: bool, changes: Vec<(Vec<u8>, Change)>) {
        if !changes.is_empty() {
            self.batches.push(Batch {
                tree: tree.to_string(),
                new_keys,
                changes,
            });
        }
    }

    /// Appends to `out` the diff of every key of the batches of the trees `wanted` accepts.
    pub(super) fn diffs(
        &self,
        store: &Store,
        wanted: impl Fn(&str) -> bool,
        out: &mut Vec<RowDiff>,
    ) -> DbResult<()> {
        let mut by_tree: BTreeMap<&str, Vec<&Batch>> = BTreeMap::new();
        for b in self.batches.iter().filter(|b| wanted(&b.tree)) {
            by_tree.entry(b.tree.as_str()).or_default().push(b);
        }
        for (tree, batches) in by_tree {
            let h = store.tree(tree)?;
            let before = |new: bool, k: &[u8]| -> DbResult<Option<Vec<u8>>> {
                Ok(if new { None } else { h.get(k)? })
            };
            match batches.as_slice() {
                [one] if strictly_ascending(&one.changes) => {
                    for (k, c) in &one.changes {
                        let b = before(one.new_keys, k)?;
                        push_diff(out, tree, k, b, std::iter::once(c));
                    }
                }
                _ => {
                    let mut keys: BTreeMap<&[u8], (bool, Vec<&Change>)> = BTreeMap::new();
                    for b in &batches {
                        for (k, c) in &b.changes {
                            keys.entry(k.as_slice())
                                .or_insert_with(|| (b.new_keys, Vec::new()))
                                .1
                                .push(c);
                        }
                    }
                    for (k, (new, changes)) in keys {
                        let b = before(new, k)?;
                        push_diff(out, tree, k, b, changes.into_iter());
                    }
                }
            }
        }
        Ok(())
    }
}

fn strictly_ascending(changes: &[(Vec<u8>, Change)]) -> bool {
    changes.windows(2).all(|w| w[0].0 < w[1].0)
}

/// Applies `changes` to `before` and records the diff if the key's value changed.
fn push_diff<'c>(
    out: &mut Vec<RowDiff>,
    tree: &str,
    key: &[u8],
    before: Option<Vec<u8>>,
    changes: impl Iterator<Item = &'c Change>,
) {
    let mut after = before.clone();
    for c in changes {
        after = match c {
            Change::Put(v) => Some(v.clone()),
            Change::Upsert(arg) => upsert::apply(after.as_deref(), arg),
        };
    }
    if before != after {
        out.push(RowDiff {
            tree: tree.to_string(),
            key: key.to_vec(),
            before,
            after,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_check_rejects_repeats_and_disorder() {
        let c = |k: &[u8]| (k.to_vec(), Change::Put(vec![1]));
        assert!(strictly_ascending(&[c(b"a"), c(b"b")]));
        assert!(!strictly_ascending(&[c(b"a"), c(b"a")]));
        assert!(!strictly_ascending(&[c(b"b"), c(b"a")]));
    }
}
