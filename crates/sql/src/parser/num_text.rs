//! A numeric literal of a fast-parsed INSERT kept as its text ([`NumText`]) until the column it goes
//! to is known, so a DOUBLE or FLOAT column reads it straight into a double instead of through an
//! exact decimal.
//!
//! Invariant: both readings give what the general path gives the literal (`expr::number_literal`,
//! then negation for a leading minus): [`NumText::value`] is that value, and [`NumText::to_f64`] is
//! that value converted to a double. The text is `[-]digits[.digits][(e|E)[+-]digits]`, which Rust's
//! float parser rounds correctly, as the general path's decimal-to-double conversion does; a literal
//! without exponent has no negative zero there (`-0.0` is the decimal 0), so none here either.

use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::negate_literal;
use crate::expr::number_literal;
use crate::types::value::Value;

/// Bytes of the longest literal kept as text (longer ones are read at once).
pub const MAX_NUM_TEXT: usize = 40;

#[derive(Clone, Copy)]
pub struct NumText {
    len: u8,
    bytes: [u8; MAX_NUM_TEXT],
}

impl std::fmt::Debug for NumText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NumText({})", self.text())
    }
}

impl NumText {
    /// `text` (a literal of the grammar above, at most [`MAX_NUM_TEXT`] bytes), None if longer.
    pub fn new(text: &str) -> Option<NumText> {
        let n = text.len();
        if n > MAX_NUM_TEXT {
            return None;
        }
        let mut bytes = [0u8; MAX_NUM_TEXT];
        bytes[..n].copy_from_slice(text.as_bytes());
        Some(NumText {
            len: n as u8,
            bytes,
        })
    }

    pub fn text(&self) -> &str {
        // Built from a &str in `new`; never fails.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("0")
    }

    /// The literal's value as the general path types it (integer, DECIMAL, or DOUBLE).
    pub fn value(&self) -> DbResult<Value> {
        let text = self.text();
        match text.strip_prefix('-') {
            Some(abs) => negate_literal(&number_literal(abs)?).ok_or_else(|| DbError::syntax(text)),
            None => number_literal(text),
        }
    }

    /// [`NumText::value`] as a double.
    pub fn to_f64(&self) -> f64 {
        let text = self.text();
        let f: f64 = text.parse().unwrap_or(0.0);
        if f == 0.0 && !text.contains(['e', 'E']) {
            0.0
        } else {
            f
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Both readings against the general path's value, over random literals of every form.
    #[test]
    fn readings_agree_with_the_general_paths_value() {
        let mut r = rand::rngs::SmallRng::seed_from_u64(9);
        let digits = |r: &mut rand::rngs::SmallRng, n: usize| -> String {
            (0..n)
                .map(|_| char::from(b'0' + r.gen_range(0..10)))
                .collect()
        };
        let mut fixed = vec![
            "0".to_string(),
            "-0".into(),
            "-0.000".into(),
            "-0e0".into(),
            "9223372036854775808".into(),
            "-9223372036854775808".into(),
            "18446744073709551616".into(),
            "1e400".into(),
            "-1e-400".into(),
            "0.1".into(),
            "20.53".into(),
        ];
        for _ in 0..20_000 {
            let mut t = String::new();
            if r.gen_bool(0.5) {
                t.push('-');
            }
            let int_len = r.gen_range(1..22);
            t.push_str(&digits(&mut r, int_len));
            if r.gen_bool(0.7) {
                let frac_len = r.gen_range(1..18);
                t.push('.');
                t.push_str(&digits(&mut r, frac_len));
            }
            if r.gen_bool(0.2) {
                t.push_str(&format!("e{}", r.gen_range(-330..330)));
            }
            fixed.push(t);
        }
        for t in fixed {
            let Some(n) = NumText::new(&t) else { continue };
            let want = match t.strip_prefix('-') {
                Some(abs) => negate_literal(&number_literal(abs).unwrap()).unwrap(),
                None => number_literal(&t).unwrap(),
            };
            assert_eq!(
                format!("{:?}", n.value().unwrap()),
                format!("{want:?}"),
                "{t}"
            );
            let want_f = want.to_f64_lenient().unwrap();
            let got_f = n.to_f64();
            assert_eq!(
                got_f.to_bits(),
                want_f.to_bits(),
                "{t}: {got_f} vs {want_f}"
            );
        }
    }
}
