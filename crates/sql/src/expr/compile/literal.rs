//! Literals: numbers (typed as MySQL does: BIGINT, BIGINT UNSIGNED, DECIMAL, or DOUBLE with an
//! exponent), strings, `b'0101'` bit literals, `X'..'` hex literals, booleans, NULL, `?`
//! parameters, and character set introducers (`_binary 'x'`, `_utf8mb4 X'..'`).
//!
//! Invariants: a number literal with more than 81 significant digits (and no exponent) becomes
//! the largest DECIMAL with warning 1916, as MariaDB's; a text introducer over bytes that are not
//! UTF-8 keeps them as bytes, never replaced by U+FFFD.

use sqlparser::ast;

use super::Compiler;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::Expr;
use crate::types::charset::Charset;
use crate::types::decimal::Decimal;
use crate::types::value::Value;

/// MariaDB computes decimals with at most 81 digits: a literal with more (and no exponent) is
/// "truncated" to the largest DECIMAL (65 nines) with warning 1916.
const MAX_LITERAL_DIGITS: usize = 81;

/// True if the literal `s` has more than 81 significant digits and no exponent.
pub fn literal_overflows(s: &str) -> bool {
    !s.contains(['e', 'E'])
        && s.trim_start_matches(['-', '+', '0'])
            .bytes()
            .filter(u8::is_ascii_digit)
            .count()
            > MAX_LITERAL_DIGITS
}

/// A numeric literal as MySQL types it: integer, DECIMAL or DOUBLE (with exponent).
pub fn number_literal(s: &str) -> DbResult<Value> {
    if s.contains(['e', 'E']) {
        return s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| DbError::syntax(s));
    }
    if !s.contains('.') {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        if let Ok(u) = s.parse::<u64>() {
            return Ok(Value::UInt(u));
        }
    }
    match Decimal::parse(s) {
        Ok(d) => Ok(Value::Decimal(d)),
        Err(_) => s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| DbError::syntax(s)),
    }
}

impl Compiler<'_> {
    pub(super) fn literal(&mut self, v: &ast::Value) -> DbResult<Expr> {
        use ast::Value as V;
        Ok(Expr::Lit(match v {
            V::Number(s, _) if literal_overflows(s) => {
                self.env.warn(crate::error::sql_error::Warning {
                    level: crate::error::sql_error::WarningLevel::Warning,
                    code: ErrorCode::DataOverflow,
                    message: "Got overflow when converting '' to DECIMAL. Value truncated".into(),
                });
                let max = Decimal::max_for(crate::types::decimal::MAX_PRECISION, 0);
                Value::Decimal(if s.starts_with('-') { max.neg() } else { max })
            }
            V::Number(s, _) => number_literal(s)?,
            V::SingleQuotedString(s)
            | V::DoubleQuotedString(s)
            | V::NationalStringLiteral(s)
            | V::EscapedStringLiteral(s)
            | V::TripleSingleQuotedString(s)
            | V::TripleDoubleQuotedString(s) => Value::Text(s.clone()),
            // MySQL's b'0101' is a bit-value literal: the bits as bytes, big-endian.
            V::SingleQuotedByteStringLiteral(s) | V::DoubleQuotedByteStringLiteral(s)
                if s.bytes().all(|b| b == b'0' || b == b'1') =>
            {
                let pad = (8 - s.len() % 8) % 8;
                let bits: Vec<u8> = std::iter::repeat_n(b'0', pad).chain(s.bytes()).collect();
                Value::Bytes(
                    bits.chunks(8)
                        .map(|c| c.iter().fold(0u8, |acc, b| acc << 1 | (b - b'0')))
                        .collect(),
                )
            }
            V::SingleQuotedByteStringLiteral(s) | V::DoubleQuotedByteStringLiteral(s) => {
                Value::Bytes(s.as_bytes().to_vec())
            }
            V::HexStringLiteral(h) => {
                Value::Bytes(super::hybrid::hex_bytes(h).ok_or_else(|| DbError::syntax(h))?)
            }
            V::Boolean(b) => Value::Int(*b as i64),
            V::Null => Value::Null,
            // sqlparser reads `` @`name` `` in an expression as a placeholder: MariaDB's user
            // variable with a quoted name.
            V::Placeholder(p) if p.starts_with('@') => {
                let name = super::names::user_var_name(&p[1..]).into_owned();
                match self.user_var_read(&name) {
                    Expr::Lit(v) => v,
                    read => return Ok(read),
                }
            }
            V::Placeholder(p) => {
                let n: usize = p
                    .trim_start_matches(['?', '$', ':'])
                    .parse()
                    .map_err(|_| DbError::syntax(p))?;
                self.env.param(n.saturating_sub(1))?
            }
            other => return Err(DbError::unsupported(format!("literal {other}"))),
        }))
    }

    /// A character set introducer (`_binary 'x'`, `_utf8mb4 'x'`, `_latin1 X'..'`, `_koi8r 0xFF`),
    /// as JDBC drivers send bytes in client-side prepared statements: `_binary` makes a byte
    /// string, a text character set a text string; a hex or bit literal's bytes are read in that
    /// character set (`_koi8r 0xFF` is `Ъ`, in koi8r's default collation: `__IN_CHARSET`; bytes
    /// that are not text in it stay bytes). A quoted
    /// literal keeps the text the statement gave it (divergence: MariaDB reinterprets its bytes
    /// in the client's character set as the introducer's).
    pub(super) fn introduced(&mut self, prefix: &ast::Ident, value: &ast::Expr) -> DbResult<Expr> {
        let name = prefix.value.to_ascii_lowercase();
        let charset = name.strip_prefix('_').and_then(Charset::from_name);
        let lit = self.compile(value)?;
        Ok(match (charset, lit) {
            (Some(Charset::Binary), Expr::Lit(Value::Text(s))) => {
                Expr::Lit(Value::Bytes(s.into_bytes()))
            }
            (Some(cs), Expr::Lit(Value::Bytes(b))) if cs != Charset::Binary => {
                match cs.decode(&b) {
                    // UTF-8 text is its own bytes: only a single-byte set needs its collation kept.
                    Some(s) if cs.max_bytes() > 1 => Expr::Lit(Value::Text(s)),
                    Some(s) => Expr::Func(
                        crate::expr::functions::IN_CHARSET.into(),
                        vec![
                            Expr::Lit(Value::Text(s)),
                            Expr::Lit(Value::Text(cs.default_collation().name().into())),
                        ],
                    ),
                    None => Expr::Lit(Value::Bytes(b)),
                }
            }
            (Some(_), lit) => lit,
            (None, _) => {
                return Err(DbError::unsupported(format!(
                    "character set introducer {}",
                    prefix.value
                )))
            }
        })
    }
}
