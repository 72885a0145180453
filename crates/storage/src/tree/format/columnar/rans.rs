//! Entropy coding of byte symbols with a static table (file-format.md §3.5, "Residuals"): range
//! asymmetric numeral systems (rANS) with 12-bit probabilities, a 32-bit state and byte-wise
//! renormalization, the construction J. Duda published in 2013 (arXiv:1311.2540).
//!
//! A column of small residuals (the deltas of a slowly moving reading) holds far less information
//! than its bit-packed width: a delta that is 0 half the time and ±1 otherwise carries 1.5 bits, not
//! 2, and a general codec over the whole frame cannot see the column's own distribution (zstd keeps
//! one Huffman table per block, shared by every column). Coding each column with its own table gets
//! within a few percent of its entropy.
//!
//! Layout: the scale bits s (u8, 1..=12), the largest symbol t (u8), then the frequency of each
//! symbol 0..=t (varint, 0 = absent), which add up to 2^s; then the final state (u32
//! little-endian) followed by the renormalization bytes in decoding order, as many as decoding the
//! column's count of symbols reads. The scale grows with the column (about half its length in
//! bits): a short column's table stays a few bytes.
//!
//! Invariants: the frequencies add up to exactly 2^s and every symbol coded has frequency ≥ 1; the
//! decoder starts and must end at the state [`RANS_L`] (the encoder's initial state), so a damaged
//! stream is an error, never a panic.

use crate::encoding::{varint_len, DecodeError, Decoder, Encode};

/// Largest scale: frequencies add up to at most 2^12.
const MAX_SCALE_BITS: u32 = 12;
/// Lower bound of the normalized state interval [RANS_L, RANS_L << 8).
pub const RANS_L: u32 = 1 << 23;

/// Counts of each byte value.
pub type Histogram = [u32; 256];

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

/// The scale bits for a column of `n` symbols of which `m` are distinct.
fn scale_bits(n: usize, m: usize) -> u32 {
    let by_len = (usize::BITS - n.leading_zeros()).saturating_sub(1);
    let by_symbols = usize::BITS - m.leading_zeros() + 1;
    by_len.max(by_symbols).clamp(1, MAX_SCALE_BITS)
}

/// Frequencies of `hist` scaled to add up to 2^`bits`, every present symbol at least 1.
fn normalize(hist: &Histogram, bits: u32) -> [u32; 256] {
    let scale = 1u32 << bits;
    let total: u64 = hist.iter().map(|&c| u64::from(c)).sum();
    let mut f = [0u32; 256];
    if total == 0 {
        // An empty column: any one symbol.
        f[0] = scale;
        return f;
    }
    let mut sum = 0u32;
    let mut biggest = 0usize;
    for s in 0..256 {
        if hist[s] == 0 {
            continue;
        }
        f[s] = ((u64::from(hist[s]) * u64::from(scale) / total) as u32).max(1);
        sum += f[s];
        if hist[s] > hist[biggest] || hist[biggest] == 0 {
            biggest = s;
        }
    }
    // Give the difference to (or take it from) the most frequent symbols.
    while sum != scale {
        if sum < scale {
            f[biggest] += scale - sum;
            sum = scale;
        } else {
            let over = sum - scale;
            let s = (0..256).max_by_key(|&s| f[s]).expect("256 symbols");
            let give = over.min(f[s] - 1);
            f[s] -= give;
            sum -= give;
        }
    }
    f
}

fn distinct(hist: &Histogram) -> (usize, usize) {
    let m = hist.iter().filter(|&&c| c > 0).count();
    let top = hist.iter().rposition(|&c| c > 0).unwrap_or(0);
    (m, top)
}

/// Bytes the table and stream of a column with this histogram take, estimated from its entropy
/// under the quantized frequencies (within a few bytes of what [`encode`] writes).
pub fn estimate_len(hist: &Histogram, n: usize) -> usize {
    let (m, top) = distinct(hist);
    let bits = scale_bits(n, m);
    let f = normalize(hist, bits);
    let mut cost = 0f64;
    let mut table = 2usize;
    for s in 0..=top {
        table += varint_len(u64::from(f[s]));
        if hist[s] > 0 {
            cost += f64::from(hist[s]) * (f64::from(bits) - f64::from(f[s]).log2());
        }
    }
    table + (cost / 8.0).ceil() as usize + 4
}

