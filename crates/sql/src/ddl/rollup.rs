//! CREATE ROLLUP and DROP ROLLUP (docs/time-series.md, design.md RUP1-RUP6): a roll-up's
//! definition checked against its base table, its table's CREATE TABLE text, and its first rows.
//!
//! Rules: the base is a permanent, unpartitioned table of the same database that is not a
//! roll-up; a group item is a NOT NULL column (not TEXT / BLOB, not TIMESTAMP) or
//! TIME_BUCKET(width, c) of a NOT NULL DATE, DATETIME or integer column; aggregates are COUNT(*),
//! COUNT(c), SUM of a numeric column, MIN / MAX of a numeric, DATE or DATETIME column (1235 for
//! anything else). COUNT(*) is added first when missing, and COUNT(c) for every nullable c a SUM,
//! MIN or MAX reads (RUP2). Columns are named by AS, else `c` for a group item on `c`,
//! `count_star`, `count_c`, `sum_c`, `min_c`, `max_c`; a repeated name is 1060.
//! Column types: a group column keeps its base type (a bucket of a date is DATETIME with the base
//! column's fractional digits); COUNT is BIGINT NOT NULL; SUM is DECIMAL(65, scale) of exact
//! values and DOUBLE of approximate ones; MIN / MAX keep the base type.
//!
//! Invariants: the roll-up is built under the schema lock, held exclusively (no writer of the base
//! table is open meanwhile, SES3), from one scan of the base table; its trees are created and
//! filled before its catalog entry is written, so a crash leaves either no roll-up or a complete
//! one (RUP6).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use betula_storage::TxnOptions;

use crate::catalog::charset_clause::column_clause;
use crate::catalog::create_table::{check_name, quote_ident, quote_str, render_stored};
use crate::catalog::rollup::{BucketWidth, RollupAgg, RollupFunc, RollupGroup};
use crate::catalog::{create_table, RollupDef, TableDef};
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::ddl::tables::{drop_tables, tree_opts};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::rollup::fold::{encode, merge, partial, program};
use crate::parser::rollup::{AggItem, CreateRollup, GroupItem};
use crate::result::Output;
use crate::store::upsert::ArgTemplate;
use crate::types::SqlType;

/// CREATE ROLLUP.
pub fn create(cx: &mut Context, stmt: &CreateRollup) -> DbResult<Output> {
    let (db, name) = cx.resolve_table_name(&stmt.name)?;
    let (bdb, bname) = cx.resolve_table_name(&stmt.base)?;
    check_name(&name)?;
    cx.check_db_access(&db)?;
    if bdb != db {
        return Err(DbError::unsupported(
            "a roll-up in another database than its base table",
        ));
    }
    cx.begin_ddl()?;
    if cx.engine.catalog.name_taken(&db, &name) || cx.temp.get(&db, &name).is_some() {
        return super::tables::already_exists(cx, &name, stmt.if_not_exists);
    }
    if cx.temp.get(&db, &bname).is_some() {
        return Err(DbError::unsupported("a roll-up of a temporary table"));
    }
    let base = cx.engine.catalog.get_table(&db, &bname)?;
    if base.rollup.is_some() {
        return Err(DbError::unsupported("a roll-up of a roll-up"));
    }
    if base.partitioning.is_some() {
        return Err(DbError::unsupported("a roll-up of a partitioned table"));
    }
    let (rdef, cols) = definition(&base, stmt)?;
    let text = table_text(&base, &name, &cols, rdef.groups.len(), stmt);
    let (ct, extras) = crate::parser::parse_create_table(&text)?;
    let mut notes = Vec::new();
    let mut def =
        create_table::table_from_create_mode(&db, &ct, &extras, base.collation, true, &mut notes)?;
    // Every column must have an encoding in the upsert message (its collation among the
    // message's), or no row could be added.
    if ArgTemplate::new(&def.layout, &program(&rdef)).is_none() {
        return Err(DbError::unsupported(
            "a roll-up whose group column has a collation upsert messages cannot name",
        ));
    }
    def.rollup = Some(Arc::new(rdef));
    let opts = tree_opts(cx, &def);
    for tree in def.all_trees() {
        cx.engine.store.drop_tree(&tree)?;
        cx.engine.store.create_tree(&tree, Some(opts))?;
    }
    let rows = match backfill(cx, &base, &def) {
        Ok(n) => n,
        Err(e) => {
            for tree in def.all_trees() {
                let _ = cx.engine.store.drop_tree(&tree);
            }
            return Err(e);
        }
    };
    let sql = render_stored(&def);
    cx.store_table(def, &sql)?;
    Ok(Output::done(rows))
}

