//! The server's sessions and counters: information_schema.PROCESSLIST (also SHOW PROCESSLIST's
//! rows) and SHOW STATUS's variables.
//!
//! Invariant: computed from the engine's live state on each query, never cached.

use std::sync::atomic::Ordering;

use super::{ic, names, t, ViewRows};
use crate::context::Context;
use crate::types::value::Value;

/// information_schema.PROCESSLIST.
pub(super) fn processlist_view(cx: &Context) -> ViewRows {
    let mut cols = vec![ic("ID")];
    cols.extend(names(&["USER", "HOST", "DB", "COMMAND"]));
    cols.push(ic("TIME"));
    cols.extend(names(&["STATE", "INFO"]));
    (cols, processlist(cx))
}

/// SHOW STATUS: variable names and values.
pub fn status(cx: &Context) -> Vec<(String, String)> {
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
    .collect()
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

/// The rows of SHOW PROCESSLIST and information_schema.PROCESSLIST, one per session.
pub fn processlist(cx: &Context) -> Vec<Vec<Value>> {
    let procs = cx.engine.processes.lock();
    procs
        .iter()
        .map(|(id, p)| {
            vec![
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
                t(if p.info.is_some() { "executing" } else { "" }),
                p.info.clone().map(t).unwrap_or(Value::Null),
            ]
        })
        .collect()
}
