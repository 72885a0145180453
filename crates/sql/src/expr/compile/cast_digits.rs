//! The digits of a CAST target written with `(M,D)`: `DECIMAL(M,D)` and `DOUBLE(M,D)`, checked
//! as MariaDB checks them (`get_length_and_scale`), and the name those errors give the cast
//! expression.
//!
//! Invariants: M above 65 is 1426 and D above 38 is 1425, in that order, naming the cast
//! expression as MariaDB names an item (its name where the parser gave it one: a column's, a
//! literal's text; else its printed form); `(0,0)` is then `(10,0)`; D above M is 1427 with an
//! empty column name. Nothing is clamped: a target within the limits is taken as written. A
//! number MariaDB's grammar does not read as a length (above 2147483647) is a syntax error.

use sqlparser::ast;

use super::CompileEnv;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::SqlError;
use crate::types::decimal::{MAX_PRECISION, MAX_SCALE};

/// The largest length or scale MariaDB's grammar reads in a type (`ulong_num` as an int).
const MAX_WRITTEN: u64 = i32::MAX as u64;

/// The `(M[,D])` of a CAST target's text (`DECIMAL(5,2)`), `None` without parentheses.
fn written_digits(type_text: &str) -> DbResult<Option<(u64, u64)>> {
    let Some((_, rest)) = type_text.split_once('(') else {
        return Ok(None);
    };
    let inner = rest.split_once(')').map_or(rest, |(a, _)| a);
    let mut nums = Vec::with_capacity(2);
    for part in inner.split(',') {
        match part.trim().parse::<u64>() {
            Ok(n) if n <= MAX_WRITTEN => nums.push(n),
            _ => return Err(DbError::syntax(format!("{})", part.trim()))),
        }
    }
    Ok(Some((nums[0], nums.get(1).copied().unwrap_or(0))))
}

/// The precision and scale of `CAST(.. AS DECIMAL[(M[,D])])`; `name` names the cast expression
/// in an error.
pub(super) fn decimal_digits(type_text: &str, name: &dyn Fn() -> String) -> DbResult<(u8, u8)> {
    match written_digits(type_text)? {
        None => Ok((10, 0)),
        Some((m, d)) => checked(m, d, name),
    }
}

/// The digits of `CAST(.. AS DOUBLE(M,D))`, checked as DECIMAL's; `None` for plain DOUBLE.
pub(super) fn double_digits(
    type_text: &str,
    name: &dyn Fn() -> String,
) -> DbResult<Option<(u8, u8)>> {
    written_digits(type_text)?
        .map(|(m, d)| checked(m, d, name))
        .transpose()
}

/// MariaDB's checks of `(M,D)` in its order.
fn checked(m: u64, d: u64, name: &dyn Fn() -> String) -> DbResult<(u8, u8)> {
    if m > MAX_PRECISION as u64 {
        return Err(SqlError::TooBigPrecision {
            precision: m as u32,
            column: name(),
            max: MAX_PRECISION as u32,
        }
        .into());
    }
    if d > MAX_SCALE as u64 {
        return Err(SqlError::TooBigScale {
            scale: d as u32,
            column: name(),
            max: MAX_SCALE as u32,
        }
        .into());
    }
    let (m, d) = if (m, d) == (0, 0) { (10, 0) } else { (m, d) };
    if d > m {
        return Err(SqlError::ScaleAbovePrecision {
            column: String::new(),
        }
        .into());
    }
    Ok((m as u8, d as u8))
}

