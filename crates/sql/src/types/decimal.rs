//! Exact decimal numbers for DECIMAL(p,s) columns and decimal literals.
//!
//! Owns: [`Decimal`], a value `mantissa × 10^-scale` with a [`WideInt`] mantissa, and its
//! MySQL-compatible parsing, formatting, rescaling (rounding half away from zero, as MySQL rounds
//! DECIMAL) and ordering.
//!
//! Invariants: `scale <= MAX_SCALE` (38); the mantissa holds at most [`MAX_DIGITS`] (77)
//! significant digits, so every DECIMAL(65, s) column value and every literal of up to 77 digits is
//! exact (MariaDB: 65 digits per column, 81 while computing). Equality and ordering are numeric:
//! `1.0 == 1.00`. Formatting prints exactly `scale` fraction digits (`DECIMAL(5,2)` value 1.5 prints
//! `1.50`). Mantissas beyond `i128` ("wide" values, more than 38 digits) are stored and compared
//! exactly; arithmetic on them goes through doubles (see `engine/eval.rs`).

use std::cmp::Ordering;
use std::fmt;

use crate::types::wide_int::WideInt;

/// Largest precision (significant digits) of a DECIMAL column (MariaDB's).
pub const MAX_PRECISION: u8 = 65;
/// Largest scale of a decimal value and of a DECIMAL column (MariaDB's).
pub const MAX_SCALE: u8 = 38;
/// Most significant digits a decimal value holds.
pub const MAX_DIGITS: u32 = 77;

/// An exact decimal number: `mantissa / 10^scale`.
#[derive(Clone, Copy, Debug)]
pub struct Decimal {
    mantissa: WideInt,
    scale: u8,
}

/// The powers of ten that are exact doubles.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `10^n` for `n <= 38`.
pub fn pow10(n: u32) -> i128 {
    10i128.pow(n)
}

fn wide_pow10(n: u32) -> Option<WideInt> {
    WideInt::pow10(n)
}

