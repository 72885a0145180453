//! Key filters: a filter per partition, written in the node's prefix (file-format.md §3.3, "filter
//! chunk"), so a point read can tell that a partition which is not in memory holds nothing for its key
//! without reading and decompressing it (design.md, "Key filters", FLT1–FLT3). A filter is a Bloom
//! filter, or for a basement whose keys come in runs of consecutive keys, the exact list of those runs
//! (`key_runs.rs`) when that is shorter.
//!
//! Invariant: a filter built from a set of keys answers `true` for every key of the set (no false
//! negatives); for other keys a Bloom filter answers `true` about 1% of the time at [`BITS_PER_KEY`] bits
//! per key, key runs never. The hash and the probe sequence are part of the on-disk format and never change
//! within a format version.

use super::key_runs::{KeyRuns, KIND_RUNS};
use crate::encoding::DecodeError;
use twox_hash::XxHash3_64;

/// Bits of filter per key (with [`PROBES`] probes: about 0.8% false positives).
pub const BITS_PER_KEY: usize = 10;
/// Probes per key.
pub const PROBES: u8 = 7;
/// The smallest filter, in bits.
const MIN_BITS: usize = 64;
/// Most probes a decoded filter may ask for.
const MAX_PROBES: u8 = 30;

/// A partition's key filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyFilter {
    Bloom(Bloom),
    Runs(KeyRuns),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bloom {
    probes: u8,
    bits: Vec<u8>,
}

/// The probe positions' generator of `key`: (h1, h2) of the format's double hashing.
fn hashes(key: &[u8]) -> (u64, u64) {
    let h = XxHash3_64::oneshot_with_seed(0, key);
    (h & 0xffff_ffff, (h >> 32) | 1)
}

/// The format's probe positions `(h1 + i * h2) % m` for `i` in `0..probes`, computed with two divisions
/// instead of one per probe: `(h1 + i * h2) mod m = (h1 mod m + i * (h2 mod m)) mod m`, and `h1 + i * h2`
/// never overflows (both below 2^32, `i` below 2^8). Building filters had been 9% of the flusher's CPU.
fn probes(h1: u64, h2: u64, m: u64, probes: u8) -> impl Iterator<Item = usize> {
    let step = h2 % m;
    let mut pos = h1 % m;
    (0..probes).map(move |_| {
        let here = pos;
        pos += step;
        if pos >= m {
            pos -= m;
        }
        here as usize
    })
}

impl KeyFilter {
    /// A Bloom filter over `keys` (`count` of them, used to size it).
    pub fn build<'a>(keys: impl Iterator<Item = &'a [u8]>, count: usize) -> KeyFilter {
        KeyFilter::Bloom(Bloom::build(keys, count))
    }

    /// The filter of a basement's keys (strictly increasing, `count` of them): key runs when they are
    /// shorter than the Bloom filter (design.md FLT3), else the Bloom filter.
    pub fn for_sorted<'a>(keys: impl Iterator<Item = &'a [u8]> + Clone, count: usize) -> KeyFilter {
        match KeyRuns::build(keys.clone(), Bloom::bytes_for(count) + 1) {
            Some(runs) => KeyFilter::Runs(runs),
            None => KeyFilter::build(keys, count),
        }
    }

    /// Whether `key` may be in the set the filter was built from (false: it certainly is not).
    pub fn may_contain(&self, key: &[u8]) -> bool {
        match self {
            KeyFilter::Bloom(b) => b.may_contain(key),
            KeyFilter::Runs(r) => r.contains(key),
        }
    }

    /// Bytes it occupies in memory (for the cache budget).
    pub fn mem_bytes(&self) -> usize {
        match self {
            KeyFilter::Bloom(b) => b.bits.len() + 32,
            KeyFilter::Runs(r) => r.mem_bytes(),
        }
    }

    /// The encoded entry (without its length prefix).
    pub fn encode(&self) -> Vec<u8> {
        match self {
            KeyFilter::Bloom(b) => b.encode(),
            KeyFilter::Runs(r) => r.encode(),
        }
    }

    /// Decodes an entry written by [`KeyFilter::encode`].
    pub fn decode(raw: &[u8]) -> Result<KeyFilter, DecodeError> {
        if raw.first() == Some(&KIND_RUNS) {
            return Ok(KeyFilter::Runs(KeyRuns::decode(raw)?));
        }
        Ok(KeyFilter::Bloom(Bloom::decode(raw)?))
    }
}

