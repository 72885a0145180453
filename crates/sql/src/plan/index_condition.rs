//! Index condition pushdown (MariaDB's `Using index condition`): while a secondary index is
//! read in a range (or by leading equalities) and the index does not cover the query, the
//! conditions that read only columns the index entries give back are checked on each entry,
//! and the row is fetched from the primary tree only for entries that pass.
//!
//! Owns: [`Pushed`] (the pushed condition of one table read and how many conditions are left
//! for the rows) and [`plan`], which sets it on each source as MariaDB 10.11 would:
//! * only with the `optimizer_switch` flag `index_condition_pushdown` on (the default);
//! * only for a read of a secondary index by ranges or equalities that is not covering and not
//!   in descending key order (MariaDB does not push into a reverse scan);
//! * a conjunct is pushed when every column of this table it reads is given back by the index
//!   entries (index_entry.rs), it reads no later table and calls nothing non-deterministic;
//! * an equality the key lookup already guarantees on a column that is not a string (`i = 5`
//!   read by `ref`) is neither pushed nor left over: MariaDB drops it, as Betula's range does.
//!   String equalities are kept (collations and padding make the key lookup inexact).
//!
//! Invariants: the pushed conjuncts are also in the WHERE / ON clause, which is checked again on
//! every row (pushing only skips rows early, it never adds one); EXPLAIN shows
//! `Using index condition` exactly when a condition is pushed (explain.rs).

use crate::catalog::index_entry::covers;
use crate::context::optimizer_switch;
use crate::context::Context;
use crate::expr::{BinOp, Expr};
use crate::plan::access::conjuncts;
use crate::plan::from::{From, SrcKind};

/// The condition checked on the index entries of one table read.
#[derive(Clone, Debug, PartialEq)]
pub struct Pushed {
    /// The pushed conjuncts ANDed, over the flat row (earlier tables' columns and this table's).
    pub cond: Expr,
    /// Where this table's columns start in the flat row.
    pub offset: usize,
    /// Conjuncts of this table left to check on the rows (EXPLAIN's `Using where`).
    pub left: usize,
}

/// Functions whose value may change from one call to the next: never evaluated twice per row.
const VOLATILE: &[&str] = &[
    "rand",
    "uuid",
    "uuid_short",
    "sleep",
    "benchmark",
    "get_lock",
    "release_lock",
    "last_insert_id",
    "row_count",
    "found_rows",
];

fn volatile(e: &Expr) -> bool {
    match e {
        Expr::Func(name, args) => {
            VOLATILE.iter().any(|v| name.eq_ignore_ascii_case(v)) || args.iter().any(volatile)
        }
        Expr::Rand(..)
        | Expr::Sleep(..)
        | Expr::Subquery(_)
        | Expr::UserVar(_)
        | Expr::SetUserVar(..) => true,
        Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) | Expr::Agg(_) | Expr::Win(_) => false,
        Expr::Unary(_, a)
        | Expr::IsNull(a, _)
        | Expr::IsTrue(a, _, _)
        | Expr::Cast(a, _)
        | Expr::Member(a, _, _)
        | Expr::InZone(a, _, _) => volatile(a),
        Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
            volatile(a) || volatile(b)
        }
        Expr::InList(a, l, _, _) => volatile(a) || l.iter().any(volatile),
        Expr::Regexp(r) => r.args.iter().any(volatile),
        Expr::Json(j) => j.args.iter().any(volatile),
        Expr::Quantified(q) => q.operands().any(volatile),
        Expr::Between(a, b, c, _, _) => volatile(a) || volatile(b) || volatile(c),
        Expr::Case(o, w, e, _) => {
            o.as_deref().is_some_and(volatile)
                || w.iter().any(|(a, b)| volatile(a) || volatile(b))
                || e.as_deref().is_some_and(volatile)
        }
    }
}

/// Sets [`crate::plan::access::Access::pushed`] on every source of `from` where MariaDB would push
/// conditions. `where_conj` are the WHERE conjuncts; call after the access paths, their key
/// order and the columns each table must give are final.
pub fn plan(cx: &Context, from: &mut From, where_conj: &[Expr]) {
    let on = optimizer_switch::enabled(cx, "index_condition_pushdown");
    let mut all_inner = true;
    for s in &mut from.sources {
        all_inner &= !s.left;
        s.access.pushed = None;
        let SrcKind::Table(t) = &s.kind else { continue };
        let a = &s.access;
        let Some(ix) = a.index else { continue };
        if !on || a.is_full_scan() || s.reverse || covers(t, ix, &s.needed) {
            continue;
        }
        let mut conj = Vec::new();
        if let Some(c) = &s.on_c {
            conjuncts(c, &mut conj);
        }
        if all_inner {
            conj.extend(where_conj.iter().cloned());
        }
        let (offset, end) = (s.offset, s.offset + s.ncols);
        let key_cols = a.key_cols(t);
        let eq_cols = &key_cols[..a.eq.len().min(key_cols.len())];
        let mut pushed: Vec<Expr> = Vec::new();
        let mut left = 0;
        for e in conj {
            let (mut here, mut later) = (false, false);
            let mut needed = vec![false; t.columns.len()];
            e.visit_cols(&mut |c| {
                here |= c >= offset && c < end;
                later |= c >= end;
                if c >= offset && c < end {
                    needed[c - offset] = true;
                }
            });
            if !here || later {
                continue;
            }
            // `int_col = value` read by the key: guaranteed, MariaDB drops it.
            let guaranteed = match &e {
                Expr::Binary(BinOp::Eq, x, y, _) => {
                    matches!((&**x, &**y), (Expr::Col(c), _) | (_, Expr::Col(c))
                        if *c >= offset && *c < end
                            && eq_cols.contains(&(*c - offset))
                            && !t.columns[*c - offset].sql_type.is_text()
                            && !t.columns[*c - offset].sql_type.is_binary())
                }
                _ => false,
            };
            if guaranteed {
                continue;
            }
            if !e.has_agg() && !volatile(&e) && covers(t, ix, &needed) {
                pushed.push(e);
            } else {
                left += 1;
            }
        }
        let Some(first) = pushed.pop() else { continue };
        let cond = pushed.into_iter().rev().fold(first, |acc, e| {
            Expr::Binary(BinOp::And, Box::new(e), Box::new(acc), Default::default())
        });
        s.access.pushed = Some(Box::new(Pushed { cond, offset, left }));
    }
}
