//! Conversions written in SQL: `CAST(x AS type)`, `CONVERT(x, type)` (`CONVERT(x USING cs)` is
//! `x` as text), `x COLLATE name` (of a column: a collation of its character set, else 1253), and typed strings (`DATE '2024-01-02'`, `TIMESTAMP '...'`).
//!
//! Invariants: a target type MariaDB's CAST does not take is a syntax error (NUMERIC, REAL,
//! FLOAT(n)); DECIMAL(M,D) and DOUBLE(M,D) beyond MariaDB's limits are its errors, never clamped
//! (cast_digits.rs); DOUBLE(M,D) rounding to D < 31 decimals is refused; an unknown collation is
//! 1273; a cast of an ENUM/SET column to a number gives its member number.

use sqlparser::ast;

use super::cast_digits::{decimal_digits, double_digits, item_name};
use super::{object_name_parts, Compiler};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{CastTo, Expr};
use crate::types::charset::Charset;
use crate::types::collation::Collation;
use crate::types::value::Value;

impl Compiler<'_> {
    /// CAST and CONVERT.
    pub(super) fn cast(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        Ok(match e {
            E::Cast {
                expr,
                data_type: ast::DataType::Binary(None),
                ..
            } if binary_keyword_took_operator(expr) => {
                self.compile(&binary_on_left_operand(expr))?
            }
            E::Cast {
                expr, data_type, ..
            } => {
                let to = cast_target(data_type, &|| item_name(expr, &*self.env))?;
                self.cast_to(expr, to)?
            }
            E::Convert {
                expr,
                data_type: Some(dt),
                ..
            } => {
                let to = cast_target(dt, &|| item_name(expr, &*self.env))?;
                self.cast_to(expr, to)?
            }
            // CONVERT(x USING cs): text in cs (`?` for a character it lacks), in cs's default
            // collation; an unknown cs or `binary`: text of the connection's character set.
            E::Convert { expr, charset, .. } => {
                let text = Expr::Cast(Box::new(self.compile(expr)?), CastTo::Char(None));
                let cs = charset
                    .as_ref()
                    .and_then(|n| Charset::from_name(&object_name_parts(n).join(".")));
                match cs {
                    Some(cs) if cs != Charset::Binary => Expr::Func(
                        crate::expr::functions::IN_CHARSET.into(),
                        vec![
                            text,
                            Expr::Lit(Value::Text(cs.default_collation().name().into())),
                        ],
                    ),
                    _ => text,
                }
            }
            other => return Err(DbError::unsupported(format!("expression {other}"))),
        })
    }

    /// `CAST(expr AS to)`: to a number, an ENUM/SET column gives its member number.
    fn cast_to(&mut self, expr: &ast::Expr, to: CastTo) -> DbResult<Expr> {
        let a = self.compile(expr)?;
        let a = match self.hybrid_number(expr) {
            Some(n) if to.is_numeric() => Expr::Lit(n),
            _ if to.is_numeric() => self.number(a),
            _ => a,
        };
        // CAST(1/3 AS DECIMAL(20,10)) reads the quotient's inner digits (compile/division.rs).
        let a = match to {
            CastTo::Decimal(..) => super::division::unrounded(a),
            _ => a,
        };
        Ok(Expr::Cast(Box::new(a), to))
    }

    pub(super) fn collate(
        &mut self,
        expr: &ast::Expr,
        collation: &ast::ObjectName,
    ) -> DbResult<Expr> {
        let a = self.compile(expr)?;
        let name = object_name_parts(collation).join(".");
        let c = Collation::from_name(&name).ok_or_else(|| {
            DbError::new(
                ErrorCode::UnknownCollation,
                format!("Unknown collation: '{name}'"),
            )
        })?;
        // A column's text is in its character set: the collation must be one of it (MariaDB).
        if let Some(own) = matches!(a, Expr::Col(_))
            .then(|| a.text_collation(self.scope))
            .flatten()
        {
            if own != Collation::Binary && own.charset() != c.charset() {
                return Err(DbError::new(
                    ErrorCode::CollationCharsetMismatch,
                    format!(
                        "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                        c.name(),
                        own.charset().name()
                    ),
                ));
            }
        }
        Ok(Expr::Func(
            "__COLLATE".into(),
            vec![a, Expr::Lit(Value::Text(c.name().into()))],
        ))
    }

    /// `DATE '...'`, `TIME '...'`, `TIMESTAMP '...'`: a cast of the text.
    pub(super) fn typed_string(&mut self, ts: &ast::TypedString) -> DbResult<Expr> {
        let s = match &ts.value.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        };
        // A typed literal keeps the fraction digits written (`TIME '10:00:00.5'`).
        let digits = crate::expr::decimals::constant_text_digits(&s).min(6);
        let to = match cast_target(&ts.data_type, &|| s.clone())? {
            CastTo::DateTime(_) => CastTo::DateTime(digits),
            CastTo::Time(_) => CastTo::Time(digits),
            other => other,
        };
        Ok(Expr::Cast(Box::new(Expr::Lit(Value::Text(s))), to))
    }
}

