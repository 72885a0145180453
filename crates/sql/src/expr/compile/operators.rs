//! Operators: unary (`-`, `+`, NOT, `~`), binary (arithmetic, comparison, logic, bits), date
//! arithmetic (`d ± INTERVAL n unit`, `INTERVAL n unit + d`), and the IS tests (IS [NOT] NULL,
//! TRUE, FALSE, UNKNOWN, DISTINCT FROM).
//!
//! Invariants: `-` of a number literal folds into the literal (so `-9223372036854775808` is a
//! BIGINT, not an overflow); a comparison carries the collation of the text column it compares;
//! `a IS [NOT] DISTINCT FROM b` is `[NOT] (a <=> b)`; an ENUM/SET column is read as its member
//! number by arithmetic, bit and logic operators and by a comparison with a number.

use sqlparser::ast::{self, BinaryOperator, UnaryOperator};

use super::compound_call::compound_interval_call;
use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{BinOp, Expr, IntervalUnit, UnOp};
use crate::types::collation::Collation;

impl Compiler<'_> {
    pub(super) fn unary(&mut self, op: &UnaryOperator, expr: &ast::Expr) -> DbResult<Expr> {
        let a = self.sub(expr)?;
        // `-0x41`, `~b'1'`, `NOT 0x00`: a hybrid literal is its number here (hybrid.rs).
        let a = match (op, self.hybrid_number(expr)) {
            (UnaryOperator::Plus, _) | (_, None) => a,
            (_, Some(n)) => Box::new(Expr::Lit(n)),
        };
        Ok(match op {
            UnaryOperator::Minus => {
                // Fold negative literals (so `-9223372036854775808` fits).
                if let Expr::Lit(v) = &*a {
                    if let Some(n) = crate::expr::eval::negate_literal(v) {
                        return Ok(Expr::Lit(n));
                    }
                }
                Expr::Unary(UnOp::Neg, Box::new(self.number(*a)))
            }
            UnaryOperator::Plus => *a,
            UnaryOperator::Not | UnaryOperator::BangNot => {
                Expr::Unary(UnOp::Not, Box::new(self.number(*a)))
            }
            UnaryOperator::BitwiseNot => Expr::Unary(UnOp::BitNot, Box::new(self.number(*a))),
            other => return Err(DbError::unsupported(format!("operator {other}"))),
        })
    }

    pub(super) fn binary(
        &mut self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> DbResult<Expr> {
        // `date + INTERVAL n unit`, `date - INTERVAL n unit`, `INTERVAL n unit + date`.
        let sub = matches!(op, BinaryOperator::Minus);
        if sub || matches!(op, BinaryOperator::Plus) {
            if let Some(iv) = interval_operand(right) {
                return self.interval_arithmetic(left, iv?, sub);
            }
            if let Some(iv) = interval_operand(left).filter(|_| !sub) {
                return self.interval_arithmetic(right, iv?, false);
            }
        }
        if matches!(op, BinaryOperator::Assignment) {
            return self.user_var_assignment(left, right);
        }
        let a = self.compile(left)?;
        let b = self.compile(right)?;
        let coll = self.col_collation(&a, &b)?;
        let op = binop(op)?;
        let (a, b) = self.operands(op, a, b);
        let (a, b) = self.hybrid_operands(op, (left, right), a, b);
        let (a, b) = if op.is_comparison() {
            super::utc_operands(a, b)
        } else {
            (a, b)
        };
        let e = Expr::Binary(op, Box::new(a), Box::new(b), coll);
        Ok(super::division::precise(self.scope, e))
    }

    /// The operands of `op` as MariaDB reads them: an ENUM/SET column is a number for arithmetic,
    /// bit and logic operators, and in a comparison with a number (`k = 2`); compared with text
    /// (`k = 'b'`) or with another ENUM it stays text.
    fn operands(&self, op: BinOp, a: Expr, b: Expr) -> (Expr, Expr) {
        if !op.is_comparison() {
            return (self.number(a), self.number(b));
        }
        let (a_number, b_number) = (self.scope.gives_number(&a), self.scope.gives_number(&b));
        let a = if b_number { self.number(a) } else { a };
        let b = if a_number { self.number(b) } else { b };
        (a, b)
    }

    /// A hybrid literal operand (`0x41`, `b'1'`: hybrid.rs) as its number where MariaDB reads a
    /// number: under an arithmetic, bit or logic operator, and in a comparison with a number.
    fn hybrid_operands(
        &self,
        op: BinOp,
        (left, right): (&ast::Expr, &ast::Expr),
        a: Expr,
        b: Expr,
    ) -> (Expr, Expr) {
        let a_numeric = !op.is_comparison() || self.scope.gives_number(&b);
        let b_numeric = !op.is_comparison() || self.scope.gives_number(&a);
        let a = match self.hybrid_number(left) {
            Some(n) if a_numeric => Expr::Lit(n),
            _ => a,
        };
        let b = match self.hybrid_number(right) {
            Some(n) if b_numeric => Expr::Lit(n),
            _ => b,
        };
        (a, b)
    }

    fn interval_arithmetic(
        &mut self,
        date: &ast::Expr,
        (unit, amount): (IntervalUnit, &ast::Expr),
        sub: bool,
    ) -> DbResult<Expr> {
        Ok(Expr::DateAdd(
            Box::new(self.compile(date)?),
            Box::new(self.compile(amount)?),
            unit,
            sub,
        ))
    }

    /// IS [NOT] NULL / TRUE / FALSE / UNKNOWN / DISTINCT FROM (`x IS UNKNOWN` is whether the
    /// truth value of `x` is NULL, which it is exactly when `x` is).
    pub(super) fn is_test(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        Ok(match e {
            E::IsNull(a) => Expr::IsNull(self.sub(a)?, false),
            E::IsNotNull(a) => Expr::IsNull(self.sub(a)?, true),
            E::IsTrue(a) => Expr::IsTrue(self.truth_operand(a)?, true, false),
            E::IsNotTrue(a) => Expr::IsTrue(self.truth_operand(a)?, true, true),
            E::IsFalse(a) => Expr::IsTrue(self.truth_operand(a)?, false, false),
            E::IsNotFalse(a) => Expr::IsTrue(self.truth_operand(a)?, false, true),
            E::IsUnknown(a) => Expr::IsNull(self.truth_operand(a)?, false),
            E::IsNotUnknown(a) => Expr::IsNull(self.truth_operand(a)?, true),
            E::IsDistinctFrom(a, b) => Expr::Unary(
                UnOp::Not,
                Box::new(Expr::Binary(
                    BinOp::NullSafeEq,
                    self.sub(a)?,
                    self.sub(b)?,
                    Collation::default(),
                )),
            ),
            E::IsNotDistinctFrom(a, b) => Expr::Binary(
                BinOp::NullSafeEq,
                self.sub(a)?,
                self.sub(b)?,
                Collation::default(),
            ),
            other => return Err(DbError::unsupported(format!("expression {other}"))),
        })
    }
}

