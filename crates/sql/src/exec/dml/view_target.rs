//! Writes naming a view (design.md VIEW6): INSERT, REPLACE, UPDATE, DELETE and LOAD DATA whose
//! target is a view are refused with MariaDB's errors, before anything is read or written.
//!
//! Invariant: a session's temporary table shadows a view of its name (it is the target then).

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// What the statement does to its target, for the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    Insert,
    Replace,
    Update,
    Delete,
    Load,
}

/// 1471 (INSERT, REPLACE, LOAD DATA) or 1288 (UPDATE, DELETE) when `db`.`name` is a view.
pub fn refuse_view_target(cx: &Context, db: &str, name: &str, kind: WriteKind) -> DbResult<()> {
    if cx.temp.get(db, name).is_some() || cx.engine.catalog.view(db, name).is_none() {
        return Ok(());
    }
    let (code, message) = match kind {
        WriteKind::Insert | WriteKind::Replace | WriteKind::Load => {
            let what = match kind {
                WriteKind::Insert => "INSERT",
                WriteKind::Replace => "REPLACE",
                _ => "LOAD",
            };
            (
                ErrorCode::NonInsertableTable,
                format!("The target table {name} of the {what} is not insertable-into"),
            )
        }
        WriteKind::Update | WriteKind::Delete => {
            let what = if kind == WriteKind::Update {
                "UPDATE"
            } else {
                "DELETE"
            };
            (
                ErrorCode::NonUpdatableTable,
                format!("The target table {name} of the {what} is not updatable"),
            )
        }
    };
    Err(DbError::new(code, message))
}