/// DROP ROLLUP: the roll-up's table dropped (1347 when the name is a table that is no roll-up).
pub fn drop(cx: &mut Context, name: &[String], if_exists: bool) -> DbResult<Output> {
    let (db, t) = cx.resolve_table_name(name)?;
    let def = cx
        .temp
        .get(&db, &t)
        .or_else(|| cx.engine.catalog.table(&db, &t));
    if let Some(def) = def {
        if def.rollup.is_none() {
            return Err(DbError::new(
                ErrorCode::WrongObject,
                format!("'{db}.{t}' is not ROLLUP"),
            ));
        }
    }
    drop_tables(cx, &[name.to_vec()], if_exists, false)
}

/// A column of the roll-up's table: name, type text, nullable.
pub(crate) struct RollupColumn {
    name: String,
    type_text: String,
    nullable: bool,
}

/// The definition, resolved against `base`, and the roll-up's columns.
fn definition(base: &TableDef, stmt: &CreateRollup) -> DbResult<(RollupDef, Vec<RollupColumn>)> {
    let mut def = RollupDef {
        base: base.name.clone(),
        groups: Vec::new(),
        aggs: Vec::new(),
    };
    let mut cols = Vec::new();
    for g in &stmt.groups {
        let (group, col) = group_item(base, g)?;
        def.groups.push(group);
        cols.push(col);
    }
    let mut aggs: Vec<(RollupAgg, Option<String>)> = Vec::new();
    for a in &stmt.aggs {
        aggs.push((agg_item(base, a)?, a.alias.clone()));
    }
    if !aggs.iter().any(|(a, _)| a.func == RollupFunc::CountStar) {
        let star = RollupAgg {
            func: RollupFunc::CountStar,
            column: None,
            col: None,
        };
        aggs.insert(0, (star, None));
    }
    let needs_count: Vec<usize> = aggs
        .iter()
        .filter(|(a, _)| matches!(a.func, RollupFunc::Sum | RollupFunc::Min | RollupFunc::Max))
        .filter_map(|(a, _)| a.col)
        .filter(|&c| base.columns[c].nullable)
        .collect();
    for c in needs_count {
        let has = |aggs: &[(RollupAgg, Option<String>)]| {
            aggs.iter()
                .any(|(a, _)| a.func == RollupFunc::Count && a.col == Some(c))
        };
        if !has(&aggs) {
            let count = RollupAgg {
                func: RollupFunc::Count,
                column: Some(base.columns[c].name.clone()),
                col: Some(c),
            };
            aggs.push((count, None));
        }
    }
    for (a, alias) in aggs {
        cols.push(agg_column(base, &a, alias));
        def.aggs.push(a);
    }
    for (i, c) in cols.iter().enumerate() {
        if cols[..i]
            .iter()
            .any(|d| d.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(DbError::dup_field(&c.name));
        }
    }
    Ok((def, cols))
}

fn base_col(base: &TableDef, name: &str) -> DbResult<usize> {
    base.col_index(name)
        .ok_or_else(|| DbError::bad_field(name, "SELECT"))
}

