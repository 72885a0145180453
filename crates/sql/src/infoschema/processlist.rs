//! The server's sessions and counters: information_schema.PROCESSLIST (also SHOW PROCESSLIST's
//! rows) and SHOW STATUS's variables.
//!
//! Invariant: computed from the engine's live state on each query, never cached.

use std::sync::atomic::Ordering;

use super::{ic, names, t, ViewRows};
use crate::context::progress::Report;
use crate::context::Context;
use crate::types::value::Value;

/// information_schema.PROCESSLIST: SHOW PROCESSLIST's columns, then MariaDB's TIME_MS, STAGE,
/// MAX_STAGE and PROGRESS (within the stage).
pub(super) fn processlist_view(cx: &Context) -> ViewRows {
    let mut cols = vec![ic("ID")];
    cols.extend(names(&["USER", "HOST", "DB", "COMMAND"]));
    cols.push(ic("TIME"));
    cols.extend(names(&["STATE", "INFO"]));
    cols.push(percent_col("TIME_MS"));
    cols.push(ic("STAGE"));
    cols.push(ic("MAX_STAGE"));
    cols.push(percent_col("PROGRESS"));
    let rows = process_rows(cx)
        .into_iter()
        .map(|(mut row, ms, report)| {
            row.push(three_places(ms));
            let (stage, max, pct) =
                report.map_or((0, 0, 0.0), |r| (r.stage, r.max_stage, r.stage_percent));
            row.push(Value::UInt(u64::from(stage)));
            row.push(Value::UInt(u64::from(max)));
            row.push(three_places(pct));
            row
        })
        .collect();
    (cols, rows)
}

/// A DECIMAL column with three places (TIME_MS, PROGRESS).
fn percent_col(name: &str) -> crate::result::OutCol {
    crate::result::OutCol::named(
        name,
        Some(crate::types::SqlType::Decimal {
            precision: 22,
            scale: 3,
            unsigned: false,
        }),
    )
}

/// `v` as a DECIMAL with three places, as MariaDB shows progress.
pub fn three_places(v: f64) -> Value {
    crate::types::decimal::Decimal::new((v * 1000.0).round() as i128, 3)
        .map_or(Value::Null, Value::Decimal)
}

/// SHOW [GLOBAL] STATUS: variable names and values; MariaDB's counters kept per connection
/// (context/status.rs) are the session's, or (`global`) the server's.
pub fn status(cx: &Context, global: bool) -> Vec<(String, String)> {
    let e = &cx.engine;
    let st = e.store.env().stats();
    let up = e.started.elapsed().as_secs();
    let q = e.queries.load(Ordering::Relaxed);
    vec![
        ("Uptime".into(), up.to_string()),
        (
            "Threads_connected".into(),
            e.processes.lock().len().to_string(),
        ),
        ("Threads_running".into(), "1".into()),
        ("Questions".into(), q.to_string()),
        ("Queries".into(), q.to_string()),
        (
            "Betula_cache_used_bytes".into(),
            st.cache_used_bytes.to_string(),
        ),
        (
            "Betula_cache_limit_bytes".into(),
            st.cache_limit_bytes.to_string(),
        ),
        (
            "Betula_cache_internal_bytes".into(),
            st.cache_internal_bytes.to_string(),
        ),
        (
            "Betula_wal_bytes_appended".into(),
            st.wal_bytes_appended.to_string(),
        ),
        (
            "Betula_wal_bytes_written".into(),
            st.wal_bytes_written.to_string(),
        ),
        ("Betula_wal_segments".into(), st.wal_segments.to_string()),
        (
            "Betula_retention_rounds".into(),
            e.retention.rounds.load(Ordering::Relaxed).to_string(),
        ),
        (
            "Betula_retention_partitions_added".into(),
            e.retention
                .partitions_added
                .load(Ordering::Relaxed)
                .to_string(),
        ),
        (
            "Betula_retention_partitions_dropped".into(),
            e.retention
                .partitions_dropped
                .load(Ordering::Relaxed)
                .to_string(),
        ),
        (
            "Betula_retention_expiries".into(),
            e.retention.expiries.load(Ordering::Relaxed).to_string(),
        ),
        (
            "Betula_retention_errors".into(),
            e.retention.errors.load(Ordering::Relaxed).to_string(),
        ),
        (
            "Betula_wal_free_segments".into(),
            st.wal_free_segments.to_string(),
        ),
        (
            "Betula_wal_spares_made".into(),
            st.wal_spares_made.to_string(),
        ),
        ("Betula_checkpoints".into(), st.checkpoints.to_string()),
        (
            "Betula_last_checkpoint_ms".into(),
            st.last_checkpoint_ms.to_string(),
        ),
        (
            "Betula_node_bytes_written".into(),
            st.node_bytes_written.to_string(),
        ),
        ("Betula_node_reads".into(), st.node_reads.to_string()),
        ("Betula_part_reads".into(), st.part_reads.to_string()),
        ("Betula_frame_reads".into(), st.frame_reads.to_string()),
        (
            "Betula_detached_flushes".into(),
            st.detached_flushes.to_string(),
        ),
        ("Betula_filter_skips".into(), st.filter_skips.to_string()),
    ]
    .into_iter()
    .chain(backup_status(cx))
    .chain(
        cx.status_counters(global)
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_string())),
    )
    .chain(cx.tls_status().into_iter().map(|(n, v)| (n.to_string(), v)))
    .collect()
}

