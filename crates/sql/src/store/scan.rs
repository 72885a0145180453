//! A range read merged with the session's overlay ([`Scan`]): committed entries are read in
//! batches of [`BATCH`] and merged in key order (or reverse) with the pending changes, each of
//! which replaces, deletes or upserts the committed value of its key.

use std::collections::VecDeque;
use std::ops::Bound;

use betula_storage::{RangeIter, TreeHandle, Txn};

use super::write_set::Pending;
use crate::error::db_error::DbResult;

/// Committed entries read per batch.
const BATCH: usize = 256;

/// A merged scan; yields `(key, value)` in order.
pub struct Scan<'t> {
    snap: Option<&'t Txn>,
    handle: TreeHandle,
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    reverse: bool,
    batch: VecDeque<(Vec<u8>, Vec<u8>)>,
    exhausted: bool,
    pending: VecDeque<(Vec<u8>, Pending)>,
}

impl<'t> Scan<'t> {
    /// A scan of `handle` within `lo`..`hi` (in reverse order when `reverse`), reading the
    /// snapshot `snap` (else the latest committed data), merged with `pending`, the overlay's
    /// changes in that range in scan order.
    pub(super) fn new(
        snap: Option<&'t Txn>,
        handle: TreeHandle,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
        reverse: bool,
        pending: Vec<(Vec<u8>, Pending)>,
    ) -> Scan<'t> {
        Scan {
            snap,
            handle,
            lo,
            hi,
            reverse,
            batch: VecDeque::new(),
            exhausted: false,
            pending: pending.into(),
        }
    }

    fn refill(&mut self) -> DbResult<()> {
        if !self.batch.is_empty() || self.exhausted {
            return Ok(());
        }
        let lo = as_ref(&self.lo);
        let hi = as_ref(&self.hi);
        let mut n = 0;
        let iter: RangeIter<'_> = match self.snap {
            Some(t) => t.range(&self.handle, lo, hi, self.reverse),
            None => self.handle.range(lo, hi, self.reverse),
        };
        for item in iter {
            let (k, v) = item?;
            self.batch.push_back((k, v));
            n += 1;
            if n >= BATCH {
                break;
            }
        }
        if n < BATCH {
            self.exhausted = true;
        }
        if let Some((last, _)) = self.batch.back() {
            if self.reverse {
                self.hi = Bound::Excluded(last.clone());
            } else {
                self.lo = Bound::Excluded(last.clone());
            }
        }
        Ok(())
    }

    fn before(&self, a: &[u8], b: &[u8]) -> bool {
        if self.reverse {
            a > b
        } else {
            a < b
        }
    }

    pub fn next_entry(&mut self) -> DbResult<Option<(Vec<u8>, Vec<u8>)>> {
        loop {
            self.refill()?;
            let take_pending = match (self.pending.front(), self.batch.front()) {
                (None, None) => return Ok(None),
                (Some(_), None) => Some(false),
                (None, Some(_)) => None,
                (Some((pk, _)), Some((sk, _))) => {
                    if pk == sk {
                        Some(true)
                    } else if self.before(pk, sk) {
                        Some(false)
                    } else {
                        None
                    }
                }
            };
            match take_pending {
                None => return Ok(self.batch.pop_front()),
                Some(same) => {
                    let Some((k, p)) = self.pending.pop_front() else {
                        continue;
                    };
                    let base = if same {
                        self.batch.pop_front().map(|(_, v)| v)
                    } else {
                        None
                    };
                    if let Some(v) = p.resolve(base.as_deref()) {
                        return Ok(Some((k, v)));
                    }
                }
            }
        }
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}
