//! Predicates over a list or a range and conditional expressions: `x [NOT] IN (list)` (and a
//! row's `(a, b) [NOT] IN ((1, 2), ...)`),
//! `x [NOT] BETWEEN lo AND hi`, `x [NOT] LIKE pattern [ESCAPE c]`, and both forms of CASE.
//!
//! Invariants: the compared value's column collation is the one the predicate compares under
//! (CASE: the operand's); LIKE's escape character is `\` unless ESCAPE names another; an ENUM/SET
//! column compared with numbers only (IN, BETWEEN) compares its member number.

use sqlparser::ast;

use super::Compiler;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::Expr;
use crate::types::value::Value;

impl Compiler<'_> {
    pub(super) fn in_list(
        &mut self,
        expr: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
    ) -> DbResult<Expr> {
        if let ast::Expr::Tuple(items) = expr {
            return self.row_in_list(items, list, negated);
        }
        let a = self.compile(expr)?;
        let coll = a.text_collation(self.scope).unwrap_or_default();
        let l = list
            .iter()
            .map(|x| self.compile(x))
            .collect::<DbResult<Vec<_>>>()?;
        let a = self.operand_number_if_all(expr, a, &l);
        let (a, l) = super::utc_operand_list(a, l);
        Ok(Expr::InList(Box::new(a), l, negated, coll))
    }

    /// `(a, b) [NOT] IN ((1, 2), ...)`: every element a row (4078 otherwise) as wide as the left
    /// side (1241). A row nested in the left side, `(a, (b, c))`, needs a row as wide at its
    /// place in each element (1241); rows are equal when all their values are, so the nested
    /// values compare as the outer ones do (flattened in order).
    fn row_in_list(
        &mut self,
        items: &[ast::Expr],
        list: &[ast::Expr],
        negated: bool,
    ) -> DbResult<Expr> {
        let mut flat = Vec::with_capacity(items.len());
        flatten_row(items, &mut flat);
        let mut left = Vec::with_capacity(flat.len());
        let mut colls = Vec::with_capacity(flat.len());
        for it in flat {
            let c = self.compile(it)?;
            colls.push(c.text_collation(self.scope).unwrap_or_default());
            left.push(c);
        }
        let mut rows = Vec::with_capacity(list.len());
        for x in list {
            let ast::Expr::Tuple(row) = x else {
                return Err(DbError::new(
                    ErrorCode::IllegalParameterDataTypes2ForOperation,
                    "Illegal parameter data types row and int for operation 'in'",
                ));
            };
            let mut values = Vec::with_capacity(left.len());
            same_shape(items, row, &mut values)?;
            rows.push(
                values
                    .into_iter()
                    .map(|e| self.compile(e))
                    .collect::<DbResult<Vec<_>>>()?,
            );
        }
        crate::expr::row_in::row_in_exprs(left, colls, rows, negated)
    }

    pub(super) fn between(
        &mut self,
        expr: &ast::Expr,
        low: &ast::Expr,
        high: &ast::Expr,
        negated: bool,
    ) -> DbResult<Expr> {
        let a = self.compile(expr)?;
        let coll = a.text_collation(self.scope).unwrap_or_default();
        let (low, high) = (self.compile(low)?, self.compile(high)?);
        let a = self.operand_number_if_all(expr, a, &[low.clone(), high.clone()]);
        let (a, mut bounds) = super::utc_operand_list(a, vec![low, high]);
        let null = || Expr::Lit(crate::types::value::Value::Null);
        let (high, low) = (
            bounds.pop().unwrap_or_else(null),
            bounds.pop().unwrap_or_else(null),
        );
        Ok(Expr::Between(
            Box::new(a),
            Box::new(low),
            Box::new(high),
            negated,
            coll,
        ))
    }

    /// `a` as a number (an ENUM/SET column: its member number) when every value it is compared
    /// with is a number, as MariaDB compares `k IN (1, 2)` and `k BETWEEN 1 AND 2`.
    pub(super) fn number_if_all(&self, a: Expr, others: &[Expr]) -> Expr {
        if !others.is_empty() && others.iter().all(|o| self.scope.gives_number(o)) {
            self.number(a)
        } else {
            a
        }
    }

    /// [`Compiler::number_if_all`] for an operand written as `syntax`: a hybrid literal
    /// (`0x31 IN (49, 50)`: hybrid.rs) is its number when every other value is one.
    fn operand_number_if_all(&self, syntax: &ast::Expr, a: Expr, others: &[Expr]) -> Expr {
        let all = !others.is_empty() && others.iter().all(|o| self.scope.gives_number(o));
        match self.hybrid_number(syntax) {
            Some(n) if all => Expr::Lit(n),
            _ => self.number_if_all(a, others),
        }
    }

    pub(super) fn like(
        &mut self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        escape_char: Option<&ast::Expr>,
        negated: bool,
    ) -> DbResult<Expr> {
        let a = self.compile(expr)?;
        let p = self.compile(pattern)?;
        // A binary side (`LIKE BINARY 'A%'`) makes the match exact, as in a comparison.
        let coll = self.col_collation(&a, &p)?;
        let esc = match escape_char {
            Some(ast::Expr::Value(v)) => match &v.value {
                ast::Value::SingleQuotedString(s) => s.chars().next().unwrap_or('\\'),
                _ => '\\',
            },
            _ => '\\',
        };
        Ok(Expr::Like(Box::new(a), Box::new(p), negated, esc, coll))
    }

    pub(super) fn case(
        &mut self,
        operand: Option<&ast::Expr>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&ast::Expr>,
    ) -> DbResult<Expr> {
        let op = match operand {
            Some(o) => Some(self.sub(o)?),
            None => None,
        };
        let coll = op
            .as_ref()
            .and_then(|o| o.text_collation(self.scope))
            .unwrap_or_default();
        let mut whens = Vec::new();
        for c in conditions {
            whens.push((self.compile(&c.condition)?, self.compile(&c.result)?));
        }
        // `CASE v WHEN w ...` compares v with each w as `v = w` does: a JSON_EXTRACT or an
        // ENUM/SET column is read as a number when the other side gives one.
        let op = match op {
            Some(o) => {
                let whens_number = whens.iter().any(|(w, _)| self.scope.gives_number(w));
                if self.scope.gives_number(&o) {
                    for (w, _) in &mut whens {
                        *w = self.number(std::mem::replace(w, Expr::Lit(Value::Null)));
                    }
                }
                Some(if whens_number {
                    Box::new(self.number(*o))
                } else {
                    o
                })
            }
            None => None,
        };
        let el = match else_result {
            Some(e) => Some(self.sub(e)?),
            None => None,
        };
        Ok(Expr::Case(op, whens, el, coll))
    }
}

