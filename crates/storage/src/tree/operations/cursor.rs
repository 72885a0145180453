//! Range iteration over a tree, forwards or backwards.
//!
//! The iterator materializes one basement at a time (with pending messages applied) under the read lock, then
//! releases the lock, so a long scan never blocks writers for long. Each batch is consistent in itself; a scan
//! that races with writers sees every key at most once and in order. (Snapshot-consistent scans come with the
//! transaction layer's MVCC.)

use crate::error::Result;
use crate::tree::in_memory::mvcc::{MvccState, ReadView};
use crate::tree::Tree;
use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

/// Iterator over the entries of a key range.
pub struct RangeIter<'t> {
    tree: &'t Tree,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    reverse: bool,
    batch: VecDeque<(Vec<u8>, Vec<u8>)>,
    /// Where the next batch starts (forward: its lowest key; reverse: keys below it). `None` = done.
    next: Option<Option<Vec<u8>>>,
    view: ReadView,
    _guard: Option<ViewGuard>,
}

/// Keeps a read view registered (holding back garbage collection) while a scan runs.
pub struct ViewGuard {
    mvcc: Arc<MvccState>,
    id: u64,
}

impl ViewGuard {
    pub fn new(mvcc: Arc<MvccState>, id: u64) -> ViewGuard {
        ViewGuard { mvcc, id }
    }
}

impl Drop for ViewGuard {
    fn drop(&mut self) {
        self.mvcc.release_view(self.id);
    }
}

/// The smallest key a lower bound admits can be no smaller than this (a superset for `Excluded`).
fn start_of(lower: &Bound<Vec<u8>>) -> Option<&[u8]> {
    match lower {
        Bound::Unbounded => None,
        Bound::Included(k) | Bound::Excluded(k) => Some(k),
    }
}

/// Keys an upper bound admits are below this, for `Excluded` (`Included` is handled by the caller).
fn end_of(upper: &Bound<Vec<u8>>) -> Option<&[u8]> {
    match upper {
        Bound::Excluded(k) => Some(k),
        Bound::Unbounded | Bound::Included(_) => None,
    }
}

fn above_lower(lower: &Bound<Vec<u8>>, k: &[u8]) -> bool {
    match lower {
        Bound::Unbounded => true,
        Bound::Included(l) => k >= l.as_slice(),
        Bound::Excluded(l) => k > l.as_slice(),
    }
}

fn below_upper(upper: &Bound<Vec<u8>>, k: &[u8]) -> bool {
    match upper {
        Bound::Unbounded => true,
        Bound::Included(u) => k <= u.as_slice(),
        Bound::Excluded(u) => k < u.as_slice(),
    }
}

impl<'t> RangeIter<'t> {
    pub(crate) fn new(
        tree: &'t Tree,
        lower: Bound<Vec<u8>>,
        upper: Bound<Vec<u8>>,
        reverse: bool,
        view: ReadView,
        guard: Option<ViewGuard>,
    ) -> RangeIter<'t> {
        let start = if reverse {
            match &upper {
                Bound::Unbounded => None,
                Bound::Included(k) => {
                    // Keys ≤ k: start below k's successor.
                    let mut s = k.clone();
                    s.push(0);
                    Some(s)
                }
                Bound::Excluded(k) => Some(k.clone()),
            }
        } else {
            match &lower {
                Bound::Unbounded => None,
                Bound::Included(k) | Bound::Excluded(k) => Some(k.clone()),
            }
        };
        RangeIter {
            tree,
            lower,
            upper,
            reverse,
            batch: VecDeque::new(),
            next: Some(start),
            view,
            _guard: guard,
        }
    }

    fn fill(&mut self) -> Result<()> {
        while self.batch.is_empty() {
            let Some(pos) = self.next.take() else {
                return Ok(());
            };
            // Only the keys still wanted: from the position to the far bound (a superset of them).
            let window = if self.reverse {
                (start_of(&self.lower), pos.as_deref())
            } else {
                (
                    pos.as_deref().or(start_of(&self.lower)),
                    end_of(&self.upper),
                )
            };
            let end_buf;
            let window = match (&self.upper, self.reverse) {
                (Bound::Included(u), false) => {
                    // Keys ≤ u: stop before u's successor.
                    end_buf = [u.as_slice(), &[0]].concat();
                    (window.0, Some(end_buf.as_slice()))
                }
                _ => window,
            };
            let b = self
                .tree
                .batch_at(pos.as_deref(), self.reverse, &self.view, window)?;
            if self.reverse {
                let mut done = false;
                for (k, v) in b.entries.into_iter().rev() {
                    if pos.as_ref().is_some_and(|p| k >= *p) {
                        continue;
                    }
                    if !above_lower(&self.lower, &k) {
                        done = true;
                        break;
                    }
                    if below_upper(&self.upper, &k) {
                        self.batch.push_back((k, v));
                    }
                }
                self.next = match b.lo {
                    Some(lo) if !done && above_lower(&self.lower, &lo) => Some(Some(lo)),
                    _ => None,
                };
            } else {
                for (k, v) in b.entries {
                    if !above_lower(&self.lower, &k) {
                        continue;
                    }
                    if !below_upper(&self.upper, &k) {
                        self.next = None;
                        return Ok(());
                    }
                    self.batch.push_back((k, v));
                }
                self.next = match b.next_lo {
                    Some(hi) if below_upper(&self.upper, &hi) => Some(Some(hi)),
                    _ => None,
                };
            }
        }
        Ok(())
    }
}

impl Iterator for RangeIter<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Err(e) = self.fill() {
            self.next = None;
            self.batch.clear();
            return Some(Err(e));
        }
        self.batch.pop_front().map(Ok)
    }
}

impl Tree {
    /// Iterates over the entries within the bounds, in key order (or reverse order), as committed when the
    /// scan starts (a consistent snapshot of this tree).
    pub fn range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, reverse: bool) -> RangeIter<'_> {
        // The tree's lock first, then the view (writers take them in that order too): the low limit and the
        // active set are read at one instant, with no write of this tree in between.
        let (view, id) = {
            let st = self.state.read();
            self.mvcc.view(0, || st.max_msn + 1, true)
        };
        let guard = id.map(|id| ViewGuard::new(self.mvcc.clone(), id));
        RangeIter::new(
            self,
            tree_bound(lower),
            tree_bound(upper),
            reverse,
            view,
            guard,
        )
    }

    /// Iterates as `view` sees the tree; `guard` (if any) is released when the iterator is dropped.
    pub fn range_with_view(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        view: ReadView,
        guard: Option<ViewGuard>,
    ) -> RangeIter<'_> {
        RangeIter::new(
            self,
            tree_bound(lower),
            tree_bound(upper),
            reverse,
            view,
            guard,
        )
    }
}

fn tree_bound(b: Bound<&[u8]>) -> Bound<Vec<u8>> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(k) => Bound::Included(k.to_vec()),
        Bound::Excluded(k) => Bound::Excluded(k.to_vec()),
    }
}
