//! The simulation's reference: the committed contents of every tree as plain maps, the views
//! transactions must read through, and the states a recovery may legitimately come back to.
//!
//! Transactions write trees `a` and `b` only; writes outside transactions (which take no row locks) go to
//! tree `plain` only, so every key's history is well defined.

use crate::common::{Model, F_ADD, F_APPEND};
use betula_storage::Op;
use std::collections::BTreeMap;
use std::ops::Bound;

pub type Map = BTreeMap<Vec<u8>, Vec<u8>>;

/// Trees transactions write.
pub const TXN_TREES: [&str; 2] = ["a", "b"];
/// The tree written outside transactions.
pub const PLAIN_TREE: &str = "plain";
/// Keys per tree.
pub const KEYS: u64 = 300;

/// The committed contents of every tree.
#[derive(Clone, Default, Debug, PartialEq)]
pub struct State {
    pub txn: [Map; 2],
    pub plain: Model,
}

impl State {
    /// The map of tree `i` (0, 1: transactional; 2: plain).
    pub fn tree(&self, i: usize) -> &Map {
        match i {
            0 | 1 => &self.txn[i],
            _ => &self.plain.map,
        }
    }
}

/// A key of the transactional trees.
pub fn txn_key(i: u64) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

/// The value an upsert or a put leaves, given the value before (the same function the engine runs).
pub fn after(old: Option<&[u8]>, op: &Op) -> Option<Vec<u8>> {
    let mut m = Model::default();
    if let Some(v) = old {
        m.map.insert(Vec::new(), v.to_vec());
    }
    m.apply(&[], op);
    m.map.remove(&Vec::new())
}

/// A random write of a transaction (put, delete, or one of the two upserts).
pub fn txn_write(rng: &mut crate::common::Rng) -> Op {
    match rng.below(10) {
        0..=4 => Op::Put(vec![b'a' + rng.below(26) as u8; 1 + rng.below(40) as usize]),
        5 | 6 => Op::Delete,
        7 => Op::Upsert {
            func: F_APPEND,
            arg: vec![b'+'; 2],
        },
        _ => Op::Upsert {
            func: F_ADD,
            arg: (1 + rng.below(9)).to_le_bytes().to_vec(),
        },
    }
}

/// What a transaction reads: a base (its snapshot, or the latest committed state) under its own writes.
pub fn view(base: &Map, own: &BTreeMap<Vec<u8>, Option<Vec<u8>>>) -> Map {
    let mut m = base.clone();
    for (k, v) in own {
        match v {
            Some(v) => m.insert(k.clone(), v.clone()),
            None => m.remove(k),
        };
    }
    m
}

/// The entries of `map` within the bounds, in order (or reverse).
pub fn range(
    map: &Map,
    lo: Bound<&[u8]>,
    hi: Bound<&[u8]>,
    reverse: bool,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let above_lo = |k: &[u8]| match lo {
        Bound::Included(l) => k >= l,
        Bound::Excluded(l) => k > l,
        Bound::Unbounded => true,
    };
    let below_hi = |k: &[u8]| match hi {
        Bound::Included(h) => k <= h,
        Bound::Excluded(h) => k < h,
        Bound::Unbounded => true,
    };
    let mut v: Vec<_> = map
        .iter()
        .filter(|(k, _)| above_lo(k) && below_hi(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if reverse {
        v.reverse();
    }
    v
}

/// The first differences between two row lists, for failure messages.
pub fn diff_rows(got: &[(Vec<u8>, Vec<u8>)], want: &[(Vec<u8>, Vec<u8>)]) -> String {
    let show = |r: &(Vec<u8>, Vec<u8>)| {
        format!(
            "{}={}",
            String::from_utf8_lossy(&r.0),
            String::from_utf8_lossy(&r.1)
        )
    };
    let extra: Vec<String> = got
        .iter()
        .filter(|r| !want.contains(r))
        .take(4)
        .map(show)
        .collect();
    let missing: Vec<String> = want
        .iter()
        .filter(|r| !got.contains(r))
        .take(4)
        .map(show)
        .collect();
    format!(
        "{} rows, expected {}; unexpected {extra:?}, missing {missing:?}",
        got.len(),
        want.len()
    )
}
