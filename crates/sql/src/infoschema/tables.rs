//! Databases and tables: information_schema.SCHEMATA and TABLES, and SHOW TABLE STATUS's rows
//! (TABLES is SHOW TABLE STATUS after the catalog, schema and table type).
//!
//! Invariant: `TABLE_ROWS` is the committed rows of the primary trees as estimates.rs counts
//! them (exact for small trees, sampled past that: design.md STA2); `DATA_LENGTH` is the on-disk
//! bytes of the primary tree, `INDEX_LENGTH` of the secondary trees; `AVG_ROW_LENGTH` the one
//! divided by the rows.

use std::sync::atomic::Ordering;

use super::{ic, names, t, table_names, vc, ViewRows};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::result::OutCol;
use crate::types::value::Value;

/// information_schema.SCHEMATA: the databases `visible` to the user.
pub(super) fn schemata_view(cx: &Context, visible: &[String]) -> ViewRows {
    (
        names(&[
            "CATALOG_NAME",
            "SCHEMA_NAME",
            "DEFAULT_CHARACTER_SET_NAME",
            "DEFAULT_COLLATION_NAME",
            "SQL_PATH",
            "SCHEMA_COMMENT",
        ]),
        visible
            .iter()
            .map(|d| {
                let def = cx.engine.catalog.db(d).unwrap_or_default();
                vec![
                    t("def"),
                    t(d.clone()),
                    t(def.collation.charset().name()),
                    t(def.collation.name()),
                    Value::Null,
                    t(def.comment.unwrap_or_default()),
                ]
            })
            .collect(),
    )
}

/// information_schema.TABLES: the tables of the databases `visible` to the user, and the views
/// of information_schema itself.
pub(super) fn tables_view(cx: &Context, visible: &[String]) -> DbResult<ViewRows> {
    let mut rows = Vec::new();
    for db in visible {
        if db == "information_schema" {
            rows.extend(table_names(cx, db).into_iter().map(system_view_row));
            continue;
        }
        for st in table_status(cx, db)?.1 {
            let name = crate::expr::eval::text_of(&st[0]).unwrap_or_default();
            let kind = match cx.engine.catalog.view(db, &name) {
                Some(_) => "VIEW",
                None => "BASE TABLE",
            };
            let mut r = vec![t("def"), t(db.clone()), st[0].clone(), t(kind)];
            // without SHOW TABLE STATUS's Max_index_length, Temporary
            r.extend(st[1..st.len() - 2].iter().cloned());
            rows.push(r);
        }
    }
    Ok((tables_view_columns(), rows))
}

/// The columns of information_schema.TABLES.
fn tables_view_columns() -> Vec<OutCol> {
    let mut cols = names(&[
        "TABLE_CATALOG",
        "TABLE_SCHEMA",
        "TABLE_NAME",
        "TABLE_TYPE",
        "ENGINE",
    ]);
    cols.push(ic("VERSION"));
    cols.push(vc("ROW_FORMAT"));
    for n in [
        "TABLE_ROWS",
        "AVG_ROW_LENGTH",
        "DATA_LENGTH",
        "MAX_DATA_LENGTH",
        "INDEX_LENGTH",
        "DATA_FREE",
        "AUTO_INCREMENT",
    ] {
        cols.push(ic(n));
    }
    for n in [
        "CREATE_TIME",
        "UPDATE_TIME",
        "CHECK_TIME",
        "TABLE_COLLATION",
    ] {
        cols.push(vc(n));
    }
    cols.push(ic("CHECKSUM"));
    cols.push(vc("CREATE_OPTIONS"));
    cols.push(vc("TABLE_COMMENT"));
    cols
}

/// The information_schema.TABLES row of information_schema view `v`.
fn system_view_row(v: String) -> Vec<Value> {
    let mut r = vec![
        t("def"),
        t("information_schema"),
        t(v),
        t("SYSTEM VIEW"),
        Value::Null,
        Value::Int(10),
        Value::Null,
    ];
    r.extend(vec![Value::Null; 7]);
    r.extend(vec![
        Value::Null,
        Value::Null,
        Value::Null,
        t("utf8mb4_general_ci"),
        Value::Null,
        t(""),
        t(""),
    ]);
    r
}

/// Bytes on disk of partition `part`'s primary tree, of its index trees, and free inside them.
pub fn part_bytes(cx: &Context, t: &TableDef, part: Option<usize>) -> (u64, u64, u64) {
    let store = &cx.engine.store;
    let data = store.tree_bytes(&[t.primary_tree_of(part)]);
    let indexes: Vec<String> = (0..t.indexes.len())
        .map(|i| t.index_tree_of(part, i))
        .collect();
    let free = store.tree_free_bytes(&t.trees_of(part));
    (data, store.tree_bytes(&indexes), free)
}

/// SHOW TABLE STATUS of database `db`: MariaDB's columns, one row per table or view, by name.
pub fn table_status(cx: &Context, db: &str) -> DbResult<ViewRows> {
    let names = [
        "Name",
        "Engine",
        "Version",
        "Row_format",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Create_time",
        "Update_time",
        "Check_time",
        "Collation",
        "Checksum",
        "Create_options",
        "Comment",
        // MariaDB's last two columns
        "Max_index_length",
        "Temporary",
    ];
    let cols: Vec<OutCol> = names
        .iter()
        .map(|n| match *n {
            "Version" | "Rows" | "Avg_row_length" | "Data_length" | "Max_data_length"
            | "Index_length" | "Data_free" | "Auto_increment" | "Checksum" | "Max_index_length" => {
                ic(n)
            }
            _ => vc(n),
        })
        .collect();
    let mut rows = Vec::new();
    for tdef in cx.engine.catalog.tables(db) {
        let (data, index, free) = tdef
            .parts()
            .into_iter()
            .map(|p| part_bytes(cx, &tdef, p))
            .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        let n = super::estimates::row_count(cx, &tdef);
        let mut opts = match (&tdef.compression, &tdef.row_format) {
            (Some(c), _) => format!("COMPRESSION=\"{c}\""),
            (None, Some(r)) => format!("row_format={r}"),
            _ => String::new(),
        };
        if tdef.partitioning.is_some() {
            opts = if opts.is_empty() {
                "partitioned".into()
            } else {
                format!("{opts} partitioned")
            };
        }
        rows.push(vec![
            t(tdef.name.clone()),
            t(tdef.engine.clone().unwrap_or_else(|| "Betula".into())),
            Value::Int(10),
            t(tdef.row_format.clone().unwrap_or_else(|| "Dynamic".into())),
            Value::UInt(n),
            Value::UInt(data.checked_div(n).unwrap_or(0)),
            Value::UInt(data),
            Value::UInt(0),
            Value::UInt(index),
            Value::UInt(free),
            if tdef.auto_inc_col().is_some() {
                Value::UInt(tdef.counters.auto_inc.load(Ordering::SeqCst))
            } else {
                Value::Null
            },
            Value::Null,
            Value::Null,
            Value::Null,
            t(tdef.collation.name()),
            Value::Null,
            t(opts),
            t(tdef.comment.clone().unwrap_or_default()),
            Value::UInt(0),
            t("N"),
        ]);
    }
    rows.extend(
        cx.engine
            .catalog
            .views(db)
            .iter()
            .map(|v| super::views::view_status_row(v)),
    );
    rows.sort_by_key(|r| crate::expr::eval::text_of(&r[0]).unwrap_or_default());
    Ok((cols, rows))
}
