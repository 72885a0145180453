//! A node's pivot keys with a search summary built on first use.
//!
//! Every pivot owns its key on the heap, so a plain binary search over a leaf's pivots (one per
//! basement: 128 with 32 KiB basements in 4 MiB nodes) misses the CPU cache at almost every step; a
//! profile of point reads with data 10x the cache showed 6.5% of the time in those comparisons.
//! [`Pivots::part_index`] searches a [`KeyIndex`] (8 bytes of each pivot in one array) instead, and
//! compares whole keys only among pivots whose summaries tie.
//!
//! Invariants: the keys strictly increase (the node's invariant); the summary, when present,
//! describes exactly the current keys: every change goes through a method here that drops it, and
//! the next search rebuilds it. Reads through `Deref` see the keys as a slice.

use super::key_index::KeyIndex;
use std::ops::Deref;
use std::sync::OnceLock;

#[derive(Debug, Clone, Default)]
pub struct Pivots {
    keys: Vec<Vec<u8>>,
    index: OnceLock<KeyIndex>,
}

impl PartialEq for Pivots {
    fn eq(&self, other: &Pivots) -> bool {
        self.keys == other.keys
    }
}
impl Eq for Pivots {}

impl From<Vec<Vec<u8>>> for Pivots {
    fn from(keys: Vec<Vec<u8>>) -> Pivots {
        Pivots {
            keys,
            index: OnceLock::new(),
        }
    }
}

impl FromIterator<Vec<u8>> for Pivots {
    fn from_iter<I: IntoIterator<Item = Vec<u8>>>(iter: I) -> Pivots {
        Pivots::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl Deref for Pivots {
    type Target = [Vec<u8>];
    fn deref(&self) -> &[Vec<u8>] {
        &self.keys
    }
}

impl Pivots {
    /// Index of the part (basement or child) whose range holds `key`: the number of pivots ≤ `key`.
    pub fn part_index(&self, key: &[u8]) -> usize {
        let index = self
            .index
            .get_or_init(|| KeyIndex::build_from(|i| self.keys[i].as_slice(), self.keys.len()));
        match index.search(key, |i| self.keys[i].as_slice()) {
            (i, true) => i + 1,
            (i, false) => i,
        }
    }

    /// The keys, to change them; the summary is dropped.
    fn keys_mut(&mut self) -> &mut Vec<Vec<u8>> {
        self.index = OnceLock::new();
        &mut self.keys
    }

    pub fn insert(&mut self, i: usize, key: Vec<u8>) {
        self.keys_mut().insert(i, key);
    }
    pub fn remove(&mut self, i: usize) -> Vec<u8> {
        self.keys_mut().remove(i)
    }
    pub fn push(&mut self, key: Vec<u8>) {
        self.keys_mut().push(key);
    }
    pub fn extend(&mut self, keys: impl IntoIterator<Item = Vec<u8>>) {
        self.keys_mut().extend(keys);
    }
    pub fn split_off(&mut self, at: usize) -> Pivots {
        Pivots::from(self.keys_mut().split_off(at))
    }
    /// The keys, for code that takes them apart.
    pub fn into_vec(self) -> Vec<Vec<u8>> {
        self.keys
    }
    /// Bytes of the summary when built (counted in the node's size as if it always were).
    pub const SUMMARY_BYTES_PER_KEY: usize = 8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_index_agrees_with_a_plain_search_through_changes() {
        let plain = |p: &Pivots, k: &[u8]| p.partition_point(|x| x.as_slice() <= k);
        let mut p = Pivots::from(
            (0..200u32)
                .map(|i| format!("key{:05}", i * 10).into_bytes())
                .collect::<Vec<_>>(),
        );
        let probes: Vec<Vec<u8>> = (0..2100u32)
            .map(|i| format!("key{i:05}").into_bytes())
            .chain([
                b"".to_vec(),
                b"a".to_vec(),
                b"key".to_vec(),
                b"zzz".to_vec(),
            ])
            .collect();
        for k in &probes {
            assert_eq!(p.part_index(k), plain(&p, k), "{k:?}");
        }
        p.insert(3, b"key00025".to_vec());
        p.remove(0);
        p.push(b"l".to_vec());
        let tail = p.split_off(150);
        for k in &probes {
            assert_eq!(p.part_index(k), plain(&p, k), "{k:?}");
            assert_eq!(tail.part_index(k), plain(&tail, k), "{k:?}");
        }
        let empty = Pivots::default();
        assert_eq!(empty.part_index(b"x"), 0);
    }
}
