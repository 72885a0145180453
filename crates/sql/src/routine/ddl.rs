//! CREATE [OR REPLACE] FUNCTION / PROCEDURE and DROP FUNCTION / PROCEDURE (design.md RTN1,
//! RTN2).
//!
//! Invariants: the statement was parsed whole (header, body) by the front end, and every type it
//! names is checked here, before anything is written; the definition is one catalog write, a
//! DROP one delete; IF NOT EXISTS of an existing routine and DROP IF EXISTS of a missing one
//! are notes (1304, 1305), as in MariaDB.

use crate::catalog::routine_def::{RoutineDef, RoutineKind};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::parser::routines::{type_column, RoutineStmt};
use crate::result::Output;
use crate::routine::qualify;
use crate::types::value::Value;

/// CREATE FUNCTION / PROCEDURE.
pub fn create(cx: &mut Context, r: &RoutineStmt) -> DbResult<Output> {
    let (db, name) = qualify(cx, &r.name)?;
    if !cx.engine.catalog.has_db(&db) {
        return Err(DbError::bad_db(&db));
    }
    if !cx.routine_stack.is_empty() {
        return Err(DbError::new(
            ErrorCode::SpNoRecursiveCreate,
            format!(
                "Can't create a {} from within another stored routine",
                r.kind.name()
            ),
        ));
    }
    for p in &r.params {
        type_column(&p.name, &p.ty)?;
    }
    if let Some(ty) = &r.returns {
        type_column("return", ty)?;
    }
    let old = cx.engine.catalog.routine(&db, r.kind, &name);
    if old.is_some() && !r.or_replace {
        let message = format!("{} {name} already exists", r.kind.name());
        if r.if_not_exists {
            note(cx, ErrorCode::SpAlreadyExists, message);
            return Ok(Output::done(0));
        }
        return Err(DbError::new(ErrorCode::SpAlreadyExists, message));
    }
    let now = cx.now_utc.unix_micros().unwrap_or(0).div_euclid(1_000_000);
    let def = RoutineDef {
        db: db.clone(),
        kind: r.kind,
        name,
        definer: r
            .definer
            .clone()
            .unwrap_or_else(|| (cx.user.clone(), cx.host.clone())),
        params: r.params_text.clone(),
        returns: r.returns.clone(),
        traits: r.traits.clone(),
        sql_mode: var_text(cx, "sql_mode", ""),
        client_charset: var_text(cx, "character_set_client", "utf8mb4"),
        connection_collation: var_text(cx, "collation_connection", "utf8mb4_general_ci"),
        database_collation: cx.database_collation(&db).name().to_string(),
        created: old.as_ref().map_or(now, |o| o.created),
        modified: now,
        body: r.body_text.clone(),
    };
    cx.engine.catalog.put_routine(def)?;
    Ok(Output::done(0))
}

/// DROP FUNCTION / PROCEDURE [IF EXISTS].
pub fn drop(
    cx: &mut Context,
    kind: RoutineKind,
    name: &[String],
    if_exists: bool,
) -> DbResult<Output> {
    let (db, name) = qualify(cx, name)?;
    if cx.engine.catalog.routine(&db, kind, &name).is_none() {
        let message = format!("{} {db}.{name} does not exist", kind.name());
        if if_exists {
            note(cx, ErrorCode::SpDoesNotExist, message);
            return Ok(Output::done(0));
        }
        return Err(DbError::new(ErrorCode::SpDoesNotExist, message));
    }
    cx.engine.catalog.remove_routine(&db, kind, &name)?;
    Ok(Output::done(0))
}

fn note(cx: &mut Context, code: ErrorCode, message: String) {
    cx.warnings.push(Warning {
        level: WarningLevel::Note,
        code,
        message,
    });
}

fn var_text(cx: &Context, name: &str, default: &str) -> String {
    match cx.vars.get(name) {
        Some(Value::Text(s)) => s.clone(),
        _ => default.to_string(),
    }
}
