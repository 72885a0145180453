//! Views in information_schema and SHOW: information_schema.VIEWS, and the rows a view has in
//! information_schema.TABLES and SHOW TABLE STATUS (design.md "Views").
//!
//! Invariant: a view's row carries no engine, sizes or row counts (NULL, as MariaDB shows them)
//! and the comment `VIEW`, which is how mariadb-dump tells a view from a table.

use super::{names, t, ViewRows};
use crate::catalog::ViewDef;
use crate::context::Context;
use crate::types::value::Value;

/// information_schema.VIEWS: the views of the databases `visible` to the user. IS_UPDATABLE
/// says whether the body has the shape writes go through (VIEW6; the base table is not looked
/// at here).
pub(super) fn views_view(cx: &Context, visible: &[String]) -> ViewRows {
    let cols = names(&[
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
    ]);
    let mut rows = Vec::new();
    for db in visible {
        for v in cx.engine.catalog.views(db) {
            rows.push(vec![
                t("def"),
                t(v.db.clone()),
                t(v.name.clone()),
                t(v.select.clone()),
                t(v.check.name()),
                t(
                    if crate::parser::views::parse_select(&v.select)
                        .is_ok_and(|q| crate::parser::views::is_updatable(&q))
                    {
                        "YES"
                    } else {
                        "NO"
                    },
                ),
                t(format!("{}@{}", v.definer.0, v.definer.1)),
                t(v.security.name()),
                t(v.client_charset.clone()),
                t(v.connection_collation.clone()),
                t(v.algorithm.name()),
            ]);
        }
    }
    (cols, rows)
}

/// SHOW TABLE STATUS's row of view `v` (20 columns: Name, NULLs, Comment `VIEW`, NULL, NULL).
pub fn view_status_row(v: &ViewDef) -> Vec<Value> {
    let mut r = vec![t(v.name.clone())];
    r.extend(vec![Value::Null; 16]);
    r.push(t("VIEW"));
    r.extend([Value::Null, Value::Null]);
    r
}
