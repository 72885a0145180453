//! Constant folding of compiled expressions: a subexpression that reads no column, no aggregate and
//! no INSERT value is evaluated once when the statement is planned instead of once per row (e.g.
//! `ts >= '2024-01-01 10:00:00' - INTERVAL 1 HOUR` parses the text and adds the interval once).
//!
//! Invariants: folding never changes a result — session-dependent functions (NOW, DATABASE, ...)
//! are already literals after compilation, RAND is never folded (it is not
//! [`Expr::is_const`]), and a subexpression whose evaluation fails is left as it was, so its error
//! still surfaces where it did; so is a division by zero, whose warning is per evaluation.

use crate::expr::eval::div_zero::{self, OnDivZero};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Expr;

/// `e` with every foldable subexpression replaced by its value.
pub fn fold_constants(e: Expr) -> Expr {
    if !matches!(e, Expr::Lit(_)) && foldable(&e) {
        // A division by zero is left to warn (or fail) once per evaluation, as MariaDB does.
        let _zero = div_zero::scoped(OnDivZero::Fail);
        if let Ok(v) = eval(&e, &EvalCtx::row(&[])) {
            return Expr::Lit(v);
        }
        return e;
    }
    let f = |b: Box<Expr>| Box::new(fold_constants(*b));
    match e {
        Expr::Unary(op, a) => Expr::Unary(op, f(a)),
        Expr::Binary(op, a, b, c) => Expr::Binary(op, f(a), f(b), c),
        Expr::IsNull(a, n) => Expr::IsNull(f(a), n),
        Expr::IsTrue(a, x, y) => Expr::IsTrue(f(a), x, y),
        Expr::InList(a, l, n, c) => {
            Expr::InList(f(a), l.into_iter().map(fold_constants).collect(), n, c)
        }
        Expr::Between(a, lo, hi, n, c) => Expr::Between(f(a), f(lo), f(hi), n, c),
        Expr::Like(a, p, n, esc, c) => Expr::Like(f(a), f(p), n, esc, c),
        Expr::Cast(a, to) => Expr::Cast(f(a), to),
        Expr::DateAdd(a, b, unit, sub) => Expr::DateAdd(f(a), f(b), unit, sub),
        Expr::Func(name, args) => Expr::Func(name, args.into_iter().map(fold_constants).collect()),
        other => other,
    }
}

/// Reads nothing that varies per row.
fn foldable(e: &Expr) -> bool {
    let mut insert_value = false;
    visit_nodes(e, &mut |x| {
        insert_value |= matches!(x, Expr::InsertValue(_))
    });
    e.is_const() && !insert_value
}

/// Calls `f` on `e` and on each of its subexpressions.
pub fn visit_nodes(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    visit(e, f, true)
}

/// [`visit_nodes`], except that a correlated subquery's enclosing row (every column of its
/// scope, [`crate::expr::correlated::Correlated::outer`]) is not visited: only its operands.
pub fn visit_nodes_but_outer_rows(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    visit(e, f, false)
}

fn visit(e: &Expr, f: &mut dyn FnMut(&Expr), outer_rows: bool) {
    f(e);
    match e {
        Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) | Expr::Agg(_) | Expr::Win(_) => {}
        Expr::Unary(_, a)
        | Expr::IsNull(a, _)
        | Expr::IsTrue(a, _, _)
        | Expr::Cast(a, _)
        | Expr::Member(a, _, _)
        | Expr::InZone(a, _, _) => visit(a, f, outer_rows),
        Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
            visit(a, f, outer_rows);
            visit(b, f, outer_rows)
        }
        Expr::InList(a, l, _, _) => {
            visit(a, f, outer_rows);
            l.iter().for_each(|x| visit(x, f, outer_rows))
        }
        Expr::Between(a, b, c, _, _) => {
            visit(a, f, outer_rows);
            visit(b, f, outer_rows);
            visit(c, f, outer_rows)
        }
        Expr::Case(o, w, el, _) => {
            if let Some(o) = o {
                visit(o, f, outer_rows)
            }
            for (a, b) in w {
                visit(a, f, outer_rows);
                visit(b, f, outer_rows)
            }
            if let Some(el) = el {
                visit(el, f, outer_rows)
            }
        }
        Expr::Func(_, a) => a.iter().for_each(|x| visit(x, f, outer_rows)),
        Expr::Rand(a, _) => {
            if let Some(a) = a {
                visit(a, f, outer_rows)
            }
        }
        Expr::Sleep(a, _) | Expr::SetUserVar(a, _) => visit(a, f, outer_rows),
        Expr::UserVar(_) => {}
        Expr::Regexp(r) => r.args.iter().for_each(|x| visit(x, f, outer_rows)),
        Expr::Json(j) => j.args.iter().for_each(|x| visit(x, f, outer_rows)),
        Expr::Quantified(q) => q.operands().for_each(|x| visit(x, f, outer_rows)),
        Expr::Subquery(s) => {
            let outer = s.outer.iter().filter(|_| outer_rows);
            outer
                .chain(s.operands())
                .for_each(|x| visit(x, f, outer_rows))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::BinOp;
    use crate::types::value::Value;

    #[test]
    fn constant_operands_fold_and_column_reads_stay() {
        let c = crate::types::collation::Collation::default();
        let sum = Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Lit(Value::Int(2))),
            Box::new(Expr::Lit(Value::Int(3))),
            c,
        );
        let cmp = Expr::Binary(BinOp::Ge, Box::new(Expr::Col(0)), Box::new(sum), c);
        let folded = fold_constants(cmp);
        let Expr::Binary(BinOp::Ge, a, b, _) = &folded else {
            panic!("{folded:?}")
        };
        assert!(matches!(**a, Expr::Col(0)));
        assert!(matches!(**b, Expr::Lit(Value::Int(5))), "{b:?}");
        // The folded expression gives the same result on a row.
        assert_eq!(
            eval(&folded, &EvalCtx::row(&[Value::Int(7)])).unwrap(),
            Value::Int(1)
        );
        // An INSERT value is not a constant.
        let iv = Expr::Unary(crate::expr::UnOp::Neg, Box::new(Expr::InsertValue(0)));
        assert!(matches!(fold_constants(iv), Expr::Unary(..)));
    }

    #[test]
    fn rand_is_never_folded() {
        let c = crate::types::collation::Collation::default();
        let rand = |seed: Option<Expr>| {
            let rng = crate::expr::functions::Rng::for_seed_argument(true);
            Expr::Rand(seed.map(Box::new), rng)
        };
        let e = Expr::Binary(
            BinOp::Lt,
            Box::new(rand(Some(Expr::Lit(Value::Int(5))))),
            Box::new(Expr::Lit(Value::Double(0.5))),
            c,
        );
        assert!(!e.is_const());
        assert!(matches!(fold_constants(e), Expr::Binary(..)));
        assert!(!rand(None).is_const());
    }
}
