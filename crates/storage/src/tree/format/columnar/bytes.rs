//! Byte-string columns (file-format.md §3.5, "Bytes column"): the values of one variable-length
//! (or fixed-length) byte field in a frame, in whichever of these encodings is smallest:
//!
//! | tag | encoding |
//! |---|---|
//! | 0 | plain: the lengths as an integer column (not for a fixed length), then the bytes of every value |
//! | 1 | dictionary: the count of distinct values, each as a varint length and its bytes, in order of first appearance; then each row's index as an integer column |
//! | 2 | front coding: per value the length of the prefix it shares with the previous one and the length of the rest (integer columns; the second not for a fixed length), then the rests' bytes |
//!
//! Invariant: [`decode`] returns exactly the values [`encode`] was given, as one buffer with the end
//! offset of each value; lengths are checked against the bytes present, never trusted.

use super::ints;
use crate::encoding::{DecodeError, Decoder, Encode};
use std::collections::HashMap;

const PLAIN: u8 = 0;
const DICT: u8 = 1;
const FRONT: u8 = 2;

/// Dictionaries are tried only when values repeat at least this often on average.
const DICT_MIN_REPEAT: usize = 2;

/// Decoded values: the bytes of all of them, and where each ends.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Strings {
    pub data: Vec<u8>,
    pub ends: Vec<usize>,
}

