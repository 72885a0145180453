//! A seeded byte mutator: flips, interesting values, inserted, deleted and duplicated ranges, splices
//! from another corpus input, truncation. The same seed and inputs give the same outputs, so a run can be
//! repeated exactly.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Values that often sit on a decoder's boundaries (lengths, counts, tags).
const INTERESTING: [u64; 12] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
    u64::MAX,
];

/// Largest input the mutator makes.
pub const MAX_INPUT: usize = 64 << 10;

pub struct Mutator {
    rng: SmallRng,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// A random index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    /// `base` changed by one to eight mutations; `other` is a second corpus input to splice from.
    pub fn mutate(&mut self, base: &[u8], other: &[u8]) -> Vec<u8> {
        let mut out = base.to_vec();
        let rounds = 1 + self.rng.gen_range(0..8);
        for _ in 0..rounds {
            self.once(&mut out, other);
        }
        out.truncate(MAX_INPUT);
        out
    }

    fn once(&mut self, out: &mut Vec<u8>, other: &[u8]) {
        if out.is_empty() {
            out.push(self.rng.gen());
            return;
        }
        let at = self.rng.gen_range(0..out.len());
        match self.rng.gen_range(0..9) {
            0 => out[at] ^= 1 << self.rng.gen_range(0..8),
            1 => out[at] = self.rng.gen(),
            2 => self.put_interesting(out, at),
            3 => {
                let n = self.rng.gen_range(1..=16);
                let bytes: Vec<u8> = (0..n).map(|_| self.rng.gen()).collect();
                out.splice(at..at, bytes);
            }
            4 => {
                let end = (at + self.rng.gen_range(1..=32)).min(out.len());
                out.drain(at..end);
            }
            5 => {
                let end = (at + self.rng.gen_range(1..=64)).min(out.len());
                let copy = out[at..end].to_vec();
                let to = self.rng.gen_range(0..=out.len());
                out.splice(to..to, copy);
            }
            6 if !other.is_empty() => {
                let from = self.rng.gen_range(0..other.len());
                let end = (from + self.rng.gen_range(1..=64)).min(other.len());
                let to = self.rng.gen_range(0..=out.len());
                out.splice(to..to, other[from..end].iter().copied());
            }
            7 => out.truncate(at),
            _ => {
                let v = out[at];
                out[at] = v.wrapping_add(self.rng.gen_range(1..=4)).wrapping_sub(2);
            }
        }
    }

    /// Writes an interesting value as 1, 2, 4 or 8 little- or big-endian bytes at `at`.
    fn put_interesting(&mut self, out: &mut [u8], at: usize) {
        let v = INTERESTING[self.rng.gen_range(0..INTERESTING.len())];
        let width = [1usize, 2, 4, 8][self.rng.gen_range(0..4)];
        let bytes = if self.rng.gen() {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        };
        let bytes = if bytes[0] == 0 && width < 8 {
            &bytes[8 - width..]
        } else {
            &bytes[..width]
        };
        for (i, b) in bytes.iter().enumerate() {
            if let Some(slot) = out.get_mut(at + i) {
                *slot = *b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_inputs_and_they_stay_bounded() {
        let base = b"SELECT 1 FROM t WHERE a = 2".to_vec();
        let other = vec![0xffu8; 100];
        let run = |seed| {
            let mut m = Mutator::new(seed);
            (0..200)
                .map(|_| m.mutate(&base, &other))
                .collect::<Vec<_>>()
        };
        let a = run(5);
        assert_eq!(a, run(5));
        assert_ne!(a, run(6));
        assert!(a.iter().any(|x| x != &base), "nothing was mutated");
        assert!(a.iter().all(|x| x.len() <= MAX_INPUT));
    }
}
