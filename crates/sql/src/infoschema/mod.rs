//! information_schema views (SCHEMATA, TABLES, COLUMNS, STATISTICS, ENGINES, PROCESSLIST,
//! and empty ROUTINES/VIEWS/TRIGGERS/...) built from the catalog on each query, plus the row
//! builders SHOW shares with them.
//!
//! Invariant: views are computed, never stored; `TABLE_ROWS` is exact for tables of up to
//! 1,000,000 rows (counted from the committed primary tree) and an extrapolation beyond;
//! `DATA_LENGTH` is the on-disk bytes of the primary tree, `INDEX_LENGTH` of the secondary trees.

use std::sync::atomic::Ordering;

use crate::catalog::create_table::render_create;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::OutCol;
use crate::types::value::Value;
use crate::types::{IntWidth, SqlType};

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

pub fn table_names(cx: &Context, db: &str) -> Vec<String> {
    if db == "information_schema" {
        let mut names: Vec<String> = VIEWS
            .iter()
            .chain(EMPTY_VIEWS.iter().map(|(n, _)| n))
            .map(|s| s.to_string())
            .collect();
        names.sort();
        return names;
    }
    cx.engine
        .catalog
        .tables(db)
        .iter()
        .map(|t| t.name.clone())
        .collect()
}

/// Views with rows (the computed ones); [`EMPTY_VIEWS`] lists the rest.
const VIEWS: &[&str] = &[
    "CHARACTER_SETS",
    "COLLATIONS",
    "COLUMNS",
    "ENGINES",
    "KEY_COLUMN_USAGE",
    "PROCESSLIST",
    "SCHEMATA",
    "STATISTICS",
    "TABLES",
    "TABLE_CONSTRAINTS",
];

pub fn row_count(cx: &Context, t: &TableDef) -> u64 {
    let Ok(tree) = cx.engine.store.tree(&t.primary_tree()) else {
        return 0;
    };
    let mut n = 0u64;
    for item in tree.range(
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        false,
    ) {
        if item.is_err() {
            break;
        }
        n += 1;
        if n >= 1_000_000 {
            break;
        }
    }
    n
}

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