/// The values of a row, nested rows' values in their place.
fn flatten_row<'a>(items: &'a [ast::Expr], out: &mut Vec<&'a ast::Expr>) {
    for it in items {
        match it {
            ast::Expr::Tuple(inner) => flatten_row(inner, out),
            other => out.push(other),
        }
    }
}

/// The values of `row`, checked to have `shape`'s columns and nested rows (1241: MariaDB's
/// "Operand should contain N column(s)", N the width `row` needs where it differs).
fn same_shape<'a>(
    shape: &[ast::Expr],
    row: &'a [ast::Expr],
    out: &mut Vec<&'a ast::Expr>,
) -> DbResult<()> {
    let columns = |n: usize| {
        DbError::new(
            ErrorCode::OperandColumns,
            format!("Operand should contain {n} column(s)"),
        )
    };
    if shape.len() != row.len() {
        return Err(columns(shape.len()));
    }
    for (s, r) in shape.iter().zip(row) {
        match (s, r) {
            (ast::Expr::Tuple(si), ast::Expr::Tuple(ri)) => same_shape(si, ri, out)?,
            (ast::Expr::Tuple(si), _) => return Err(columns(si.len())),
            (_, ast::Expr::Tuple(_)) => return Err(columns(1)),
            (_, v) => out.push(v),
        }
    }
    Ok(())
}
