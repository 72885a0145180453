//! The bytes of a DECIMAL(p,s) value in keys and rows (layouts in docs/sql-encoding.md).
//!
//! Owns: [`decimal_width`], [`decimal_mantissa`], and the key (big-endian, sign bit flipped, so
//! memcmp order is numeric order) and row (little-endian two's complement) forms of the mantissa
//! at the column's scale.
//!
//! Widths: 1 (p <= 2), 2 (<= 4), 4 (<= 9), 8 (<= 18), 16 (<= 38) bytes — unchanged since the first
//! format — and 32 bytes for p = 39..=65 (MariaDB's wider DECIMALs, added later; no column with
//! such a precision existed before, so older data never has this width).
//!
//! Invariants: encoding refuses a value that is inexact at the scale or exceeds the precision;
//! decoding refuses (as corrupt) a mantissa of more than `p` digits.

use crate::types::decimal::Decimal;
use crate::types::wide_int::WideInt;

/// Width in bytes of DECIMAL(p, _) keys and rows.
pub fn decimal_width(precision: u8) -> usize {
    match precision {
        0..=2 => 1,
        3..=4 => 2,
        5..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => 32,
    }
}

/// The mantissa of `d` at `scale` if it is exact and fits DECIMAL(precision, scale).
pub fn decimal_mantissa(d: Decimal, precision: u8, scale: u8) -> Option<WideInt> {
    let (r, inexact) = d.rescale(scale)?;
    (!inexact && r.fits(precision, scale)).then_some(r.wide_mantissa())
}

/// True if `m` has at most `precision` digits.
pub fn within_precision(m: &WideInt, precision: u8) -> bool {
    WideInt::pow10(precision as u32).is_some_and(|lim| m.cmp_abs(&lim).is_lt())
}

/// `m` as `width` bytes of little-endian two's complement (`None` if it does not fit).
pub fn row_bytes(m: &WideInt, width: usize) -> Option<Vec<u8>> {
    m.to_le_bytes(width)
}

/// Reads [`row_bytes`] back.
pub fn from_row_bytes(b: &[u8]) -> WideInt {
    WideInt::from_le_bytes(b)
}

/// `m` as `width` bytes big-endian with the sign bit flipped: unsigned byte order is numeric order.
pub fn key_bytes(m: &WideInt, width: usize) -> Option<Vec<u8>> {
    let mut b = m.to_le_bytes(width)?;
    b[width - 1] ^= 0x80;
    b.reverse();
    Some(b)
}

/// Reads [`key_bytes`] back.
pub fn from_key_bytes(b: &[u8]) -> WideInt {
    let mut le: Vec<u8> = b.iter().rev().copied().collect();
    if let Some(top) = le.last_mut() {
        *top ^= 0x80;
    }
    WideInt::from_le_bytes(&le)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn widths_and_fit() {
        assert_eq!(decimal_width(38), 16);
        assert_eq!(decimal_width(39), 32);
        assert_eq!(decimal_width(65), 32);
        assert!(decimal_mantissa(dec("1.25"), 5, 1).is_none()); // inexact
        assert!(decimal_mantissa(dec("1000"), 5, 2).is_none()); // too big
        let big = format!("-{}.9999", "9".repeat(61));
        let m = decimal_mantissa(dec(&big), 65, 4).unwrap();
        assert!(within_precision(&m, 65) && !within_precision(&m, 64));
    }

    #[test]
    fn key_bytes_keep_order_and_round_trip() {
        let vals = [
            format!("-{}", "9".repeat(65)),
            "-1".to_string(),
            "0".to_string(),
            "1".to_string(),
            "9".repeat(39),
            "9".repeat(65),
        ];
        let keys: Vec<Vec<u8>> = vals
            .iter()
            .map(|v| {
                let m = dec(v).wide_mantissa();
                let k = key_bytes(&m, 32).unwrap();
                assert_eq!(from_key_bytes(&k), m);
                assert_eq!(from_row_bytes(&row_bytes(&m, 32).unwrap()), m);
                k
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
    }
}
