//! Floating-point columns (file-format.md §3.5, "Float column"): the IEEE bits of one FLOAT64 or
//! FLOAT32 field in a frame, in whichever of these encodings is smallest:
//!
//! | tag | encoding |
//! |---|---|
//! | 0 | plain: the bits, little-endian, 8 or 4 bytes each |
//! | 1 | decimal: an exponent e; the values that are `i / 10^e` exactly for an integer `i` (|i| < 2^53) are stored as those integers (an integer column); the others are exceptions, stored by position with their bits |
//! | 2 | xor: each value's bits XOR the previous value's (the first XOR 0), shifted right by their common trailing zero bits, as an integer column |
//!
//! Readings printed with a few decimals (20.37, 1013.25) are doubles that no general codec sees as
//! small numbers; scaled by 10^e they become integers whose deltas take a few bits (the idea of ALP,
//! Afroozeh et al., SIGMOD 2024). A value that is not a short decimal (a NaN payload, an infinity,
//! -0.0, a subnormal, 0.1 + 0.2) is an exception and keeps its exact bits.
//!
//! Invariant: [`decode`] returns exactly the bits [`encode`] was given. The decimal encoding's
//! integer of value v is verified at encode time: `(i as f64) / 10^e` (for FLOAT32 then rounded to
//! f32) has exactly v's bits, and the decoder computes the same IEEE expression.

use super::ints;
use crate::encoding::{DecodeError, Decoder, Encode};

const PLAIN: u8 = 0;
const DECIMAL: u8 = 1;
const XOR: u8 = 2;

/// Largest decimal exponent tried (10^18 and below are exact doubles).
const MAX_EXP: u8 = 18;

/// 2^53: integers below it in magnitude are exact doubles.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn pow10(e: u8) -> f64 {
    10f64.powi(i32::from(e))
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

/// The value with `bits` (of a field of `width` bytes, 8 or 4) as an f64.
fn value(bits: u64, width: usize) -> f64 {
    if width == 8 {
        f64::from_bits(bits)
    } else {
        f64::from(f32::from_bits(bits as u32))
    }
}

/// What the decimal encoding gives back for integer `i` at exponent `e`, as bits of `width` bytes.
fn from_decimal(i: i64, e: u8, width: usize) -> u64 {
    let v = i as f64 / pow10(e);
    if width == 8 {
        v.to_bits()
    } else {
        u64::from((v as f32).to_bits())
    }
}

/// `bits` as `i / 10^e`, if exact.
fn to_decimal(bits: u64, e: u8, width: usize) -> Option<i64> {
    let v = value(bits, width);
    let s = (v * pow10(e)).round();
    if s.is_nan() || s.abs() >= EXACT {
        return None;
    }
    let i = s as i64;
    (from_decimal(i, e, width) == bits).then_some(i)
}

/// The smallest exponent at which `bits` is an exact decimal.
fn min_exponent(bits: u64, width: usize) -> Option<u8> {
    let v = value(bits, width);
    if !v.is_finite() {
        return None;
    }
    (0..=MAX_EXP).find(|&e| to_decimal(bits, e, width).is_some())
}

/// Values a column's sample holds (evenly spaced) when deciding whether it is decimal at all.
const SAMPLE: usize = 32;

/// The exponent that makes at least 9 in 10 values exact decimals, if any does. A column whose
/// evenly spaced sample is mostly not decimal (random doubles) is given up on without trying
/// every exponent on every value.
fn column_exponent(values: &[u64], width: usize) -> Option<u8> {
    if values.len() > 4 * SAMPLE {
        let step = values.len() / SAMPLE;
        let decimal = (0..SAMPLE)
            .filter(|&i| min_exponent(values[i * step], width).is_some())
            .count();
        if decimal * 10 < SAMPLE * 8 {
            return None;
        }
    }
    let mut count = [0usize; MAX_EXP as usize + 1];
    for &b in values {
        if let Some(e) = min_exponent(b, width) {
            count[e as usize] += 1;
        }
    }
    let mut covered = 0;
    for e in 0..=MAX_EXP {
        covered += count[e as usize];
        if covered * 10 >= values.len() * 9 {
            return Some(e);
        }
    }
    None
}

fn encode_decimal(values: &[u64], width: usize, e: u8, out: &mut Vec<u8>) {
    let mut ints = Vec::with_capacity(values.len());
    let mut exceptions = Vec::new();
    let mut prev = 0i64;
    for (pos, &b) in values.iter().enumerate() {
        match to_decimal(b, e, width) {
            Some(i) => {
                ints.push(i);
                prev = i;
            }
            None => {
                // The previous integer keeps the column's differences small.
                ints.push(prev);
                exceptions.push((pos, b));
            }
        }
    }
    out.put_u8(DECIMAL);
    out.put_u8(e);
    out.put_varint(exceptions.len() as u64);
    let mut last = 0usize;
    for &(pos, b) in &exceptions {
        out.put_varint((pos - last) as u64);
        last = pos;
        out.extend_from_slice(&b.to_le_bytes()[..width]);
    }
    ints::encode(&ints, 8, true, out);
}

fn encode_xor(values: &[u64], out: &mut Vec<u8>) {
    let mut prev = 0u64;
    let xors: Vec<u64> = values
        .iter()
        .map(|&b| {
            let x = b ^ prev;
            prev = b;
            x
        })
        .collect();
    let shift = xors
        .iter()
        .filter(|&&x| x != 0)
        .map(|x| x.trailing_zeros())
        .min()
        .unwrap_or(0);
    out.put_u8(XOR);
    out.put_u8(shift as u8);
    let shifted: Vec<i64> = xors.iter().map(|&x| (x >> shift) as i64).collect();
    ints::encode(&shifted, 8, false, out);
}

