//! Bit packing (file-format.md §3.5, "Residuals"): `n` unsigned integers of `width` bits each
//! (0..=64), least significant bit first, in `ceil(n * width / 8)` bytes.
//!
//! Invariants: [`packed_len`] is exactly what [`pack`] appends; [`unpack`] reads exactly that many
//! bytes, never out of bounds, and refuses padding bits that are not zero (the encoder writes zeros,
//! so any other value is damage and a decoder accepting it would read two byte strings as one value).

use crate::encoding::DecodeError;

/// Bytes that `n` values of `width` bits take.
pub fn packed_len(n: usize, width: u32) -> usize {
    (n as u128 * u128::from(width)).div_ceil(8) as usize
}

/// Bits needed for `v` (0 for 0).
pub fn width_of(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Appends `values`, each below `2^width`, packed at `width` bits.
pub fn pack(values: &[u64], width: u32, out: &mut Vec<u8>) {
    debug_assert!(width <= 64);
    if width == 0 {
        return;
    }
    out.reserve(packed_len(values.len(), width));
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    for &v in values {
        debug_assert!(
            width == 64 || v >> width == 0,
            "{v} wider than {width} bits"
        );
        acc |= u128::from(v) << bits;
        bits += width;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    if bits > 0 {
        out.push(acc as u8);
    }
}

/// Reads `n` values of `width` bits from the start of `bytes`; returns them and the bytes consumed.
pub fn unpack(bytes: &[u8], n: usize, width: u32) -> Result<(Vec<u64>, usize), DecodeError> {
    if width > 64 {
        return Err(DecodeError(format!("bit width {width} above 64")));
    }
    let len = packed_len(n, width);
    let Some(src) = bytes.get(..len) else {
        return Err(DecodeError(format!(
            "{n} values of {width} bits need {len} bytes, {} left",
            bytes.len()
        )));
    };
    if width == 0 {
        return Ok((vec![0; n], 0));
    }
    let mut out = Vec::with_capacity(n);
    let mask: u64 = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    let mut next = 0usize;
    for _ in 0..n {
        while bits < width {
            acc |= u128::from(src[next]) << bits;
            next += 1;
            bits += 8;
        }
        out.push(acc as u64 & mask);
        acc >>= width;
        bits -= width;
    }
    if acc != 0 {
        return Err(DecodeError("bit-packed padding is not zero".into()));
    }
    Ok((out, len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn every_width_round_trips_and_short_or_padded_input_is_refused() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for width in 0..=64u32 {
            for n in [0usize, 1, 2, 7, 8, 9, 63, 200] {
                let values: Vec<u64> = (0..n)
                    .map(|_| {
                        let v: u64 = rng.gen();
                        if width == 64 {
                            v
                        } else {
                            v & ((1u64 << width) - 1)
                        }
                    })
                    .collect();
                let mut out = vec![0xAA];
                pack(&values, width, &mut out);
                assert_eq!(out.len(), 1 + packed_len(n, width));
                let (back, used) = unpack(&out[1..], n, width).unwrap();
                assert_eq!(back, values, "width {width} n {n}");
                assert_eq!(used, packed_len(n, width));
                if used > 0 {
                    assert!(unpack(&out[1..used], n, width).is_err());
                }
                if !(n as u64 * u64::from(width)).is_multiple_of(8) {
                    let mut bad = out.clone();
                    *bad.last_mut().unwrap() |= 0x80;
                    assert!(unpack(&bad[1..], n, width).is_err());
                }
            }
        }
        assert_eq!(width_of(0), 0);
        assert_eq!(width_of(1), 1);
        assert_eq!(width_of(u64::MAX), 64);
        assert!(unpack(&[0; 8], 1, 65).is_err());
    }
}
