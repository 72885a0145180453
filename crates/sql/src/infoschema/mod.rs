//! information_schema views (SCHEMATA, TABLES, COLUMNS, STATISTICS, ENGINES, PROCESSLIST,
//! VIEWS, ROUTINES, and empty TRIGGERS/...) built from the catalog on each query, plus the row
//! builders SHOW shares with them.
//!
//! Map: this file routes a view name to its family and keeps the helpers they share;
//! tables.rs (SCHEMATA, TABLES, SHOW TABLE STATUS), columns.rs (COLUMNS, SHOW COLUMNS),
//! statistics.rs (STATISTICS, SHOW INDEX), constraints.rs (KEY_COLUMN_USAGE,
//! TABLE_CONSTRAINTS, CHECK_CONSTRAINTS), foreign_keys.rs (REFERENTIAL_CONSTRAINTS), processlist.rs (PROCESSLIST, SHOW STATUS,
//! GLOBAL_STATUS, SESSION_STATUS), engines.rs (ENGINES),
//! charsets.rs (CHARACTER_SETS, COLLATIONS), partitions.rs (PARTITIONS), trees.rs (BETULA_TREES: each
//! table's trees with their sizes and message-buffer backlog), rollups.rs (BETULA_ROLLUPS: each
//! roll-up's base table and definition), variables.rs (GLOBAL_VARIABLES, SESSION_VARIABLES,
//! SYSTEM_VARIABLES), routines.rs (ROUTINES), views.rs (VIEWS, a view's TABLES and TABLE STATUS rows), empty.rs (the column lists of the views
//! that are always empty).
//!
//! Invariants: views are computed, never stored; a user sees the databases it may use (and
//! information_schema) and their tables only. Sizes: tables.rs; row counts and index
//! cardinality: estimates.rs.

mod charsets;
mod columns;
mod constraints;
mod empty;
mod engines;
mod estimates;
mod foreign_keys;
mod partitions;
mod processlist;
mod rollups;
mod routines;
mod statistics;
mod tables;
mod trees;
mod variables;
mod views;

use std::sync::Arc;

use crate::catalog::create_table::render_create;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::result::OutCol;
use crate::types::value::Value;
use crate::types::{IntWidth, SqlType};

pub use charsets::{charset_rows, collation_rows};
pub use columns::{column_key, column_rows, view_column_rows, ColRow};
pub use engines::engines;
pub use estimates::{key_cardinality, part_rows, row_count};
pub use processlist::{processlist, status};
pub use statistics::index_rows;
pub use tables::table_status;
pub use trees::{tree_infos, TreeInfo};

/// The columns and rows of a view (or of a SHOW statement that shares its rows).
pub type ViewRows = (Vec<OutCol>, Vec<Vec<Value>>);

fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}
fn vc(name: &str) -> OutCol {
    OutCol::named(name, Some(SqlType::VarChar { len: 256 }))
}
fn ic(name: &str) -> OutCol {
    OutCol::named(
        name,
        Some(SqlType::Int {
            width: IntWidth::Big,
            unsigned: true,
        }),
    )
}
/// Text columns named `ns`.
fn names(ns: &[&str]) -> Vec<OutCol> {
    ns.iter().map(|n| vc(n)).collect()
}

pub fn table_names(cx: &Context, db: &str) -> Vec<String> {
    if db == "information_schema" {
        let mut names: Vec<String> = VIEWS
            .iter()
            .chain(empty::EMPTY_VIEWS.iter().map(|(n, _)| n))
            .map(|s| s.to_string())
            .collect();
        names.sort();
        return names;
    }
    let mut names: Vec<String> = cx
        .engine
        .catalog
        .tables(db)
        .iter()
        .map(|t| t.name.clone())
        .chain(cx.engine.catalog.views(db).iter().map(|v| v.name.clone()))
        .collect();
    names.sort();
    names
}

/// Views with rows (the computed ones); [`empty::EMPTY_VIEWS`] lists the rest.
const VIEWS: &[&str] = &[
    "BETULA_ROLLUPS",
    "BETULA_TREES",
    "CHARACTER_SETS",
    "CHECK_CONSTRAINTS",
    "COLLATIONS",
    "COLUMNS",
    "ENGINES",
    "GLOBAL_STATUS",
    "GLOBAL_VARIABLES",
    "KEY_COLUMN_USAGE",
    "PARTITIONS",
    "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS",
    "SCHEMATA",
    "SESSION_STATUS",
    "SESSION_VARIABLES",
    "STATISTICS",
    "SYSTEM_VARIABLES",
    "TABLES",
    "TABLE_CONSTRAINTS",
    "VIEWS",
];

/// The columns and rows of `information_schema.<name>`.
pub fn view(cx: &Context, name: &str) -> DbResult<ViewRows> {
    let up = name.to_ascii_uppercase();
    let visible = visible_databases(cx);
    let tables = || visible_tables(cx, &visible);
    Ok(match up.as_str() {
        "SCHEMATA" => tables::schemata_view(cx, &visible),
        "TABLES" => tables::tables_view(cx, &visible)?,
        "COLUMNS" => columns::columns_view(tables()),
        "STATISTICS" => statistics::statistics_view(cx, tables()),
        "ENGINES" => engines(),
        "PROCESSLIST" => processlist::processlist_view(cx),
        "KEY_COLUMN_USAGE" => constraints::key_column_usage_view(tables()),
        "TABLE_CONSTRAINTS" => constraints::table_constraints_view(tables()),
        "CHECK_CONSTRAINTS" => constraints::check_constraints_view(tables()),
        "REFERENTIAL_CONSTRAINTS" => foreign_keys::referential_constraints_view(cx, tables()),
        "CHARACTER_SETS" => charsets::character_sets_view(),
        "PARTITIONS" => partitions::partitions_view(cx, tables()),
        "BETULA_TREES" => trees::trees_view(cx, tables()),
        "BETULA_ROLLUPS" => rollups::rollups_view(tables()),
        "COLLATIONS" => charsets::collations_view(),
        "VIEWS" => views::views_view(cx, &visible),
        // Listed with the empty views (empty.rs has its columns), but with rows.
        "ROUTINES" => routines::routines_view(cx, &visible),
        "GLOBAL_STATUS" => processlist::status_view(cx, true),
        "SESSION_STATUS" => processlist::status_view(cx, false),
        "GLOBAL_VARIABLES" => variables::variables_view(cx, true),
        "SESSION_VARIABLES" => variables::variables_view(cx, false),
        "SYSTEM_VARIABLES" => variables::system_variables_view(cx),
        other => match empty::empty_view_columns(other) {
            Some(cols) => (names(cols), vec![]),
            None => return Err(DbError::no_table("information_schema", name)),
        },
    })
}

/// The databases the session's user may see: information_schema, then those it may use.
fn visible_databases(cx: &Context) -> Vec<String> {
    let mut v = vec!["information_schema".to_string()];
    v.extend(cx.engine.catalog.databases());
    let u = cx.account();
    v.into_iter()
        .filter(|d| u.as_ref().is_some_and(|u| u.may_use(d)))
        .collect()
}

/// The tables of the `visible` databases.
fn visible_tables(cx: &Context, visible: &[String]) -> Vec<Arc<TableDef>> {
    cx.engine
        .catalog
        .all_tables()
        .into_iter()
        .filter(|t| visible.contains(&t.db))
        .collect()
}

/// SHOW CREATE TABLE text (re-exported for the server's COM_FIELD_LIST defaults).
pub fn create_text(t: &TableDef) -> String {
    render_create(t)
}
