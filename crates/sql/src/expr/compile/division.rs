//! DECIMAL division inside a longer arithmetic expression, as MariaDB computes it: the quotient
//! keeps more digits than it shows for the operators that use it, and the expression is rounded
//! to its own decimals where it ends (`1/3*3` is `1.0000`, `1/3+1/3+1/3` too, where rounding
//! each quotient to 4 decimals gives `0.9999`).
//!
//! [`precise`] rewrites an arithmetic node (`+ - * / %`) one of whose operands is a division or
//! such a rewritten node: every division in it becomes `__DIV_PRECISE` (functions/
//! decimal_quotient.rs) and the node is wrapped in `__DEC_ROUND(node, decimals)`, the decimals
//! MariaDB gives it (expr/decimals.rs); an enclosing arithmetic node takes the unrounded node
//! back out of the wrapper, so only the outermost one rounds. ROUND, TRUNCATE, FLOOR, CEIL and
//! CAST to DECIMAL read a quotient's inner digits too ([`unrounded`]: `ROUND(1/3, 8)` is
//! `0.33333333`, `FLOOR(2/3*3)` is 1).
//!
//! Invariant: a lone division (`a / b`) and any expression whose decimals are not fixed (a
//! DOUBLE, a string, a column of unknown type) are left as they were; so is the order of
//! evaluation.

use crate::expr::decimals::{decimals, ResultKind, NOT_FIXED};
use crate::expr::functions::{DEC_ROUND, DIV_PRECISE};
use crate::expr::{BinOp, Expr, Scope, UnOp};
use crate::types::value::Value;

/// `e` (a node just compiled) rewritten as the module doc says.
pub(super) fn precise(scope: &Scope, e: Expr) -> Expr {
    let Expr::Binary(op, a, b, c) = e else {
        return e;
    };
    let chained = matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
    );
    if !chained || !(inner(&a) || inner(&b)) {
        return Expr::Binary(op, a, b, c);
    }
    let node = Expr::Binary(op, a, b, c);
    let n = decimals(scope, &[], &node, ResultKind::Decimal);
    if n >= NOT_FIXED {
        return node;
    }
    let Expr::Binary(op, a, b, c) = node else {
        return node;
    };
    let (a, b) = (peel(*a), peel(*b));
    let body = if op == BinOp::Div {
        Expr::Func(DIV_PRECISE.into(), vec![a, b])
    } else {
        Expr::Binary(op, Box::new(a), Box::new(b), c)
    };
    Expr::Func(
        DEC_ROUND.into(),
        vec![body, Expr::Lit(Value::Int(i64::from(n)))],
    )
}

/// `e` as a function that reads a number's digits uses it (ROUND, TRUNCATE, FLOOR, CEIL, CAST
/// to DECIMAL): a division or rewritten node with its inner digits, unrounded; anything else
/// as it is.
pub(super) fn unrounded(e: Expr) -> Expr {
    if inner(&e) {
        peel(e)
    } else {
        e
    }
}

/// A division, a rewritten node, or the negation of one.
fn inner(e: &Expr) -> bool {
    match e {
        Expr::Binary(BinOp::Div, ..) => true,
        Expr::Func(name, _) => name == DEC_ROUND,
        Expr::Unary(UnOp::Neg, x) => inner(x),
        _ => false,
    }
}

/// An operand as the enclosing node uses it: a division precise, a rewritten node unrounded.
fn peel(e: Expr) -> Expr {
    match e {
        Expr::Binary(BinOp::Div, a, b, _) => Expr::Func(DIV_PRECISE.into(), vec![*a, *b]),
        Expr::Func(name, mut args) if name == DEC_ROUND && args.len() == 2 => args.swap_remove(0),
        Expr::Unary(UnOp::Neg, x) => Expr::Unary(UnOp::Neg, Box::new(peel(*x))),
        other => other,
    }
}
