//! Keys and CHECKs as constraints: information_schema.KEY_COLUMN_USAGE, TABLE_CONSTRAINTS and
//! CHECK_CONSTRAINTS.
//!
//! Invariant: the constraints are the primary key, UNIQUE indexes, CHECK constraints (a JSON
//! column's `json_valid(col)` among them) and FOREIGN KEYs, in that order (MariaDB's); a
//! column's CHECK is named after the column and has LEVEL `Column`; a foreign key's columns
//! carry their position and the referenced table and column.

use std::sync::Arc;

use super::{names, t, ViewRows};
use crate::catalog::TableDef;
use crate::types::value::Value;

/// information_schema.KEY_COLUMN_USAGE: one row per column of each constraint of `tables`.
pub(super) fn key_column_usage_view(tables: Vec<Arc<TableDef>>) -> ViewRows {
    let cols = names(&[
        "CONSTRAINT_CATALOG",
        "CONSTRAINT_SCHEMA",
        "CONSTRAINT_NAME",
        "TABLE_CATALOG",
        "TABLE_SCHEMA",
        "TABLE_NAME",
        "COLUMN_NAME",
        "ORDINAL_POSITION",
        "POSITION_IN_UNIQUE_CONSTRAINT",
        "REFERENCED_TABLE_SCHEMA",
        "REFERENCED_TABLE_NAME",
        "REFERENCED_COLUMN_NAME",
    ]);
    let mut rows = Vec::new();
    for td in tables {
        let mut keys: Vec<(&str, &[usize])> = Vec::new();
        if !td.pk.is_empty() {
            keys.push(("PRIMARY", &td.pk));
        }
        for ix in td.indexes.iter().filter(|i| i.unique) {
            keys.push((&ix.name, &ix.columns));
        }
        for (name, cs) in keys {
            for (p, &c) in cs.iter().enumerate() {
                rows.push(vec![
                    t("def"),
                    t(td.db.clone()),
                    t(name),
                    t("def"),
                    t(td.db.clone()),
                    t(td.name.clone()),
                    t(td.columns[c].name.clone()),
                    Value::Int(p as i64 + 1),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
            }
        }
        for fk in &td.foreign_keys {
            for (p, (c, r)) in fk.columns.iter().zip(&fk.ref_columns).enumerate() {
                rows.push(vec![
                    t("def"),
                    t(td.db.clone()),
                    t(fk.name.clone()),
                    t("def"),
                    t(td.db.clone()),
                    t(td.name.clone()),
                    t(c.clone()),
                    Value::Int(p as i64 + 1),
                    Value::Int(p as i64 + 1),
                    t(fk.ref_db.clone()),
                    t(fk.ref_table.clone()),
                    t(r.clone()),
                ]);
            }
        }
    }
    (cols, rows)
}

/// information_schema.TABLE_CONSTRAINTS: one row per constraint of `tables`.
pub(super) fn table_constraints_view(tables: Vec<Arc<TableDef>>) -> ViewRows {
    let cols = names(&[
        "CONSTRAINT_CATALOG",
        "CONSTRAINT_SCHEMA",
        "CONSTRAINT_NAME",
        "TABLE_SCHEMA",
        "TABLE_NAME",
        "CONSTRAINT_TYPE",
        "ENFORCED",
    ]);
    let mut rows = Vec::new();
    for td in tables {
        if !td.pk.is_empty() {
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t("PRIMARY"),
                t(td.db.clone()),
                t(td.name.clone()),
                t("PRIMARY KEY"),
                t("YES"),
            ]);
        }
        for ix in td.indexes.iter().filter(|i| i.unique) {
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t(ix.name.clone()),
                t(td.db.clone()),
                t(td.name.clone()),
                t("UNIQUE"),
                t("YES"),
            ]);
        }
        for c in &td.checks {
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t(c.name.clone()),
                t(td.db.clone()),
                t(td.name.clone()),
                t("CHECK"),
                t(if c.enforced { "YES" } else { "NO" }),
            ]);
        }
        for fk in &td.foreign_keys {
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t(fk.name.clone()),
                t(td.db.clone()),
                t(td.name.clone()),
                t("FOREIGN KEY"),
                t("YES"),
            ]);
        }
    }
    (cols, rows)
}

/// information_schema.CHECK_CONSTRAINTS: one row per CHECK constraint of `tables`.
pub(super) fn check_constraints_view(tables: Vec<Arc<TableDef>>) -> ViewRows {
    let cols = names(&[
        "CONSTRAINT_CATALOG",
        "CONSTRAINT_SCHEMA",
        "TABLE_NAME",
        "CONSTRAINT_NAME",
        "LEVEL",
        "CHECK_CLAUSE",
    ]);
    let mut rows = Vec::new();
    for td in tables {
        for c in &td.checks {
            let level = if c.column.is_some() {
                "Column"
            } else {
                "Table"
            };
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t(td.name.clone()),
                t(c.name.clone()),
                t(level),
                t(c.text.clone()),
            ]);
        }
    }
    (cols, rows)
}
