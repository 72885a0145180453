//! Expressions in an upsert argument: the subset of [`Expr`] a blind upsert may run (layout
//! in mod.rs), each as a tag byte and its operands.
//!
//! Invariants: operators, casts and collations are numbered by their place in the tables below,
//! never reordered; decoding refuses nesting deeper than 200.

use super::values::{put_value, read_value};
use super::wire::{put_str, put_varint, read_str, Rd, COLLATIONS};
use crate::expr::{BinOp, CastTo, Expr, UnOp};

/// Binary operators by number.
const BINOPS: [BinOp; 21] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::IntDiv,
    BinOp::Mod,
    BinOp::Eq,
    BinOp::NullSafeEq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::Shl,
    BinOp::Shr,
];

/// CAST targets by number (6 and 7 kept every fraction digit before temporal casts took a
/// precision: they are DATETIME(6) and TIME(6)).
const CASTS: [CastTo; 20] = [
    CastTo::Signed,
    CastTo::Unsigned,
    CastTo::Char(None),
    CastTo::Binary(None),
    CastTo::Double,
    CastTo::Date,
    CastTo::DateTime(6),
    CastTo::Time(6),
    CastTo::DateTime(0),
    CastTo::DateTime(1),
    CastTo::DateTime(2),
    CastTo::DateTime(3),
    CastTo::DateTime(4),
    CastTo::DateTime(5),
    CastTo::Time(0),
    CastTo::Time(1),
    CastTo::Time(2),
    CastTo::Time(3),
    CastTo::Time(4),
    CastTo::Time(5),
];

/// A division the statement must report a zero divisor of (ERROR_FOR_DIVISION_BY_ZERO): not
/// deferred into a message, where it could only give NULL.
fn divides_with_diagnostics(op: BinOp) -> bool {
    use crate::expr::eval::div_zero::{current, OnDivZero};
    matches!(op, BinOp::Div | BinOp::IntDiv | BinOp::Mod) && current() != OnDivZero::Null
}

/// Encodes an expression of the supported subset; `None` if it uses anything else (or a
/// division whose zero divisor the statement reports).
pub fn encode_expr(out: &mut Vec<u8>, e: &Expr) -> Option<()> {
    match e {
        Expr::Lit(v) => {
            out.push(0);
            put_value(out, v)
        }
        Expr::Col(i) => {
            out.push(1);
            put_varint(out, *i as u64)
        }
        Expr::InsertValue(i) => {
            out.push(2);
            put_varint(out, *i as u64)
        }
        Expr::Unary(op, a) => {
            out.push(3);
            out.push(match op {
                UnOp::Neg => 0,
                UnOp::Not => 1,
                UnOp::BitNot => 2,
            });
            encode_expr(out, a)?
        }
        Expr::Binary(op, a, b, c) => {
            if divides_with_diagnostics(*op) {
                return None;
            }
            out.push(4);
            out.push(BINOPS.iter().position(|x| x == op)? as u8);
            out.push(COLLATIONS.iter().position(|x| x == c)? as u8);
            encode_expr(out, a)?;
            encode_expr(out, b)?
        }
        Expr::IsNull(a, neg) => {
            out.push(5);
            out.push(*neg as u8);
            encode_expr(out, a)?
        }
        Expr::Func(name, args) => {
            let divides = matches!(name.as_str(), "MOD" | crate::expr::functions::DIV_PRECISE);
            if divides && divides_with_diagnostics(BinOp::Div) {
                return None;
            }
            out.push(6);
            put_str(out, name);
            put_varint(out, args.len() as u64);
            for a in args {
                encode_expr(out, a)?;
            }
        }
        Expr::Case(op, whens, el, c) => {
            out.push(7);
            out.push(COLLATIONS.iter().position(|x| x == c)? as u8);
            out.push(op.is_some() as u8 | ((el.is_some() as u8) << 1));
            if let Some(o) = op {
                encode_expr(out, o)?;
            }
            put_varint(out, whens.len() as u64);
            for (w, r) in whens {
                encode_expr(out, w)?;
                encode_expr(out, r)?;
            }
            if let Some(e) = el {
                encode_expr(out, e)?;
            }
        }
        Expr::Cast(a, to) => {
            out.push(8);
            out.push(CASTS.iter().position(|x| x == to)? as u8);
            encode_expr(out, a)?
        }
        _ => return None,
    }
    Some(())
}

/// Reads an expression written by [`encode_expr`], `depth` levels down.
pub(super) fn read_expr(r: &mut Rd<'_>, depth: u32) -> Option<Expr> {
    if depth > 200 {
        return None;
    }
    let d = depth + 1;
    Some(match r.u8()? {
        0 => Expr::Lit(read_value(r)?),
        1 => Expr::Col(r.varint()? as usize),
        2 => Expr::InsertValue(r.varint()? as usize),
        3 => {
            let op = [UnOp::Neg, UnOp::Not, UnOp::BitNot]
                .get(r.u8()? as usize)
                .copied()?;
            Expr::Unary(op, Box::new(read_expr(r, d)?))
        }
        4 => {
            let op = *BINOPS.get(r.u8()? as usize)?;
            let c = *COLLATIONS.get(r.u8()? as usize)?;
            let a = read_expr(r, d)?;
            let b = read_expr(r, d)?;
            Expr::Binary(op, Box::new(a), Box::new(b), c)
        }
        5 => {
            let neg = r.u8()? != 0;
            Expr::IsNull(Box::new(read_expr(r, d)?), neg)
        }
        6 => {
            let name = read_str(r)?;
            let n = r.varint()? as usize;
            let mut args = Vec::new();
            for _ in 0..n {
                args.push(read_expr(r, d)?);
            }
            Expr::Func(name, args)
        }
        7 => {
            let c = *COLLATIONS.get(r.u8()? as usize)?;
            let flags = r.u8()?;
            let op = if flags & 1 != 0 {
                Some(Box::new(read_expr(r, d)?))
            } else {
                None
            };
            let n = r.varint()? as usize;
            let mut whens = Vec::new();
            for _ in 0..n {
                whens.push((read_expr(r, d)?, read_expr(r, d)?));
            }
            let el = if flags & 2 != 0 {
                Some(Box::new(read_expr(r, d)?))
            } else {
                None
            };
            Expr::Case(op, whens, el, c)
        }
        8 => {
            let to = *CASTS.get(r.u8()? as usize)?;
            Expr::Cast(Box::new(read_expr(r, d)?), to)
        }
        _ => return None,
    })
}