impl Compiler<'_> {
    fn truth_operand(&mut self, a: &ast::Expr) -> DbResult<Box<Expr>> {
        let a = self.compile(a)?;
        Ok(Box::new(self.number(a)))
    }
}

/// The unit and amount of an interval operand: `INTERVAL n unit` (SECOND without a unit) or a
/// compound unit's interval as the parser rewrote it (parser/mariadb_forms.rs).
pub(super) fn interval_operand(e: &ast::Expr) -> Option<DbResult<(IntervalUnit, &ast::Expr)>> {
    match e {
        ast::Expr::Interval(iv) => Some(
            iv.leading_field
                .as_ref()
                .map_or(Ok(IntervalUnit::Second), interval_unit)
                .map(|u| (u, iv.value.as_ref())),
        ),
        e => compound_interval_call(e).map(Ok),
    }
}

pub fn interval_unit(f: &ast::DateTimeField) -> DbResult<IntervalUnit> {
    use ast::DateTimeField as D;
    Ok(match f {
        D::Microsecond | D::Microseconds => IntervalUnit::Microsecond,
        D::Second | D::Seconds => IntervalUnit::Second,
        D::Minute | D::Minutes => IntervalUnit::Minute,
        D::Hour | D::Hours => IntervalUnit::Hour,
        D::Day | D::Days => IntervalUnit::Day,
        D::Week(_) | D::Weeks => IntervalUnit::Week,
        D::Month | D::Months => IntervalUnit::Month,
        D::Quarter => IntervalUnit::Quarter,
        D::Year | D::Years => IntervalUnit::Year,
        other => return Err(DbError::unsupported(format!("INTERVAL unit {other}"))),
    })
}

fn binop(op: &BinaryOperator) -> DbResult<BinOp> {
    use BinaryOperator as B;
    Ok(match op {
        B::Plus => BinOp::Add,
        B::Minus => BinOp::Sub,
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::MyIntegerDivide | B::DuckIntegerDivide => BinOp::IntDiv,
        B::Modulo => BinOp::Mod,
        B::Eq => BinOp::Eq,
        B::Spaceship => BinOp::NullSafeEq,
        B::NotEq => BinOp::Ne,
        B::Lt => BinOp::Lt,
        B::LtEq => BinOp::Le,
        B::Gt => BinOp::Gt,
        B::GtEq => BinOp::Ge,
        B::And => BinOp::And,
        // `||`: OR, as the dialect reads it (expr/dialect.rs).
        B::Or | B::StringConcat => BinOp::Or,
        B::Xor => BinOp::Xor,
        B::BitwiseAnd => BinOp::BitAnd,
        B::BitwiseOr => BinOp::BitOr,
        B::BitwiseXor => BinOp::BitXor,
        B::PGBitwiseShiftLeft => BinOp::Shl,
        B::PGBitwiseShiftRight => BinOp::Shr,
        other => return Err(DbError::unsupported(format!("operator {other}"))),
    })
}
