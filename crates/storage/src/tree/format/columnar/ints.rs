//! Integer columns (file-format.md §3.5, "Integer column"): the values of one integer field in a
//! frame, as 64-bit two's complement (a signed field's value sign-extended, an unsigned one's
//! zero-extended), stored in whichever of these encodings is smallest for this frame:
//!
//! | tag | encoding | suits |
//! |---|---|---|
//! | 0 | plain: each value in the field's width, little-endian | random values |
//! | 1 | frame of reference: the minimum, then residuals `v - min` | values in a narrow range |
//! | 2 | delta: the first value, the smallest delta, then residuals `delta - min delta` | counters, readings that move slowly |
//! | 3 | delta of delta: first value, first delta, smallest second difference, residuals | timestamps at a steady rate |
//! | 4 | run length: runs (value as a difference from the previous run's, length - 1) | ids repeated for many rows |
//! | 5 | dictionary: the distinct values ascending, then residuals = index of each value | a few values in any order |
//!
//! Residuals are bit-packed or entropy coded (`residuals.rs`). Differences are wrapping 64-bit
//! arithmetic, so every encoding is exact for any values; signed quantities (first value, minima,
//! run differences) are zigzag varints.
//!
//! Invariant: [`decode`] returns exactly the values [`encode`] was given; an empty column takes no
//! bytes. The decoder never panics: a count or length that the bytes cannot hold is an error.

use super::residuals::{self, Residuals};
use crate::encoding::{varint_len, DecodeError, Decoder, Encode};

const PLAIN: u8 = 0;
const FOR: u8 = 1;
const DELTA: u8 = 2;
const DOD: u8 = 3;
const RLE: u8 = 4;
const DICT: u8 = 5;

