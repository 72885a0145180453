//! SET (read by sqlparser): system variables (session or global), user variables, SET NAMES,
//! SET TRANSACTION ISOLATION LEVEL and named key caches' parameters (`cache.key_buffer_size`).
//!
//! Invariants: an unknown system variable is a warning (1193), not an error; a value is
//! normalized as the variable keeps it (variables.rs); setting a global needs root; turning
//! autocommit on commits the open transaction; forms Betula has no use for are accepted with
//! warning 1235.

use sqlparser::ast;

use crate::catalog::charset_clause;
use crate::context::charset_defaults::set_pair;
use crate::context::variables;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::{object_name_parts, user_var_name, Scope};
use crate::result::Output;
use crate::session::key_cache;
use crate::types::collation::Collation;
use crate::types::time_zone::{format_offset, TimeZone};
use crate::types::value::Value;

/// SET statements (parsed by sqlparser).
pub fn set(cx: &mut Context, s: &ast::Set) -> DbResult<Output> {
    use ast::Set as S;
    match s {
        S::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } => {
            let global = matches!(scope, Some(ast::ContextModifier::Global));
            let v = values.first().ok_or_else(|| DbError::syntax("SET"))?;
            assign(cx, &object_name_parts(variable), global, v)?;
        }
        S::MultipleAssignments { assignments } => {
            for a in assignments {
                let global = matches!(a.scope, Some(ast::ContextModifier::Global));
                assign(cx, &object_name_parts(&a.name), global, &a.value)?;
            }
        }
        S::SetNames {
            charset_name,
            collation_name,
        } => cx.set_names(Some((&charset_name.value, collation_name.as_deref())))?,
        S::SetNamesDefault {} => cx.set_names(None)?,
        S::SetTransaction { modes, .. } => {
            for m in modes {
                if let ast::TransactionMode::IsolationLevel(l) = m {
                    let v = match l {
                        ast::TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
                        ast::TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
                        ast::TransactionIsolationLevel::Serializable => "SERIALIZABLE",
                        _ => "REPEATABLE-READ",
                    };
                    for n in ["transaction_isolation", "tx_isolation"] {
                        cx.vars.insert(n.into(), Value::Text(v.into()));
                    }
                }
            }
        }
        other => {
            let text = other.to_string();
            cx.warn(ErrorCode::NotSupportedYet, format!("Ignored: {text}"));
        }
    }
    Ok(Output::done(0))
}

/// `server` or `database` for the variables that name a default character set or collation.
fn charset_pair(var: &str) -> Option<&'static str> {
    match var {
        "character_set_server" | "collation_server" => Some("server"),
        "character_set_database" | "collation_database" => Some("database"),
        _ => None,
    }
}

/// The collation a SET of `character_set_*` (its default collation) or `collation_*` means;
/// 1115 / 1273 for an unknown name.
fn pair_collation(var: &str, v: &Value) -> DbResult<Collation> {
    let name = crate::expr::eval::text_of(v).unwrap_or_default();
    if var.starts_with("character_set_") {
        Ok(charset_clause::charset_named(&name)?.default_collation())
    } else {
        charset_clause::collation_named(&name)
    }
}

/// A `time_zone` value: the zone, and the text the variable keeps (an offset as `+hh:mm`, as
/// MariaDB shows it); 1298 for anything else.
fn time_zone_value(v: &Value) -> DbResult<(TimeZone, Value)> {
    let text = crate::expr::eval::text_of(v).unwrap_or_default();
    let zone = TimeZone::parse(&text).ok_or_else(|| {
        DbError::new(
            ErrorCode::UnknownTimeZone,
            format!("Unknown or incorrect time zone: '{text}'"),
        )
    })?;
    let shown = match zone {
        _ if text.eq_ignore_ascii_case("SYSTEM") => text,
        TimeZone::Offset(o) => format_offset(o),
        TimeZone::Zone(_) => zone.name().unwrap_or(text),
    };
    Ok((zone, Value::Text(shown)))
}

