//! Quantified comparisons with a subquery's rows: `x op ANY (SELECT ...)` (`SOME` is its
//! synonym) and `x op ALL (SELECT ...)` for `= <> != < <= > >=`, as a [`Quantified`] node (in a
//! tree as `Expr::Quantified`) over the rows of an uncorrelated subquery, or built per row from
//! a correlated one's (correlated.rs).
//!
//! SQL's (and MariaDB's) NULL logic, `x op v` being one comparison:
//! * ANY: 1 if some `x op v` is true; else NULL if some is unknown (a NULL `x` or `v`); else 0.
//!   Over no row it is 0, even for a NULL `x`.
//! * ALL: 0 if some `x op v` is false; else NULL if some is unknown; else 1. Over no row it is
//!   1, even for a NULL `x`.
//!
//! Invariant: `x` is evaluated once per row, however many values it is compared with. (`= ANY`
//! and `<> ALL` are compiled as `IN` and `NOT IN`, which mean the same.)

use crate::error::db_error::DbResult;
use crate::expr::eval::{comparison, eval, truth, EvalCtx};
use crate::expr::{BinOp, Expr};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// `left op ANY|ALL (values)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantified {
    pub left: Expr,
    /// One of `= <> < <= > >=`.
    pub op: BinOp,
    /// ALL (else ANY).
    pub all: bool,
    pub values: Vec<Expr>,
    /// The collation text comparisons use.
    pub coll: Collation,
}

impl Quantified {
    /// The comparison's value on the row of `cx`.
    pub fn eval(&self, cx: &EvalCtx<'_>) -> DbResult<Value> {
        if self.values.is_empty() {
            return Ok(Value::Int(self.all as i64));
        }
        let x = eval(&self.left, cx)?;
        let mut unknown = false;
        for v in &self.values {
            let v = eval(v, cx)?;
            match truth(&comparison(self.op, &x, &v, self.coll)) {
                // The value that decides: a true one for ANY, a false one for ALL.
                Some(b) if b != self.all => return Ok(Value::Int(b as i64)),
                Some(_) => {}
                None => unknown = true,
            }
        }
        Ok(match unknown {
            true => Value::Null,
            false => Value::Int(self.all as i64),
        })
    }

    /// Calls `f` on the expressions it holds.
    pub fn operands(&self) -> impl Iterator<Item = &Expr> {
        std::iter::once(&self.left).chain(&self.values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(x: Option<i64>, op: BinOp, all: bool, vals: &[Option<i64>]) -> Value {
        let lit = |v: &Option<i64>| Expr::Lit(v.map_or(Value::Null, Value::Int));
        let q = Quantified {
            left: lit(&x),
            op,
            all,
            values: vals.iter().map(lit).collect(),
            coll: Collation::default(),
        };
        q.eval(&EvalCtx::row(&[])).unwrap()
    }

    #[test]
    fn any_and_all_follow_sql_null_logic() {
        let (one, zero, null) = (Value::Int(1), Value::Int(0), Value::Null);
        assert_eq!(q(None, BinOp::Gt, true, &[]), one);
        assert_eq!(q(None, BinOp::Gt, false, &[]), zero);
        assert_eq!(q(Some(5), BinOp::Gt, true, &[Some(1), None]), null);
        assert_eq!(q(Some(5), BinOp::Gt, true, &[Some(7), None]), zero);
        assert_eq!(q(Some(5), BinOp::Gt, false, &[Some(7), None]), null);
        assert_eq!(q(Some(5), BinOp::Gt, false, &[Some(1), None]), one);
        assert_eq!(q(Some(5), BinOp::Le, true, &[Some(5), Some(9)]), one);
        assert_eq!(q(None, BinOp::Ne, false, &[Some(1)]), null);
    }
}