/// Appends the bits of `values` (a float field of `width` bytes, 8 or 4) in the smallest encoding.
pub fn encode(values: &[u64], width: usize, out: &mut Vec<u8>) {
    if values.is_empty() {
        return;
    }
    let plain_len = 1 + values.len() * width;
    let mut best: Option<Vec<u8>> = None;
    if let Some(e) = column_exponent(values, width) {
        let mut buf = Vec::new();
        encode_decimal(values, width, e, &mut buf);
        best = Some(buf);
    }
    let mut xor = Vec::new();
    encode_xor(values, &mut xor);
    if best.as_ref().is_none_or(|b| xor.len() < b.len()) {
        best = Some(xor);
    }
    match best {
        Some(b) if b.len() < plain_len => out.extend_from_slice(&b),
        _ => {
            out.put_u8(PLAIN);
            for &b in values {
                out.extend_from_slice(&b.to_le_bytes()[..width]);
            }
        }
    }
}

/// Reads `n` values of a float field of `width` bytes written by [`encode`].
pub fn decode(d: &mut Decoder<'_>, n: usize, width: usize) -> Result<Vec<u64>, DecodeError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if width != 8 && width != 4 {
        return Err(err(format!("float field of {width} bytes")));
    }
    let read_bits = |d: &mut Decoder<'_>| -> Result<u64, DecodeError> {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(d.take(width)?);
        Ok(u64::from_le_bytes(b))
    };
    match d.u8()? {
        PLAIN => {
            if n.checked_mul(width).is_none_or(|l| l > d.remaining()) {
                return Err(err(format!("{n} plain floats overrun the column")));
            }
            (0..n).map(|_| read_bits(d)).collect()
        }
        DECIMAL => {
            let e = d.u8()?;
            if e > MAX_EXP {
                return Err(err(format!("decimal exponent {e}")));
            }
            let x = d.varint()?;
            if x > n as u64 {
                return Err(err(format!("{x} exceptions among {n} values")));
            }
            let mut exceptions = Vec::with_capacity(x as usize);
            let mut pos = 0u64;
            for i in 0..x {
                let gap = d.varint()?;
                pos = pos.saturating_add(gap);
                if (i > 0 && gap == 0) || pos >= n as u64 {
                    return Err(err("exception positions out of order"));
                }
                exceptions.push((pos as usize, read_bits(d)?));
            }
            let ints = ints::decode(d, n, 8, true)?;
            let mut out: Vec<u64> = ints.iter().map(|&i| from_decimal(i, e, width)).collect();
            for (pos, b) in exceptions {
                out[pos] = b;
            }
            Ok(out)
        }
        XOR => {
            let shift = d.u8()?;
            if shift > 63 {
                return Err(err(format!("xor shift {shift}")));
            }
            let mut prev = 0u64;
            let out = ints::decode(d, n, 8, false)?
                .into_iter()
                .map(|x| {
                    prev ^= (x as u64) << shift;
                    prev
                })
                .collect();
            Ok(out)
        }
        t => Err(err(format!("unknown float column encoding {t}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn round_trip(values: &[u64], width: usize) -> (u8, usize) {
        let mut out = Vec::new();
        encode(values, width, &mut out);
        let mut d = Decoder::new(&out);
        assert_eq!(decode(&mut d, values.len(), width).unwrap(), values);
        d.finish().unwrap();
        (out.first().copied().unwrap_or(255), out.len())
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn short_decimals_scale_to_integers_and_odd_values_keep_their_bits() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let mut x = 1013.25f64;
        let walk: Vec<f64> = (0..400)
            .map(|_| {
                x += (rng.gen::<f64>() - 0.5) * 0.03;
                format!("{x:.2}").parse().unwrap()
            })
            .collect();
        let (tag, len) = round_trip(&bits(&walk), 8);
        assert_eq!(tag, DECIMAL);
        assert!(len < 400 / 3, "{len} bytes");
        let mut odd = walk.clone();
        for (i, v) in [
            f64::NAN,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE / 3.0,
            0.1 + 0.2,
            f64::MAX,
            f64::from_bits(0x7ff8_dead_beef_0001),
        ]
        .into_iter()
        .enumerate()
        {
            odd[i * 40 + 3] = v;
        }
        assert_eq!(round_trip(&bits(&odd), 8).0, DECIMAL);
        let random: Vec<u64> = (0..300).map(|_| rng.gen()).collect();
        let (tag, len) = round_trip(&random, 8);
        assert_eq!(tag, PLAIN);
        assert_eq!(len, 1 + 300 * 8);
        let noisy: Vec<f64> = (0..300).map(|i| 100.0 + (i as f64).sin()).collect();
        round_trip(&bits(&noisy), 8);
        let f32s: Vec<u64> = walk
            .iter()
            .map(|&v| u64::from((v as f32).to_bits()))
            .collect();
        assert_eq!(round_trip(&f32s, 4).0, DECIMAL);
        let weird32: Vec<u64> = [f32::NAN, -0.0, f32::INFINITY, 1e-45, 3.4e38, 0.1]
            .iter()
            .map(|v| u64::from(v.to_bits()))
            .collect();
        round_trip(&weird32, 4);
        round_trip(&[], 8);
        round_trip(&bits(&[-0.0]), 8);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for _ in 0..5000 {
            let len = rng.gen_range(0..40);
            let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let width = if rng.gen() { 8 } else { 4 };
            let _ = decode(&mut Decoder::new(&junk), rng.gen_range(0..200), width);
        }
    }
}