/// Why a string is not a decimal number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalParseError {
    /// No digits at all.
    Invalid,
    /// More than 77 integer digits (or an exponent that makes it so).
    Overflow,
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        mantissa: WideInt::ZERO,
        scale: 0,
    };

    /// `mantissa / 10^scale`; `None` if `scale > MAX_SCALE`.
    pub fn new(mantissa: i128, scale: u8) -> Option<Decimal> {
        Decimal::from_wide(WideInt::from_i128(mantissa), scale)
    }
    /// `mantissa / 10^scale`; `None` if `scale > MAX_SCALE` or the mantissa has more than
    /// [`MAX_DIGITS`] digits.
    pub fn from_wide(mantissa: WideInt, scale: u8) -> Option<Decimal> {
        (scale <= MAX_SCALE && mantissa.cmp_abs(&wide_pow10(MAX_DIGITS)?) == Ordering::Less)
            .then_some(Decimal { mantissa, scale })
    }
    pub fn from_i64(v: i64) -> Decimal {
        Decimal {
            mantissa: WideInt::from_i128(v as i128),
            scale: 0,
        }
    }
    pub fn from_u64(v: u64) -> Decimal {
        Decimal {
            mantissa: WideInt::from_i128(v as i128),
            scale: 0,
        }
    }
    /// The mantissa when it fits an `i128` (at most 38 digits always do).
    pub fn small_mantissa(&self) -> Option<i128> {
        self.mantissa.to_i128()
    }
    pub fn wide_mantissa(&self) -> WideInt {
        self.mantissa
    }
    pub fn scale(&self) -> u8 {
        self.scale
    }
    pub fn is_negative(&self) -> bool {
        self.mantissa.is_negative()
    }
    pub fn is_zero(&self) -> bool {
        self.mantissa.is_zero()
    }
    /// `-self`.
    pub fn neg(&self) -> Decimal {
        Decimal {
            mantissa: self.mantissa.neg(),
            scale: self.scale,
        }
    }
    /// `|self|`.
    pub fn abs(&self) -> Decimal {
        Decimal {
            mantissa: self.mantissa.abs(),
            scale: self.scale,
        }
    }

    /// Number of decimal digits in `|mantissa|` (0 has 1 digit).
    pub fn digits(&self) -> u32 {
        self.mantissa.digits()
    }

    /// True if the value fits DECIMAL(precision, scale) once rescaled to `scale`
    /// (i.e. `|v| < 10^(precision-scale)` after rounding).
    pub fn fits(&self, precision: u8, scale: u8) -> bool {
        match (self.rescale(scale), wide_pow10(precision as u32)) {
            (Some((d, _)), Some(lim)) => d.mantissa.cmp_abs(&lim) == Ordering::Less,
            _ => false,
        }
    }

    /// Largest value of DECIMAL(precision, scale), e.g. 999.99 for (5,2).
    pub fn max_for(precision: u8, scale: u8) -> Decimal {
        let m = wide_pow10(precision.min(MAX_DIGITS as u8) as u32)
            .and_then(|p| p.checked_sub(&WideInt::from_i128(1)))
            .unwrap_or(WideInt::ZERO);
        Decimal { mantissa: m, scale }
    }

    /// The same number with `scale` fraction digits, rounding half away from zero.
    /// Returns `(value, inexact)`; `None` if the mantissa would overflow or `scale > MAX_SCALE`.
    pub fn rescale(&self, scale: u8) -> Option<(Decimal, bool)> {
        if scale > MAX_SCALE {
            return None;
        }
        match scale.cmp(&self.scale) {
            Ordering::Equal => Some((*self, false)),
            Ordering::Greater => {
                let m = self
                    .mantissa
                    .checked_mul(&wide_pow10((scale - self.scale) as u32)?)?;
                Some((Decimal::from_wide(m, scale)?, false))
            }
            Ordering::Less => Some(self.rescale_down_by((self.scale - scale) as u32, scale)),
        }
    }

    /// Drops `n` fraction digits (rounding half away from zero) and labels the result `scale`.
    fn rescale_down_by(&self, n: u32, scale: u8) -> (Decimal, bool) {
        let (q, inexact, half) = self.mantissa.div_pow10(n);
        let m = if half {
            // |q| + 1 never overflows: q has fewer digits than the mantissa
            let one = WideInt::from_i128(self.mantissa.signum() as i128);
            q.checked_add(&one).unwrap_or(q)
        } else {
            q
        };
        (Decimal { mantissa: m, scale }, inexact)
    }

    /// The number cut (toward zero) to at most `scale` fraction digits.
    pub fn truncate_to(&self, scale: u8) -> Decimal {
        if scale >= self.scale {
            return *self;
        }
        let (q, _, _) = self.mantissa.div_pow10((self.scale - scale) as u32);
        Decimal { mantissa: q, scale }
    }

    /// Nearest integer, rounding half away from zero (MySQL's DECIMAL → integer rule), saturated
    /// to the `i128` range.
    pub fn round_to_i128(&self) -> i128 {
        let (d, _) = self.rescale_down_by(self.scale as u32, 0);
        d.mantissa.to_i128().unwrap_or(if d.is_negative() {
            i128::MIN
        } else {
            i128::MAX
        })
    }

    pub fn to_f64(&self) -> f64 {
        // Clinger's fast path: a mantissa below 2^53 and a power of ten up to 10^22 are both
        // exact doubles, so one division is the correctly rounded quotient (what MariaDB's
        // strtod gives). Everything else goes through the decimal string, which Rust's parser
        // rounds correctly.
        if let Some(m) = self.mantissa.to_i128() {
            if m.unsigned_abs() < 1u128 << 53 && self.scale <= 22 {
                return m as f64 / EXACT_POW10[self.scale as usize];
            }
        }
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The decimal with the fewest digits that reads back as `v` (`None` for NaN / infinities or
    /// magnitudes beyond 77 digits).
    pub fn from_f64(v: f64) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        let s = format!("{v:e}");
        let (d, used) = Decimal::parse_prefix(&s).ok()?;
        (used == s.len()).then_some(d)
    }

    /// Parses the whole string (surrounding ASCII whitespace allowed):
    /// `[+-]digits[.digits][(e|E)[+-]digits]`; digits beyond 77 after the point are rounded away.
    pub fn parse(s: &str) -> Result<Decimal, DecimalParseError> {
        let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
        let (d, used) = Decimal::parse_prefix(t)?;
        if used != t.len() {
            return Err(DecimalParseError::Invalid);
        }
        Ok(d)
    }

    /// Parses the longest numeric prefix of `s` (after leading ASCII whitespace); returns the value and
    /// the number of bytes consumed (including the whitespace).
    pub fn parse_prefix(s: &str) -> Result<(Decimal, usize), DecimalParseError> {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let neg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        // The significant digits (leading zeros dropped), how many of them follow the point, and
        // the first digit dropped once MAX_DIGITS are taken.
        let mut buf = [0u8; MAX_DIGITS as usize];
        let mut taken = 0usize;
        let mut scale: i32 = 0;
        let mut any_digit = false;
        let mut round_digit: Option<u8> = None;
        let mut seen_point = false;
        while i < b.len() {
            let c = b[i];
            if c == b'.' && !seen_point {
                seen_point = true;
                i += 1;
                continue;
            }
            if !c.is_ascii_digit() {
                break;
            }
            any_digit = true;
            let d = c - b'0';
            if round_digit.is_some() || taken >= MAX_DIGITS as usize {
                if !seen_point {
                    return Err(DecimalParseError::Overflow);
                }
                round_digit.get_or_insert(d);
            } else {
                if !(taken == 0 && d == 0) {
                    buf[taken] = d;
                    taken += 1;
                }
                if seen_point {
                    scale += 1;
                }
            }
            i += 1;
        }
        if !any_digit {
            return Err(DecimalParseError::Invalid);
        }
        let digits = &buf[..taken];
        let mut mant = if digits.len() <= 38 {
            // 38 digits fit an i128: no wide arithmetic per digit.
            let m = digits.iter().fold(0i128, |m, &d| m * 10 + d as i128);
            WideInt::from_i128(m)
        } else {
            let mut mant = WideInt::ZERO;
            let ten = WideInt::from_i128(10);
            for d in digits {
                mant = mant
                    .checked_mul(&ten)
                    .and_then(|m| m.checked_add(&WideInt::from_i128(*d as i128)))
                    .ok_or(DecimalParseError::Overflow)?;
            }
            mant
        };
        if round_digit.is_some_and(|d| d >= 5) {
            mant = mant
                .checked_add(&WideInt::from_i128(1))
                .ok_or(DecimalParseError::Overflow)?;
        }
        // Optional exponent: only consumed if it has at least one digit.
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            let eneg = match b.get(j) {
                Some(b'-') => {
                    j += 1;
                    true
                }
                Some(b'+') => {
                    j += 1;
                    false
                }
                _ => false,
            };
            let start = j;
            let mut exp: i32 = 0;
            while j < b.len() && b[j].is_ascii_digit() {
                exp = exp.saturating_mul(10).saturating_add((b[j] - b'0') as i32);
                j += 1;
            }
            if j > start {
                i = j;
                scale = if eneg {
                    scale.saturating_add(exp)
                } else {
                    scale.saturating_sub(exp)
                };
            }
        }
        if neg {
            mant = mant.neg();
        }
        let d = if scale < 0 {
            if mant.is_zero() {
                Decimal::ZERO
            } else {
                let up = (-scale) as u32;
                let m = wide_pow10(up)
                    .and_then(|p| mant.checked_mul(&p))
                    .ok_or(DecimalParseError::Overflow)?;
                Decimal::from_wide(m, 0).ok_or(DecimalParseError::Overflow)?
            }
        } else if scale > MAX_SCALE as i32 {
            // Shift right, rounding; very small numbers become 0.
            let drop = (scale - MAX_SCALE as i32) as u32;
            if drop > MAX_DIGITS {
                Decimal {
                    mantissa: WideInt::ZERO,
                    scale: MAX_SCALE,
                }
            } else {
                let tmp = Decimal {
                    mantissa: mant,
                    scale: 0,
                };
                tmp.rescale_down_by(drop, MAX_SCALE).0
            }
        } else {
            Decimal {
                mantissa: mant,
                scale: scale as u8,
            }
        };
        Ok((d, i))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self, other);
        if a.scale == b.scale {
            return a.mantissa.cmp(&b.mantissa);
        }
        // Bring the smaller scale up; an overflow means that side's magnitude exceeds the other's,
        // so its sign decides.
        if a.scale < b.scale {
            match wide_pow10((b.scale - a.scale) as u32).and_then(|p| a.mantissa.checked_mul(&p)) {
                Some(m) => m.cmp(&b.mantissa),
                None => a.mantissa.signum().cmp(&0),
            }
        } else {
            b.cmp(a).reverse()
        }
    }
}
impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Decimal {}

