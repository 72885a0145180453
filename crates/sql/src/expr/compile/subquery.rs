//! Subqueries in expressions. An uncorrelated one runs once while the expression is compiled
//! (through [`super::CompileEnv::subquery_in`]): `x [NOT] IN (SELECT ...)` becomes an IN list of
//! the rows (a row `(a, b) IN (SELECT ...)`: row_in.rs), `[NOT] EXISTS` a 0/1 literal, and a
//! scalar subquery its value, `x op ANY|ALL (SELECT ...)` a [`Quantified`] node over the rows
//! (`= ANY` is `IN`, `<> ALL` is `NOT IN`). A correlated one (it names a column of the scope)
//! becomes an [`Expr::Subquery`] that runs per row (correlated.rs).
//!
//! Invariants: a scalar subquery of more than one row is 1242, of more than one column 1241 (as
//! is an IN subquery whose rows are not as wide as its left side, and an ANY / ALL one of more
//! than one column, or with a row on its left other than `= ANY` / `<> ALL`); one of no row is NULL;
//! `x [NOT] IN` a subquery of no row is false (true), even for a NULL `x`; an uncorrelated
//! subquery of one row and several columns on the left of IN is that row
//! (`(SELECT 1, 2) IN (SELECT ...)`).

use sqlparser::ast;

use std::sync::Arc;

use super::{Compiler, SubqueryRun};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::correlated::{Correlated, SubKind};
use crate::expr::quantified::Quantified;
use crate::expr::{BinOp, Expr};
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
            return self.row_in_subquery(cs, colls, subquery, negated);
        }
        if let ast::Expr::Subquery(left) = expr {
            if let Some(row) = self.row_subquery(left)? {
                let colls = vec![Default::default(); row.len()];
                let cs = row.into_iter().map(Expr::Lit).collect();
                return self.row_in_subquery(cs, colls, subquery, negated);
            }
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
        let subquery = &*super::exists_query::exists_query(subquery);
        let rows = match self.run(subquery)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                let kind = SubKind::Exists { negated };
                return Ok(self.correlated(subquery, kind, read, env));
            }
        };
        Ok(Expr::Lit(Value::Int((rows.is_empty() == negated) as i64)))
    }

    /// `(items) [NOT] IN (subquery)`, the items compiled, with their collations.
    fn row_in_subquery(
        &mut self,
        items: Vec<Expr>,
        colls: Vec<crate::types::collation::Collation>,
        subquery: &ast::Query,
        negated: bool,
    ) -> DbResult<Expr> {
        let rows = match self.run(subquery)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                let kind = SubKind::In {
                    items,
                    numeric: None,
                    colls,
                    negated,
                };
                return Ok(self.correlated(subquery, kind, read, env));
            }
        };
        crate::expr::row_in::row_in(items, colls, rows, negated)
    }

    /// The row of an uncorrelated subquery of more than one column on the left of IN
    /// (`(SELECT 1, 2) IN (SELECT ...)`); `None` for one of one column or a correlated one
    /// (compiled as a scalar subquery then, as is one of no row: its width is unknown here, so
    /// one of several columns is 1241). More than one row is 1242.
    fn row_subquery(&mut self, q: &ast::Query) -> DbResult<Option<Vec<Value>>> {
        let SubqueryRun::Rows(rows) = self.run(q)? else {
            return Ok(None);
        };
        if rows.len() > 1 {
            return Err(DbError::new(
                ErrorCode::SubqueryNo1Row,
                "Subquery returns more than 1 row",
            ));
        }
        match rows.into_iter().next() {
            Some(row) if row.len() > 1 => Ok(Some(row)),
            _ => Ok(None),
        }
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

    /// `left op ANY|ALL right` (`all`), `right` a subquery (1064 otherwise).
    pub(super) fn quantified(
        &mut self,
        left: &ast::Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
        all: bool,
    ) -> DbResult<Expr> {
        use ast::BinaryOperator as B;
        let ast::Expr::Subquery(q) = right else {
            return Err(DbError::syntax(right));
        };
        let op = match op {
            B::Eq => BinOp::Eq,
            B::NotEq => BinOp::Ne,
            B::Lt => BinOp::Lt,
            B::LtEq => BinOp::Le,
            B::Gt => BinOp::Gt,
            B::GtEq => BinOp::Ge,
            other => return Err(DbError::syntax(other)),
        };
        match (op, all) {
            (BinOp::Eq, false) => return self.in_subquery(left, q, false),
            (BinOp::Ne, true) => return self.in_subquery(left, q, true),
            _ if matches!(left, ast::Expr::Tuple(_)) => return Err(one_column_expected()),
            _ => {}
        }
        let a = self.compile(left)?;
        let coll = a.text_collation(self.scope).unwrap_or_default();
        let rows = match self.run(q)? {
            SubqueryRun::Rows(rows) => rows,
            SubqueryRun::Correlated { read, env } => {
                let numeric = Some(Box::new(self.number(a.clone())));
                let kind = SubKind::Quantified {
                    item: a,
                    numeric,
                    op,
                    all,
                    coll,
                };
                return Ok(self.correlated(q, kind, read, env));
            }
        };
        let mut values = Vec::with_capacity(rows.len());
        for r in rows {
            let [v] = <[Value; 1]>::try_from(r).map_err(|_| one_column_expected())?;
            values.push(Expr::Lit(v));
        }
        let left = self.number_if_all(a, &values);
        Ok(Expr::Quantified(Box::new(Quantified {
            left,
            op,
            all,
            values,
            coll,
        })))
    }
}
