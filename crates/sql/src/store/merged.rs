//! Scans of several trees whose keys never repeat across them (the partitions of one table's
//! primary key or of one index, design.md PRT7) merged into one key order ([`Merged`]).
//!
//! Invariant: entries come out in key order (descending when reversed), each with the index of
//! the scan it came from; a single scan is passed through as it is.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Scan;
use crate::error::db_error::DbResult;

/// The scans' next keys, smallest (or, reversed, largest) first.
enum Heads {
    Forward(BinaryHeap<Reverse<(Vec<u8>, usize)>>),
    Backward(BinaryHeap<(Vec<u8>, usize)>),
}

/// An entry of a merge: the index of the scan it came from, its key and its value.
pub type MergedEntry = (usize, Vec<u8>, Vec<u8>);

/// A merge of scans in key order.
pub struct Merged<'t> {
    scans: Vec<Scan<'t>>,
    /// The entry read ahead from each scan.
    ahead: Vec<Option<Vec<u8>>>,
    heads: Heads,
}

impl<'t> Merged<'t> {
    /// Merges `scans`, each already in the order `reverse` asks for.
    pub fn new(mut scans: Vec<Scan<'t>>, reverse: bool) -> DbResult<Merged<'t>> {
        let mut heads = if reverse {
            Heads::Backward(BinaryHeap::new())
        } else {
            Heads::Forward(BinaryHeap::new())
        };
        let mut ahead = Vec::with_capacity(scans.len());
        for (i, s) in scans.iter_mut().enumerate() {
            match s.next_entry()? {
                Some((k, v)) => {
                    heads.push(k, i);
                    ahead.push(Some(v));
                }
                None => ahead.push(None),
            }
        }
        Ok(Merged {
            scans,
            ahead,
            heads,
        })
    }

    /// The next entry and the index of the scan it came from.
    pub fn next_entry(&mut self) -> DbResult<Option<MergedEntry>> {
        let Some((k, i)) = self.heads.pop() else {
            return Ok(None);
        };
        let v = self.ahead[i].take().unwrap_or_default();
        if let Some((nk, nv)) = self.scans[i].next_entry()? {
            self.heads.push(nk, i);
            self.ahead[i] = Some(nv);
        }
        Ok(Some((i, k, v)))
    }
}

impl Heads {
    fn push(&mut self, k: Vec<u8>, i: usize) {
        match self {
            Heads::Forward(h) => h.push(Reverse((k, i))),
            Heads::Backward(h) => h.push((k, i)),
        }
    }
    fn pop(&mut self) -> Option<(Vec<u8>, usize)> {
        match self {
            Heads::Forward(h) => h.pop().map(|Reverse(e)| e),
            Heads::Backward(h) => h.pop(),
        }
    }
}
