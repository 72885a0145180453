//! The JSON functions (JSON_EXTRACT, JSON_OBJECT, ...) compiled into an [`Expr::Json`]
//! (evaluated by expr/json/).
//!
//! Invariants: a wrong argument count is 1582 when the statement is compiled; each argument's
//! [`ArgKind`] is decided here, once: JSON when it is a JSON column (one whose CHECK is
//! `json_valid(col)`) or the result of a JSON function that gives JSON, a truth value when it is
//! `TRUE` / `FALSE`, a comparison or a logical operator, plain otherwise.

use sqlparser::ast;

use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::json::{ArgKind, JsonCall, JsonFunc};
use crate::expr::Expr;

/// True if the written expression gives a truth value (MariaDB's boolean items).
fn is_truth(e: &ast::Expr) -> bool {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::Value(v) => matches!(v.value, ast::Value::Boolean(_)),
        ast::Expr::Nested(inner) => is_truth(inner),
        ast::Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Eq
                | B::NotEq
                | B::Lt
                | B::LtEq
                | B::Gt
                | B::GtEq
                | B::Spaceship
                | B::And
                | B::Or
                | B::Xor
        ),
        ast::Expr::UnaryOp { op, .. } => matches!(op, ast::UnaryOperator::Not),
        ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::IsTrue(_)
        | ast::Expr::IsNotTrue(_)
        | ast::Expr::IsFalse(_)
        | ast::Expr::IsNotFalse(_)
        | ast::Expr::Like { .. }
        | ast::Expr::InList { .. }
        | ast::Expr::Between { .. }
        | ast::Expr::Exists { .. } => true,
        _ => false,
    }
}

/// MariaDB 10.11's JSON functions Betula does not evaluate: refused (1235), never a wrong answer.
const NOT_BUILT: &[&str] = &[
    "JSON_ARRAY_INSERT",
    "JSON_ARRAYAGG",
    "JSON_COMPACT",
    "JSON_DETAILED",
    "JSON_PRETTY",
    "JSON_EQUALS",
    "JSON_LOOSE",
    "JSON_MERGE",
    "JSON_MERGE_PRESERVE",
    "JSON_NORMALIZE",
    "JSON_OBJECTAGG",
    "JSON_OVERLAPS",
    "JSON_SEARCH",
    "JSON_TABLE",
];

impl Compiler<'_> {
    /// A JSON function call (`name` upper case); `None` for another name.
    pub(super) fn json_function(
        &mut self,
        name: &str,
        args: &[ast::Expr],
    ) -> Option<DbResult<Expr>> {
        if NOT_BUILT.contains(&name) {
            return Some(Err(DbError::unsupported(format!("function {name}"))));
        }
        let func = JsonFunc::of_name(name)?;
        Some(self.json_call(func, args))
    }

    fn json_call(&mut self, func: JsonFunc, args: &[ast::Expr]) -> DbResult<Expr> {
        func.check_arity(args.len())?;
        let mut compiled = Vec::with_capacity(args.len());
        let mut kinds = Vec::with_capacity(args.len());
        for a in args {
            let e = self.compile(a)?;
            let kind = match &e {
                Expr::Json(j) if j.func.gives_json() => ArgKind::Json,
                Expr::Col(i) if self.scope.cols.get(*i).is_some_and(|c| c.json) => ArgKind::Json,
                _ if is_truth(a) => ArgKind::Bool,
                _ => ArgKind::Plain,
            };
            compiled.push(e);
            kinds.push(kind);
        }
        Ok(Expr::Json(Box::new(JsonCall {
            func,
            args: compiled,
            kinds,
        })))
    }
}