impl Bloom {
    /// Bytes of the bits of a filter over `count` keys.
    fn bytes_for(count: usize) -> usize {
        (count * BITS_PER_KEY).max(MIN_BITS).div_ceil(8)
    }

    fn build<'a>(keys: impl Iterator<Item = &'a [u8]>, count: usize) -> Bloom {
        let m = Bloom::bytes_for(count) * 8;
        let mut f = Bloom {
            probes: PROBES,
            bits: vec![0; m / 8],
        };
        for k in keys {
            let (h1, h2) = hashes(k);
            for bit in probes(h1, h2, m as u64, f.probes) {
                f.set(bit);
            }
        }
        f
    }

    fn set(&mut self, bit: usize) {
        self.bits[bit / 8] |= 1 << (bit % 8);
    }

    fn is_set(&self, bit: usize) -> bool {
        self.bits[bit / 8] & (1 << (bit % 8)) != 0
    }

    fn may_contain(&self, key: &[u8]) -> bool {
        let m = self.bits.len() as u64 * 8;
        let (h1, h2) = hashes(key);
        probes(h1, h2, m, self.probes).all(|bit| self.is_set(bit))
    }

    /// Probes, then the bits.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + self.bits.len());
        out.push(self.probes);
        out.extend_from_slice(&self.bits);
        out
    }

    fn decode(raw: &[u8]) -> Result<Bloom, DecodeError> {
        let (&probes, bits) = raw
            .split_first()
            .ok_or_else(|| DecodeError("empty key filter".into()))?;
        if probes == 0 || probes > MAX_PROBES {
            return Err(DecodeError(format!("key filter with {probes} probes")));
        }
        if bits.len() * 8 < MIN_BITS {
            return Err(DecodeError(format!(
                "key filter of {} bits",
                bits.len() * 8
            )));
        }
        Ok(Bloom {
            probes,
            bits: bits.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_positions_are_the_formats() {
        let mut x = 12345u64;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (h1, h2) = (x & 0xffff_ffff, (x >> 32) | 1);
            let m = ((x >> 7) % 100_000 + 1) * 8;
            let n = (x % 31) as u8;
            let fast: Vec<usize> = probes(h1, h2, m, n).collect();
            let spec: Vec<usize> = (0..u64::from(n))
                .map(|i| ((h1 + i * h2) % m) as usize)
                .collect();
            assert_eq!(fast, spec, "h1 {h1} h2 {h2} m {m}");
        }
    }

    fn keys(range: std::ops::Range<u32>) -> Vec<Vec<u8>> {
        range
            .map(|i| format!("sensor{i:06}").into_bytes())
            .collect()
    }

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let inside = keys(0..5000);
        let f = KeyFilter::build(inside.iter().map(|k| k.as_slice()), inside.len());
        assert!(inside.iter().all(|k| f.may_contain(k)));
        let outside = keys(5000..105_000);
        let fp = outside.iter().filter(|k| f.may_contain(k)).count();
        // 10 bits per key, 7 probes: about 0.8%; 2% leaves room for the hash's spread.
        assert!(fp < outside.len() / 50, "{fp} false positives");
        assert!(fp > 0, "a Bloom filter this size has some false positives");
    }

    #[test]
    fn empty_filter_holds_nothing_and_round_trips() {
        let f = KeyFilter::build(std::iter::empty(), 0);
        assert!(!f.may_contain(b"x"));
        let inside = keys(0..300);
        let g = KeyFilter::build(inside.iter().map(|k| k.as_slice()), inside.len());
        let back = KeyFilter::decode(&g.encode()).unwrap();
        assert_eq!(back, g);
        assert!(inside.iter().all(|k| back.may_contain(k)));
    }

    #[test]
    fn the_hash_is_the_documented_one() {
        // XXH3-64 with seed 0 of the empty input (the reference implementation's published value): a change
        // of hash would silently turn every stored filter into false negatives.
        assert_eq!(XxHash3_64::oneshot_with_seed(0, b""), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn bad_entries_are_errors() {
        assert!(KeyFilter::decode(&[]).is_err());
        assert!(KeyFilter::decode(&[0, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(KeyFilter::decode(&[7, 0, 0, 0]).is_err());
        assert!(KeyFilter::decode(&[31, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(KeyFilter::decode(&[7, 0, 0, 0, 0, 0, 0, 0, 0]).is_ok());
    }
}
