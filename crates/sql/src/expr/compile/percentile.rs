//! The inverse distribution functions as window functions: PERCENTILE_CONT(p) WITHIN GROUP
//! (ORDER BY k) OVER (PARTITION BY ...), PERCENTILE_DISC likewise, and MEDIAN(k) OVER (...),
//! which is PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY k) as MariaDB's grammar builds it.
//! The WITHIN GROUP key becomes the window's ORDER BY (one sort gives the partition's values in
//! order); exec/percentile.rs computes the value.
//!
//! Invariants (MariaDB 10.11's checks, made before any row is read):
//! * the argument must be of a numeric type (an integer, DECIMAL or floating point expression;
//!   NULL, a string or a temporal value is 4104) — values of an expression whose type is known
//!   only from its values are checked as they are read;
//! * PERCENTILE_CONT's key must be numeric or temporal (a string or NULL is 4101);
//! * the grammar (one argument, one key, an OVER with at most PARTITION BY) is the parser's
//!   (parser/inverse_distribution.rs): only its forms reach here.

use sqlparser::ast;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::window::WinFunc;
use crate::expr::{Expr, Scope};
use crate::types::value::Value;

/// The function named `name` (upper case) if it is an inverse distribution function.
pub(super) fn inverse_distribution(name: &str) -> Option<WinFunc> {
    match name {
        "PERCENTILE_CONT" | "MEDIAN" => Some(WinFunc::PercentileCont),
        "PERCENTILE_DISC" => Some(WinFunc::PercentileDisc),
        _ => None,
    }
}

/// The name MariaDB's messages give the function (MEDIAN's is `percentile_cont`).
pub(super) fn message_name(func: &WinFunc) -> &'static str {
    match func {
        WinFunc::PercentileDisc => "percentile_disc",
        _ => "percentile_cont",
    }
}

/// `args` and the window's ORDER BY as MariaDB's grammar builds them: the WITHIN GROUP key
/// becomes the ORDER BY; MEDIAN(k)'s argument becomes the key and its percentile 0.5.
pub(super) fn reshape(
    name: &str,
    f: &ast::Function,
    args: &mut Vec<ast::Expr>,
    order: &mut Vec<ast::OrderByExpr>,
) {
    if name == "MEDIAN" {
        let key = std::mem::replace(
            args,
            vec![ast::Expr::value(ast::Value::Number("0.5".into(), false))],
        );
        *order = key
            .into_iter()
            .map(|expr| ast::OrderByExpr {
                expr,
                options: ast::OrderByOptions {
                    sort: None,
                    nulls_first: None,
                },
                with_fill: None,
            })
            .collect();
    } else {
        *order = f.within_group.clone();
    }
}

/// What is known of an expression's type before it is evaluated.
enum Kind {
    Number,
    Temporal,
    /// A string, or NULL (MariaDB's NULL literal compares as a string).
    Other,
    /// Known only from its values.
    Unknown,
}

fn kind(scope: &Scope, e: &Expr) -> Kind {
    if let Some(c) = e.col_index() {
        return match scope.cols.get(c).and_then(|c| c.ty) {
            Some(t) if t.is_numeric() || matches!(t, crate::types::SqlType::Bit { .. }) => {
                Kind::Number
            }
            Some(t) if t.is_temporal() => Kind::Temporal,
            Some(_) => Kind::Other,
            None => Kind::Unknown,
        };
    }
    match e {
        Expr::Lit(v) => value_kind(v),
        Expr::Binary(op, ..) if op.is_arithmetic() => Kind::Number,
        _ => Kind::Unknown,
    }
}

fn value_kind(v: &Value) -> Kind {
    match v {
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Double(_) | Value::Decimal(_) => {
            Kind::Number
        }
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => Kind::Temporal,
        Value::Null | Value::Text(_) | Value::Bytes(_) => Kind::Other,
    }
}

/// 4104: the argument is not of a numeric type.
pub fn wrong_argument(name: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongTypeOfArgument,
        format!("{name} function only accepts arguments that can be converted to numerical types"),
    )
}

/// 4101: PERCENTILE_CONT's key is not numeric or temporal.
pub fn wrong_key(name: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongTypeForPercentileFunc,
        format!("Numeric datatype is required for {name} function"),
    )
}

/// Whether a value read for the argument is of a numeric type.
pub fn numeric_value(v: &Value) -> bool {
    matches!(value_kind(v), Kind::Number)
}

/// Whether a value read for PERCENTILE_CONT's key is numeric or temporal.
pub fn interpolable_value(v: &Value) -> bool {
    matches!(value_kind(v), Kind::Number | Kind::Temporal)
}

/// The checks of the argument's and the key's types that need no row (see the module doc).
pub(super) fn check_types(scope: &Scope, func: &WinFunc, arg: &Expr, key: &Expr) -> DbResult<()> {
    let name = message_name(func);
    if matches!(kind(scope, arg), Kind::Temporal | Kind::Other) {
        return Err(wrong_argument(name));
    }
    if *func == WinFunc::PercentileCont && matches!(kind(scope, key), Kind::Other) {
        return Err(wrong_key(name));
    }
    Ok(())
}
