//! information_schema.BETULA_ROLLUPS: one row per roll-up the user may see (design.md RUP1): its
//! name, its base table, its GROUP BY items and the aggregates it keeps, in column order (with
//! the COUNTs CREATE ROLLUP added, RUP2).

use std::sync::Arc;

use super::{names, t, ViewRows};
use crate::catalog::TableDef;

/// The view's columns and rows.
pub(super) fn rollups_view(tables: Vec<Arc<TableDef>>) -> ViewRows {
    let cols = names(&[
        "TABLE_SCHEMA",
        "TABLE_NAME",
        "BASE_TABLE",
        "GROUP_BY",
        "AGGREGATES",
    ]);
    let rows = tables
        .iter()
        .filter_map(|tb| tb.rollup.as_ref().map(|r| (tb, r)))
        .map(|(tb, r)| {
            vec![
                t(tb.db.clone()),
                t(tb.name.clone()),
                t(r.base.clone()),
                t(r.groups_sql()),
                t(r.aggs_sql()),
            ]
        })
        .collect();
    (cols, rows)
}