/// Appends the table and the coded `symbols` (whose histogram is `hist`).
pub fn encode(symbols: &[u8], hist: &Histogram, out: &mut Vec<u8>) {
    let (m, top) = distinct(hist);
    let bits = scale_bits(symbols.len(), m);
    let f = normalize(hist, bits);
    let mut start = [0u32; 256];
    let mut cum = 0u32;
    for s in 0..256 {
        start[s] = cum;
        cum += f[s];
    }
    debug_assert_eq!(cum, 1 << bits);
    out.put_u8(bits as u8);
    out.put_u8(top as u8);
    for &freq in &f[..=top] {
        out.put_varint(u64::from(freq));
    }
    // Encode backwards; the decoder reads forwards.
    let mut rev = Vec::with_capacity(symbols.len() / 2 + 8);
    let mut x = RANS_L;
    for &s in symbols.iter().rev() {
        let freq = f[s as usize];
        debug_assert!(freq > 0, "symbol {s} missing from the histogram");
        let x_max = ((RANS_L >> bits) << 8) * freq;
        while x >= x_max {
            rev.push(x as u8);
            x >>= 8;
        }
        x = ((x / freq) << bits) + (x % freq) + start[s as usize];
    }
    out.extend_from_slice(&x.to_le_bytes());
    out.extend(rev.iter().rev());
}

/// Reads a table and stream written by [`encode`], decoding `n` symbols.
pub fn decode(d: &mut Decoder<'_>, n: usize) -> Result<Vec<u8>, DecodeError> {
    let bits = u32::from(d.u8()?);
    if !(1..=MAX_SCALE_BITS).contains(&bits) {
        return Err(err(format!("entropy table scale of {bits} bits")));
    }
    let scale = 1u64 << bits;
    let top = usize::from(d.u8()?);
    let mut cum = Vec::with_capacity(top + 2);
    let mut total = 0u64;
    for _ in 0..=top {
        cum.push(total as u32);
        total = total.saturating_add(d.varint()?);
        if total > scale {
            return Err(err("entropy table frequencies exceed the scale"));
        }
    }
    if total != scale {
        return Err(err("entropy table frequencies do not add up"));
    }
    cum.push(total as u32);
    let mut x = u64::from(d.u32()?);
    let mask = scale - 1;
    let mut out = Vec::with_capacity(n);
    let lo = u64::from(RANS_L);
    // With few symbols a linear scan finds the slot fastest; otherwise a binary search.
    for _ in 0..n {
        if !(lo..lo << 8).contains(&x) {
            return Err(err("entropy state out of range"));
        }
        let slot = (x & mask) as u32;
        let s = if top < 8 {
            let mut s = 0;
            while cum[s + 1] <= slot {
                s += 1;
            }
            s
        } else {
            cum.partition_point(|&c| c <= slot) - 1
        };
        out.push(s as u8);
        let freq = u64::from(cum[s + 1] - cum[s]);
        x = freq * (x >> bits) + u64::from(slot - cum[s]);
        while x < lo {
            x = (x << 8) | u64::from(d.u8()?);
        }
    }
    if x != lo {
        return Err(err("entropy stream does not end where it began"));
    }
    Ok(out)
}

/// The histogram of `symbols`.
pub fn histogram(symbols: impl Iterator<Item = u8>) -> Histogram {
    let mut h = [0u32; 256];
    for s in symbols {
        h[s as usize] += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn round_trip(symbols: &[u8]) -> usize {
        let h = histogram(symbols.iter().copied());
        let mut out = Vec::new();
        encode(symbols, &h, &mut out);
        let mut d = Decoder::new(&out);
        assert_eq!(decode(&mut d, symbols.len()).unwrap(), symbols);
        d.finish().unwrap();
        let est = estimate_len(&h, symbols.len());
        assert!(
            out.len() <= est + 8 && est <= out.len() + 8,
            "estimate {est} vs {}",
            out.len()
        );
        out.len()
    }

    #[test]
    fn skewed_and_uniform_columns_round_trip_near_their_entropy() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        // 1.5 bits per symbol: 0 half the time, 1 and 2 a quarter each.
        let skewed: Vec<u8> = (0..4000)
            .map(|_| match rng.gen_range(0..4) {
                0 | 1 => 0,
                2 => 1,
                _ => 2,
            })
            .collect();
        let len = round_trip(&skewed);
        assert!(len < 4000 * 3 / 2 / 8 + 40, "{len} bytes");
        // One symbol costs nothing but the table and the state.
        assert!(round_trip(&[7; 1000]) < 20);
        let uniform: Vec<u8> = (0..3000).map(|_| rng.gen()).collect();
        round_trip(&uniform);
        round_trip(&[]);
        round_trip(&[255]);
        let rare: Vec<u8> = (0..5000).map(|i| if i == 4000 { 9 } else { 3 }).collect();
        round_trip(&rare);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        let symbols: Vec<u8> = (0..500).map(|_| rng.gen_range(0..6)).collect();
        let h = histogram(symbols.iter().copied());
        let mut good = Vec::new();
        encode(&symbols, &h, &mut good);
        for i in 0..good.len() {
            for bit in [1u8, 0x10, 0x80] {
                let mut bad = good.clone();
                bad[i] ^= bit;
                let _ = decode(&mut Decoder::new(&bad), symbols.len());
            }
            let _ = decode(&mut Decoder::new(&good[..i]), symbols.len());
        }
        for _ in 0..2000 {
            let len = rng.gen_range(0..64);
            let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let _ = decode(&mut Decoder::new(&junk), rng.gen_range(0..100));
        }
    }
}
