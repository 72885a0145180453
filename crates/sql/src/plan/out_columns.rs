//! The result metadata of a SELECT block's columns ([`crate::result::OutCol`]): a column item's
//! type, collation and length; an aggregate's or window function's; a computed item's temporal
//! type where MariaDB fixes it (item_type.rs), else its collation and fixed DOUBLE decimals.
//!
//! Invariant: the metadata comes from the plan alone, never from the rows (a client reads it
//! before the first row).

use super::select::Projection;
use crate::context::Context;
use crate::expr::decimals::fixed_double_decimals;
use crate::expr::window::WinCall;
use crate::expr::{AggFunc, AggSpec, Expr, Scope};
use crate::result::OutCol;
use crate::types::collation::Collation;
use crate::types::value::Value;

/// `collation_connection`: the collation of text literals and of computed text that takes no
/// collation from a column (MariaDB's coercible derivation).
pub(super) fn literal_collation(cx: &Context) -> Collation {
    match cx.vars.get("collation_connection") {
        Some(Value::Text(n)) => Collation::from_name(n).unwrap_or_default(),
        _ => Collation::default(),
    }
}

/// The result metadata of projection `p`; `literal` is the collation of text that takes none
/// from a column ([`literal_collation`]).
pub(super) fn column_meta(
    scope: &Scope,
    p: &Projection,
    aggs: &[AggSpec],
    wins: &[WinCall],
    literal: Collation,
) -> OutCol {
    match &p.expr {
        Expr::Win(i) => super::window::column_meta(scope, &p.name, &wins[*i]),
        e if e.col_index().is_some() => {
            let c = &scope.cols[e.col_index().unwrap_or_default()];
            OutCol {
                name: p.name.clone(),
                table: c.table.clone(),
                org_table: c.org_table.clone(),
                db: c.db.clone(),
                ty: c.ty,
                flags: c.flags,
                collation: c.collation,
                length: c.length,
                members: c.members.clone(),
                double_decimals: None,
            }
        }
        Expr::Agg(i) if matches!(aggs[*i].func, AggFunc::Count | AggFunc::CountStar) => {
            OutCol::named(
                &p.name,
                Some(crate::types::SqlType::Int {
                    width: crate::types::IntWidth::Big,
                    unsigned: false,
                }),
            )
        }
        Expr::Agg(i)
            if matches!(
                aggs[*i].func,
                AggFunc::Min | AggFunc::Max | AggFunc::First | AggFunc::Last
            ) =>
        {
            match aggs[*i].arg.first().and_then(Expr::col_index) {
                Some(c) => OutCol {
                    name: p.name.clone(),
                    ty: scope.cols[c].ty,
                    collation: scope.cols[c].collation,
                    length: scope.cols[c].length,
                    members: scope.cols[c].members.clone(),
                    ..Default::default()
                },
                None => OutCol {
                    double_decimals: fixed_double_decimals(scope, aggs, &p.expr),
                    ..OutCol::named(&p.name, None)
                },
            }
        }
        e => match super::item_type::temporal_item_type(scope, e) {
            Some(ty) => OutCol::named(&p.name, Some(ty)),
            None => OutCol {
                collation: e.text_collation(scope).unwrap_or(literal),
                double_decimals: fixed_double_decimals(scope, aggs, e),
                ..OutCol::named(&p.name, None)
            },
        },
    }
}
