//! The key/value stream: a pure function of (seed, row index), so every engine and every thread sees the
//! same rows whatever the thread count.
//!
//! - Random keys: 16 bytes from a 64-bit mixer of (seed, row), uniform over the key space.
//! - Sequential keys: `ff ff ff ff ff ff ff ff` then the row index big-endian, so they ascend at the right
//!   edge of the key space (the auto-increment pattern) and never collide with random keys in practice.
//! - Values: 100 bytes, the first 50 pseudo-random and the last 50 a copy of them, so a block compressor
//!   halves them (moderately compressible, like db_bench's default compression ratio of 0.5).

pub const KEY_BYTES: usize = 16;
pub const VALUE_BYTES: usize = 100;

/// SplitMix64 finalizer: a bijective mixer of 64-bit words.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Random,
    Sequential,
}

#[derive(Debug, Clone, Copy)]
pub struct KeyStream {
    pub seed: u64,
}

impl KeyStream {
    pub fn new(seed: u64) -> KeyStream {
        KeyStream { seed }
    }

    pub fn key(&self, kind: KeyKind, row: u64) -> [u8; KEY_BYTES] {
        let mut k = [0u8; KEY_BYTES];
        match kind {
            KeyKind::Random => {
                let a = mix64(self.seed ^ mix64(row));
                let b = mix64(a ^ 0x5151_5151_5151_5151);
                k[..8].copy_from_slice(&a.to_be_bytes());
                k[8..].copy_from_slice(&b.to_be_bytes());
            }
            KeyKind::Sequential => {
                k[..8].copy_from_slice(&[0xff; 8]);
                k[8..].copy_from_slice(&row.to_be_bytes());
            }
        }
        k
    }

    pub fn value(&self, kind: KeyKind, row: u64) -> [u8; VALUE_BYTES] {
        let mut v = [0u8; VALUE_BYTES];
        let tag = match kind {
            KeyKind::Random => 0x0123_4567_89ab_cdef,
            KeyKind::Sequential => 0xfedc_ba98_7654_3210,
        };
        let mut s = mix64(self.seed ^ tag ^ mix64(row.wrapping_add(1)));
        let half = VALUE_BYTES / 2;
        for chunk in v[..half].chunks_mut(8) {
            s = mix64(s);
            chunk.copy_from_slice(&s.to_le_bytes()[..chunk.len()]);
        }
        let (first, second) = v.split_at_mut(half);
        second.copy_from_slice(first);
        v
    }

    /// Rows `[start, end)` of one kind as owned (key, value) pairs, ready for a write batch.
    pub fn batch(&self, kind: KeyKind, start: u64, end: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
        (start..end)
            .map(|r| (self.key(kind, r).to_vec(), self.value(kind, r).to_vec()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn deterministic_and_distinct() {
        let s = KeyStream::new(42);
        assert_eq!(s.key(KeyKind::Random, 7), s.key(KeyKind::Random, 7));
        assert_ne!(
            s.key(KeyKind::Random, 7),
            KeyStream::new(43).key(KeyKind::Random, 7)
        );
        let keys: HashSet<_> = (0..100_000).map(|r| s.key(KeyKind::Random, r)).collect();
        assert_eq!(keys.len(), 100_000);
    }

    #[test]
    fn sequential_keys_ascend_above_random_prefixes() {
        let s = KeyStream::new(1);
        let seq: Vec<_> = (0..1000).map(|r| s.key(KeyKind::Sequential, r)).collect();
        assert!(seq.windows(2).all(|w| w[0] < w[1]));
        assert!((0..1000).all(|r| s.key(KeyKind::Random, r) < seq[0]));
    }

    #[test]
    fn values_are_half_repeated() {
        let s = KeyStream::new(9);
        let v = s.value(KeyKind::Random, 3);
        assert_eq!(v[..50], v[50..]);
        assert_ne!(v, s.value(KeyKind::Random, 4));
        assert_ne!(v, s.value(KeyKind::Sequential, 3));
        let b = s.batch(KeyKind::Sequential, 10, 13);
        assert_eq!(b.len(), 3);
        assert_eq!(b[1].0, s.key(KeyKind::Sequential, 11).to_vec());
    }
}
