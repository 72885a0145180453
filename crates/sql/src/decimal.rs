//! Exact decimal numbers for DECIMAL(p,s) columns and decimal literals.
//!
//! Owns: [`Decimal`], a value `mantissa × 10^-scale` with an `i128` mantissa, and its MySQL-compatible
//! parsing, formatting, rescaling (rounding half away from zero, as MySQL rounds DECIMAL) and ordering.
//!
//! Invariants: `scale <= MAX_SCALE` (38); the mantissa holds at most 38 significant digits, so the
//! largest column type is DECIMAL(38, s) (MySQL allows 65 digits: precision 39..=65 is rejected at
//! column definition with error 1426). Equality and ordering are numeric: `1.0 == 1.00`.
//! Formatting prints exactly `scale` fraction digits (`DECIMAL(5,2)` value 1.5 prints `1.50`).

use std::cmp::Ordering;
use std::fmt;

/// Largest supported precision (significant digits) of a DECIMAL column.
pub const MAX_PRECISION: u8 = 38;
/// Largest supported scale of a decimal value (MySQL's maximum for columns is 30).
pub const MAX_SCALE: u8 = 38;

/// An exact decimal number: `mantissa / 10^scale`.
#[derive(Clone, Copy, Debug)]
pub struct Decimal {
    mantissa: i128,
    scale: u8,
}

/// `10^n` for `n <= 38`.
pub fn pow10(n: u32) -> i128 {
    10i128.pow(n)
}

