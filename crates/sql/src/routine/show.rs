//! SHOW CREATE FUNCTION / PROCEDURE and SHOW FUNCTION / PROCEDURE STATUS, in MariaDB's columns.
//!
//! Invariants: the CREATE text is the stored definition (RTN1) with the RETURNS type as MariaDB
//! prints a column of that type; times are shown in the session's time zone.

use crate::catalog::routine_def::{RoutineDef, RoutineKind};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::like_match;
use crate::parser::routines::type_column;
use crate::result::Output;
use crate::routine::qualify;
use crate::types::time_zone::from_unix_micros;
use crate::types::value::Value;

fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// A function's RETURNS type as MariaDB prints it (`int(11)`, `varchar(10) CHARSET utf8mb4
/// COLLATE utf8mb4_general_ci`); the text as written if it no longer reads.
pub fn returns_text(def: &RoutineDef) -> Option<String> {
    let ty = def.returns.as_deref()?;
    Some(match type_column("return", ty) {
        Ok(c) if c.sql_type.is_text() => format!(
            "{} CHARSET {} COLLATE {}",
            c.column_type(),
            c.collation.charset().name(),
            c.collation.name()
        ),
        Ok(c) => c.column_type(),
        Err(_) => ty.to_string(),
    })
}

/// SHOW CREATE FUNCTION / PROCEDURE `name` (1305 when there is none).
pub fn show_create(cx: &mut Context, kind: RoutineKind, name: &[String]) -> DbResult<Output> {
    let (db, name) = qualify(cx, name)?;
    let def = cx.engine.catalog.routine(&db, kind, &name).ok_or_else(|| {
        DbError::new(
            ErrorCode::SpDoesNotExist,
            format!("{} {name} does not exist", kind.name()),
        )
    })?;
    let (label, create) = match kind {
        RoutineKind::Function => ("Function", "Create Function"),
        RoutineKind::Procedure => ("Procedure", "Create Procedure"),
    };
    Ok(Output::text(
        &[
            label,
            "sql_mode",
            create,
            "character_set_client",
            "collation_connection",
            "Database Collation",
        ],
        vec![vec![
            t(def.name.clone()),
            t(def.sql_mode.clone()),
            t(def.create_text(returns_text(&def).as_deref())),
            t(def.client_charset.clone()),
            t(def.connection_collation.clone()),
            t(def.database_collation.clone()),
        ]],
    ))
}

/// A time of the catalog (Unix seconds) in the session's zone, as DATETIME text.
pub fn local_time(cx: &Context, secs: i64) -> Value {
    match from_unix_micros(secs.saturating_mul(1_000_000)) {
        Some(dt) => t(cx.time_zone.utc_to_local(dt).format(0)),
        None => Value::Null,
    }
}

/// SHOW FUNCTION / PROCEDURE STATUS [LIKE 'pattern'] (every database).
pub fn status(cx: &mut Context, kind: RoutineKind, like: &Option<String>) -> DbResult<Output> {
    let rows = cx
        .engine
        .catalog
        .all_routines()
        .into_iter()
        .filter(|r| r.kind == kind)
        .filter(|r| {
            like.as_ref()
                .is_none_or(|p| like_match(&r.name, p, '\\', true))
        })
        .map(|r| {
            vec![
                t(r.db.clone()),
                t(r.name.clone()),
                t(kind.name()),
                t(format!("{}@{}", r.definer.0, r.definer.1)),
                local_time(cx, r.modified),
                local_time(cx, r.created),
                t(if r.traits.invoker {
                    "INVOKER"
                } else {
                    "DEFINER"
                }),
                t(r.traits.comment.clone()),
                t(r.client_charset.clone()),
                t(r.connection_collation.clone()),
                t(r.database_collation.clone()),
            ]
        })
        .collect();
    Ok(Output::text(
        &[
            "Db",
            "Name",
            "Type",
            "Definer",
            "Modified",
            "Created",
            "Security_type",
            "Comment",
            "character_set_client",
            "collation_connection",
            "Database Collation",
        ],
        rows,
    ))
}
