//! information_schema.PARTITIONS: one row per partition of each partitioned table (and one row
//! with NULL partition columns per other table, as MariaDB), with per-partition row counts and
//! sizes.
//!
//! Invariants: TABLE_ROWS is the partition's committed rows as estimates.rs counts them (exact
//! for small trees, sampled past that, like SHOW TABLE STATUS); DATA_LENGTH, INDEX_LENGTH and DATA_FREE are the
//! bytes of the partition's own trees on disk.

use std::sync::Arc;

use super::estimates::part_rows;
use super::tables::part_bytes;
use super::{ic, t, vc};
use crate::catalog::create_table::quote_ident;
use crate::catalog::partition::{render_bound, Method, PartBound};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::result::OutCol;
use crate::types::value::Value;

const COLUMNS: [(&str, bool); 25] = [
    ("TABLE_CATALOG", false),
    ("TABLE_SCHEMA", false),
    ("TABLE_NAME", false),
    ("PARTITION_NAME", false),
    ("SUBPARTITION_NAME", false),
    ("PARTITION_ORDINAL_POSITION", true),
    ("SUBPARTITION_ORDINAL_POSITION", true),
    ("PARTITION_METHOD", false),
    ("SUBPARTITION_METHOD", false),
    ("PARTITION_EXPRESSION", false),
    ("SUBPARTITION_EXPRESSION", false),
    ("PARTITION_DESCRIPTION", false),
    ("TABLE_ROWS", true),
    ("AVG_ROW_LENGTH", true),
    ("DATA_LENGTH", true),
    ("MAX_DATA_LENGTH", true),
    ("INDEX_LENGTH", true),
    ("DATA_FREE", true),
    ("CREATE_TIME", false),
    ("UPDATE_TIME", false),
    ("CHECK_TIME", false),
    ("CHECKSUM", true),
    ("PARTITION_COMMENT", false),
    ("NODEGROUP", false),
    ("TABLESPACE_NAME", false),
];

/// The view's columns and rows for `tables`.
pub fn partitions_view(cx: &Context, tables: Vec<Arc<TableDef>>) -> (Vec<OutCol>, Vec<Vec<Value>>) {
    let cols = COLUMNS
        .iter()
        .map(|(n, int)| if *int { ic(n) } else { vc(n) })
        .collect();
    let mut rows = Vec::new();
    for table in tables {
        for part in table.parts() {
            rows.push(row(cx, &table, part));
        }
    }
    (cols, rows)
}

/// MariaDB's PARTITION_METHOD.
fn method(table: &TableDef) -> String {
    let Some(p) = &table.partitioning else {
        return String::new();
    };
    let linear = if p.linear { "LINEAR " } else { "" };
    let columns = if p.columns_form { " COLUMNS" } else { "" };
    format!("{linear}{}{columns}", p.method.keyword())
}

fn row(cx: &Context, table: &TableDef, part: Option<usize>) -> Vec<Value> {
    let n = part_rows(cx, table, part);
    let (data, index, free) = part_bytes(cx, table, part);
    let mut r = vec![t("def"), t(table.db.clone()), t(table.name.clone())];
    match (&table.partitioning, part) {
        (Some(p), Some(i)) => {
            let d = &p.parts[i];
            let expr = match &p.func {
                Some(f) => f.text.clone(),
                None => p
                    .columns
                    .iter()
                    .map(|&c| quote_ident(&table.columns[c].name))
                    .collect::<Vec<_>>()
                    .join(","),
            };
            let description = match (&d.bound, p.method) {
                (PartBound::None, _) | (_, Method::Hash | Method::Key) => Value::Null,
                (b, _) => t(render_bound(p, table, b)),
            };
            r.extend([
                t(d.name.clone()),
                Value::Null,
                Value::UInt(i as u64 + 1),
                Value::Null,
                t(method(table)),
                Value::Null,
                t(expr),
                Value::Null,
                description,
            ]);
        }
        _ => r.extend(vec![Value::Null; 9]),
    }
    let comment = table
        .partitioning
        .as_ref()
        .zip(part)
        .and_then(|(p, i)| p.parts[i].comment.clone())
        .unwrap_or_default();
    r.extend([
        Value::UInt(n),
        Value::UInt(data.checked_div(n).unwrap_or(0)),
        Value::UInt(data),
        Value::Null,
        Value::UInt(index),
        Value::UInt(free),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        t(comment),
        t("default"),
        Value::Null,
    ]);
    r
}
