//! Subqueries in expressions. An uncorrelated one runs once while the expression is compiled
//! (through [`super::CompileEnv::subquery_in`]): `x [NOT] IN (SELECT ...)` becomes an IN list of
//! the rows (a row `(a, b) IN (SELECT ...)`: row_in.rs), `[NOT] EXISTS` a 0/1 literal, and a
//! scalar subquery its value. A correlated one (it names a column of the scope) becomes an
//! [`Expr::Subquery`] that runs per row (correlated.rs).
//!
//! Invariants: a scalar subquery of more than one row is 1242, of more than one column 1241 (as
//! is an IN subquery whose rows are not as wide as its left side); one of no row is NULL;
//! `x [NOT] IN` a subquery of no row is false (true), even for a NULL `x`.

use sqlparser::ast;

use std::sync::Arc;

use super::{Compiler, SubqueryRun};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::correlated::{Correlated, SubKind};
use crate::expr::Expr;
use crate::types::value::Value;

fn one_column_expected() -> DbError {
    DbError::new(
        ErrorCode::OperandColumns,
        "Operand should contain 1 column(s)",
    )
}

impl Compiler<'_> {
    fn run(&mut self, q: &ast::Query) -> DbResult<SubqueryRun> {
        self.env.subquery_in(q, self.scope)
    }

    fn correlated(
        &mut self,
        q: &ast::Query,
        kind: SubKind,
        read: Vec<usize>,
        env: Option<Arc<dyn std::any::Any + Send + Sync>>,
    ) -> Expr {
        let mut c = Correlated::new(q, kind, self.scope, read);
        c.env = env;
        Expr::Subquery(Box::new(c))
    }

    pub(super) fn in_subquery(
        &mut self,
        expr: &ast::Expr,
        subquery: &ast::Query,
        negated: bool,
    ) -> DbResult<Expr> {
        if let ast::Expr::Tuple(items) = expr {
            let mut cs = Vec::with_capacity(items.len());
            let mut colls = Vec::with_capacity(items.len());
            for it in items {
                let c = self.compile(it)?;
                colls.push(c.text_collation(self.scope).unwrap_or_default());
                cs.push(c);
            }
            let rows = match self.run(subquery)? {
                SubqueryRun::Rows(rows) => rows,
                SubqueryRun::Correlated { read, env } => {
                    let kind = SubKind::In {
                        items: cs,
                        numeric: None,
                        colls,
                        negated,
                    };
                    return Ok(self.correlated(subquery, kind, read, env));
                }
            };
            return crate::expr::row_in::row_in(cs, colls, rows, negated);
        }
        let a = self.compile(expr)?;
        let coll = a.text_collation(self.scope).unwrap_or_default();
        let rows = match self.run(subquery)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                let numeric = Some(Box::new(self.number(a.clone())));
                let kind = SubKind::In {
                    items: vec![a],
                    numeric,
                    colls: vec![coll],
                    negated,
                };
                return Ok(self.correlated(subquery, kind, read, env));
            }
        };
        if rows.is_empty() {
            return Ok(Expr::Lit(Value::Int(negated as i64)));
        }
        let mut l = Vec::with_capacity(rows.len());
        for r in rows {
            if r.len() != 1 {
                return Err(one_column_expected());
            }
            l.push(Expr::Lit(r.into_iter().next().unwrap_or(Value::Null)));
        }
        let a = self.number_if_all(a, &l);
        Ok(Expr::InList(Box::new(a), l, negated, coll))
    }

    pub(super) fn exists(&mut self, subquery: &ast::Query, negated: bool) -> DbResult<Expr> {
        let rows = match self.run(subquery)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                let kind = SubKind::Exists { negated };
                return Ok(self.correlated(subquery, kind, read, env));
            }
        };
        Ok(Expr::Lit(Value::Int((rows.is_empty() == negated) as i64)))
    }

    pub(super) fn scalar_subquery(&mut self, q: &ast::Query) -> DbResult<Expr> {
        let rows = match self.run(q)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                return Ok(self.correlated(q, SubKind::Scalar, read, env));
            }
        };
        if rows.len() > 1 {
            return Err(DbError::new(
                ErrorCode::SubqueryNo1Row,
                "Subquery returns more than 1 row",
            ));
        }
        Ok(match rows.into_iter().next() {
            None => Expr::Lit(Value::Null),
            Some(r) if r.len() == 1 => Expr::Lit(r.into_iter().next().unwrap_or(Value::Null)),
            Some(_) => return Err(one_column_expected()),
        })
    }
}
