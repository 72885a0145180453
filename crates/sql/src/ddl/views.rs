//! Views: CREATE [OR REPLACE] / ALTER VIEW, DROP VIEW, RENAME TABLE of a view and the views of a
//! dropped database (design.md VIEW1, VIEW2, VIEW4; the catalog entry is catalog/view_def.rs).
//!
//! Invariants: every statement runs under the schema lock (`begin_ddl`) and checks the name
//! against tables and views alike (VIEW2); CREATE and ALTER plan the SELECT before anything is
//! written (VIEW4), so a failed statement changes nothing; each change is one catalog write
//! (VIEW1).

use crate::catalog::create_table::check_name;
use crate::catalog::view_def::{ViewAlgorithm, ViewSecurity};
use crate::catalog::ViewDef;
use crate::context::Context;
use crate::ddl::tables::already_exists;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::views::ViewStmt;
use crate::plan::view::{check_body, named_columns};
use crate::plan::view_text::printed_body;
use crate::result::Output;
use crate::types::value::Value;

/// Whether a view's SELECT names a variable (`@v`, `` @`v` ``, `@@v`): MariaDB refuses such a
/// view (1351), whose rows would depend on the session reading it.
fn names_variable(select_text: &str) -> bool {
    crate::parser::tokens::lex(select_text)
        .iter()
        .any(|(t, _)| {
            matches!(t, crate::parser::tokens::Tok::Word { text, quoted: false, .. }
            if text.starts_with('@'))
        })
}

/// CREATE [OR REPLACE] VIEW and ALTER VIEW.
pub fn create_view(cx: &mut Context, v: &ViewStmt) -> DbResult<Output> {
    let (db, name) = cx.resolve_table_name(&v.name)?;
    if db == "information_schema" {
        return Err(DbError::access_denied_db(&cx.user, &cx.host, &db));
    }
    if !cx.engine.catalog.has_db(&db) {
        return Err(DbError::bad_db(&db));
    }
    cx.check_db_access(&db)?;
    check_name(&name)?;
    if names_variable(&v.select_text) {
        return Err(DbError::new(
            ErrorCode::ViewSelectVariable,
            "View's SELECT contains a variable or parameter",
        ));
    }
    cx.begin_ddl()?;
    let old = cx.engine.catalog.view(&db, &name);
    let table = cx.engine.catalog.table(&db, &name).is_some();
    if v.alter || (v.or_replace && table) {
        if table {
            return Err(DbError::wrong_object(&db, &name, "VIEW"));
        }
        if old.is_none() {
            return Err(DbError::no_table(&db, &name));
        }
    } else if table || (old.is_some() && !v.or_replace) {
        return already_exists(cx, &name, v.if_not_exists);
    }
    // VIEW4: the SELECT plans (reading nothing) before anything is written. The view being
    // defined is not visible to its own body (1146, as MariaDB answers).
    let plan =
        check_body(cx, (&db, &name), &v.select_text, &v.query).map_err(|e| match e.code {
            ErrorCode::ViewRecursive => DbError::no_table(&db, &name),
            _ => e,
        })?;
    named_columns(plan.columns(), &v.columns)?;
    let printed = printed_select(cx, (&db, &name), v, plan.columns().len());
    drop(plan);
    // The printed form names the items by the column list, which is then not kept.
    let (select, columns) = match printed {
        Some(text) => (text, Vec::new()),
        None => (v.select_text.clone(), v.columns.clone()),
    };
    let kept = old.filter(|_| v.alter);
    let def = ViewDef {
        db,
        name,
        columns,
        select,
        algorithm: v
            .algorithm
            .or(kept.as_ref().map(|o| o.algorithm))
            .unwrap_or(ViewAlgorithm::Undefined),
        definer: v
            .definer
            .clone()
            .or(kept.as_ref().map(|o| o.definer.clone()))
            .unwrap_or_else(|| (cx.user.clone(), definer_host(cx))),
        security: v
            .security
            .or(kept.as_ref().map(|o| o.security))
            .unwrap_or(ViewSecurity::Definer),
        check: v.check,
        client_charset: var_text(cx, "character_set_client", "utf8mb4"),
        connection_collation: var_text(cx, "collation_connection", "utf8mb4_general_ci"),
    };
    cx.engine.catalog.put_view(def)?;
    Ok(Output::done(0))
}