/// information_schema.GLOBAL_STATUS (`global`) or SESSION_STATUS: SHOW STATUS's rows with the
/// names in upper case, as MariaDB shows them.
pub(super) fn status_view(cx: &Context, global: bool) -> ViewRows {
    let rows = status(cx, global)
        .into_iter()
        .map(|(n, v)| vec![t(n.to_ascii_uppercase()), t(v)])
        .collect();
    (names(&["VARIABLE_NAME", "VARIABLE_VALUE"]), rows)
}

/// The running or last backup (session/backup.rs): its connection, phase (0 not started, 1 copying the
/// first checkpoint, 2 the final round, 3 done or failed) and bytes.
fn backup_status(cx: &Context) -> Vec<(String, String)> {
    let b = cx.engine.backup.lock();
    let (conn, phase, total, done, written) = match &*b {
        Some((conn, p)) => (
            *conn,
            p.phase.load(Ordering::Relaxed),
            p.bytes_total.load(Ordering::Relaxed),
            p.bytes_done.load(Ordering::Relaxed),
            p.bytes_written.load(Ordering::Relaxed),
        ),
        None => (0, 0, 0, 0, 0),
    };
    [
        ("Betula_backup_connection", conn),
        ("Betula_backup_phase", u64::from(phase)),
        ("Betula_backup_bytes_total", total),
        ("Betula_backup_bytes_read", done),
        ("Betula_backup_bytes_written", written),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect()
}

/// The rows of SHOW PROCESSLIST, one per session: information_schema's first eight columns and
/// the total progress (0-100) of the statement that reports one.
pub fn processlist(cx: &Context) -> Vec<Vec<Value>> {
    process_rows(cx)
        .into_iter()
        .map(|(mut row, _, report)| {
            row.push(three_places(report.map_or(0.0, |r| r.total_percent)));
            row
        })
        .collect()
}

type ProcessRow = (Vec<Value>, f64, Option<Report>);

/// Per session: ID .. INFO, the milliseconds in the current command, and its progress report.
fn process_rows(cx: &Context) -> Vec<ProcessRow> {
    let procs = cx.engine.processes.lock();
    procs
        .iter()
        .map(|(id, p)| {
            let report = p.progress.report().filter(|_| p.info.is_some());
            let state = match (&report, &p.info) {
                (Some(r), _) => r.state,
                (None, Some(_)) => "executing",
                (None, None) => "",
            };
            let row = vec![
                Value::UInt(*id),
                t(p.user.clone()),
                t(p.host.clone()),
                p.db.clone().map(t).unwrap_or(Value::Null),
                t(if p.interrupt.connection_killed() {
                    "Killed"
                } else if p.info.is_some() {
                    "Query"
                } else {
                    "Sleep"
                }),
                Value::UInt(p.started.elapsed().as_secs()),
                t(state),
                p.info.clone().map(t).unwrap_or(Value::Null),
            ];
            let ms = p.started.elapsed().as_secs_f64() * 1000.0;
            (row, ms, report)
        })
        .collect()
}
