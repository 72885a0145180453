//! SHOW VARIABLES, STATUS, WARNINGS / ERRORS, PROCESSLIST, ENGINES, COLLATION and CHARACTER SET
//! (ENGINE ... STATUS: engine_status.rs).
//!
//! Invariant: SHOW WARNINGS lists at most `max_error_count` entries while `@@warning_count`
//! still counts them all; the statement itself keeps the diagnostics it shows (the session
//! does not clear them before it: parser::read).

use super::{first_text, matches, t};
use crate::context::variables;
use crate::context::Context;
use crate::error::sql_error::WarningLevel;
use crate::infoschema;
use crate::result::Output;
use crate::types::value::Value;

pub fn variables(cx: &Context, global: bool, like: &Option<String>) -> Output {
    let mut src = if global {
        cx.engine.globals.read().clone()
    } else {
        cx.vars.clone()
    };
    // Computed from the binary log when read (design.md BLG5).
    for v in ["gtid_binlog_pos", "gtid_current_pos"] {
        src.insert(v.to_string(), Value::Text(cx.engine.gtid_pos_text()));
    }
    let mut names: Vec<&String> = src.keys().collect();
    names.sort();
    let rows = names
        .into_iter()
        .filter(|n| matches(like, n))
        .map(|n| vec![t(n.clone()), t(variables::show_text(n, &src[n]))])
        .collect();
    Output::text(&["Variable_name", "Value"], rows)
}

pub fn status(cx: &Context, global: bool, like: &Option<String>) -> Output {
    let rows = infoschema::status(cx, global)
        .into_iter()
        .filter(|(n, _)| matches(like, n))
        .map(|(n, v)| vec![t(n), t(v)])
        .collect();
    Output::text(&["Variable_name", "Value"], rows)
}

/// SHOW WARNINGS, or SHOW ERRORS (`errors_only`: warnings of level Warning).
pub fn warnings(cx: &Context, errors_only: bool) -> Output {
    let max = cx.int_var("max_error_count") as usize;
    let rows = cx
        .warnings
        .iter()
        .take(max)
        .filter(|w| !errors_only || w.level == WarningLevel::Warning)
        .map(|w| {
            vec![
                t(match w.level {
                    WarningLevel::Note => "Note",
                    WarningLevel::Warning => "Warning",
                }),
                Value::Int(i64::from(w.code.number())),
                t(w.message.clone()),
            ]
        })
        .collect();
    Output::text(&["Level", "Code", "Message"], rows)
}

pub fn processlist(cx: &Context) -> Output {
    let rows = infoschema::processlist(cx);
    Output::text(
        &[
            "Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress",
        ],
        rows,
    )
}

pub fn engines() -> Output {
    let (_, rows) = infoschema::engines();
    Output::text(
        &[
            "Engine",
            "Support",
            "Comment",
            "Transactions",
            "XA",
            "Savepoints",
        ],
        rows,
    )
}

pub fn collations(like: &Option<String>) -> Output {
    let rows = infoschema::collation_rows()
        .into_iter()
        .filter(|r| matches(like, &first_text(r)))
        .collect();
    Output::text(
        &[
            "Collation",
            "Charset",
            "Id",
            "Default",
            "Compiled",
            "Sortlen",
            "Pad_attribute",
        ],
        rows,
    )
}

pub fn charsets(like: &Option<String>) -> Output {
    // information_schema's column order is name, default collation, description, maxlen
    let rows = infoschema::charset_rows()
        .into_iter()
        .filter(|r| matches(like, &first_text(r)))
        .map(|r| vec![r[0].clone(), r[2].clone(), r[1].clone(), r[3].clone()])
        .collect();
    Output::text(
        &["Charset", "Description", "Default collation", "Maxlen"],
        rows,
    )
}
