//! The JSON functions (JSON_EXTRACT, JSON_OBJECT, ...) compiled into an [`Expr::Json`]
//! (evaluated by expr/json/).
//!
//! Invariants: a wrong argument count is 1582 when the statement is compiled; each argument's
//! [`ArgKind`] is decided here, once: JSON when it is a JSON column (one whose CHECK is
//! `json_valid(col)`) or the result of a JSON function or aggregate that gives JSON, a truth
//! value when it is `TRUE` / `FALSE`, a comparison, a logical operator or a JSON function that
//! gives one (JSON_VALID, JSON_CONTAINS, ...), plain otherwise. JSON_SEARCH's escape character
//! is checked here (a constant, 1210 otherwise). JSON_TABLE is refused (1235).

use sqlparser::ast;

use super::Compiler;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::expr::json::{ArgKind, JsonCall, JsonFunc};
use crate::expr::{AggFunc, Expr};
use crate::types::value::Value;

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
const NOT_BUILT: &[&str] = &["JSON_TABLE"];

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
            kinds.push(self.json_arg_kind(a, &e));
            compiled.push(e);
        }
        if func == JsonFunc::Search && compiled.len() > 3 {
            compiled[3] = Expr::Lit(search_escape(&compiled[3])?);
        }
        let doc_collation = compiled
            .first()
            .map(|e| self.scope.collation_of(e))
            .unwrap_or_default();
        Ok(Expr::Json(Box::new(JsonCall {
            func,
            args: compiled,
            kinds,
            doc_collation,
            numeric: false,
        })))
    }

    /// How the compiled argument `e` (written `a`) enters a document: JSON when it is a JSON
    /// column or the result of a function or aggregate that gives JSON, a truth value when
    /// written as one, plain otherwise.
    pub(super) fn json_arg_kind(&self, a: &ast::Expr, e: &Expr) -> ArgKind {
        let json_agg = |i: usize| {
            self.aggs
                .as_ref()
                .and_then(|l| l.get(i))
                .is_some_and(|s| matches!(s.func, AggFunc::JsonArrayAgg | AggFunc::JsonObjectAgg))
        };
        match e {
            Expr::Json(j) if j.func.gives_json() => ArgKind::Json,
            Expr::Json(j) if j.func.gives_truth() => ArgKind::Bool,
            Expr::Col(i) if self.scope.cols.get(*i).is_some_and(|c| c.json) => ArgKind::Json,
            Expr::Agg(i) if json_agg(*i) => ArgKind::Json,
            _ if is_truth(a) => ArgKind::Bool,
            _ => ArgKind::Plain,
        }
    }
}

/// JSON_SEARCH's escape character as MariaDB's `fix_escape_item` takes it: a constant of one
/// character, NULL or `''` meaning `\`; anything else is 1210.
fn search_escape(e: &Expr) -> DbResult<Value> {
    let refused = || DbError::new(ErrorCode::WrongArguments, "Incorrect arguments to ESCAPE");
    let Expr::Lit(v) = e else {
        return Err(refused());
    };
    let text = text_of(v).unwrap_or_default();
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(Value::Text("\\".into())),
        (Some(c), None) => Ok(Value::Text(c.to_string())),
        _ => Err(refused()),
    }
}

/// JSON_ARRAYAGG([DISTINCT] v [ORDER BY ...] [LIMIT ...]) and JSON_OBJECTAGG(k, v) as MariaDB's
/// grammar has them: JSON_ARRAYAGG of another number of arguments is 1582 (1064 without any),
/// JSON_OBJECTAGG of other than two, with DISTINCT, ORDER BY or LIMIT is 1064, and so is a
/// SEPARATOR in either.
pub(super) fn json_aggregate_form(
    func: AggFunc,
    name: &str,
    f: &ast::Function,
    n: usize,
    distinct: bool,
) -> DbResult<()> {
    let clauses = match &f.args {
        ast::FunctionArguments::List(l) => l.clauses.as_slice(),
        _ => &[],
    };
    let clause = |want: fn(&ast::FunctionArgumentClause) -> bool| clauses.iter().any(want);
    let separator = clause(|c| matches!(c, ast::FunctionArgumentClause::Separator(_)));
    let ordered = clause(|c| {
        matches!(
            c,
            ast::FunctionArgumentClause::OrderBy(_) | ast::FunctionArgumentClause::Limit(_)
        )
    });
    match func {
        AggFunc::JsonArrayAgg if n == 0 || separator => Err(DbError::syntax(format!("{name}("))),
        AggFunc::JsonArrayAgg if n != 1 => Err(DbError::wrong_args(name)),
        AggFunc::JsonObjectAgg if n != 2 || distinct || separator || ordered => {
            Err(DbError::syntax(format!("{name}(")))
        }
        _ => Ok(()),
    }
}
