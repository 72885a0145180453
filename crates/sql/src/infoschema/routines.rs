//! information_schema.ROUTINES: the stored functions and procedures of the visible databases
//! (design.md "Stored routines"), with the columns of MariaDB 10.11's view.
//!
//! Invariants: the column list is empty.rs's (one list for the view's shape); a function's
//! DATA_TYPE and DTD_IDENTIFIER come from its RETURNS type as a column of that type reads it
//! (a procedure's DATA_TYPE is empty, as MariaDB shows it); the columns MariaDB derives from
//! the type's details (lengths, precision, character set) are NULL here; times are in the
//! session's zone.

use super::{names, t, ViewRows};
use crate::context::Context;
use crate::parser::routines::type_column;
use crate::types::time_zone::from_unix_micros;
use crate::types::value::Value;

/// information_schema.ROUTINES.
pub(super) fn routines_view(cx: &Context, visible: &[String]) -> ViewRows {
    let cols = names(super::empty::empty_view_columns("ROUTINES").unwrap_or(&[]));
    let time = |secs: i64| match from_unix_micros(secs.saturating_mul(1_000_000)) {
        Some(dt) => t(cx.time_zone.utc_to_local(dt).format(0)),
        None => Value::Null,
    };
    let mut rows = Vec::new();
    for r in cx.engine.catalog.all_routines() {
        if !visible.contains(&r.db) {
            continue;
        }
        let ty = r
            .returns
            .as_deref()
            .and_then(|ty| type_column("r", ty).ok());
        let dtd = ty.as_ref().map(|c| c.column_type());
        let data_type = dtd
            .as_deref()
            .map(|d| d.split(['(', ' ']).next().unwrap_or(d).to_string())
            .unwrap_or_default();
        let mut row = vec![
            t(r.name.clone()),
            t("def"),
            t(r.db.clone()),
            t(r.name.clone()),
            t(r.kind.name()),
            t(data_type),
        ];
        row.extend(std::iter::repeat_n(Value::Null, 7));
        row.push(dtd.map_or(Value::Null, t));
        row.extend([
            t("SQL"),
            t(r.body.clone()),
            Value::Null,
            Value::Null,
            t("SQL"),
            t(if r.traits.deterministic { "YES" } else { "NO" }),
            t(r.traits.access.sql()),
            Value::Null,
            t(if r.traits.invoker {
                "INVOKER"
            } else {
                "DEFINER"
            }),
            time(r.created),
            time(r.modified),
            t(r.sql_mode.clone()),
            t(r.traits.comment.clone()),
            t(format!("{}@{}", r.definer.0, r.definer.1)),
            t(r.client_charset.clone()),
            t(r.connection_collation.clone()),
            t(r.database_collation.clone()),
        ]);
        rows.push(row);
    }
    (cols, rows)
}