/// SHOW INDEX rows (also information_schema.STATISTICS without the leading columns).
pub fn index_rows(tdef: &TableDef) -> (Vec<OutCol>, Vec<Vec<Value>>) {
    let mut rows = Vec::new();
    let mut add = |name: &str,
                   unique: bool,
                   cols: &[usize],
                   prefix: &[Option<u32>],
                   kind: &str,
                   comment: &Option<String>| {
        for (seq, &c) in cols.iter().enumerate() {
            rows.push(vec![
                t(tdef.name.clone()),
                Value::Int(!unique as i64),
                t(name),
                Value::Int(seq as i64 + 1),
                t(tdef.columns[c].name.clone()),
                t("A"),
                Value::Int(0),
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
        add("PRIMARY", true, &tdef.pk, &tdef.pk_prefix, "BTREE", &None);
    }
    for ix in &tdef.indexes {
        add(
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

pub fn table_status(cx: &Context, db: &str) -> DbResult<(Vec<OutCol>, Vec<Vec<Value>>)> {
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
        let store = &cx.engine.store;
        let data = store.tree_bytes(&[tdef.primary_tree()]);
        let index = store.tree_bytes(
            &(0..tdef.indexes.len())
                .map(|i| tdef.index_tree(i))
                .collect::<Vec<_>>(),
        );
        let n = row_count(cx, &tdef);
        let opts = match (&tdef.compression, &tdef.row_format) {
            (Some(c), _) => format!("COMPRESSION=\"{c}\""),
            (None, Some(r)) => format!("row_format={r}"),
            _ => String::new(),
        };
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
            Value::UInt(0),
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
    Ok((cols, rows))
}

pub fn status(cx: &Context) -> Vec<(String, String)> {
    let e = &cx.engine;
    let st = e.store.env().stats();
    let up = e.started.elapsed().as_secs();
    let q = e.queries.load(Ordering::Relaxed);
    vec![
        ("Uptime".into(), up.to_string()),
        (
            "Threads_connected".into(),
            e.processes.lock().len().to_string(),
        ),
        ("Threads_running".into(), "1".into()),
        ("Questions".into(), q.to_string()),
        ("Queries".into(), q.to_string()),
        (
            "Betula_cache_used_bytes".into(),
            st.cache_used_bytes.to_string(),
        ),
        (
            "Betula_cache_limit_bytes".into(),
            st.cache_limit_bytes.to_string(),
        ),
        (
            "Betula_cache_internal_bytes".into(),
            st.cache_internal_bytes.to_string(),
        ),
        (
            "Betula_wal_bytes_appended".into(),
            st.wal_bytes_appended.to_string(),
        ),
        (
            "Betula_wal_bytes_written".into(),
            st.wal_bytes_written.to_string(),
        ),
        ("Betula_wal_segments".into(), st.wal_segments.to_string()),
        (
            "Betula_wal_free_segments".into(),
            st.wal_free_segments.to_string(),
        ),
        (
            "Betula_wal_spares_made".into(),
            st.wal_spares_made.to_string(),
        ),
        ("Betula_checkpoints".into(), st.checkpoints.to_string()),
        (
            "Betula_last_checkpoint_ms".into(),
            st.last_checkpoint_ms.to_string(),
        ),
        (
            "Betula_node_bytes_written".into(),
            st.node_bytes_written.to_string(),
        ),
        ("Betula_node_reads".into(), st.node_reads.to_string()),
        ("Betula_part_reads".into(), st.part_reads.to_string()),
        ("Betula_frame_reads".into(), st.frame_reads.to_string()),
        (
            "Betula_detached_flushes".into(),
            st.detached_flushes.to_string(),
        ),
        ("Betula_filter_skips".into(), st.filter_skips.to_string()),
    ]
}

pub fn processlist(cx: &Context) -> Vec<Vec<Value>> {
    let procs = cx.engine.processes.lock();
    procs
        .iter()
        .map(|(id, p)| {
            vec![
                Value::UInt(*id),
                t(p.user.clone()),
                t(p.host.clone()),
                p.db.clone().map(t).unwrap_or(Value::Null),
                t(if p.info.is_some() { "Query" } else { "Sleep" }),
                Value::UInt(p.started.elapsed().as_secs()),
                t(if p.info.is_some() { "executing" } else { "" }),
                p.info.clone().map(t).unwrap_or(Value::Null),
            ]
        })
        .collect()
}

pub fn engines() -> (Vec<OutCol>, Vec<Vec<Value>>) {
    let cols = [
        "ENGINE",
        "SUPPORT",
        "COMMENT",
        "TRANSACTIONS",
        "XA",
        "SAVEPOINTS",
    ]
    .iter()
    .map(|n| vc(n))
    .collect();
    let rows = vec![
        vec![
            t("Betula"),
            t("DEFAULT"),
            t("Write-optimized B-epsilon tree storage with compression"),
            t("YES"),
            t("NO"),
            t("YES"),
        ],
        vec![
            t("InnoDB"),
            t("NO"),
            t("Accepted in ENGINE= and stored as Betula"),
            Value::Null,
            Value::Null,
            Value::Null,
        ],
    ];
    let mut rows = rows;
    // Engines whose name a table keeps (ddl::OTHER_ENGINES): usable in ENGINE=, stored as Betula.
    for e in crate::catalog::create_table::OTHER_ENGINES {
        rows.push(vec![
            t(*e),
            t("YES"),
            t("Accepted in ENGINE=, shown again, stored as Betula"),
            t("NO"),
            t("NO"),
            t("NO"),
        ]);
    }
    (cols, rows)
}

/// The columns and rows of `information_schema.<name>`.
pub fn view(cx: &Context, name: &str) -> DbResult<(Vec<OutCol>, Vec<Vec<Value>>)> {
    let up = name.to_ascii_uppercase();
    let visible: Vec<String> = {
        let mut v = vec!["information_schema".to_string()];
        v.extend(cx.engine.catalog.databases());
        let u = cx.engine.catalog.user(&cx.user);
        v.into_iter()
            .filter(|d| u.as_ref().is_some_and(|u| u.may_use(d)))
            .collect()
    };
    let tables = || {
        cx.engine
            .catalog
            .all_tables()
            .into_iter()
            .filter(|t| visible.contains(&t.db))
            .collect::<Vec<_>>()
    };
    let names = |ns: &[&str]| ns.iter().map(|n| vc(n)).collect::<Vec<_>>();
    Ok(match up.as_str() {
        "SCHEMATA" => (
            names(&[
                "CATALOG_NAME",
                "SCHEMA_NAME",
                "DEFAULT_CHARACTER_SET_NAME",
                "DEFAULT_COLLATION_NAME",
                "SQL_PATH",
                "DEFAULT_ENCRYPTION",
            ]),
            visible
                .iter()
                .map(|d| {
                    vec![
                        t("def"),
                        t(d.clone()),
                        t("utf8mb4"),
                        t("utf8mb4_general_ci"),
                        Value::Null,
                        t("NO"),
                    ]
                })
                .collect(),
        ),
        "TABLES" => {
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
            let mut rows = Vec::new();
            for db in &visible {
                if db == "information_schema" {
                    for v in table_names(cx, db) {
                        let mut r = vec![
                            t("def"),
                            t(db.clone()),
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
                        rows.push(r);
                    }
                    continue;
                }
                for st in table_status(cx, db)?.1 {
                    let mut r = vec![t("def"), t(db.clone()), st[0].clone(), t("BASE TABLE")];
                    // without SHOW TABLE STATUS's Max_index_length, Temporary
                    r.extend(st[1..st.len() - 2].iter().cloned());
                    rows.push(r);
                }
            }
            (cols, rows)
        }
        "COLUMNS" => {
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
                "GENERATION_EXPRESSION",
            ]));
            let mut rows = Vec::new();
            for td in tables() {
                for (i, (c, r)) in td.columns.iter().zip(column_rows(&td)).enumerate() {
                    let ty = c.sql_type;
                    let full = c.column_type();
                    let data_type = full.split(['(', ' ']).next().unwrap_or("").to_string();
                    let (clen, olen) = match ty {
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
                    };
                    let (np, ns) = match ty {
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
                    };
                    let dp = if ty.is_temporal() && ty != SqlType::Date && ty != SqlType::Year {
                        Value::UInt(ty.fsp() as u64)
                    } else {
                        Value::Null
                    };
                    rows.push(vec![
                        t("def"),
                        t(td.db.clone()),
                        t(td.name.clone()),
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
                        t(""),
                    ]);
                }
            }
            (cols, rows)
        }
        "STATISTICS" => {
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
            for td in tables() {
                for r in index_rows(&td).1 {
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
        "ENGINES" => engines(),
        "PROCESSLIST" => {
            let mut cols = vec![ic("ID")];
            cols.extend(names(&["USER", "HOST", "DB", "COMMAND"]));
            cols.push(ic("TIME"));
            cols.extend(names(&["STATE", "INFO"]));
            (cols, processlist(cx))
        }
        "KEY_COLUMN_USAGE" => {
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
            for td in tables() {
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
            }
            (cols, rows)
        }
        "TABLE_CONSTRAINTS" => {
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
            for td in tables() {
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
            }
            (cols, rows)
        }
        "CHARACTER_SETS" => (
            names(&[
                "CHARACTER_SET_NAME",
                "DEFAULT_COLLATE_NAME",
                "DESCRIPTION",
                "MAXLEN",
            ]),
            charset_rows(),
        ),
        "COLLATIONS" => (
            names(&[
                "COLLATION_NAME",
                "CHARACTER_SET_NAME",
                "ID",
                "IS_DEFAULT",
                "IS_COMPILED",
                "SORTLEN",
                "PAD_ATTRIBUTE",
            ]),
            collation_rows(),
        ),
        other => match empty_view_columns(other) {
            Some(cols) => (names(cols), vec![]),
            None => return Err(DbError::no_table("information_schema", name)),
        },
    })
}

/// The columns of the views that are always empty in Betula (no routines, views, triggers, events,
/// foreign keys, tablespaces or plugins), as MariaDB 10.11 names them, so tools that query them
/// (mariadb-dump reads FILES) get the result shape they expect.
fn empty_view_columns(view: &str) -> Option<&'static [&'static str]> {
    EMPTY_VIEWS
        .iter()
        .find(|(name, _)| *name == view)
        .map(|(_, cols)| *cols)
}

const EMPTY_VIEWS: &[(&str, &[&str])] = &[
    (
        "CHECK_CONSTRAINTS",
        &[
            "CONSTRAINT_CATALOG",
            "CONSTRAINT_SCHEMA",
            "TABLE_NAME",
            "CONSTRAINT_NAME",
            "LEVEL",
            "CHECK_CLAUSE",
        ],
    ),
    (
        "COLUMN_PRIVILEGES",
        &[
            "GRANTEE",
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "COLUMN_NAME",
            "PRIVILEGE_TYPE",
            "IS_GRANTABLE",
        ],
    ),
    (
        "EVENTS",
        &[
            "EVENT_CATALOG",
            "EVENT_SCHEMA",
            "EVENT_NAME",
            "DEFINER",
            "TIME_ZONE",
            "EVENT_BODY",
            "EVENT_DEFINITION",
            "EVENT_TYPE",
            "EXECUTE_AT",
            "INTERVAL_VALUE",
            "INTERVAL_FIELD",
            "SQL_MODE",
            "STARTS",
            "ENDS",
            "STATUS",
            "ON_COMPLETION",
            "CREATED",
            "LAST_ALTERED",
            "LAST_EXECUTED",
            "EVENT_COMMENT",
            "ORIGINATOR",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "FILES",
        &[
            "FILE_ID",
            "FILE_NAME",
            "FILE_TYPE",
            "TABLESPACE_NAME",
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "LOGFILE_GROUP_NAME",
            "LOGFILE_GROUP_NUMBER",
            "ENGINE",
            "FULLTEXT_KEYS",
            "DELETED_ROWS",
            "UPDATE_COUNT",
            "FREE_EXTENTS",
            "TOTAL_EXTENTS",
            "EXTENT_SIZE",
            "INITIAL_SIZE",
            "MAXIMUM_SIZE",
            "AUTOEXTEND_SIZE",
            "CREATION_TIME",
            "LAST_UPDATE_TIME",
            "LAST_ACCESS_TIME",
            "RECOVER_TIME",
            "TRANSACTION_COUNTER",
            "VERSION",
            "ROW_FORMAT",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "MAX_DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "CHECKSUM",
            "STATUS",
            "EXTRA",
        ],
    ),
    (
        "PARAMETERS",
        &[
            "SPECIFIC_CATALOG",
            "SPECIFIC_SCHEMA",
            "SPECIFIC_NAME",
            "ORDINAL_POSITION",
            "PARAMETER_MODE",
            "PARAMETER_NAME",
            "DATA_TYPE",
            "CHARACTER_MAXIMUM_LENGTH",
            "CHARACTER_OCTET_LENGTH",
            "NUMERIC_PRECISION",
            "NUMERIC_SCALE",
            "DATETIME_PRECISION",
            "CHARACTER_SET_NAME",
            "COLLATION_NAME",
            "DTD_IDENTIFIER",
            "ROUTINE_TYPE",
        ],
    ),
    (
        "PARTITIONS",
        &[
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "PARTITION_NAME",
            "SUBPARTITION_NAME",
            "PARTITION_ORDINAL_POSITION",
            "SUBPARTITION_ORDINAL_POSITION",
            "PARTITION_METHOD",
            "SUBPARTITION_METHOD",
            "PARTITION_EXPRESSION",
            "SUBPARTITION_EXPRESSION",
            "PARTITION_DESCRIPTION",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "MAX_DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "CHECKSUM",
            "PARTITION_COMMENT",
            "NODEGROUP",
            "TABLESPACE_NAME",
        ],
    ),
    (
        "PLUGINS",
        &[
            "PLUGIN_NAME",
            "PLUGIN_VERSION",
            "PLUGIN_STATUS",
            "PLUGIN_TYPE",
            "PLUGIN_TYPE_VERSION",
            "PLUGIN_LIBRARY",
            "PLUGIN_LIBRARY_VERSION",
            "PLUGIN_AUTHOR",
            "PLUGIN_DESCRIPTION",
            "PLUGIN_LICENSE",
            "LOAD_OPTION",
            "PLUGIN_MATURITY",
            "PLUGIN_AUTH_VERSION",
        ],
    ),
    (
        "REFERENTIAL_CONSTRAINTS",
        &[
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
        ],
    ),
    (
        "ROUTINES",
        &[
            "SPECIFIC_NAME",
            "ROUTINE_CATALOG",
            "ROUTINE_SCHEMA",
            "ROUTINE_NAME",
            "ROUTINE_TYPE",
            "DATA_TYPE",
            "CHARACTER_MAXIMUM_LENGTH",
            "CHARACTER_OCTET_LENGTH",
            "NUMERIC_PRECISION",
            "NUMERIC_SCALE",
            "DATETIME_PRECISION",
            "CHARACTER_SET_NAME",
            "COLLATION_NAME",
            "DTD_IDENTIFIER",
            "ROUTINE_BODY",
            "ROUTINE_DEFINITION",
            "EXTERNAL_NAME",
            "EXTERNAL_LANGUAGE",
            "PARAMETER_STYLE",
            "IS_DETERMINISTIC",
            "SQL_DATA_ACCESS",
            "SQL_PATH",
            "SECURITY_TYPE",
            "CREATED",
            "LAST_ALTERED",
            "SQL_MODE",
            "ROUTINE_COMMENT",
            "DEFINER",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "SCHEMA_PRIVILEGES",
        &[
            "GRANTEE",
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "PRIVILEGE_TYPE",
            "IS_GRANTABLE",
        ],
    ),
    (
        "TABLE_PRIVILEGES",
        &[
            "GRANTEE",
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "PRIVILEGE_TYPE",
            "IS_GRANTABLE",
        ],
    ),
    (
        "TRIGGERS",
        &[
            "TRIGGER_CATALOG",
            "TRIGGER_SCHEMA",
            "TRIGGER_NAME",
            "EVENT_MANIPULATION",
            "EVENT_OBJECT_CATALOG",
            "EVENT_OBJECT_SCHEMA",
            "EVENT_OBJECT_TABLE",
            "ACTION_ORDER",
            "ACTION_CONDITION",
            "ACTION_STATEMENT",
            "ACTION_ORIENTATION",
            "ACTION_TIMING",
            "ACTION_REFERENCE_OLD_TABLE",
            "ACTION_REFERENCE_NEW_TABLE",
            "ACTION_REFERENCE_OLD_ROW",
            "ACTION_REFERENCE_NEW_ROW",
            "CREATED",
            "SQL_MODE",
            "DEFINER",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "USER_PRIVILEGES",
        &["GRANTEE", "TABLE_CATALOG", "PRIVILEGE_TYPE", "IS_GRANTABLE"],
    ),
    (
        "VIEWS",
        &[
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "VIEW_DEFINITION",
            "CHECK_OPTION",
            "IS_UPDATABLE",
            "DEFINER",
            "SECURITY_TYPE",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "ALGORITHM",
        ],
    ),
];

/// SHOW CREATE TABLE text (re-exported for the server's COM_FIELD_LIST defaults).
pub fn create_text(t: &TableDef) -> String {
    render_create(t)
}

/// SHOW CHARACTER SET / information_schema.CHARACTER_SETS rows: name, default collation,
/// description, maximum bytes per character.
pub fn charset_rows() -> Vec<Vec<Value>> {
    crate::types::charset::Charset::ALL
        .iter()
        .map(|c| {
            vec![
                t(c.name()),
                t(c.default_collation().name()),
                t(c.description()),
                Value::Int(c.max_bytes() as i64),
            ]
        })
        .collect()
}

/// SHOW COLLATION / information_schema.COLLATIONS rows: name, character set, id, default,
/// compiled, sort length, pad attribute.
pub fn collation_rows() -> Vec<Vec<Value>> {
    crate::types::collation::Collation::ALL
        .iter()
        .map(|co| {
            vec![
                t(co.name()),
                t(co.charset().name()),
                Value::Int(co.id() as i64),
                t(if co.is_default() { "Yes" } else { "" }),
                t("Yes"),
                Value::Int(1),
                t(if co.pad_space() {
                    "PAD SPACE"
                } else {
                    "NO PAD"
                }),
            ]
        })
        .collect()
}
