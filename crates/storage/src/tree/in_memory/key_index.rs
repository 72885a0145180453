//! A search summary of a basement's sorted keys: for each key, 8 bytes of it as a `u64`, in one
//! contiguous array.
//!
//! A basement's entries own their keys on the heap, so a plain binary search touches two cache lines
//! per step (the entry, then its key); with a large cache almost every step misses. Searching this
//! array first touches a few lines of one small array and narrows the search to the keys whose
//! summaries are equal, usually one or none.
//!
//! The summary of a key is its bytes `[skip, skip + 8)` (big-endian, zero-padded), where `skip` is a
//! length every key of the basement shares as a prefix (`prefix`): the bytes right after that prefix
//! are the ones that tell neighbouring keys apart.
//!
//! Invariants: `heads.len()` equals the number of keys; every key starts with `prefix`
//! (`prefix.len() == skip`); summaries are non-decreasing (for keys sharing `prefix`, a < b implies
//! head(a) <= head(b), zero padding included). `skip` may be shorter than the longest common prefix
//! (removals never lengthen it), which costs only search precision.

/// Bytes of a key summarized per entry.
const WIDTH: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct KeyIndex {
    prefix: Vec<u8>,
    heads: Vec<u64>,
}

/// Bytes `[skip, skip + 8)` of `key` (zero-padded) as a big-endian integer.
pub(super) fn head(key: &[u8], skip: usize) -> u64 {
    let mut b = [0u8; WIDTH];
    if key.len() > skip {
        let tail = &key[skip..];
        let n = tail.len().min(WIDTH);
        b[..n].copy_from_slice(&tail[..n]);
    }
    u64::from_be_bytes(b)
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl KeyIndex {
    /// Where `key` falls among the keys (`keys(i)` returns key i): the index of the first key ≥ `key`,
    /// and whether that key equals it.
    pub fn search<'k>(&self, key: &[u8], keys: impl Fn(usize) -> &'k [u8]) -> (usize, bool) {
        let skip = self.prefix.len();
        let shared = &key[..skip.min(key.len())];
        if shared != self.prefix.as_slice() {
            // Outside the keys' common prefix: before all of them or after all of them.
            return if shared < self.prefix.as_slice() {
                (0, false)
            } else {
                (self.heads.len(), false)
            };
        }
        let h = head(key, skip);
        let lo = self.heads.partition_point(|&x| x < h);
        let hi = lo + self.heads[lo..].partition_point(|&x| x == h);
        let (mut a, mut b) = (lo, hi);
        while a < b {
            let mid = a + (b - a) / 2;
            match keys(mid).cmp(key) {
                std::cmp::Ordering::Less => a = mid + 1,
                std::cmp::Ordering::Greater => b = mid,
                std::cmp::Ordering::Equal => return (mid, true),
            }
        }
        (a, false)
    }

    /// Records the insertion of `key` at index `i` (the keys are given after the insertion).
    pub fn insert<'k>(
        &mut self,
        i: usize,
        key: &[u8],
        keys: impl Fn(usize) -> &'k [u8],
        len: usize,
    ) {
        if self.heads.is_empty() || !key.starts_with(&self.prefix) {
            *self = KeyIndex::build_from(keys, len);
            return;
        }
        self.heads.insert(i, head(key, self.prefix.len()));
    }

    /// Records the removal of the key at index `i`.
    pub fn remove(&mut self, i: usize) {
        self.heads.remove(i);
        if self.heads.is_empty() {
            self.prefix.clear();
        }
    }

    /// Builds from an indexed accessor.
    pub fn build_from<'k>(keys: impl Fn(usize) -> &'k [u8], len: usize) -> KeyIndex {
        if len == 0 {
            return KeyIndex::default();
        }
        let skip = common_prefix(keys(0), keys(len - 1));
        KeyIndex {
            prefix: keys(0)[..skip].to_vec(),
            heads: (0..len).map(|i| head(keys(i), skip)).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn check(keys: &[Vec<u8>], probes: &[Vec<u8>]) {
        let idx = KeyIndex::build_from(|i| keys[i].as_slice(), keys.len());
        for p in probes {
            let want_pos = keys.partition_point(|k| k < p);
            let want_eq = keys.get(want_pos) == Some(p);
            assert_eq!(
                idx.search(p, |i| keys[i].as_slice()),
                (want_pos, want_eq),
                "probe {p:?} in {keys:?}"
            );
        }
    }

    #[test]
    fn search_agrees_with_a_plain_binary_search() {
        let mut r = rand::rngs::SmallRng::seed_from_u64(3);
        for round in 0..300 {
            // Keys with long shared prefixes, short keys, keys that are prefixes of others.
            let alphabet: &[u8] = if round % 2 == 0 {
                b"ab"
            } else {
                b"\x00\x01\xff"
            };
            let prefix: Vec<u8> = (0..r.gen_range(0..12)).map(|_| b'p').collect();
            let mut keys: Vec<Vec<u8>> = (0..r.gen_range(0..60))
                .map(|_| {
                    let mut k = prefix.clone();
                    k.extend(
                        (0..r.gen_range(0..14)).map(|_| alphabet[r.gen_range(0..alphabet.len())]),
                    );
                    k
                })
                .collect();
            keys.sort();
            keys.dedup();
            let mut probes = keys.clone();
            for _ in 0..40 {
                let mut k: Vec<u8> = if r.gen_bool(0.7) {
                    prefix.clone()
                } else {
                    Vec::new()
                };
                k.extend((0..r.gen_range(0..16)).map(|_| alphabet[r.gen_range(0..alphabet.len())]));
                probes.push(k);
            }
            probes.push(Vec::new());
            probes.push(vec![0xff; 30]);
            check(&keys, &probes);
        }
    }

    #[test]
    fn insert_and_remove_keep_it_consistent() {
        let mut r = rand::rngs::SmallRng::seed_from_u64(5);
        let mut keys: Vec<Vec<u8>> = Vec::new();
        let mut idx = KeyIndex::default();
        for _ in 0..2000 {
            let k: Vec<u8> = (0..r.gen_range(1..6))
                .map(|_| b"xyz"[r.gen_range(0..3)])
                .collect();
            let (pos, found) = idx.search(&k, |i| keys[i].as_slice());
            assert_eq!(pos, keys.partition_point(|x| x < &k));
            if found {
                keys.remove(pos);
                idx.remove(pos);
            } else {
                keys.insert(pos, k.clone());
                idx.insert(pos, &k, |i| keys[i].as_slice(), keys.len());
            }
            assert_eq!(idx.len(), keys.len());
        }
        check(&keys, &keys.clone());
    }
}
