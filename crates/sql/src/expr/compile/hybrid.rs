//! MariaDB's hybrid literals: `0x41` and `b'1000001'` are binary strings that are numbers where a
//! number is read (`0x41 + 0` is 65, `CONCAT(0x41)` is 'A'), unlike `X'41'`, a string everywhere
//! (`X'41' + 0` is 0 with warning 1292).
//!
//! Owns: [`hybrid_number`] (also the insert path's, for a value stored into a numeric column) and
//! [`Compiler::hybrid_number`], which the numeric contexts ask of their operand's syntax:
//! arithmetic, bit and logic operators and unary minus / `~` / NOT, a comparison, IN list or BETWEEN
//! whose other operands give numbers, and CAST to a number.
//!
//! Invariant: a hybrid literal's number is its last 8 bytes read as an unsigned big-endian integer,
//! as MariaDB's `longlong_from_hex_hybrid`; a `0x` literal is told from `X'..'` by the statement's
//! text, so where there is none (an expression compiled outside a session) it stays a string.

use sqlparser::ast;

use super::Compiler;
use crate::types::value::Value;

impl Compiler<'_> {
    /// The number a hybrid literal (possibly parenthesized) gives in a numeric context; None for
    /// any other expression.
    pub(super) fn hybrid_number(&self, e: &ast::Expr) -> Option<Value> {
        hybrid_number(e, &|span| self.env.source_text(span)).map(|(n, _)| n)
    }
}

/// [`Compiler::hybrid_number`] with the statement's text from `source`, and the literal's length
/// in bytes (a number stored into a column is out of range past 8: the insert path's check).
pub fn hybrid_number(
    e: &ast::Expr,
    source: &dyn Fn(sqlparser::tokenizer::Span) -> Option<String>,
) -> Option<(Value, usize)> {
    let v = match e {
        ast::Expr::Nested(inner) => return hybrid_number(inner, source),
        ast::Expr::Value(v) => v,
        _ => return None,
    };
    let bytes = match &v.value {
        ast::Value::HexStringLiteral(h) => {
            let text = source(v.span)?;
            if !(text.starts_with("0x") || text.starts_with("0X")) {
                return None;
            }
            hex_bytes(h)?
        }
        ast::Value::SingleQuotedByteStringLiteral(s)
            if !s.is_empty() && s.bytes().all(|b| b == b'0' || b == b'1') =>
        {
            let bits = &s[s.len().saturating_sub(64)..];
            let n = u64::from_str_radix(bits, 2).ok()?;
            return Some((Value::UInt(n), s.len().div_ceil(8)));
        }
        _ => return None,
    };
    let last = &bytes[bytes.len().saturating_sub(8)..];
    let n = last.iter().fold(0u64, |n, &b| n << 8 | u64::from(b));
    Some((Value::UInt(n), bytes.len()))
}

/// The bytes of a hex literal's digits (an odd count gets a leading 0); None when a character
/// is not a hex digit.
pub(super) fn hex_bytes(h: &str) -> Option<Vec<u8>> {
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let padded = if h.len() % 2 == 1 {
        format!("0{h}")
    } else {
        h.to_string()
    };
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::hex_bytes;

    #[test]
    fn hex_digits_decode_and_anything_else_is_refused() {
        assert_eq!(hex_bytes("41"), Some(vec![0x41]));
        assert_eq!(hex_bytes("141"), Some(vec![0x01, 0x41]));
        assert_eq!(hex_bytes(""), Some(vec![]));
        // A multi-byte character is refused, not sliced through.
        assert_eq!(hex_bytes("é1"), None);
        assert_eq!(hex_bytes("1é"), None);
        assert_eq!(hex_bytes("4g"), None);
    }
}
