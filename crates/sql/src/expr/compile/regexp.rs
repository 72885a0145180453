//! `x [NOT] REGEXP p`, `x [NOT] RLIKE p` and the calls REGEXP_INSTR(s, p), REGEXP_SUBSTR(s, p),
//! REGEXP_REPLACE(s, p, r) compiled into an [`Expr::Regexp`] (evaluated by expr/regexp/).
//!
//! Invariants: the comparison collation of subject and pattern is decided here, once: binary
//! when either side is a binary string (as MariaDB aggregates a binary string with text), else
//! the one a comparison of the two would use; a wrong argument count is 1582; a constant
//! pattern is compiled now, so a bad one fails the statement (1139) before any row is read.
//! MariaDB has no REGEXP_LIKE: it stays an unknown function (1305).

use sqlparser::ast;

use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::regexp::{RegexpCall, RegexpFunc};
use crate::expr::{Expr, UnOp};
use crate::types::collation::Collation;

impl Compiler<'_> {
    pub(super) fn rlike(
        &mut self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        negated: bool,
    ) -> DbResult<Expr> {
        let e = self.regexp_call(RegexpFunc::Like, &[expr, pattern])?;
        Ok(match negated {
            true => Expr::Unary(UnOp::Not, Box::new(e)),
            false => e,
        })
    }

    /// REGEXP_INSTR / REGEXP_SUBSTR / REGEXP_REPLACE (`name` upper case); `None` for another name.
    pub(super) fn regexp_function(
        &mut self,
        name: &str,
        args: &[ast::Expr],
    ) -> Option<DbResult<Expr>> {
        let (func, arity) = RegexpFunc::of_name(name)?;
        if args.len() != arity {
            return Some(Err(DbError::wrong_args(name)));
        }
        let args: Vec<&ast::Expr> = args.iter().collect();
        Some(self.regexp_call(func, &args))
    }

    fn regexp_call(&mut self, func: RegexpFunc, args: &[&ast::Expr]) -> DbResult<Expr> {
        let args = args
            .iter()
            .map(|a| self.compile(a))
            .collect::<DbResult<Vec<_>>>()?;
        let (subject, pattern) = (&args[0], &args[1]);
        let binary = [subject, pattern]
            .iter()
            .any(|e| e.text_collation(self.scope) == Some(Collation::Binary));
        let coll = match binary {
            true => Collation::Binary,
            false => self.col_collation(subject, pattern)?,
        };
        Ok(Expr::Regexp(Box::new(RegexpCall::new(func, args, coll)?)))
    }
}
