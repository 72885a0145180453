//! Columns: information_schema.COLUMNS and the rows SHOW COLUMNS shares with it ([`ColRow`]).
//!
//! Invariant: a column's default, key and extra text are computed once ([`column_rows`]), so
//! SHOW COLUMNS and information_schema.COLUMNS never disagree.

use std::sync::Arc;

use super::{ic, names, t, ViewRows};
use crate::catalog::TableDef;
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

/// The values of one column that SHOW COLUMNS and information_schema.COLUMNS both show.
pub struct ColRow {
    pub field: Value,
    pub ty: Value,
    pub collation: Value,
    pub null: Value,
    pub key: Value,
    pub default: Value,
    pub extra: Value,
    pub comment: Value,
}

/// SHOW COLUMNS' Key of column `i`: PRI (in the primary key), UNI (first column of a UNIQUE
/// index), MUL (first column of another index) or empty.
pub fn column_key(t: &TableDef, i: usize) -> &'static str {
    if t.pk.contains(&i) {
        "PRI"
    } else if t
        .indexes
        .iter()
        .any(|ix| ix.unique && ix.columns.first() == Some(&i))
    {
        "UNI"
    } else if t.indexes.iter().any(|ix| ix.columns.first() == Some(&i)) {
        "MUL"
    } else {
        ""
    }
}

/// SHOW COLUMNS' values of every column of `tdef`, in column order.
pub fn column_rows(tdef: &TableDef) -> Vec<ColRow> {
    tdef.columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let default = if tdef.default_now[i] {
                t("CURRENT_TIMESTAMP")
            } else {
                match &c.default {
                    Some(Value::UInt(b)) if matches!(c.sql_type, SqlType::Bit { .. }) => {
                        t(crate::types::text_format::bit_literal(*b))
                    }
                    // YEAR(2) shows its default with 2 digits, as its values
                    Some(Value::UInt(y))
                        if c.sql_type == SqlType::Year && c.display_width == Some(2) =>
                    {
                        t(format!("{:02}", y % 100))
                    }
                    Some(v) => v
                        .to_text(Some(&c.sql_type))
                        .map(|b| t(String::from_utf8_lossy(&b)))
                        .unwrap_or(Value::Null),
                    None => Value::Null,
                }
            };
            let mut extra = Vec::new();
            if c.auto_increment {
                extra.push("auto_increment");
            }
            if tdef.default_now[i] {
                extra.push("DEFAULT_GENERATED");
            }
            if tdef.on_update_now[i] {
                extra.push("on update CURRENT_TIMESTAMP");
            }
            if let Some(g) = &tdef.generated[i] {
                extra.push(g.extra());
            }
            ColRow {
                field: t(c.name.clone()),
                ty: t(c.column_type()),
                collation: if c.sql_type.is_text() {
                    t(c.collation.name())
                } else {
                    Value::Null
                },
                null: t(if c.nullable { "YES" } else { "NO" }),
                key: t(column_key(tdef, i)),
                default,
                extra: t(extra.join(" ")),
                comment: t(tdef.comments[i].clone().unwrap_or_default()),
            }
        })
        .collect()
}

/// information_schema.COLUMNS: one row per column of `tables`.
pub(super) fn columns_view(tables: Vec<Arc<TableDef>>) -> ViewRows {
    let mut cols = names(&["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME"]);
    cols.push(ic("ORDINAL_POSITION"));
    cols.extend(names(&["COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE"]));
    for n in [
        "CHARACTER_MAXIMUM_LENGTH",
        "CHARACTER_OCTET_LENGTH",
        "NUMERIC_PRECISION",
        "NUMERIC_SCALE",
        "DATETIME_PRECISION",
    ] {
        cols.push(ic(n));
    }
    cols.extend(names(&[
        "CHARACTER_SET_NAME",
        "COLLATION_NAME",
        "COLUMN_TYPE",
        "COLUMN_KEY",
        "EXTRA",
        "PRIVILEGES",
        "COLUMN_COMMENT",
        "IS_GENERATED",
        "GENERATION_EXPRESSION",
    ]));
    let mut rows = Vec::new();
    for td in tables {
        for (i, (c, r)) in td.columns.iter().zip(column_rows(&td)).enumerate() {
            let mut row = columns_view_row((&td.db, &td.name), i, c, r);
            // IS_GENERATED and GENERATION_EXPRESSION, NEVER and NULL for a column not generated.
            match &td.generated[i] {
                Some(g) => row.extend([t("ALWAYS"), t(g.text.clone())]),
                None => row.extend([t("NEVER"), Value::Null]),
            }
            rows.push(row);
        }
    }
    (cols, rows)
}