impl Strings {
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    fn push(&mut self, v: &[u8]) {
        self.data.extend_from_slice(v);
        self.ends.push(self.data.len());
    }
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

fn lengths(values: &[&[u8]]) -> Vec<i64> {
    values.iter().map(|v| v.len() as i64).collect()
}

fn plain(values: &[&[u8]], fixed: Option<usize>, out: &mut Vec<u8>) {
    out.put_u8(PLAIN);
    if fixed.is_none() {
        ints::encode(&lengths(values), 8, false, out);
    }
    for v in values {
        out.extend_from_slice(v);
    }
}

fn dict(values: &[&[u8]], out: &mut Vec<u8>) -> bool {
    let mut index: HashMap<&[u8], i64> = HashMap::new();
    let mut order: Vec<&[u8]> = Vec::new();
    let mut rows = Vec::with_capacity(values.len());
    for v in values {
        let next = order.len() as i64;
        let i = *index.entry(v).or_insert(next);
        if i == next {
            order.push(v);
            if order.len() * DICT_MIN_REPEAT > values.len() {
                return false;
            }
        }
        rows.push(i);
    }
    out.put_u8(DICT);
    out.put_varint(order.len() as u64);
    for v in &order {
        out.put_bytes(v);
    }
    ints::encode(&rows, 8, false, out);
    true
}

fn front(values: &[&[u8]], fixed: Option<usize>, out: &mut Vec<u8>) {
    let mut prefixes = Vec::with_capacity(values.len());
    let mut prev: &[u8] = &[];
    for v in values {
        let shared = prev
            .iter()
            .zip(v.iter())
            .take_while(|(a, b)| a == b)
            .count();
        prefixes.push(shared as i64);
        prev = v;
    }
    out.put_u8(FRONT);
    ints::encode(&prefixes, 8, false, out);
    if fixed.is_none() {
        let rests: Vec<i64> = values
            .iter()
            .zip(&prefixes)
            .map(|(v, &p)| v.len() as i64 - p)
            .collect();
        ints::encode(&rests, 8, false, out);
    }
    for (v, &p) in values.iter().zip(&prefixes) {
        out.extend_from_slice(&v[p as usize..]);
    }
}

/// Appends `values` (each `fixed` bytes long when given) in the smallest encoding.
pub fn encode(values: &[&[u8]], fixed: Option<usize>, out: &mut Vec<u8>) {
    if values.is_empty() {
        return;
    }
    debug_assert!(fixed.is_none_or(|f| values.iter().all(|v| v.len() == f)));
    let mut best = Vec::new();
    plain(values, fixed, &mut best);
    let mut other = Vec::new();
    if dict(values, &mut other) && other.len() < best.len() {
        std::mem::swap(&mut best, &mut other);
    }
    other.clear();
    front(values, fixed, &mut other);
    if other.len() < best.len() {
        best = other;
    }
    out.extend_from_slice(&best);
}

/// Reads `n` lengths (or `n` times the fixed length) and checks they fit in the bytes left.
fn read_lengths(
    d: &mut Decoder<'_>,
    n: usize,
    fixed: Option<usize>,
) -> Result<Vec<usize>, DecodeError> {
    match fixed {
        Some(f) => Ok(vec![f; n]),
        None => ints::decode(d, n, 8, false)?
            .into_iter()
            .map(|l| {
                usize::try_from(l)
                    .ok()
                    .filter(|&l| l <= d.remaining())
                    .ok_or_else(|| err(format!("string length {l} overruns the column")))
            })
            .collect(),
    }
}

/// Reads `n` values written by [`encode`].
pub fn decode(d: &mut Decoder<'_>, n: usize, fixed: Option<usize>) -> Result<Strings, DecodeError> {
    let mut out = Strings::default();
    if n == 0 {
        return Ok(out);
    }
    out.ends.reserve(n);
    match d.u8()? {
        PLAIN => {
            for l in read_lengths(d, n, fixed)? {
                out.push(d.take(l)?);
            }
        }
        DICT => {
            let k = d.varint()?;
            if k == 0 || k > n as u64 {
                return Err(err(format!("dictionary of {k} strings for {n} values")));
            }
            let mut dict = Vec::with_capacity(k as usize);
            for _ in 0..k {
                let v = d.bytes()?;
                if fixed.is_some_and(|f| v.len() != f) {
                    return Err(err("dictionary string of the wrong length"));
                }
                dict.push(v);
            }
            for i in ints::decode(d, n, 8, false)? {
                let v = usize::try_from(i)
                    .ok()
                    .and_then(|i| dict.get(i))
                    .ok_or_else(|| err(format!("dictionary index {i} of {k}")))?;
                out.push(v);
            }
        }
        FRONT => {
            let prefixes = ints::decode(d, n, 8, false)?;
            let rests: Vec<i64> = match fixed {
                Some(f) => prefixes.iter().map(|&p| f as i64 - p).collect(),
                None => ints::decode(d, n, 8, false)?,
            };
            let mut prev = 0..0;
            for (&p, &r) in prefixes.iter().zip(&rests) {
                let (Ok(p), Ok(r)) = (usize::try_from(p), usize::try_from(r)) else {
                    return Err(err("negative front-coding length"));
                };
                if p > prev.len() || r > d.remaining() {
                    return Err(err("front-coded string overruns"));
                }
                let start = out.data.len();
                out.data.extend_from_within(prev.start..prev.start + p);
                out.data.extend_from_slice(d.take(r)?);
                out.ends.push(out.data.len());
                prev = start..out.data.len();
            }
        }
        t => return Err(err(format!("unknown bytes column encoding {t}"))),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn round_trip(values: &[Vec<u8>], fixed: Option<usize>) -> (u8, usize) {
        let refs: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
        let mut out = Vec::new();
        encode(&refs, fixed, &mut out);
        let mut d = Decoder::new(&out);
        let back = decode(&mut d, values.len(), fixed).unwrap();
        d.finish().unwrap();
        assert_eq!(back.len(), values.len());
        for (i, v) in values.iter().enumerate() {
            assert_eq!(back.get(i), v.as_slice());
        }
        (out.first().copied().unwrap_or(255), out.len())
    }

    #[test]
    fn repeated_sorted_and_random_strings_round_trip() {
        let levels: Vec<Vec<u8>> = (0..300)
            .map(|i| ["INFO", "WARN", "ERROR"][i % 3].as_bytes().to_vec())
            .collect();
        assert_eq!(round_trip(&levels, None).0, DICT);
        let urls: Vec<Vec<u8>> = (0..300)
            .map(|i| format!("https://example.com/items/{:06}", i * 7).into_bytes())
            .collect();
        assert_eq!(round_trip(&urls, None).0, FRONT);
        let mut rng = rand::rngs::StdRng::seed_from_u64(10);
        let random: Vec<Vec<u8>> = (0..300)
            .map(|_| (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect())
            .collect();
        assert_eq!(round_trip(&random, None).0, PLAIN);
        let fixed: Vec<Vec<u8>> = (0..300)
            .map(|i: u32| (i / 10).to_be_bytes().repeat(4))
            .collect();
        round_trip(&fixed, Some(16));
        round_trip(&[], None);
        round_trip(&[vec![]], None);
        round_trip(&[vec![], vec![], vec![0]], None);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..5000 {
            let len = rng.gen_range(0..60);
            let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let fixed = if rng.gen() {
                None
            } else {
                Some(rng.gen_range(0..20))
            };
            let _ = decode(&mut Decoder::new(&junk), rng.gen_range(0..100), fixed);
        }
    }
}