impl fmt::Display for Decimal {
    /// MySQL text form: `-`, integer digits (at least one), and exactly `scale` fraction digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa.abs().to_string();
        let scale = self.scale as usize;
        let mut s = String::with_capacity(digits.len() + 3);
        if self.mantissa.is_negative() {
            s.push('-');
        }
        if scale == 0 {
            s.push_str(&digits);
        } else if digits.len() > scale {
            s.push_str(&digits[..digits.len() - scale]);
            s.push('.');
            s.push_str(&digits[digits.len() - scale..]);
        } else {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', scale - digits.len()));
            s.push_str(&digits);
        }
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    /// The fast path of `to_f64` gives what parsing the decimal's text gives (correct rounding),
    /// around its limits: 2^53, 10^22, negative values and many digits.
    #[test]
    fn to_f64_agrees_with_parsing_the_text() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut texts: Vec<String> = vec![
            "9007199254740991".into(),
            "9007199254740993".into(),
            "-9007199254740991e-22".into(),
            "1e-22".into(),
            "1e-23".into(),
            "0.1".into(),
            "-0.0".into(),
            "123456789012345678901234567890.5".into(),
        ];
        for _ in 0..20_000 {
            let digits = 1 + next() % 20;
            let m = next() % 10u64.pow(digits as u32 % 20);
            let scale = next() % 26;
            let sign = if next() % 2 == 0 { "" } else { "-" };
            texts.push(format!("{sign}{m}e-{scale}"));
        }
        for t in texts {
            let v = d(&t);
            let want: f64 = v.to_string().parse().unwrap();
            assert_eq!(v.to_f64().to_bits(), want.to_bits(), "{t}");
        }
    }

    #[test]
    fn parse_and_format() {
        assert_eq!(d("12.50").to_string(), "12.50");
        assert_eq!(d("-0.05").to_string(), "-0.05");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("5.").to_string(), "5");
        assert_eq!(d("  +7 ").to_string(), "7");
        assert_eq!(d("1.5e3").to_string(), "1500");
        assert_eq!(d("15e-3").to_string(), "0.015");
        assert!(Decimal::parse("1e").is_err()); // a bare `e` is not an exponent...
        assert_eq!(Decimal::parse_prefix("1e").unwrap().1, 1); // ...and is not consumed
        assert!(Decimal::parse("abc").is_err());
        assert!(Decimal::parse("-").is_err());
        assert!(Decimal::parse("1.2.3").is_err());
        assert_eq!(
            Decimal::parse(&"9".repeat(78)),
            Err(DecimalParseError::Overflow)
        );
        let wide = format!("-{}.{}", "9".repeat(61), "9".repeat(4));
        assert_eq!(d(&wide).to_string(), wide);
        assert_eq!(d(&wide).small_mantissa(), None);
        assert_eq!(d("007.50").to_string(), "7.50");
        assert_eq!(d("0.000").to_string(), "0.000");
        assert_eq!(Decimal::parse_prefix("12abc").unwrap(), (d("12"), 2));
    }

    #[test]
    fn rescale_rounds_half_away_from_zero() {
        assert_eq!(d("2.345").rescale(2).unwrap(), (d("2.35"), true));
        assert_eq!(d("-2.345").rescale(2).unwrap(), (d("-2.35"), true));
        assert_eq!(d("2.344").rescale(2).unwrap().0.to_string(), "2.34");
        assert_eq!(d("2.5").rescale(4).unwrap().0.to_string(), "2.5000");
        assert_eq!(d("2.5").round_to_i128(), 3);
        assert_eq!(d("-2.5").round_to_i128(), -3);
        assert!(d("999.995").fits(6, 2) && !d("999.995").fits(5, 2));
        assert_eq!(Decimal::max_for(5, 2).to_string(), "999.99");
        let w = d(&format!("{}.11111", "9".repeat(61)));
        assert_eq!(
            w.rescale(4).unwrap(),
            (d(&format!("{}.1111", "9".repeat(61))), true)
        );
        assert!(w.fits(65, 4) && !w.fits(64, 4));
        assert_eq!(
            Decimal::max_for(65, 4).to_string(),
            format!("{}.9999", "9".repeat(61))
        );
        assert_eq!(w.round_to_i128(), i128::MAX);
    }

    #[test]
    fn numeric_order_and_equality() {
        assert_eq!(d("1.0"), d("1.00"));
        assert!(d("-1.5") < d("-1.25"));
        assert!(d("0.001") > d("0"));
        let big = Decimal::new(i128::MAX / 10, 0).unwrap();
        assert!(big > d("1.00000000000000000000000000000000000001"));
        assert!(big.neg() < big && big.neg().is_negative());
        let w = d(&"9".repeat(65));
        assert!(w > big && w.neg() < big.neg());
        assert_eq!(w, d(&format!("{}.000", "9".repeat(65))));
    }

    #[test]
    fn floats() {
        assert_eq!(Decimal::from_f64(0.1).unwrap().to_string(), "0.1");
        assert_eq!(Decimal::from_f64(-1234.5).unwrap().to_string(), "-1234.5");
        assert_eq!(d("0.1").to_f64(), 0.1);
        assert!(Decimal::from_f64(f64::NAN).is_none());
    }
}
