//! Indexes: information_schema.STATISTICS and SHOW INDEX's rows, one per column of each key
//! (the primary key first, as `PRIMARY`, then the secondary indexes in declaration order), with
//! each key prefix's cardinality as estimates.rs estimates it.

use std::sync::Arc;

use super::estimates::{key_cardinality, row_count};
use super::{ic, names, t, ViewRows};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::types::value::Value;

/// SHOW INDEX rows (also information_schema.STATISTICS without the leading columns).
pub fn index_rows(cx: &Context, tdef: &TableDef) -> ViewRows {
    let table_rows = row_count(cx, tdef);
    let mut rows = Vec::new();
    let mut add = |ix: Option<usize>,
                   name: &str,
                   unique: bool,
                   cols: &[usize],
                   prefix: &[Option<u32>],
                   kind: &str,
                   comment: &Option<String>| {
        let cardinality = key_cardinality(cx, tdef, ix, table_rows);
        for (seq, &c) in cols.iter().enumerate() {
            rows.push(vec![
                t(tdef.name.clone()),
                Value::Int(!unique as i64),
                t(name),
                Value::Int(seq as i64 + 1),
                t(tdef.columns[c].name.clone()),
                t("A"),
                Value::UInt(cardinality[seq]),
                prefix
                    .get(seq)
                    .copied()
                    .flatten()
                    .map_or(Value::Null, |n| Value::Int(n.into())),
                Value::Null,
                t(if tdef.columns[c].nullable { "YES" } else { "" }),
                t(kind),
                t(""),
                t(comment.clone().unwrap_or_default()),
                t("YES"),
                Value::Null,
            ]);
        }
    };
    if !tdef.pk.is_empty() {
        add(
            None,
            "PRIMARY",
            true,
            &tdef.pk,
            &tdef.pk_prefix,
            "BTREE",
            &None,
        );
    }
    for (i, ix) in tdef.indexes.iter().enumerate() {
        add(
            Some(i),
            &ix.name,
            ix.unique,
            &ix.columns,
            &ix.prefix,
            ix.index_type(),
            &ix.comment,
        );
    }
    (vec![], rows)
}

/// information_schema.STATISTICS: SHOW INDEX's rows of `tables` after the catalog, schema and
/// table names.
pub(super) fn statistics_view(cx: &Context, tables: Vec<Arc<TableDef>>) -> ViewRows {
    let mut cols = names(&["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"]);
    cols.push(ic("NON_UNIQUE"));
    cols.extend(names(&["INDEX_SCHEMA", "INDEX_NAME"]));
    cols.push(ic("SEQ_IN_INDEX"));
    cols.extend(names(&["COLUMN_NAME", "COLLATION"]));
    cols.push(ic("CARDINALITY"));
    cols.extend(names(&[
        "SUB_PART",
        "PACKED",
        "NULLABLE",
        "INDEX_TYPE",
        "COMMENT",
        "INDEX_COMMENT",
        "IS_VISIBLE",
        "EXPRESSION",
    ]));
    let mut rows = Vec::new();
    for td in tables {
        for r in index_rows(cx, &td).1 {
            let mut row = vec![
                t("def"),
                t(td.db.clone()),
                t(td.name.clone()),
                r[1].clone(),
                t(td.db.clone()),
            ];
            row.extend(r[2..].iter().cloned());
            rows.push(row);
        }
    }
    (cols, rows)
}