fn assign(cx: &mut Context, name: &[String], global: bool, value: &ast::Expr) -> DbResult<()> {
    let (var, mut global, user) = match name {
        [n] if n.starts_with("@@") => (n[2..].to_string(), global, false),
        [s, n] if s.eq_ignore_ascii_case("@@global") => (n.clone(), true, false),
        [s, n] if s.eq_ignore_ascii_case("@@session") || s.eq_ignore_ascii_case("@@local") => {
            (n.clone(), false, false)
        }
        [n] if n.starts_with('@') => (user_var_name(&n[1..]).into_owned(), false, true),
        [n] => (n.clone(), global, false),
        [cache, p] | [_, cache, p] if crate::context::key_caches::param(p).is_some() => {
            let v = eval(
                &cx.compile(&Scope::default(), value, "SET")?,
                &EvalCtx::default(),
            )?;
            cx.need_root("SYSTEM_VARIABLES_ADMIN")?;
            let p = crate::context::key_caches::param(p).unwrap_or_default();
            return key_cache::assign(cx, cache, p, &v);
        }
        other => return Err(DbError::syntax(other.join("."))),
    };
    let var = var.to_ascii_lowercase();
    let v = match value {
        ast::Expr::Identifier(i)
            if user && i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") =>
        {
            return Err(DbError::syntax(""));
        }
        // A system variable's value may be a bare word (`sql_mode = traditional`); a user
        // variable's is an expression, where a bare word is a column (1054 here).
        ast::Expr::Identifier(i)
            if i.quote_style.is_none() && !i.value.starts_with('@') && !user =>
        {
            if i.value.eq_ignore_ascii_case("DEFAULT") {
                variables::defaults(0, "")
                    .get(&var)
                    .cloned()
                    .unwrap_or(Value::Null)
            } else {
                Value::Text(i.value.clone())
            }
        }
        e => {
            let ex = cx.compile(&Scope::default(), e, "SET")?;
            eval(&ex, &EvalCtx::default())?
        }
    };
    if user {
        cx.user_vars.set(&var, v);
        return Ok(());
    }
    if var == "transaction_isolation" || var == "tx_isolation" || var == "transaction_read_only" {
        // accepted; Betula has one isolation behaviour (see store.rs)
    }
    let known = cx.engine.globals.read().contains_key(&var);
    if !known {
        cx.warn(
            ErrorCode::UnknownSystemVariable,
            format!("Unknown system variable '{var}' (ignored)"),
        );
        return Ok(());
    }
    if var == "autocommit" {
        global = false.max(global);
    }
    let mut v = v;
    if var == "optimizer_switch" {
        let current = cx.sysvar_value(&var, global).unwrap_or(Value::Null);
        let current = crate::expr::eval::text_of(&current).unwrap_or_default();
        let (value, warnings) = crate::context::optimizer_switch::assign(&current, &v)?;
        for (code, message) in warnings {
            cx.warn(code, message);
        }
        v = Value::Text(value);
    }
    if var == "sql_mode" {
        v = Value::Text(crate::types::sql_mode::assign(&v)?);
    }
    if let Some(b) = variables::bounded(&var, &v) {
        let (kept, warning) = b?;
        if let Some((code, message)) = warning {
            cx.warn(code, message);
        }
        v = kept;
    }
    let v = variables::normalize(&var, v);
    if !global && cx.set_charset_variable(&var, &v)? {
        return Ok(());
    }
    if let Some(which) = charset_pair(&var) {
        let coll = pair_collation(&var, &v)?;
        if global {
            cx.need_root("SYSTEM_VARIABLES_ADMIN")?;
            set_pair(&mut cx.engine.globals.write(), which, coll);
        } else {
            set_pair(&mut cx.vars, which, coll);
        }
        return Ok(());
    }
    let v = if var == "time_zone" {
        let (zone, shown) = time_zone_value(&v)?;
        if !global {
            cx.time_zone = zone;
        }
        shown
    } else {
        v
    };
    if global {
        cx.need_root("SYSTEM_VARIABLES_ADMIN")?;
        let mut globals = cx.engine.globals.write();
        for n in variables::names_of(&var) {
            globals.insert(n.to_string(), v.clone());
        }
        return Ok(());
    }
    if var == "autocommit" && truth(&v) == Some(true) && !cx.autocommit() {
        // Turning autocommit on commits the open transaction.
        cx.commit()?;
    }
    for n in variables::names_of(&var) {
        cx.vars.insert(n.to_string(), v.clone());
    }
    Ok(())
}
