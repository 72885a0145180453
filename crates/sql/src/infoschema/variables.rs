//! information_schema.GLOBAL_VARIABLES, SESSION_VARIABLES (SHOW [GLOBAL] VARIABLES's rows) and
//! SYSTEM_VARIABLES (each variable's session and global value side by side).
//!
//! Invariants: names are upper case and values are SHOW VARIABLES's text, as in MariaDB;
//! SYSTEM_VARIABLES has MariaDB's first three columns only (Betula does not keep a variable's
//! scope, type, range or origin), so naming another of MariaDB's columns is 1054, never a
//! made-up value. The binary log positions are computed when read (design.md BLG5).

use std::collections::HashMap;

use super::{names, t, ViewRows};
use crate::context::variables::show_text;
use crate::context::Context;
use crate::types::value::Value;

/// The session's (or, `global`, the server's) variables by name, with the computed ones.
fn values(cx: &Context, global: bool) -> HashMap<String, Value> {
    let mut src = if global {
        cx.engine.globals.read().clone()
    } else {
        cx.vars.clone()
    };
    for v in ["gtid_binlog_pos", "gtid_current_pos"] {
        src.insert(v.to_string(), Value::Text(cx.engine.gtid_pos_text()));
    }
    src
}

/// GLOBAL_VARIABLES (`global`) or SESSION_VARIABLES: VARIABLE_NAME, VARIABLE_VALUE.
pub(super) fn variables_view(cx: &Context, global: bool) -> ViewRows {
    let src = values(cx, global);
    let mut keys: Vec<&String> = src.keys().collect();
    keys.sort();
    let rows = keys
        .into_iter()
        .map(|n| vec![t(n.to_ascii_uppercase()), t(show_text(n, &src[n]))])
        .collect();
    (names(&["VARIABLE_NAME", "VARIABLE_VALUE"]), rows)
}

/// SYSTEM_VARIABLES: VARIABLE_NAME, SESSION_VALUE (NULL for a variable the session does not
/// have), GLOBAL_VALUE.
pub(super) fn system_variables_view(cx: &Context) -> ViewRows {
    let global = values(cx, true);
    let session = values(cx, false);
    let mut keys: Vec<&String> = global.keys().chain(session.keys()).collect();
    keys.sort();
    keys.dedup();
    let text = |m: &HashMap<String, Value>, n: &String| match m.get(n) {
        Some(v) => t(show_text(n, v)),
        None => Value::Null,
    };
    let rows = keys
        .into_iter()
        .map(|n| {
            vec![
                t(n.to_ascii_uppercase()),
                text(&session, n),
                text(&global, n),
            ]
        })
        .collect();
    (
        names(&["VARIABLE_NAME", "SESSION_VALUE", "GLOBAL_VALUE"]),
        rows,
    )
}
