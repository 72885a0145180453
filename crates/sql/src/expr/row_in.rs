//! Row comparisons with a set: `(a, b) IN (SELECT x, y ...)` and `(a, b) IN ((1, 2), (3, 4))`,
//! compiled (the subquery already evaluated to
//! rows, as every uncorrelated subquery is) into `OR` over the rows of `AND` over the columns'
//! equalities, which is SQL's definition of a row comparison and keeps its NULL logic: a NULL
//! among the compared values gives NULL unless another column already differs.
//!
//! Invariant: the OR tree is balanced, so its depth grows with the logarithm of the row count
//! (evaluation recurses on it); every row must have as many columns as the left side (1241).

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{BinOp, Expr, UnOp};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// `(items) [NOT] IN (rows)`; `colls[i]` compares column i.
pub fn row_in(
    items: Vec<Expr>,
    colls: Vec<Collation>,
    rows: Vec<Vec<Value>>,
    negated: bool,
) -> DbResult<Expr> {
    let rows = rows
        .into_iter()
        .map(|r| r.into_iter().map(Expr::Lit).collect())
        .collect();
    row_in_exprs(items, colls, rows, negated)
}

/// `(items) [NOT] IN ((e, ...), ...)`: [`row_in`] over rows of expressions (a row IN list).
pub fn row_in_exprs(
    items: Vec<Expr>,
    colls: Vec<Collation>,
    rows: Vec<Vec<Expr>>,
    negated: bool,
) -> DbResult<Expr> {
    let n = items.len();
    let mut ors = Vec::with_capacity(rows.len());
    for r in rows {
        if r.len() != n {
            return Err(DbError::new(
                ErrorCode::OperandColumns,
                format!("Operand should contain {n} column(s)"),
            ));
        }
        let eqs = items
            .iter()
            .zip(r)
            .zip(&colls)
            .map(|((a, v), c)| Expr::Binary(BinOp::Eq, Box::new(a.clone()), Box::new(v), *c))
            .collect();
        ors.push(balanced(BinOp::And, eqs));
    }
    let e = if ors.is_empty() {
        Expr::Lit(Value::Int(0))
    } else {
        balanced(BinOp::Or, ors)
    };
    Ok(if negated {
        Expr::Unary(UnOp::Not, Box::new(e))
    } else {
        e
    })
}

/// `op` over the non-empty `v`, as a balanced tree.
fn balanced(op: BinOp, mut v: Vec<Expr>) -> Expr {
    if v.len() == 1 {
        return v.remove(0);
    }
    let right = v.split_off(v.len() / 2);
    Expr::Binary(
        op,
        Box::new(balanced(op, v)),
        Box::new(balanced(op, right)),
        Collation::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::eval;
    use crate::expr::eval::EvalCtx;

    fn run(items: &[Value], rows: Vec<Vec<Value>>, negated: bool) -> Value {
        let items = items.iter().cloned().map(Expr::Lit).collect::<Vec<_>>();
        let colls = vec![Collation::default(); items.len()];
        let e = row_in(items, colls, rows, negated).unwrap();
        eval(&e, &EvalCtx::row(&[])).unwrap()
    }

    #[test]
    fn row_in_follows_sql_row_comparison() {
        let i = |v: i64| Value::Int(v);
        let rows = vec![vec![i(1), i(2)], vec![i(3), i(4)], vec![i(5), i(6)]];
        assert_eq!(run(&[i(3), i(4)], rows.clone(), false), i(1));
        assert_eq!(run(&[i(3), i(5)], rows.clone(), false), i(0));
        assert_eq!(run(&[i(3), i(5)], rows.clone(), true), i(1));
        // (NULL, 4): unknown against (3, 4), false against the others → NULL.
        assert_eq!(run(&[Value::Null, i(4)], rows.clone(), false), Value::Null);
        assert_eq!(run(&[i(1)], vec![], false), i(0));
        let e = row_in(
            vec![Expr::Lit(i(1))],
            vec![Collation::default()],
            rows,
            false,
        );
        assert_eq!(e.unwrap_err().code, ErrorCode::OperandColumns);
    }
}
