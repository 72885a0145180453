//! Key runs: a basement's keys as runs of consecutive keys (file-format.md §3.3, "Key runs"; design.md
//! FLT3), where key b follows key a when both have the same length and b = a + 1 as big-endian unsigned
//! integers. Auto-increment ids and one-row-per-second timestamps after a fixed prefix come in long runs,
//! which a few bytes describe exactly, where a Bloom filter takes 10 bits per key.
//!
//! Invariants: runs are in strictly increasing order of first key, each count ≥ 1; a key is in the set
//! iff some run holds it (exact: no false positives, no false negatives); [`KeyRuns::decode`] accepts
//! exactly what [`KeyRuns::encode`] writes.

use crate::encoding::{varint_len, DecodeError, Decoder, Encode};

/// First byte of a key-runs filter entry (a Bloom filter's is its probe count, 1..=30).
pub const KIND_RUNS: u8 = 0x80;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRuns {
    /// (first key, number of keys) per run.
    runs: Vec<(Vec<u8>, u64)>,
}

/// Whether `b` = `a` + 1 (same length, big-endian).
fn follows(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let ones = a.iter().rev().take_while(|&&x| x == 0xFF).count();
    if ones == a.len() {
        return false;
    }
    let at = a.len() - ones - 1;
    a[..at] == b[..at] && b[at] == a[at] + 1 && b[at + 1..].iter().all(|&x| x == 0)
}

/// `x - f` for keys of equal length with `x ≥ f`, if it fits 64 bits.
fn distance(f: &[u8], x: &[u8]) -> Option<u64> {
    let mut diff = vec![0u8; x.len()];
    let mut borrow = 0i16;
    for i in (0..x.len()).rev() {
        let mut d = i16::from(x[i]) - i16::from(f[i]) - borrow;
        borrow = i16::from(d < 0);
        if d < 0 {
            d += 256;
        }
        diff[i] = d as u8;
    }
    let lead = diff.iter().take_while(|&&b| b == 0).count();
    if diff.len() - lead > 8 {
        return None;
    }
    Some(
        diff[lead..]
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
    )
}

