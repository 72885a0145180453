//! SHOW DATABASES, TABLES, TABLE STATUS, COLUMNS (and DESCRIBE), INDEX, CREATE DATABASE and
//! CREATE TABLE (of a view: views.rs).
//!
//! Invariant: a user sees only the databases it may use (SHOW DATABASES lists them, the others
//! answer with 1044 as MySQL does).

use std::sync::Arc;

use super::{first_text, matches, t};
use crate::catalog::create_table::{quote_ident, quote_str, render_create};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::infoschema;
use crate::result::Output;
use crate::types::value::Value;

pub fn databases(cx: &Context, like: &Option<String>) -> Output {
    let mut dbs = vec!["information_schema".to_string()];
    dbs.extend(cx.engine.catalog.databases());
    let user = cx.account();
    let rows = dbs
        .into_iter()
        .filter(|d| matches(like, d) && user.as_ref().is_some_and(|u| u.may_use(d)))
        .map(|d| vec![t(d)])
        .collect();
    Output::text(&["Database"], rows)
}

/// The database of FROM / IN (checked), or the current one.
fn from_db(cx: &Context, db: Option<&str>) -> DbResult<String> {
    if let Some(db) = db {
        if !db.eq_ignore_ascii_case("information_schema") && !cx.engine.catalog.has_db(db) {
            return Err(DbError::bad_db(db));
        }
        cx.check_db_access(db)?;
        return Ok(if db.eq_ignore_ascii_case("information_schema") {
            "information_schema".into()
        } else {
            db.to_string()
        });
    }
    cx.db.clone().ok_or_else(DbError::no_db)
}

pub fn tables(
    cx: &mut Context,
    full: bool,
    db: Option<&str>,
    like: &Option<String>,
) -> DbResult<Output> {
    let db = from_db(cx, db)?;
    // MariaDB names the column after the pattern too: `Tables_in_d (v%)`.
    let col = match like {
        Some(p) => format!("Tables_in_{db} ({p})"),
        None => format!("Tables_in_{db}"),
    };
    let names = infoschema::table_names(cx, &db);
    let rows = names
        .into_iter()
        .filter(|n| matches(like, n))
        .map(|n| {
            let mut r = vec![t(n.clone())];
            if full {
                r.push(t(if db == "information_schema" {
                    "SYSTEM VIEW"
                } else if cx.engine.catalog.view(&db, &n).is_some() {
                    "VIEW"
                } else {
                    "BASE TABLE"
                }));
            }
            r
        })
        .collect();
    Ok(if full {
        Output::text(&[&col, "Table_type"], rows)
    } else {
        Output::text(&[&col], rows)
    })
}

pub fn table_status(cx: &mut Context, db: Option<&str>, like: &Option<String>) -> DbResult<Output> {
    let db = from_db(cx, db)?;
    let (cols, rows) = infoschema::table_status(cx, &db)?;
    let rows = rows
        .into_iter()
        .filter(|r| matches(like, &first_text(r)))
        .collect();
    Ok(Output::Rows { cols, rows })
}

pub fn indexes(cx: &mut Context, table: &[String]) -> DbResult<Output> {
    let (db, tn) = cx.resolve_table_name(table)?;
    cx.check_db_access(&db)?;
    let def = cx.get_table(&db, &tn)?;
    let (_, rows) = infoschema::index_rows(cx, &def);
    Ok(Output::text(
        &[
            "Table",
            "Non_unique",
            "Key_name",
            "Seq_in_index",
            "Column_name",
            "Collation",
            "Cardinality",
            "Sub_part",
            "Packed",
            "Null",
            "Index_type",
            "Comment",
            "Index_comment",
            "Ignored",
        ],
        rows.into_iter()
            .map(|mut r| {
                // MariaDB's form: Ignored instead of MySQL 8's Visible, Expression
                r.truncate(13);
                r.push(t("NO"));
                r
            })
            .collect(),
    ))
}

pub fn create_database(cx: &Context, db: &str) -> DbResult<Output> {
    let Some(def) = cx.engine.catalog.db(db) else {
        return Err(DbError::bad_db(db));
    };
    // MariaDB names the collation only when it is not its character set's default.
    let collate = if def.collation.is_default() {
        String::new()
    } else {
        format!(" COLLATE {}", def.collation.name())
    };
    let mut text = format!(
        "CREATE DATABASE {} /*!40100 DEFAULT CHARACTER SET {}{collate} */",
        quote_ident(db),
        def.collation.charset().name(),
    );
    if let Some(c) = &def.comment {
        text.push_str(&format!(" COMMENT {}", quote_str(c)));
    }
    Ok(Output::text(
        &["Database", "Create Database"],
        vec![vec![t(db), t(text)]],
    ))
}

pub fn create_table(cx: &mut Context, table: &[String]) -> DbResult<Output> {
    let (db, tn) = cx.resolve_table_name(table)?;
    cx.check_db_access(&db)?;
    if cx.temp.get(&db, &tn).is_none() {
        if let Some(v) = cx.engine.catalog.view(&db, &tn) {
            return Ok(super::views::create_view_output(cx, &v));
        }
    }
    let def = cx.get_table(&db, &tn)?;
    Ok(Output::text(
        &["Table", "Create Table"],
        vec![vec![t(tn), t(render_create(&def))]],
    ))
}

/// SHOW [FULL] COLUMNS / DESCRIBE of `db`.`tn` (`pat`: LIKE pattern on the column name).
pub fn show_columns(
    cx: &mut Context,
    db: &str,
    tn: &str,
    full: bool,
    pat: Option<&str>,
) -> DbResult<Output> {
    cx.check_db_access(db)?;
    if db == "information_schema" {
        let (cols, _) = infoschema::view(cx, tn)?;
        let rows = cols
            .iter()
            .map(|c| {
                vec![
                    t(c.name.clone()),
                    t("varchar(256)"),
                    t("YES"),
                    t(""),
                    Value::Null,
                    t(""),
                ]
            })
            .collect();
        return Ok(Output::text(
            &["Field", "Type", "Null", "Key", "Default", "Extra"],
            rows,
        ));
    }
    if cx.temp.get(db, tn).is_none() {
        if let Some(v) = cx.engine.catalog.view(db, tn) {
            return super::views::view_columns(cx, &v, full, pat);
        }
    }
    let def: Arc<TableDef> = cx.get_table(db, tn)?;
    let pat = pat.map(str::to_string);
    let rows = infoschema::column_rows(&def)
        .into_iter()
        .filter(|r| {
            matches(
                &pat,
                &crate::expr::eval::text_of(&r.field).unwrap_or_default(),
            )
        })
        .map(|r| {
            if full {
                vec![
                    r.field,
                    r.ty,
                    r.collation,
                    r.null,
                    r.key,
                    r.default,
                    r.extra,
                    t("select,insert,update,references"),
                    r.comment,
                ]
            } else {
                vec![r.field, r.ty, r.null, r.key, r.default, r.extra]
            }
        })
        .collect();
    Ok(columns_output(full, rows))
}

/// SHOW [FULL] COLUMNS' result of `rows` (a table's or a view's).
pub(super) fn columns_output(full: bool, rows: Vec<Vec<Value>>) -> Output {
    if full {
        Output::text(
            &[
                "Field",
                "Type",
                "Collation",
                "Null",
                "Key",
                "Default",
                "Extra",
                "Privileges",
                "Comment",
            ],
            rows,
        )
    } else {
        Output::text(&["Field", "Type", "Null", "Key", "Default", "Extra"], rows)
    }
}
