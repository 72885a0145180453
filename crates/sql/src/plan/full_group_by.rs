//! `sql_mode` ONLY_FULL_GROUP_BY: the checks MariaDB makes on a grouped SELECT block.
//!
//! With GROUP BY, a select-list item that is not itself a GROUP BY item, not constant and not
//! only aggregates may read only columns that are plain GROUP BY items: otherwise 1055
//! `'db.t.c' isn't in GROUP BY` (MariaDB looks for no functional dependence, a primary key
//! included). Without GROUP BY, a block that aggregates anywhere may not read a column outside
//! an aggregate in its select list or ORDER BY: 1140. HAVING needs no check here: its names
//! outside aggregates only reach selected or grouped columns (expr/compile/having.rs).
//!
//! Invariant: only columns of tables are checked. A derived table's or view's column is not,
//! as MariaDB does not check a merged view's columns; Betula then shows the group's first row,
//! as without the mode.

use super::from::{From, SrcKind};
use super::select::Projection;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::compile::plain_column;
use crate::expr::fold::visit_nodes_but_outer_rows;
use crate::expr::Expr;

/// 1055 for the first select-list item of a GROUP BY block that reads a column outside the
/// GROUP BY list.
pub fn check_grouped_items(from: &From, items: &[Projection], group_by: &[Expr]) -> DbResult<()> {
    let grouped: Vec<usize> = group_by.iter().filter_map(plain_column).collect();
    for item in items {
        if group_by.contains(&item.expr) {
            continue;
        }
        if let Some(i) = first_checked_column(from, &item.expr, &grouped) {
            let c = &from.scope.cols[i];
            let name = [c.db.as_str(), c.table.as_str(), c.name.as_str()]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(".");
            return Err(DbError::new(
                ErrorCode::WrongFieldWithGroup,
                format!("'{name}' isn't in GROUP BY"),
            ));
        }
    }
    Ok(())
}

/// 1140 when a block without GROUP BY aggregates and also reads a column outside an aggregate
/// in its select list or ORDER BY.
pub fn check_ungrouped_mix<'e>(
    from: &From,
    items: impl IntoIterator<Item = &'e Expr>,
) -> DbResult<()> {
    for e in items {
        if first_checked_column(from, e, &[]).is_some() {
            return Err(DbError::new(
                ErrorCode::MixOfGroupFuncAndFields,
                "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is \
                 illegal if there is no GROUP BY clause",
            ));
        }
    }
    Ok(())
}

/// The first column of a table that `e` reads outside its aggregates and that is not in
/// `allowed`. A correlated subquery's reads of the enclosing row are not seen (MariaDB checks
/// them; Betula lets the subquery read the group's first row).
fn first_checked_column(from: &From, e: &Expr, allowed: &[usize]) -> Option<usize> {
    let mut found = None;
    visit_nodes_but_outer_rows(e, &mut |n| {
        if let Expr::Col(i) = n {
            if found.is_none() && !allowed.contains(i) && of_table(from, *i) {
                found = Some(*i);
            }
        }
    });
    found
}

/// Whether scope column `i` is a column of a table (or a sequence table), not of a derived
/// table, a view or computed rows.
fn of_table(from: &From, i: usize) -> bool {
    from.sources
        .iter()
        .find(|s| (s.offset..s.offset + s.ncols).contains(&i))
        .is_some_and(|s| matches!(s.kind, SrcKind::Table(_) | SrcKind::Sequence(_)))
}