/// Why a string is not a decimal number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalParseError {
    /// No digits at all.
    Invalid,
    /// More than 38 integer digits (or an exponent that makes it so).
    Overflow,
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        mantissa: 0,
        scale: 0,
    };

    /// `mantissa / 10^scale`; `None` if `scale > MAX_SCALE`.
    pub fn new(mantissa: i128, scale: u8) -> Option<Decimal> {
        (scale <= MAX_SCALE).then_some(Decimal { mantissa, scale })
    }
    pub fn from_i64(v: i64) -> Decimal {
        Decimal {
            mantissa: v as i128,
            scale: 0,
        }
    }
    pub fn from_u64(v: u64) -> Decimal {
        Decimal {
            mantissa: v as i128,
            scale: 0,
        }
    }
    pub fn mantissa(&self) -> i128 {
        self.mantissa
    }
    pub fn scale(&self) -> u8 {
        self.scale
    }
    pub fn is_negative(&self) -> bool {
        self.mantissa < 0
    }

    /// Number of decimal digits in `|mantissa|` (0 has 1 digit).
    pub fn digits(&self) -> u32 {
        let mut m = self.mantissa.unsigned_abs();
        let mut n = 1;
        while m >= 10 {
            m /= 10;
            n += 1;
        }
        n
    }

    /// True if the value fits DECIMAL(precision, scale) once rescaled to `scale`
    /// (i.e. `|v| < 10^(precision-scale)` after rounding).
    pub fn fits(&self, precision: u8, scale: u8) -> bool {
        match self.rescale(scale) {
            Some((d, _)) => d.mantissa.unsigned_abs() < pow10(precision as u32) as u128,
            None => false,
        }
    }

    /// Largest value of DECIMAL(precision, scale), e.g. 999.99 for (5,2).
    pub fn max_for(precision: u8, scale: u8) -> Decimal {
        Decimal {
            mantissa: pow10(precision as u32) - 1,
            scale,
        }
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
                    .checked_mul(pow10((scale - self.scale) as u32))?;
                Some((Decimal { mantissa: m, scale }, false))
            }
            Ordering::Less => {
                let div = pow10((self.scale - scale) as u32);
                let q = self.mantissa / div;
                let r = self.mantissa % div;
                let round_up = r.unsigned_abs() * 2 >= div as u128;
                let m = if round_up {
                    q + self.mantissa.signum()
                } else {
                    q
                };
                Some((Decimal { mantissa: m, scale }, r != 0))
            }
        }
    }

    /// Nearest integer, rounding half away from zero (MySQL's DECIMAL → integer rule).
    pub fn round_to_i128(&self) -> i128 {
        // Rescaling down never overflows.
        self.rescale(0).map(|(d, _)| d.mantissa).unwrap_or(0)
    }

    pub fn to_f64(&self) -> f64 {
        // Through the decimal string: exact for every value with <= 17 significant digits and
        // correctly rounded by Rust's parser for the rest.
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The decimal with the fewest digits that reads back as `v` (`None` for NaN / infinities or
    /// magnitudes beyond 38 digits).
    pub fn from_f64(v: f64) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        let s = format!("{v:e}");
        let (d, used) = Decimal::parse_prefix(&s).ok()?;
        (used == s.len()).then_some(d)
    }

    /// Parses the whole string (surrounding ASCII whitespace allowed):
    /// `[+-]digits[.digits][(e|E)[+-]digits]`; digits beyond 38 after the point are rounded away.
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
        let mut mant: i128 = 0;
        let mut scale: i32 = 0;
        let mut any_digit = false;
        let mut saturated = false; // further fraction digits are dropped
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
            let d = (c - b'0') as i128;
            if saturated {
                if !seen_point {
                    return Err(DecimalParseError::Overflow);
                }
                if round_digit.is_none() {
                    round_digit = Some(d as u8);
                }
            } else {
                match mant.checked_mul(10).and_then(|m| m.checked_add(d)) {
                    Some(m) if m < pow10(MAX_PRECISION as u32) => {
                        mant = m;
                        if seen_point {
                            scale += 1;
                        }
                    }
                    _ => {
                        if !seen_point {
                            return Err(DecimalParseError::Overflow);
                        }
                        saturated = true;
                        round_digit = Some(d as u8);
                    }
                }
            }
            i += 1;
        }
        if !any_digit {
            return Err(DecimalParseError::Invalid);
        }
        if round_digit.is_some_and(|d| d >= 5) {
            mant += 1;
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
            mant = -mant;
        }
        let d = if scale < 0 {
            if mant == 0 {
                Decimal::ZERO
            } else {
                let up = (-scale) as u32;
                if up > 38 {
                    return Err(DecimalParseError::Overflow);
                }
                let m = mant
                    .checked_mul(pow10(up))
                    .ok_or(DecimalParseError::Overflow)?;
                if m.unsigned_abs() >= pow10(MAX_PRECISION as u32) as u128 {
                    return Err(DecimalParseError::Overflow);
                }
                Decimal {
                    mantissa: m,
                    scale: 0,
                }
            }
        } else if scale > MAX_SCALE as i32 {
            // Shift right, rounding; very small numbers become 0.
            let drop = (scale - MAX_SCALE as i32) as u32;
            if drop > 38 {
                Decimal {
                    mantissa: 0,
                    scale: MAX_SCALE,
                }
            } else {
                let tmp = Decimal {
                    mantissa: mant,
                    scale: 0,
                };
                let (r, _) = tmp.rescale_down_by(drop);
                Decimal {
                    mantissa: r.mantissa,
                    scale: MAX_SCALE,
                }
            }
        } else {
            Decimal {
                mantissa: mant,
                scale: scale as u8,
            }
        };
        Ok((d, i))
    }

    fn rescale_down_by(&self, n: u32) -> (Decimal, bool) {
        let div = pow10(n);
        let q = self.mantissa / div;
        let r = self.mantissa % div;
        let m = if r.unsigned_abs() * 2 >= div as u128 {
            q + self.mantissa.signum()
        } else {
            q
        };
        (
            Decimal {
                mantissa: m,
                scale: self.scale,
            },
            r != 0,
        )
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self, other);
        if a.scale == b.scale {
            return a.mantissa.cmp(&b.mantissa);
        }
        // Bring the smaller scale up; an overflow means that side's magnitude exceeds any i128, so
        // its sign decides.
        if a.scale < b.scale {
            match a.mantissa.checked_mul(pow10((b.scale - a.scale) as u32)) {
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
        let digits = self.mantissa.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let mut s = String::with_capacity(digits.len() + 3);
        if self.mantissa < 0 {
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
            Decimal::parse(&"9".repeat(39)),
            Err(DecimalParseError::Overflow)
        );
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
    }

    #[test]
    fn numeric_order_and_equality() {
        assert_eq!(d("1.0"), d("1.00"));
        assert!(d("-1.5") < d("-1.25"));
        assert!(d("0.001") > d("0"));
        let big = Decimal::new(i128::MAX / 10, 0).unwrap();
        assert!(big > d("1.00000000000000000000000000000000000001"));
        assert!(-big.mantissa() < 0);
    }

    #[test]
    fn floats() {
        assert_eq!(Decimal::from_f64(0.1).unwrap().to_string(), "0.1");
        assert_eq!(Decimal::from_f64(-1234.5).unwrap().to_string(), "-1234.5");
        assert_eq!(d("0.1").to_f64(), 0.1);
        assert!(Decimal::from_f64(f64::NAN).is_none());
    }
}
