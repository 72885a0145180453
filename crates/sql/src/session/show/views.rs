//! SHOW CREATE VIEW (and SHOW CREATE TABLE of a view), SHOW [FULL] COLUMNS / DESCRIBE of a view
//! (design.md "Views").
//!
//! Invariants: a view's SHOW CREATE has MariaDB's columns (View, Create View,
//! character_set_client, collation_connection) whichever statement asked; a view's columns are
//! those of its body as planned now (plan/view.rs), so DESCRIBE of an invalid view is 1356.

use super::{matches, t};
use crate::catalog::ViewDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;
use crate::types::column_flag;
use crate::types::value::Value;

/// SHOW CREATE VIEW `table` (1347 for a table, 1146 when there is neither).
pub fn create_view(cx: &mut Context, table: &[String]) -> DbResult<Output> {
    let (db, name) = cx.resolve_table_name(table)?;
    cx.check_db_access(&db)?;
    match cx.engine.catalog.view(&db, &name) {
        Some(v) => Ok(create_view_output(cx, &v)),
        None if cx.find_table(&db, &name).is_some() => {
            Err(DbError::wrong_object(&db, &name, "VIEW"))
        }
        None => Err(DbError::no_table(&db, &name)),
    }
}

/// The result of SHOW CREATE VIEW of `v`.
pub fn create_view_output(cx: &Context, v: &ViewDef) -> Output {
    let body = crate::plan::view_shown::shown_body(v, cx.db.as_deref());
    let qualified = cx.db.as_deref() != Some(v.db.as_str());
    Output::text(
        &[
            "View",
            "Create View",
            "character_set_client",
            "collation_connection",
        ],
        vec![vec![
            t(v.name.clone()),
            t(v.create_text(&body, qualified)),
            t(v.client_charset.clone()),
            t(v.connection_collation.clone()),
        ]],
    )
}

/// SHOW [FULL] COLUMNS / DESCRIBE of view `v`.
pub fn view_columns(
    cx: &mut Context,
    v: &ViewDef,
    full: bool,
    pat: Option<&str>,
) -> DbResult<Output> {
    let (_, cols) = crate::plan::view::plan_view(cx, v)?;
    let pat = pat.map(str::to_string);
    let rows = cols
        .iter()
        .filter(|c| matches(&pat, &c.name))
        .map(|c| {
            let ty =
                c.ty.map_or_else(|| "binary(0)".to_string(), |ty| ty.column_type(None));
            let null = if c.flags & column_flag::NOT_NULL != 0 {
                "NO"
            } else {
                "YES"
            };
            let collation = match c.ty {
                Some(ty) if ty.is_text() => t(c.collation.name()),
                _ => Value::Null,
            };
            let mut r = vec![t(c.name.clone()), t(ty)];
            if full {
                r.push(collation);
            }
            r.extend([t(null), t(""), Value::Null, t("")]);
            if full {
                r.extend([t("select,insert,update,references"), t("")]);
            }
            r
        })
        .collect();
    Ok(super::schema::columns_output(full, rows))
}
