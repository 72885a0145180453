//! The statements that use named key caches (context/key_caches.rs): `SET GLOBAL
//! cache.param = v`, `CACHE INDEX ... IN name` and `LOAD INDEX INTO CACHE ...` (grammar:
//! parser/admin.rs).
//!
//! Invariant: CACHE INDEX and LOAD INDEX answer, per table, the note MariaDB gives for an engine
//! without key caches (as InnoDB does); a missing table or unknown index is a row of the
//! result, not an error.

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::TableIndexes;
use crate::result::Output;
use crate::types::value::Value;

/// `SET GLOBAL cache.param = v` (the caller has checked `param`).
pub fn assign(cx: &mut Context, cache: &str, param: &'static str, v: &Value) -> DbResult<()> {
    let n = match v {
        Value::Int(i) if *i >= 0 => *i as u64,
        Value::UInt(u) => *u,
        Value::Double(d) if *d >= 0.0 => *d as u64,
        Value::Decimal(d) if !d.is_negative() => d.round_to_i128() as u64,
        _ => {
            return Err(DbError::new(
                ErrorCode::WrongTypeForVar,
                format!("Incorrect argument type to variable '{param}'"),
            ))
        }
    };
    cx.engine.key_caches.lock().set(cache, param, n);
    Ok(())
}

/// `CACHE INDEX t [{INDEX|KEY} (i, ...)], ... IN cache`.
pub fn cache_index(cx: &mut Context, tables: &[TableIndexes], cache: &str) -> DbResult<Output> {
    if !cx.engine.key_caches.lock().exists(cache) {
        return Err(DbError::new(
            ErrorCode::UnknownKeyCache,
            format!("Unknown key cache '{cache}'"),
        ));
    }
    report(cx, tables, "assign_to_keycache")
}

/// `LOAD INDEX INTO CACHE t [{INDEX|KEY} (i, ...)] [IGNORE LEAVES], ...`.
pub fn load_index(cx: &mut Context, tables: &[TableIndexes]) -> DbResult<Output> {
    report(cx, tables, "preload_keys")
}

/// The result rows: per table the note that Betula keeps no key caches, or why the table could
/// not be used (missing table, unknown index) as MariaDB reports it.
fn report(cx: &mut Context, tables: &[TableIndexes], op: &str) -> DbResult<Output> {
    let mut rows = Vec::new();
    let text = |s: &str| Value::Text(s.to_string());
    for TableIndexes { table, indexes } in tables {
        let (db, t) = cx.resolve_table_name(table)?;
        let label = text(&format!("{db}.{t}"));
        let problem = match cx.get_table(&db, &t) {
            Err(e) => Some(e.message),
            Ok(def) => indexes
                .iter()
                .find(|i| {
                    !i.eq_ignore_ascii_case("PRIMARY")
                        && !def.indexes.iter().any(|x| x.name.eq_ignore_ascii_case(i))
                })
                .map(|i| format!("Key '{i}' doesn't exist in table '{t}'")),
        };
        match problem {
            Some(msg) => {
                rows.push(vec![label.clone(), text(op), text("Error"), text(&msg)]);
                rows.push(vec![
                    label,
                    text(op),
                    text("status"),
                    text("Operation failed"),
                ]);
            }
            None => rows.push(vec![
                label,
                text(op),
                text("note"),
                text(&format!(
                    "The storage engine for the table doesn't support {op}"
                )),
            ]),
        }
    }
    Ok(Output::text(&["Table", "Op", "Msg_type", "Msg_text"], rows))
}
