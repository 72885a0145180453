//! Conversions written in SQL: `CAST(x AS type)`, `CONVERT(x, type)` (`CONVERT(x USING cs)` is
//! `x`), `x COLLATE name`, and typed strings (`DATE '2024-01-02'`, `TIMESTAMP '...'`).
//!
//! Invariants: a target type MariaDB's CAST does not take is a syntax error; DECIMAL(M,D) is
//! clamped to 65 digits and 38 decimals with D <= M; an unknown collation is 1273; a cast of an
//! ENUM/SET column to a number gives its member number.

use sqlparser::ast;

use super::{object_name_parts, Compiler};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{CastTo, Expr};
use crate::types::collation::Collation;
use crate::types::value::Value;

impl Compiler<'_> {
    /// CAST and CONVERT.
    pub(super) fn cast(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        Ok(match e {
            E::Cast {
                expr, data_type, ..
            } => self.cast_to(expr, cast_target(data_type)?)?,
            E::Convert {
                expr,
                data_type: Some(dt),
                ..
            } => self.cast_to(expr, cast_target(dt)?)?,
            E::Convert { expr, .. } => self.compile(expr)?,
            other => return Err(DbError::unsupported(format!("expression {other}"))),
        })
    }

    /// `CAST(expr AS to)`: to a number, an ENUM/SET column gives its member number.
    fn cast_to(&mut self, expr: &ast::Expr, to: CastTo) -> DbResult<Expr> {
        let a = self.compile(expr)?;
        let a = if to.is_numeric() { self.number(a) } else { a };
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
        let to = cast_target(&ts.data_type)?;
        Ok(Expr::Cast(Box::new(Expr::Lit(Value::Text(s))), to))
    }
}

pub fn cast_target(dt: &ast::DataType) -> DbResult<CastTo> {
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
        "CHAR" | "VARCHAR" | "TEXT" | "NCHAR" => CastTo::Char,
        "BINARY" | "VARBINARY" | "BLOB" => CastTo::Binary,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let nums: Vec<u8> = s
                .split(|c: char| !c.is_ascii_digit())
                .filter(|x| !x.is_empty())
                .filter_map(|x| x.parse().ok())
                .collect();
            let p = nums
                .first()
                .copied()
                .unwrap_or(10)
                .clamp(1, crate::types::decimal::MAX_PRECISION);
            let sc = nums
                .get(1)
                .copied()
                .unwrap_or(0)
                .min(p)
                .min(crate::types::decimal::MAX_SCALE);
            CastTo::Decimal(p, sc)
        }
        "DOUBLE" | "FLOAT" | "REAL" => CastTo::Double,
        "DATE" => CastTo::Date,
        "DATETIME" | "TIMESTAMP" => CastTo::DateTime,
        "TIME" => CastTo::Time,
        _ => return Err(DbError::syntax(s)),
    })
}