fn group_item(base: &TableDef, g: &GroupItem) -> DbResult<(RollupGroup, RollupColumn)> {
    let col = base_col(base, &g.column)?;
    let c = &base.columns[col];
    if c.nullable {
        return Err(DbError::unsupported(format!(
            "a roll-up group on the nullable column '{}' (declare it NOT NULL)",
            c.name
        )));
    }
    let ty = &c.sql_type;
    let type_text = match &g.width {
        None => {
            if matches!(ty, SqlType::Text(_) | SqlType::Blob(_)) || ty.is_timestamp() {
                return Err(DbError::unsupported(format!(
                    "a roll-up group on the {} column '{}'",
                    c.column_type(),
                    c.name
                )));
            }
            format!(
                "{}{}",
                c.column_type(),
                column_clause(c.collation, base.collation)
            )
        }
        Some(_) if ty.is_integer() => "bigint(20)".to_string(),
        Some(_) if matches!(ty, SqlType::Date | SqlType::DateTime { .. }) => match ty.fsp() {
            0 => "datetime".to_string(),
            f => format!("datetime({f})"),
        },
        Some(_) => {
            return Err(DbError::unsupported(format!(
                "TIME_BUCKET in a roll-up on the {} column '{}' (DATE, DATETIME or an integer)",
                c.column_type(),
                c.name
            )))
        }
    };
    let width = match &g.width {
        None => None,
        Some(w) => {
            let w = BucketWidth::parse(w)?;
            if matches!(w, BucketWidth::Int(_)) != ty.is_integer() {
                return Err(DbError::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to TIME_BUCKET",
                ));
            }
            Some(w)
        }
    };
    let group = RollupGroup {
        column: c.name.clone(),
        width,
        col,
    };
    let column = RollupColumn {
        name: g.alias.clone().unwrap_or_else(|| c.name.clone()),
        type_text,
        nullable: false,
    };
    Ok((group, column))
}

fn agg_item(base: &TableDef, a: &AggItem) -> DbResult<RollupAgg> {
    let func = match (a.func.as_str(), &a.column) {
        ("COUNT", None) => RollupFunc::CountStar,
        ("COUNT", Some(_)) => RollupFunc::Count,
        ("SUM", Some(_)) => RollupFunc::Sum,
        ("MIN", Some(_)) => RollupFunc::Min,
        ("MAX", Some(_)) => RollupFunc::Max,
        ("SUM" | "MIN" | "MAX", None) => return Err(DbError::syntax("*)")),
        (f, _) => {
            return Err(DbError::unsupported(format!(
                "{f} in a roll-up (COUNT, SUM, MIN or MAX)"
            )))
        }
    };
    let col = a.column.as_deref().map(|n| base_col(base, n)).transpose()?;
    if let Some(c) = col.map(|c| &base.columns[c]) {
        let ty = &c.sql_type;
        let ok = match func {
            RollupFunc::Sum => ty.is_numeric() && !matches!(ty, SqlType::Year),
            RollupFunc::Min | RollupFunc::Max => {
                (ty.is_numeric() && !matches!(ty, SqlType::Year))
                    || matches!(ty, SqlType::Date | SqlType::DateTime { .. })
            }
            _ => true,
        };
        if !ok {
            return Err(DbError::unsupported(format!(
                "{} of the {} column '{}' in a roll-up",
                a.func,
                c.column_type(),
                c.name
            )));
        }
    }
    Ok(RollupAgg {
        func,
        column: col.map(|c| base.columns[c].name.clone()),
        col,
    })
}