/// How MariaDB names the operand `e` of a CAST in an error: a column by its name, a literal by
/// its text (a string's without quotes), anything else as printed.
pub(super) fn item_name(e: &ast::Expr, env: &dyn CompileEnv) -> String {
    use ast::Expr as E;
    use ast::Value as V;
    match e {
        E::Identifier(id) => id.value.clone(),
        E::CompoundIdentifier(ids) => ids.last().map(|i| i.value.clone()).unwrap_or_default(),
        E::Nested(inner) => item_name(inner, env),
        E::Prefixed { value, .. } if matches!(**value, E::Value(_)) => item_name(value, env),
        E::Value(v) => match &v.value {
            V::Number(s, _) => s.clone(),
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
                s.clone()
            }
            V::HexStringLiteral(h) => format!("X'{h}'"),
            V::Boolean(b) => if *b { "TRUE" } else { "FALSE" }.into(),
            V::Null => "NULL".into(),
            _ => env.printed(e),
        },
        E::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => match &**expr {
            E::Value(v) if matches!(v.value, V::Number(..)) => format!("-{}", v.value),
            _ => env.printed(e),
        },
        _ => env.printed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;
    use crate::expr::compile::NoSession;

    fn name() -> String {
        "1 + 2".into()
    }

    fn err(text: &str) -> (ErrorCode, String) {
        let e = decimal_digits(text, &name).unwrap_err();
        (e.code, e.message)
    }

    #[test]
    fn decimal_limits_are_mariadbs_errors_in_its_order() {
        assert_eq!(
            err("DECIMAL(5,6)"),
            (
                ErrorCode::MBiggerThanD,
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')".into()
            )
        );
        let big_precision = (
            ErrorCode::TooBigPrecision,
            "Too big precision specified for '1 + 2'. Maximum is 65".to_string(),
        );
        assert_eq!(err("DECIMAL(66,2)"), big_precision);
        assert_eq!(err("DECIMAL(66)"), big_precision);
        // The precision is checked before the scale, the scale before M >= D.
        assert_eq!(err("DECIMAL(66,67)"), big_precision);
        let big_scale = (
            ErrorCode::TooBigScale,
            "Too big scale specified for '1 + 2'. Maximum is 38".to_string(),
        );
        assert_eq!(err("DECIMAL(65,39)"), big_scale);
        assert_eq!(err("DECIMAL(30,39)"), big_scale);
        assert_eq!(err("DECIMAL(0,2)").0, ErrorCode::MBiggerThanD);
        assert_eq!(err("DECIMAL(2147483647,2)"), big_precision);
        assert_eq!(err("DECIMAL(2147483648,2)").0, ErrorCode::ParseError);
        assert_eq!(
            err("DECIMAL(5,99999999999999999999)").0,
            ErrorCode::ParseError
        );
    }

    #[test]
    fn decimal_digits_within_the_limits_are_kept() {
        let ok = |t| decimal_digits(t, &name).unwrap();
        assert_eq!(ok("DECIMAL"), (10, 0));
        assert_eq!(ok("DECIMAL(0)"), (10, 0));
        assert_eq!(ok("DECIMAL(0,0)"), (10, 0));
        assert_eq!(ok("DECIMAL(7)"), (7, 0));
        assert_eq!(ok("DECIMAL(1,1)"), (1, 1));
        assert_eq!(ok("DECIMAL(65,38)"), (65, 38));
        assert_eq!(double_digits("DOUBLE", &name).unwrap(), None);
        assert_eq!(double_digits("DOUBLE(10,2)", &name).unwrap(), Some((10, 2)));
        assert_eq!(
            double_digits("DOUBLE(40,39)", &name).unwrap_err().code,
            ErrorCode::TooBigScale
        );
    }

    #[test]
    fn operands_are_named_as_mariadb_names_items() {
        let named = |sql: &str| {
            let e = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
                .try_with_sql(sql)
                .unwrap()
                .parse_expr()
                .unwrap();
            item_name(&e, &NoSession)
        };
        assert_eq!(named("a"), "a");
        assert_eq!(named("t.a"), "a");
        assert_eq!(named("(a)"), "a");
        assert_eq!(named("'abc'"), "abc");
        assert_eq!(named("1.50"), "1.50");
        assert_eq!(named("-1"), "-1");
        assert_eq!(named("NULL"), "NULL");
        assert_eq!(named("X'41'"), "X'41'");
        // Anything else as a session prints it (MariaDB's `Item::print`).
        let printed = |sql: &str| {
            let e = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
                .try_with_sql(sql)
                .unwrap()
                .parse_expr()
                .unwrap();
            crate::catalog::expr_print::mariadb_text(&e)
        };
        assert_eq!(printed("i + 1"), "`i` + 1");
        assert_eq!(printed("UPPER(v)"), "ucase(`v`)");
    }
}
