//! A signed integer wide enough for the mantissa of every MariaDB decimal: [`WideInt`].
//!
//! Owns: sign-magnitude integers with a 256-bit magnitude (four little-endian `u64` limbs: every
//! integer of up to 77 decimal digits; a DECIMAL column has at most 65), and the few operations decimals need:
//! checked add / sub / mul, division by a power of ten with its remainder's rounding facts,
//! comparison, decimal text, and fixed-width two's-complement bytes for the codecs.
//!
//! Invariants: zero is never negative (so derived equality is numeric equality); every operation
//! that could exceed the magnitude returns `None` instead of wrapping.

use std::cmp::Ordering;
use std::fmt;

const LIMBS: usize = 4;
/// 10^19, the largest power of ten in a `u64`.
const TEN19: u64 = 10_000_000_000_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct WideInt {
    neg: bool,
    mag: [u64; LIMBS],
}

fn mag_cmp(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> Ordering {
    for i in (0..LIMBS).rev() {
        match a[i].cmp(&b[i]) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    Ordering::Equal
}

fn mag_add(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> Option<[u64; LIMBS]> {
    let mut out = [0u64; LIMBS];
    let mut carry = 0u128;
    for i in 0..LIMBS {
        let s = a[i] as u128 + b[i] as u128 + carry;
        out[i] = s as u64;
        carry = s >> 64;
    }
    (carry == 0).then_some(out)
}

/// `a - b` for `a >= b`.
fn mag_sub(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> [u64; LIMBS] {
    let mut out = [0u64; LIMBS];
    let mut borrow = false;
    for i in 0..LIMBS {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        out[i] = d;
        borrow = b1 || b2;
    }
    out
}

fn mag_mul(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> Option<[u64; LIMBS]> {
    let mut wide = [0u64; 2 * LIMBS];
    for i in 0..LIMBS {
        if a[i] == 0 {
            continue;
        }
        let mut carry = 0u128;
        for j in 0..LIMBS {
            let t = a[i] as u128 * b[j] as u128 + wide[i + j] as u128 + carry;
            wide[i + j] = t as u64;
            carry = t >> 64;
        }
        wide[i + LIMBS] = carry as u64;
    }
    if wide[LIMBS..].iter().any(|&l| l != 0) {
        return None;
    }
    let mut out = [0u64; LIMBS];
    out.copy_from_slice(&wide[..LIMBS]);
    Some(out)
}

/// `(a / d, a % d)` for a one-limb divisor.
fn mag_divrem_small(a: &[u64; LIMBS], d: u64) -> ([u64; LIMBS], u64) {
    let mut out = [0u64; LIMBS];
    let mut rem = 0u128;
    for i in (0..LIMBS).rev() {
        let cur = (rem << 64) | a[i] as u128;
        out[i] = (cur / d as u128) as u64;
        rem = cur % d as u128;
    }
    (out, rem as u64)
}

fn is_zero(a: &[u64; LIMBS]) -> bool {
    a.iter().all(|&l| l == 0)
}

impl WideInt {
    pub const ZERO: WideInt = WideInt {
        neg: false,
        mag: [0; LIMBS],
    };

    fn make(neg: bool, mag: [u64; LIMBS]) -> WideInt {
        WideInt {
            neg: neg && !is_zero(&mag),
            mag,
        }
    }

    pub fn from_i128(v: i128) -> WideInt {
        let u = v.unsigned_abs();
        let mut mag = [0u64; LIMBS];
        mag[0] = u as u64;
        mag[1] = (u >> 64) as u64;
        WideInt::make(v < 0, mag)
    }

    /// The value as an `i128`, if it fits.
    pub fn to_i128(&self) -> Option<i128> {
        if self.mag[2..].iter().any(|&l| l != 0) {
            return None;
        }
        let u = self.mag[0] as u128 | (self.mag[1] as u128) << 64;
        if self.neg {
            0i128.checked_sub_unsigned(u)
        } else {
            i128::try_from(u).ok()
        }
    }

    /// `10^n`, `None` above 10^77.
    pub fn pow10(n: u32) -> Option<WideInt> {
        let mut v = WideInt::from_i128(1);
        let mut left = n;
        while left > 0 {
            let step = left.min(19);
            v = v.checked_mul(&WideInt::from_i128(10i128.pow(step)))?;
            left -= step;
        }
        Some(v)
    }

    pub fn is_zero(&self) -> bool {
        is_zero(&self.mag)
    }
    pub fn is_negative(&self) -> bool {
        self.neg
    }
    pub fn signum(&self) -> i32 {
        if self.neg {
            -1
        } else if self.is_zero() {
            0
        } else {
            1
        }
    }
    pub fn neg(&self) -> WideInt {
        WideInt::make(!self.neg, self.mag)
    }
    pub fn abs(&self) -> WideInt {
        WideInt::make(false, self.mag)
    }
    /// Compares magnitudes only.
    pub fn cmp_abs(&self, other: &WideInt) -> Ordering {
        mag_cmp(&self.mag, &other.mag)
    }

    pub fn checked_add(&self, o: &WideInt) -> Option<WideInt> {
        if self.neg == o.neg {
            return Some(WideInt::make(self.neg, mag_add(&self.mag, &o.mag)?));
        }
        Some(match mag_cmp(&self.mag, &o.mag) {
            Ordering::Less => WideInt::make(o.neg, mag_sub(&o.mag, &self.mag)),
            _ => WideInt::make(self.neg, mag_sub(&self.mag, &o.mag)),
        })
    }
    pub fn checked_sub(&self, o: &WideInt) -> Option<WideInt> {
        self.checked_add(&o.neg())
    }
    pub fn checked_mul(&self, o: &WideInt) -> Option<WideInt> {
        Some(WideInt::make(
            self.neg != o.neg,
            mag_mul(&self.mag, &o.mag)?,
        ))
    }

    /// Truncating division by `10^n`: the quotient (rounded toward zero), whether the dropped
    /// remainder is non-zero, and whether it is at least half of `10^n` (its first digit >= 5).
    pub fn div_pow10(&self, n: u32) -> (WideInt, bool, bool) {
        if n == 0 {
            return (*self, false, false);
        }
        let mut mag = self.mag;
        let mut inexact = false;
        // drop n - 1 digits, then the last one decides the rounding
        let mut left = n - 1;
        while left > 0 {
            let step = left.min(19);
            let (q, r) = mag_divrem_small(&mag, 10u64.pow(step));
            inexact |= r != 0;
            mag = q;
            left -= step;
        }
        let (q, last) = mag_divrem_small(&mag, 10);
        inexact |= last != 0;
        (WideInt::make(self.neg, q), inexact, last >= 5)
    }

    /// Number of decimal digits of the magnitude (0 has 1).
    pub fn digits(&self) -> u32 {
        let mut n = 1;
        let mut mag = self.mag;
        loop {
            let (q, _) = mag_divrem_small(&mag, 10);
            if is_zero(&q) {
                return n;
            }
            mag = q;
            n += 1;
        }
    }

    /// The value as `bytes` little-endian two's-complement bytes, `None` if it does not fit.
    pub fn to_le_bytes(&self, bytes: usize) -> Option<Vec<u8>> {
        let mut raw: Vec<u8> = self.mag.iter().flat_map(|l| l.to_le_bytes()).collect();
        if raw[bytes..].iter().any(|&b| b != 0) || raw.get(bytes - 1).is_some_and(|&b| b >= 0x80) {
            // the magnitude needs the sign bit: only -2^(8*bytes-1) would fit, never used
            return None;
        }
        raw.truncate(bytes);
        if self.neg {
            // two's complement: invert and add one
            let mut carry = true;
            for b in raw.iter_mut() {
                let (v, c) = (!*b).overflowing_add(carry as u8);
                *b = v;
                carry = c;
            }
        }
        Some(raw)
    }

    /// Reads [`WideInt::to_le_bytes`] back (any length up to 32 bytes).
    pub fn from_le_bytes(raw: &[u8]) -> WideInt {
        let neg = raw.last().is_some_and(|&b| b >= 0x80);
        let mut bytes = raw.to_vec();
        if neg {
            let mut carry = true;
            for b in bytes.iter_mut() {
                let (v, c) = (!*b).overflowing_add(carry as u8);
                *b = v;
                carry = c;
            }
        }
        let mut mag = [0u64; LIMBS];
        for (i, b) in bytes.iter().enumerate().take(8 * LIMBS) {
            mag[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        WideInt::make(neg, mag)
    }
}

impl Ord for WideInt {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => mag_cmp(&self.mag, &o.mag),
            (true, true) => mag_cmp(&o.mag, &self.mag),
        }
    }
}
impl PartialOrd for WideInt {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for WideInt {
    /// Decimal digits of the magnitude, `-` first for a negative value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chunks = Vec::new();
        let mut mag = self.mag;
        loop {
            let (q, r) = mag_divrem_small(&mag, TEN19);
            chunks.push(r);
            if is_zero(&q) {
                break;
            }
            mag = q;
        }
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        let mut it = chunks.iter().rev();
        if let Some(first) = it.next() {
            s.push_str(&first.to_string());
        }
        for c in it {
            s.push_str(&format!("{c:019}"));
        }
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: i128) -> WideInt {
        WideInt::from_i128(v)
    }

    #[test]
    fn arithmetic_and_text() {
        let big = WideInt::pow10(65).unwrap().checked_sub(&w(1)).unwrap();
        assert_eq!(big.to_string(), "9".repeat(65));
        assert_eq!(big.neg().to_string(), format!("-{}", "9".repeat(65)));
        assert_eq!(big.digits(), 65);
        assert_eq!(w(-5).checked_add(&w(3)).unwrap(), w(-2));
        assert_eq!(w(5).checked_sub(&w(5)).unwrap(), WideInt::ZERO);
        assert!(!w(5).checked_sub(&w(5)).unwrap().is_negative());
        assert_eq!(w(-4).checked_mul(&w(25)).unwrap(), w(-100));
        assert!(WideInt::pow10(77).is_some() && WideInt::pow10(78).is_none());
        assert_eq!(w(i128::MIN).to_i128(), Some(i128::MIN));
        assert_eq!(big.to_i128(), None);
        assert!(w(-3) < w(2) && w(-3) < w(-2) && big > w(i128::MAX));
    }

    #[test]
    fn division_rounding_facts() {
        assert_eq!(w(12345).div_pow10(2), (w(123), true, false));
        assert_eq!(w(-12350).div_pow10(2), (w(-123), true, true));
        assert_eq!(w(12300).div_pow10(2), (w(123), false, false));
        let big = WideInt::pow10(70).unwrap();
        assert_eq!(big.div_pow10(40).0, WideInt::pow10(30).unwrap());
    }

    #[test]
    fn bytes_round_trip() {
        for v in [0i128, 1, -1, 255, -256, i128::MAX, i128::MIN + 1] {
            let b = w(v).to_le_bytes(32).unwrap();
            assert_eq!(WideInt::from_le_bytes(&b), w(v));
        }
        let big = WideInt::pow10(65).unwrap().neg();
        assert_eq!(WideInt::from_le_bytes(&big.to_le_bytes(32).unwrap()), big);
        assert!(WideInt::pow10(77).unwrap().to_le_bytes(32).is_none());
    }
}