fn agg_column(base: &TableDef, a: &RollupAgg, alias: Option<String>) -> RollupColumn {
    let c = a.col.map(|c| &base.columns[c]);
    let name = alias.unwrap_or_else(|| match c {
        None => "count_star".to_string(),
        Some(c) => format!("{}_{}", a.func.name(), c.name),
    });
    let (type_text, nullable) = match (a.func, c) {
        (RollupFunc::CountStar | RollupFunc::Count, _) | (_, None) => ("bigint(21)".into(), false),
        (RollupFunc::Sum, Some(c)) => match c.sql_type {
            SqlType::Float { .. } | SqlType::Double { .. } => ("double".into(), true),
            SqlType::Decimal { scale, .. } => (format!("decimal(65,{scale})"), true),
            _ => ("decimal(65,0)".into(), true),
        },
        (_, Some(c)) => (c.column_type(), true),
    };
    RollupColumn {
        name,
        type_text,
        nullable,
    }
}

/// The roll-up table's CREATE TABLE text: its columns, the group columns as primary key, the
/// base table's collation, and the definition as the table comment.
fn table_text(
    base: &TableDef,
    name: &str,
    cols: &[RollupColumn],
    groups: usize,
    stmt: &CreateRollup,
) -> String {
    let mut lines: Vec<String> = cols
        .iter()
        .map(|c| {
            let null = if c.nullable {
                " DEFAULT NULL"
            } else {
                " NOT NULL"
            };
            format!("  {} {}{null}", quote_ident(&c.name), c.type_text)
        })
        .collect();
    let pk: Vec<String> = cols[..groups]
        .iter()
        .map(|c| quote_ident(&c.name))
        .collect();
    lines.push(format!("  PRIMARY KEY ({})", pk.join(",")));
    let coll = base.collation;
    format!(
        "CREATE TABLE {} (\n{}\n) ENGINE=Betula DEFAULT CHARSET={} COLLATE={} COMMENT={}",
        quote_ident(name),
        lines.join(",\n"),
        coll.charset().name(),
        coll.name(),
        quote_str(&comment(base, stmt)),
    )
}

/// The table comment: `ROLLUP ON base GROUP BY ... AGGREGATE ...` as written.
fn comment(base: &TableDef, stmt: &CreateRollup) -> String {
    let groups: Vec<String> = stmt
        .groups
        .iter()
        .map(|g| match &g.width {
            None => g.column.clone(),
            Some(w) => match BucketWidth::parse(w) {
                Ok(w) => format!("TIME_BUCKET({}, {})", w.sql(), g.column),
                Err(_) => g.column.clone(),
            },
        })
        .collect();
    let aggs: Vec<String> = stmt
        .aggs
        .iter()
        .map(|a| format!("{}({})", a.func, a.column.as_deref().unwrap_or("*")))
        .collect();
    format!(
        "ROLLUP ON {} GROUP BY {} AGGREGATE {}",
        base.name,
        groups.join(", "),
        aggs.join(", ")
    )
}

/// Fills the new roll-up `r` from one scan of `base` (in memory per group, then written in key
/// order in one transaction); returns the number of group rows.
fn backfill(cx: &mut Context, base: &TableDef, r: &TableDef) -> DbResult<u64> {
    let def = r.rollup.as_ref().expect("a roll-up");
    let store = &cx.engine.store;
    let base_tree = store.tree(&base.primary_tree_of(None))?;
    let scan = base_tree.range(Bound::Unbounded, Bound::Unbounded, false);
    let mut groups: BTreeMap<Vec<u8>, Vec<crate::types::value::Value>> = BTreeMap::new();
    for entry in scan {
        let (_, v) = entry?;
        let row = decode_row(&base.layout, &v)?;
        let p = partial(r, def, &row)?;
        let key = r.encode_pk(&p)?;
        match groups.get_mut(&key) {
            Some(acc) => merge(def, acc, &p)?,
            None => {
                groups.insert(key, p);
            }
        }
    }
    let tree = store.tree(&r.primary_tree_of(None))?;
    let mut txn = store.env().begin(TxnOptions::default())?;
    let n = groups.len() as u64;
    for acc in groups.into_values() {
        let (key, bytes) = encode(r, &acc)?;
        txn.put(&tree, &key, &bytes)?;
    }
    txn.commit()?;
    Ok(n)
}