/// The information_schema.COLUMNS rows of view `db`.`view` whose columns are `cols` (its body as
/// planned now): no key, no default, no extra.
pub fn view_column_rows(db: &str, view: &str, cols: &[crate::result::OutCol]) -> Vec<Vec<Value>> {
    cols.iter()
        .enumerate()
        .map(|(i, oc)| {
            let ty = oc.ty.unwrap_or(SqlType::Binary { len: 0 });
            let mut c = Column::new(i as u32, oc.name.clone(), ty);
            c.nullable = oc.flags & crate::types::column_flag::NOT_NULL == 0;
            c.members = oc.members.clone();
            if !ty.is_binary() {
                c.collation = oc.collation;
            }
            let r = ColRow {
                field: t(c.name.clone()),
                ty: t(c.column_type()),
                collation: if ty.is_text() {
                    t(c.collation.name())
                } else {
                    Value::Null
                },
                null: t(if c.nullable { "YES" } else { "NO" }),
                key: t(""),
                default: Value::Null,
                extra: t(""),
                comment: t(""),
            };
            let mut row = columns_view_row((db, view), i, &c, r);
            row.extend([t("NEVER"), Value::Null]);
            row
        })
        .collect()
}

/// The information_schema.COLUMNS row of column `i` (`c`) of table `(db, name)`, its SHOW
/// COLUMNS values `r`.
fn columns_view_row((db, name): (&str, &str), i: usize, c: &Column, r: ColRow) -> Vec<Value> {
    let ty = c.sql_type;
    let full = c.column_type();
    let data_type = full.split(['(', ' ']).next().unwrap_or("").to_string();
    let (clen, olen) = character_lengths(c);
    let (np, ns) = numeric_precision(ty);
    let dp = if ty.is_temporal() && ty != SqlType::Date && ty != SqlType::Year {
        Value::UInt(ty.fsp() as u64)
    } else {
        Value::Null
    };
    vec![
        t("def"),
        t(db),
        t(name),
        t(c.name.clone()),
        Value::UInt(i as u64 + 1),
        r.default,
        r.null,
        t(data_type),
        clen,
        olen,
        np,
        ns,
        dp,
        if ty.is_text() {
            t(c.collation.charset().name())
        } else {
            Value::Null
        },
        r.collation,
        t(full),
        r.key,
        r.extra,
        t("select,insert,update,references"),
        r.comment,
    ]
}

/// CHARACTER_MAXIMUM_LENGTH and CHARACTER_OCTET_LENGTH of a column (NULL for non-strings).
fn character_lengths(c: &Column) -> (Value, Value) {
    match c.sql_type {
        SqlType::Char { len } | SqlType::VarChar { len } => {
            let mb = c.collation.max_bytes_per_char() as u64;
            (Value::UInt(len as u64), Value::UInt(len as u64 * mb))
        }
        SqlType::Binary { len } | SqlType::VarBinary { len } => {
            (Value::UInt(len as u64), Value::UInt(len as u64))
        }
        SqlType::Text(l) | SqlType::Blob(l) => {
            (Value::UInt(l.max_bytes()), Value::UInt(l.max_bytes()))
        }
        _ => (Value::Null, Value::Null),
    }
}

/// NUMERIC_PRECISION and NUMERIC_SCALE of a type (NULL for non-numbers).
fn numeric_precision(ty: SqlType) -> (Value, Value) {
    match ty {
        SqlType::Int { width, unsigned } => {
            let p = match (width, unsigned) {
                (IntWidth::Tiny, _) => 3,
                (IntWidth::Small, _) => 5,
                (IntWidth::Medium, _) => 7,
                (IntWidth::Int, _) => 10,
                (IntWidth::Big, true) => 20,
                (IntWidth::Big, false) => 19,
            };
            (Value::UInt(p), Value::UInt(0))
        }
        SqlType::Decimal {
            precision, scale, ..
        } => (Value::UInt(precision as u64), Value::UInt(scale as u64)),
        SqlType::Float {
            digits: Some((m, d)),
            ..
        }
        | SqlType::Double {
            digits: Some((m, d)),
            ..
        } => (Value::UInt(m as u64), Value::UInt(d as u64)),
        SqlType::Float { .. } => (Value::UInt(12), Value::Null),
        SqlType::Double { .. } => (Value::UInt(22), Value::Null),
        _ => (Value::Null, Value::Null),
    }
}