/// MariaDB's printed form of the view's SELECT (plan/view_text.rs) when it reads back and
/// plans to `width` columns with valid names; None to keep the SELECT as written.
fn printed_select(
    cx: &mut Context,
    view: (&str, &str),
    v: &ViewStmt,
    width: usize,
) -> Option<String> {
    let text = printed_body(cx, view, &v.select_text, &v.query, &v.columns).ok()?;
    let q = crate::parser::views::parse_select(&text).ok()?;
    let plan = check_body(cx, view, &text, &q).ok()?;
    let cols = plan.columns();
    (cols.len() == width && named_columns(cols, &[]).is_ok()).then_some(text)
}

/// The host of a view's default definer: MariaDB names the account the client was matched
/// with, which for a client on the loopback address is the one of that address (its accounts
/// `root`@`127.0.0.1` and `root`@`::1`); Betula's accounts have no host, so other clients'
/// views are `localhost`'s.
fn definer_host(cx: &Context) -> String {
    match cx.host.as_str() {
        h @ ("127.0.0.1" | "::1") => h.to_string(),
        _ => "localhost".into(),
    }
}

fn var_text(cx: &Context, name: &str, default: &str) -> String {
    match cx.vars.get(name) {
        Some(Value::Text(s)) => s.clone(),
        _ => default.to_string(),
    }
}

/// DROP VIEW [IF EXISTS]: every name is checked first (4092 for a missing one or a table),
/// then the views are dropped; with IF EXISTS a missing name is a note.
pub fn drop_views(cx: &mut Context, names: &[Vec<String>], if_exists: bool) -> DbResult<Output> {
    cx.begin_ddl()?;
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for n in names {
        let (db, v) = cx.resolve_table_name(n)?;
        cx.check_db_access(&db)?;
        match cx.engine.catalog.view(&db, &v) {
            Some(def) => found.push(def),
            // A table is not a view: 4092 as for a missing name (MariaDB's answer).
            None => missing.push(format!("{db}.{v}")),
        }
    }
    let unknown = |names: &str| format!("Unknown VIEW: '{names}'");
    super::tables::refuse_missing(cx, missing, if_exists, ErrorCode::UnknownView, unknown)?;
    for def in found {
        cx.engine.catalog.remove_view(&def.db, &def.name)?;
    }
    Ok(Output::done(0))
}

/// RENAME TABLE of view `fdb`.`fv` to `tdb`.`tv` (one catalog transaction, VIEW1). A view
/// stays in its database, as in MariaDB (1450 otherwise).
pub fn rename_view(cx: &mut Context, old: &ViewDef, tdb: &str, tv: &str) -> DbResult<()> {
    check_name(tv)?;
    if cx.engine.catalog.name_taken(tdb, tv) {
        return Err(DbError::table_exists(tv));
    }
    if old.db != tdb {
        return Err(DbError::new(
            ErrorCode::ForbidSchemaChange,
            format!(
                "Changing schema from '{}' to '{tdb}' is not allowed",
                old.db
            ),
        ));
    }
    let mut new = old.clone();
    new.name = tv.to_string();
    cx.engine
        .catalog
        .rename_view(cx.engine.store.env(), old, new)
}

/// Drops every view of database `db` (DROP DATABASE, before the database's entry: VIEW1).
pub fn drop_database_views(cx: &mut Context, db: &str) -> DbResult<usize> {
    let views = cx.engine.catalog.views(db);
    for v in &views {
        cx.engine.catalog.remove_view(&v.db, &v.name)?;
    }
    Ok(views.len())
}

/// 1965 when `db`.`t` is a view (DROP TABLE of a view).
pub fn refuse_view_as_table(cx: &Context, db: &str, t: &str) -> DbResult<()> {
    match cx.engine.catalog.view(db, t) {
        Some(_) => Err(DbError::new(
            ErrorCode::ItIsAView,
            format!("'{db}.{t}' is a view"),
        )),
        None => Ok(()),
    }
}