fn shared(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl KeyRuns {
    /// The runs of `keys` (strictly increasing), if their encoding takes fewer than `limit` bytes.
    pub fn build<'a>(keys: impl Iterator<Item = &'a [u8]>, limit: usize) -> Option<KeyRuns> {
        let mut runs: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut last: &[u8] = &[];
        let mut bytes = 1 + 1;
        for k in keys {
            match runs.last_mut() {
                Some((_, count)) if follows(last, k) => *count += 1,
                _ => {
                    if let Some((first, count)) = runs.last() {
                        bytes += varint_len(count - 1);
                        let s = shared(first, k);
                        bytes +=
                            varint_len(s as u64) + varint_len((k.len() - s) as u64) + k.len() - s;
                    } else {
                        bytes += 2 + k.len();
                    }
                    if bytes >= limit {
                        return None;
                    }
                    runs.push((k.to_vec(), 1));
                }
            }
            last = k;
        }
        (!runs.is_empty()).then_some(KeyRuns { runs })
    }

    /// Whether `key` is one of the keys.
    pub fn contains(&self, key: &[u8]) -> bool {
        let i = self.runs.partition_point(|(f, _)| f.as_slice() <= key);
        if i == 0 {
            return false;
        }
        let (first, count) = &self.runs[i - 1];
        first.len() == key.len() && distance(first, key).is_some_and(|d| d < *count)
    }

    /// Bytes it occupies in memory (for the cache budget).
    pub fn mem_bytes(&self) -> usize {
        self.runs.iter().map(|(k, _)| k.len() + 40).sum::<usize>() + 32
    }

    /// The encoded entry (without its length prefix).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![KIND_RUNS];
        out.put_varint(self.runs.len() as u64);
        let mut prev: &[u8] = &[];
        for (first, count) in &self.runs {
            let s = shared(prev, first);
            out.put_varint(s as u64);
            out.put_bytes(&first[s..]);
            out.put_varint(count - 1);
            prev = first;
        }
        out
    }

    /// Decodes an entry written by [`KeyRuns::encode`].
    pub fn decode(raw: &[u8]) -> Result<KeyRuns, DecodeError> {
        let mut d = Decoder::new(raw);
        if d.u8()? != KIND_RUNS {
            return Err(DecodeError("not a key-runs filter".into()));
        }
        let n = d.varint()?;
        if n == 0 || n > raw.len() as u64 {
            return Err(DecodeError(format!("key-runs filter of {n} runs")));
        }
        let mut runs: Vec<(Vec<u8>, u64)> = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let s = d.varint()?;
            let rest = d.bytes()?;
            let count = d
                .varint()?
                .checked_add(1)
                .ok_or_else(|| DecodeError("key run count overflows".into()))?;
            let prev = runs.last().map_or(&[][..], |(k, _)| k.as_slice());
            if s > prev.len() as u64 {
                return Err(DecodeError(
                    "key run shares more than the previous key".into(),
                ));
            }
            let mut key = prev[..s as usize].to_vec();
            key.extend_from_slice(rest);
            if runs.last().is_some_and(|(k, _)| *k >= key) {
                return Err(DecodeError("key runs not in increasing order".into()));
            }
            runs.push((key, count));
        }
        d.finish()?;
        Ok(KeyRuns { runs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn keys_of(prefixes: &[(u32, u64, u64)]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for &(p, from, n) in prefixes {
            for t in from..from + n {
                let mut k = vec![1];
                k.extend_from_slice(&p.to_be_bytes());
                k.push(1);
                k.extend_from_slice(&t.to_be_bytes()[3..]);
                out.push(k);
            }
        }
        out
    }

    #[test]
    fn consecutive_keys_make_few_runs_and_membership_is_exact() {
        // Two sensors' seconds, one crossing a byte boundary (0x..FF → 0x..00 carries).
        let keys = keys_of(&[(7, 250, 400), (8, 0, 30)]);
        let runs = KeyRuns::build(keys.iter().map(|k| k.as_slice()), 10_000).unwrap();
        assert_eq!(runs.runs.len(), 2);
        let back = KeyRuns::decode(&runs.encode()).unwrap();
        assert_eq!(back, runs);
        assert!(runs.encode().len() < 40);
        for k in &keys {
            assert!(back.contains(k));
        }
        for absent in keys_of(&[(7, 249, 1), (7, 650, 1), (8, 30, 5), (6, 300, 1), (9, 0, 1)]) {
            assert!(!back.contains(&absent), "{absent:?}");
        }
        assert!(!back.contains(b""));
        assert!(!back.contains(&[1, 0, 0, 0, 7, 1, 0, 1, 10, 0]));
        // Random keys do not pay: the limit turns them down.
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut random: Vec<Vec<u8>> = (0..300).map(|_| rng.gen::<[u8; 12]>().to_vec()).collect();
        random.sort();
        assert!(KeyRuns::build(random.iter().map(|k| k.as_slice()), 300 * 10 / 8).is_none());
    }

    #[test]
    fn successors_and_distances_carry_across_bytes() {
        assert!(follows(&[0, 0xFF], &[1, 0]));
        assert!(!follows(&[0xFF, 0xFF], &[0, 0]));
        assert!(!follows(&[1], &[1, 0]));
        assert!(follows(&[5, 1, 2], &[5, 1, 3]));
        assert_eq!(distance(&[0, 0xFF], &[1, 0]), Some(1));
        assert_eq!(distance(&[1; 12], &[1; 12]), Some(0));
        assert_eq!(distance(&[0; 12], &[1; 12]), None);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for _ in 0..5000 {
            let len = rng.gen_range(0..40);
            let mut junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if let Some(b) = junk.first_mut() {
                *b = KIND_RUNS;
            }
            if let Ok(r) = KeyRuns::decode(&junk) {
                let _ = r.contains(b"some key");
            }
        }
    }
}
