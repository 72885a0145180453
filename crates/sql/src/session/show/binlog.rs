//! SHOW MASTER STATUS, SHOW BINARY LOGS and SHOW BINLOG EVENTS, read from the binary log's
//! files (binlog/reader.rs) up to their written end.

use crate::binlog::codes::event;
use crate::binlog::describe::info;
use crate::binlog::reader::EventReader;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;
use crate::session::binlog_admin::no_binlog;
use crate::types::value::Value;

fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// Root, or a user granted REPLICATION SLAVE.
fn need_replication(cx: &Context) -> DbResult<()> {
    if cx.account().is_some_and(|u| u.may_replicate()) {
        return Ok(());
    }
    cx.need_root("REPLICATION SLAVE")
}

pub fn master_status(cx: &Context) -> DbResult<Output> {
    let names = ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"];
    let Some(log) = cx.engine.binlog() else {
        return Ok(Output::text(&names, vec![]));
    };
    need_replication(cx)?;
    let (files, end) = log.files();
    let cur = files.last().map(|f| f.name.clone()).unwrap_or_default();
    Ok(Output::text(
        &names,
        vec![vec![t(cur), Value::UInt(end), t(""), t("")]],
    ))
}

pub fn binary_logs(cx: &Context) -> DbResult<Output> {
    let log = cx.engine.binlog().ok_or_else(no_binlog)?;
    need_replication(cx)?;
    let (files, end) = log.files();
    let n = files.len();
    let rows = files
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let size = if i + 1 == n {
                end
            } else {
                std::fs::metadata(log.path_of(&f.name)).map_or(0, |m| m.len())
            };
            vec![t(f.name), Value::UInt(size)]
        })
        .collect();
    Ok(Output::text(&["Log_name", "File_size"], rows))
}

pub fn binlog_events(
    cx: &Context,
    file: Option<&str>,
    from: Option<u64>,
    limit: Option<(u64, u64)>,
) -> DbResult<Output> {
    let log = cx.engine.binlog().ok_or_else(no_binlog)?;
    need_replication(cx)?;
    let (files, end) = log.files();
    let name = match file {
        Some(f) => f.to_string(),
        None => files.first().map(|f| f.name.clone()).unwrap_or_default(),
    };
    let Some(idx) = files.iter().position(|f| f.name == name) else {
        return Err(DbError::new(
            ErrorCode::ErrorWhenExecutingCommand,
            "Error when executing command SHOW BINLOG EVENTS: Could not find target log",
        ));
    };
    let mut bytes = std::fs::read(log.path_of(&name))
        .map_err(|e| DbError::internal(format!("binlog: cannot read {name}: {e}")))?;
    if idx + 1 == files.len() {
        bytes.truncate(end as usize);
    }
    let bad = |e: String| {
        DbError::new(
            ErrorCode::ErrorWhenExecutingCommand,
            format!("Error when executing command SHOW BINLOG EVENTS: {e}"),
        )
    };
    let mut r = EventReader::new(&bytes).map_err(bad)?;
    let checksum = r.checksum;
    if let Some(pos) = from {
        r.seek(pos);
    }
    let (skip, count) = limit.unwrap_or((0, u64::MAX));
    let mut rows = Vec::new();
    for ev in r
        .skip(skip as usize)
        .take(count.min(usize::MAX as u64) as usize)
    {
        let ev = ev.map_err(bad)?;
        rows.push(vec![
            t(name.clone()),
            Value::UInt(ev.pos),
            t(event::name(ev.header.type_code)),
            Value::UInt(ev.header.server_id as u64),
            Value::UInt(ev.header.end_pos as u64),
            t(info(&ev, checksum)),
        ]);
    }
    Ok(Output::text(
        &[
            "Log_name",
            "Pos",
            "Event_type",
            "Server_id",
            "End_log_pos",
            "Info",
        ],
        rows,
    ))
}
