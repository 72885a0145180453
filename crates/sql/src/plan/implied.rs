//! Conjuncts of WHERE that a table's key range already applies exactly, so the rows read need
//! not be checked against them again ([`drop_implied`]).
//!
//! Invariant: a conjunct is dropped only when every row of the key range satisfies it and every
//! row outside fails it, whatever the row: `col op literal` (op one of = < <= > >=) on a NOT NULL
//! key column of integer, DATE or DATETIME type (not a prefix), the literal converting exactly
//! to the column's type (access.rs `exact`), and the key range built from that very conjunct
//! (equality, lower or upper bound of the access path). Anything else stays in the filter.

use crate::catalog::TableDef;
use crate::expr::{BinOp, Expr};
use crate::plan::access::{conjuncts, exact, flip, Access};
use crate::plan::from::{From, SrcKind};
use crate::types::value::Value;
use crate::types::SqlType;

/// The filter of a single-table SELECT without the conjuncts its key range applies exactly
/// (`None` when none is left); `filter` unchanged otherwise.
pub fn drop_implied(from: &From, filter: Option<Expr>) -> Option<Expr> {
    let f = filter?;
    let [s] = from.sources.as_slice() else {
        return Some(f);
    };
    let SrcKind::Table(t) = &s.kind else {
        return Some(f);
    };
    if s.left || s.on_c.is_some() {
        return Some(f);
    }
    let mut conj = Vec::new();
    conjuncts(&f, &mut conj);
    let before = conj.len();
    conj.retain(|e| !applied_exactly(t, s.offset, &s.access, e));
    if conj.len() == before {
        return Some(f);
    }
    conj.into_iter()
        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b), Default::default()))
}

/// Whether the key range of `a` applies conjunct `e` exactly (module invariant).
fn applied_exactly(t: &TableDef, offset: usize, a: &Access, e: &Expr) -> bool {
    let Expr::Binary(op, l, r, _) = e else {
        return false;
    };
    let (col, lit, op) = match (&**l, &**r) {
        (Expr::Col(c), Expr::Lit(v)) => (*c, v, *op),
        (Expr::Lit(v), Expr::Col(c)) => (*c, v, flip(*op)),
        _ => return false,
    };
    let cols = a.key_cols(t);
    let Some(pos) = cols.iter().position(|&c| c + offset == col) else {
        return false;
    };
    // The bound taken from this very conjunct (another one on the column may have been taken),
    // with the same inclusiveness.
    let range_end = pos == a.eq.len() && a.in_list.is_none();
    let bound = match op {
        BinOp::Eq if pos < a.eq.len() => Some(&a.eq[pos]),
        BinOp::Gt | BinOp::Ge if range_end => a
            .lower
            .as_ref()
            .filter(|(_, incl)| *incl == (op == BinOp::Ge))
            .map(|(b, _)| b),
        BinOp::Lt | BinOp::Le if range_end => a
            .upper
            .as_ref()
            .filter(|(_, incl)| *incl == (op == BinOp::Le))
            .map(|(b, _)| b),
        _ => None,
    };
    if !matches!(bound, Some(Expr::Lit(b)) if b == lit) {
        return false;
    }
    let c = &t.columns[cols[pos]];
    let kc = t.key_column(a.index, pos);
    let kind_ok = match c.sql_type {
        SqlType::Int { .. } => matches!(lit, Value::Int(_) | Value::UInt(_)),
        SqlType::Date | SqlType::DateTime { .. } => {
            matches!(lit, Value::Date(_) | Value::DateTime(_) | Value::Text(_))
        }
        _ => false,
    };
    kind_ok && !c.nullable && kc.prefix.is_none() && exact(c, lit).is_some()
}
