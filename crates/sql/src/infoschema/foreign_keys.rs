//! information_schema.REFERENTIAL_CONSTRAINTS: one row per FOREIGN KEY constraint
//! (catalog/foreign_key_def.rs).
//!
//! Invariant: UNIQUE_CONSTRAINT_NAME is the referenced table's key the constraint's lookups use
//! (`PRIMARY` or the index's name), NULL while the referenced table does not exist (created
//! under `foreign_key_checks = 0`); MATCH_OPTION is always NONE, as in MariaDB.

use std::sync::Arc;

use super::{names, t, ViewRows};
use crate::catalog::foreign_key_def::parent_key;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::types::value::Value;

pub(super) fn referential_constraints_view(cx: &Context, tables: Vec<Arc<TableDef>>) -> ViewRows {
    let cols = names(&[
        "CONSTRAINT_CATALOG",
        "CONSTRAINT_SCHEMA",
        "CONSTRAINT_NAME",
        "UNIQUE_CONSTRAINT_CATALOG",
        "UNIQUE_CONSTRAINT_SCHEMA",
        "UNIQUE_CONSTRAINT_NAME",
        "MATCH_OPTION",
        "UPDATE_RULE",
        "DELETE_RULE",
        "TABLE_NAME",
        "REFERENCED_TABLE_NAME",
    ]);
    let mut rows = Vec::new();
    for td in tables {
        for fk in &td.foreign_keys {
            let key = cx
                .engine
                .catalog
                .table(&fk.ref_db, &fk.ref_table)
                .and_then(|p| {
                    let refs: Option<Vec<usize>> =
                        fk.ref_columns.iter().map(|c| p.col_index(c)).collect();
                    match parent_key(&p, &refs?)? {
                        None => Some("PRIMARY".to_string()),
                        Some(i) => Some(p.indexes[i].name.clone()),
                    }
                });
            rows.push(vec![
                t("def"),
                t(td.db.clone()),
                t(fk.name.clone()),
                t("def"),
                t(fk.ref_db.clone()),
                key.map_or(Value::Null, t),
                t("NONE"),
                t(fk.on_update.text()),
                t(fk.on_delete.text()),
                t(td.name.clone()),
                t(fk.ref_table.clone()),
            ]);
        }
    }
    (cols, rows)
}