/// Whether the operand of a `BINARY x` cast is an operator expression: sqlparser reads `BINARY
/// a = b` as `BINARY (a = b)`, where MariaDB's BINARY binds to `a` alone.
fn binary_keyword_took_operator(e: &ast::Expr) -> bool {
    use ast::Expr as E;
    matches!(
        e,
        E::BinaryOp { .. }
            | E::Like { .. }
            | E::InList { .. }
            | E::Between { .. }
            | E::IsNull(_)
            | E::IsNotNull(_)
    )
}

/// `BINARY (a op b)` as MariaDB reads `BINARY a op b`: `(BINARY a) op b`, down the left operands.
fn binary_on_left_operand(e: &ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    let bin = |x: &ast::Expr| -> Box<ast::Expr> {
        Box::new(if binary_keyword_took_operator(x) {
            binary_on_left_operand(x)
        } else {
            E::Cast {
                kind: ast::CastKind::Cast,
                expr: Box::new(x.clone()),
                data_type: ast::DataType::Binary(None),
                format: None,
            }
        })
    };
    let mut out = e.clone();
    match &mut out {
        E::BinaryOp { left, .. } => *left = bin(left),
        E::Like { expr, .. } | E::InList { expr, .. } | E::Between { expr, .. } => {
            *expr = bin(expr)
        }
        E::IsNull(x) | E::IsNotNull(x) => *x = bin(x),
        _ => {}
    }
    out
}

/// The `(n)` of a type's text (`CHAR(3)`), if any.
fn length_of(type_text: &str) -> Option<u32> {
    let inner = type_text.split_once('(')?.1.split_once(')')?.0;
    inner.trim().parse().ok()
}

/// The fractional digits of a temporal CAST target (`TIME(3)`; 0 without); more than 6 is
/// MariaDB's 1426 naming the cast expression.
fn temporal_fsp(type_text: &str, name: &dyn Fn() -> String) -> DbResult<u8> {
    match length_of(type_text) {
        None => Ok(0),
        Some(n) if n <= 6 => Ok(n as u8),
        Some(_) => Err(DbError::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{}'. Maximum is 6", name()),
        )),
    }
}

/// The target of `CAST(expr AS dt)`; `name` names `expr` in an error (cast_digits.rs).
pub fn cast_target(dt: &ast::DataType, name: &dyn Fn() -> String) -> DbResult<CastTo> {
    let s = dt.to_string().to_ascii_uppercase();
    let base = s.split(['(', ' ']).next().unwrap_or("");
    Ok(match base {
        "SIGNED" | "INT" | "INTEGER" | "BIGINT" => {
            if s.contains("UNSIGNED") {
                CastTo::Unsigned
            } else {
                CastTo::Signed
            }
        }
        "UNSIGNED" => CastTo::Unsigned,
        "CHAR" | "VARCHAR" | "TEXT" | "NCHAR" => CastTo::Char(length_of(&s)),
        "BINARY" | "VARBINARY" | "BLOB" => CastTo::Binary(length_of(&s)),
        "DECIMAL" | "DEC" => {
            let (p, sc) = decimal_digits(&s, name)?;
            CastTo::Decimal(p, sc)
        }
        // MariaDB's DOUBLE(M,D) rounds to D decimals below 31 (its "not fixed" count).
        "DOUBLE" => match double_digits(&s, name)? {
            Some((_, d)) if d < 31 => return Err(DbError::unsupported(format!("CAST AS {s}"))),
            _ => CastTo::Double,
        },
        "FLOAT" if !s.contains('(') => CastTo::Double,
        "DATE" => CastTo::Date,
        "DATETIME" | "TIMESTAMP" => CastTo::DateTime(temporal_fsp(&s, name)?),
        "TIME" => CastTo::Time(temporal_fsp(&s, name)?),
        _ => return Err(DbError::syntax(s)),
    })
}