/// Dictionaries are tried only up to this many distinct values.
const DICT_MAX: usize = 256;

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn zz_len(v: i64) -> usize {
    varint_len(zigzag(v))
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

/// Residuals of a frame-of-reference transform: `v - min`, and their maximum.
fn offsets(values: &[i64]) -> (i64, Vec<u64>, u64) {
    let min = values.iter().copied().min().unwrap_or(0);
    let max = values.iter().copied().max().unwrap_or(0);
    let res = values.iter().map(|&v| v.wrapping_sub(min) as u64).collect();
    (min, res, max.wrapping_sub(min) as u64)
}

fn differences(values: &[i64]) -> Vec<i64> {
    values.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect()
}

/// A candidate encoding and its size in bytes.
struct Candidate {
    tag: u8,
    bytes: usize,
}

fn rle_runs(values: &[i64]) -> Vec<(i64, usize)> {
    let mut runs: Vec<(i64, usize)> = Vec::new();
    for &v in values {
        match runs.last_mut() {
            Some((last, len)) if *last == v => *len += 1,
            _ => runs.push((v, 1)),
        }
    }
    runs
}

fn rle_len(runs: &[(i64, usize)]) -> usize {
    let mut prev = 0i64;
    let mut bytes = varint_len(runs.len() as u64);
    for &(v, len) in runs {
        bytes += zz_len(v.wrapping_sub(prev)) + varint_len(len as u64 - 1);
        prev = v;
    }
    bytes
}

/// The distinct values, ascending, if there are at most [`DICT_MAX`] of them.
fn dictionary(values: &[i64]) -> Option<Vec<i64>> {
    let mut d = values.to_vec();
    d.sort_unstable();
    d.dedup();
    (d.len() <= DICT_MAX).then_some(d)
}

fn dict_header_len(dict: &[i64]) -> usize {
    let mut bytes = varint_len(dict.len() as u64);
    let mut prev = 0i64;
    for (i, &v) in dict.iter().enumerate() {
        bytes += if i == 0 {
            zz_len(v)
        } else {
            varint_len(v.wrapping_sub(prev) as u64)
        };
        prev = v;
    }
    bytes
}

/// Appends `values` (a field of `width` bytes, 1..=8; `signed`: its values are sign-extended) in
/// the smallest encoding.
pub fn encode(values: &[i64], width: usize, signed: bool, out: &mut Vec<u8>) {
    let _ = signed;
    let n = values.len();
    if n == 0 {
        return;
    }
    let mut best = Candidate {
        tag: PLAIN,
        bytes: 1 + n * width,
    };
    let consider = |best: &mut Candidate, tag: u8, bytes: usize| {
        if bytes < best.bytes {
            *best = Candidate { tag, bytes };
        }
    };
    let (min, off, off_max) = offsets(values);
    let for_plan = Residuals::plan(&off, off_max);
    consider(&mut best, FOR, 1 + zz_len(min) + for_plan.bytes);
    let deltas = differences(values);
    let (dmin, doff, doff_max) = offsets(&deltas);
    let delta_plan = Residuals::plan(&doff, doff_max);
    consider(
        &mut best,
        DELTA,
        1 + zz_len(values[0]) + zz_len(dmin) + delta_plan.bytes,
    );
    let dods = differences(&deltas);
    let (ddmin, ddoff, ddoff_max) = offsets(&dods);
    let dod_plan = Residuals::plan(&ddoff, ddoff_max);
    let first_delta = deltas.first().copied().unwrap_or(0);
    consider(
        &mut best,
        DOD,
        1 + zz_len(values[0]) + zz_len(first_delta) + zz_len(ddmin) + dod_plan.bytes,
    );
    let runs = rle_runs(values);
    if runs.len() * 4 < n {
        consider(&mut best, RLE, 1 + rle_len(&runs));
    }
    let dict = (off_max > 255).then(|| dictionary(values)).flatten();
    let dict_plan = dict.as_ref().map(|dict| {
        let idx: Vec<u64> = values
            .iter()
            .map(|v| {
                dict.binary_search(v)
                    .expect("every value is in the dictionary") as u64
            })
            .collect();
        let plan = Residuals::plan(&idx, dict.len() as u64 - 1);
        (idx, plan)
    });
    if let (Some(dict), Some((_, plan))) = (&dict, &dict_plan) {
        consider(&mut best, DICT, 1 + dict_header_len(dict) + plan.bytes);
    }
    let start = out.len();
    out.put_u8(best.tag);
    match best.tag {
        PLAIN => {
            for &v in values {
                out.extend_from_slice(&v.to_le_bytes()[..width]);
            }
        }
        FOR => {
            out.put_varint(zigzag(min));
            for_plan.write(&off, out);
        }
        DELTA => {
            out.put_varint(zigzag(values[0]));
            out.put_varint(zigzag(dmin));
            delta_plan.write(&doff, out);
        }
        DOD => {
            out.put_varint(zigzag(values[0]));
            out.put_varint(zigzag(first_delta));
            out.put_varint(zigzag(ddmin));
            dod_plan.write(&ddoff, out);
        }
        RLE => {
            out.put_varint(runs.len() as u64);
            let mut prev = 0i64;
            for &(v, len) in &runs {
                out.put_varint(zigzag(v.wrapping_sub(prev)));
                out.put_varint(len as u64 - 1);
                prev = v;
            }
        }
        DICT => {
            let dict = dict.as_ref().expect("chosen only with a dictionary");
            let (idx, plan) = dict_plan.as_ref().expect("chosen only with a dictionary");
            out.put_varint(dict.len() as u64);
            let mut prev = 0i64;
            for (i, &v) in dict.iter().enumerate() {
                if i == 0 {
                    out.put_varint(zigzag(v));
                } else {
                    out.put_varint(v.wrapping_sub(prev) as u64);
                }
                prev = v;
            }
            plan.write(idx, out);
        }
        _ => unreachable!("tags are the constants above"),
    }
    debug_assert!(
        best.tag == DICT || out.len() - start <= best.bytes + 8,
        "tag {} planned {} wrote {}",
        best.tag,
        best.bytes,
        out.len() - start
    );
}

fn zz(d: &mut Decoder<'_>) -> Result<i64, DecodeError> {
    Ok(unzigzag(d.varint()?))
}

/// Prefix sums starting at `first`: `first, first + r0 + base, ...` (wrapping).
fn accumulate(first: i64, base: i64, res: &[u64], out: &mut Vec<i64>) {
    let mut v = first;
    out.push(v);
    for &r in res {
        v = v.wrapping_add(base.wrapping_add(r as i64));
        out.push(v);
    }
}

/// Reads `n` values of a field of `width` bytes (sign-extended if `signed`) written by [`encode`].
pub fn decode(
    d: &mut Decoder<'_>,
    n: usize,
    width: usize,
    signed: bool,
) -> Result<Vec<i64>, DecodeError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let tag = d.u8()?;
    let mut out = Vec::with_capacity(n);
    match tag {
        PLAIN => {
            if !(1..=8).contains(&width) || n.checked_mul(width).is_none_or(|l| l > d.remaining()) {
                return Err(err(format!("{n} plain values of {width} bytes overrun")));
            }
            for _ in 0..n {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(d.take(width)?);
                let v = i64::from_le_bytes(b);
                let shift = 64 - 8 * width as u32;
                out.push(if signed { (v << shift) >> shift } else { v });
            }
        }
        FOR => {
            let min = zz(d)?;
            out.extend(
                residuals::read(d, n)?
                    .into_iter()
                    .map(|r| min.wrapping_add(r as i64)),
            );
        }
        DELTA => {
            let first = zz(d)?;
            let dmin = zz(d)?;
            accumulate(first, dmin, &residuals::read(d, n - 1)?, &mut out);
        }
        DOD => {
            let first = zz(d)?;
            let first_delta = zz(d)?;
            if n == 1 {
                out.push(first);
            } else {
                let ddmin = zz(d)?;
                let mut deltas = Vec::with_capacity(n - 1);
                accumulate(first_delta, ddmin, &residuals::read(d, n - 2)?, &mut deltas);
                accumulate(first, 0, &[], &mut out);
                let mut v = first;
                for dl in deltas {
                    v = v.wrapping_add(dl);
                    out.push(v);
                }
            }
        }
        RLE => {
            let runs = d.varint()?;
            if runs == 0 || runs > n as u64 {
                return Err(err(format!("{runs} runs for {n} values")));
            }
            let mut prev = 0i64;
            for _ in 0..runs {
                let v = prev.wrapping_add(zz(d)?);
                let len = d.varint()?.saturating_add(1);
                if len > (n - out.len()) as u64 {
                    return Err(err("runs longer than the column"));
                }
                out.extend(std::iter::repeat_n(v, len as usize));
                prev = v;
            }
        }
        DICT => {
            let k = d.varint()?;
            if k == 0 || k > DICT_MAX as u64 {
                return Err(err(format!("dictionary of {k} values")));
            }
            let mut dict = Vec::with_capacity(k as usize);
            let mut prev = 0i64;
            for i in 0..k {
                let v = if i == 0 {
                    zz(d)?
                } else {
                    prev.wrapping_add(d.varint()? as i64)
                };
                dict.push(v);
                prev = v;
            }
            for i in residuals::read(d, n)? {
                let Some(&v) = dict.get(i as usize) else {
                    return Err(err(format!("dictionary index {i} of {k}")));
                };
                out.push(v);
            }
        }
        t => return Err(err(format!("unknown integer column encoding {t}"))),
    }
    if out.len() != n {
        return Err(err(format!(
            "integer column holds {} of {n} values",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn round_trip(values: &[i64], width: usize) -> (u8, usize) {
        let signed = values.iter().any(|&v| v < 0);
        let mut out = Vec::new();
        encode(values, width, signed, &mut out);
        let mut d = Decoder::new(&out);
        assert_eq!(decode(&mut d, values.len(), width, signed).unwrap(), values);
        d.finish().unwrap();
        (out.first().copied().unwrap_or(255), out.len())
    }

    #[test]
    fn each_shape_of_column_takes_its_encoding() {
        let ts: Vec<i64> = (0..400).map(|i| 1_700_000_000 + i).collect();
        assert_eq!(round_trip(&ts, 5), (DELTA, 8));
        let accelerating: Vec<i64> = (0..400).map(|i| 1_000 + i * i).collect();
        assert_eq!(round_trip(&accelerating, 5).0, DOD);
        let ids: Vec<i64> = (0..400).map(|i| i / 100).collect();
        assert_eq!(round_trip(&ids, 4).0, RLE);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut walk = 201_345i64;
        let readings: Vec<i64> = (0..400)
            .map(|_| {
                walk += rng.gen_range(-1..=1);
                walk
            })
            .collect();
        let (tag, len) = round_trip(&readings, 8);
        assert_eq!(tag, DELTA);
        assert!(len < 400 * 16 / 10 / 8 + 30, "{len} bytes");
        let random: Vec<i64> = (0..400).map(|_| rng.gen()).collect();
        assert_eq!(round_trip(&random, 8).0, PLAIN);
        let few: Vec<i64> = (0..400)
            .map(|_| [7i64, 1 << 40, -3][rng.gen_range(0..3)])
            .collect();
        assert_eq!(round_trip(&few, 8).0, DICT);
        assert_eq!(round_trip(&[], 8), (255, 0));
        round_trip(&[i64::MIN, i64::MAX, 0, -1], 8);
        round_trip(&[5], 1);
        round_trip(&[5, 9], 1);
    }

    #[test]
    fn extreme_values_round_trip_in_every_width() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        for width in 1..=8usize {
            let lo = if width == 8 {
                i64::MIN
            } else {
                -(1i64 << (8 * width - 1))
            };
            for _ in 0..200 {
                let n = rng.gen_range(1..80);
                let values: Vec<i64> = (0..n)
                    .map(|_| match rng.gen_range(0..4) {
                        0 => lo,
                        1 => !lo,
                        2 => rng.gen_range(-3..3),
                        _ => {
                            let v: i64 = rng.gen();
                            if width == 8 {
                                v
                            } else {
                                v.rem_euclid(1 << (8 * width)) + lo
                            }
                        }
                    })
                    .collect();
                let mut out = Vec::new();
                encode(&values, width, true, &mut out);
                let back = decode(&mut Decoder::new(&out), values.len(), width, true).unwrap();
                assert_eq!(back, values);
            }
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        for _ in 0..5000 {
            let len = rng.gen_range(0..40);
            let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let _ = decode(
                &mut Decoder::new(&junk),
                rng.gen_range(0..300),
                8,
                rng.gen(),
            );
        }
    }
}
