//! SHOW ENGINE BETULA STATUS: one row whose `Status` is a readable report in sections, as InnoDB's
//! monitor output is (a title between `=` lines, each section's name between `-` lines, then
//! `name value` lines): CACHE, LOG, CHECKPOINTS, FLUSHER, TRANSACTIONS, ROW OPERATIONS, STATEMENTS,
//! CONNECTIONS and TREES.
//!
//! Invariant: every figure comes from the live counters (`EnvStats`, the engine's `ServerMetrics`,
//! `TreeStats`) read once per statement; the sections and their order are fixed (tests and tools
//! look for them by name).

use std::fmt::Write;
use std::sync::atomic::Ordering;

use betula_storage::{EnvStats, LatencySnapshot};

use super::t;
use crate::context::metrics::StatementKind;
use crate::context::Context;
use crate::infoschema::tree_infos;
use crate::result::Output;

/// The sections, in order.
pub const SECTIONS: [&str; 9] = [
    "CACHE",
    "LOG",
    "CHECKPOINTS",
    "FLUSHER",
    "TRANSACTIONS",
    "ROW OPERATIONS",
    "STATEMENTS",
    "CONNECTIONS",
    "TREES",
];

/// The report's row (`Type` is the engine name as written).
pub fn engine_status(cx: &Context, name: &str) -> Output {
    Output::text(
        &["Type", "Name", "Status"],
        vec![vec![t(name), t(""), t(report(cx))]],
    )
}

fn section(out: &mut String, title: &str) {
    let rule = "-".repeat(title.len());
    let _ = write!(out, "{rule}\n{title}\n{rule}\n");
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

fn latency(s: &LatencySnapshot) -> String {
    format!(
        "{} (mean {:.3} ms, p99 <= {:.3} ms)",
        s.count,
        s.mean_micros() as f64 / 1000.0,
        s.quantile_bound_micros(0.99) as f64 / 1000.0
    )
}

/// The whole report.
fn report(cx: &Context) -> String {
    let e = &cx.engine;
    let st = e.store.env().stats();
    let mut out = String::new();
    let title = format!(
        "BETULA ENGINE STATUS (uptime {} s)",
        e.started.elapsed().as_secs()
    );
    let rule = "=".repeat(title.len());
    let _ = write!(out, "{rule}\n{title}\n{rule}\n");
    if let Some(f) = &st.failure {
        let _ = writeln!(out, "ENGINE FAILED (read-only until restarted): {f}");
    }
    storage_sections(&mut out, &st);
    sql_sections(&mut out, cx);
    section(&mut out, SECTIONS[8]);
    let _ = writeln!(
        out,
        "schema.table[.partition] index: file bytes, free bytes, height, cached bytes, dirty nodes, buffered messages, buffered bytes"
    );
    for i in tree_infos(e, &e.catalog.all_tables()) {
        let s = &i.stats;
        let part = i.partition.map(|p| format!(".{p}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}.{}{part} {}: {} {} {} {} {} {} {}",
            i.schema,
            i.table,
            i.index,
            s.file_bytes,
            s.free_bytes,
            s.height,
            s.cached_bytes,
            s.dirty_nodes,
            s.buffered_messages,
            s.buffered_bytes
        );
    }
    let _ = write!(out, "{rule}\nEND OF BETULA ENGINE STATUS\n{rule}\n");
    out
}

/// CACHE, LOG, CHECKPOINTS, FLUSHER, TRANSACTIONS: the storage engine's figures.
fn storage_sections(out: &mut String, st: &EnvStats) {
    section(out, SECTIONS[0]);
    let hits = st.node_lookups.saturating_sub(st.node_reads);
    let _ = writeln!(
        out,
        "Bytes used {} of {} ({})",
        st.cache_used_bytes,
        st.cache_limit_bytes,
        percent(st.cache_used_bytes, st.cache_limit_bytes)
    );
    let _ = writeln!(
        out,
        "Internal node bytes {} (share {})",
        st.cache_internal_bytes, st.cache_internal_limit_bytes
    );
    let _ = writeln!(
        out,
        "Node lookups {}, node reads {}, hit ratio {}",
        st.node_lookups,
        st.node_reads,
        percent(hits, st.node_lookups)
    );
    let _ = writeln!(
        out,
        "Partition reads {}, frame reads {}, filter skips {}",
        st.part_reads, st.frame_reads, st.filter_skips
    );
    let _ = writeln!(
        out,
        "Node bytes written {}, frames written {} ({} columnar), basements reused {}",
        st.node_bytes_written, st.frames_written, st.columnar_frames_written, st.basements_reused
    );
    section(out, SECTIONS[1]);
    let _ = writeln!(out, "Next LSN {}", st.wal_next_lsn);
    let _ = writeln!(
        out,
        "Bytes appended {}, bytes written {}",
        st.wal_bytes_appended, st.wal_bytes_written
    );
    let _ = writeln!(
        out,
        "Segments {}, free segments {}, spares made {}",
        st.wal_segments, st.wal_free_segments, st.wal_spares_made
    );
    let _ = writeln!(out, "Fsyncs {}", latency(&st.log_fsync_latency));
    section(out, SECTIONS[2]);
    let _ = writeln!(out, "Checkpoints {}", latency(&st.checkpoint_latency));
    let _ = writeln!(out, "Last checkpoint took {} ms", st.last_checkpoint_ms);
    section(out, SECTIONS[3]);
    let _ = writeln!(
        out,
        "Trees waiting {}, tree flushes {}, detached leaf flushes {}, nodes written back {}",
        st.flusher_pending_trees, st.background_flushes, st.detached_flushes, st.written_back
    );
    section(out, SECTIONS[4]);
    let _ = writeln!(
        out,
        "Committed {}, rolled back {}, open with writes {}",
        st.txn_commits, st.txn_rollbacks, st.active_txns
    );
    let _ = writeln!(
        out,
        "Row locks {}, lock waiters {}, read views {} (oldest {} LSNs behind)",
        st.row_locks, st.lock_waiters, st.open_views, st.oldest_view_lag_lsns
    );
}

/// ROW OPERATIONS, STATEMENTS, CONNECTIONS: the SQL layer's counters.
fn sql_sections(out: &mut String, cx: &Context) {
    let m = &cx.engine.metrics;
    let n = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    section(out, SECTIONS[5]);
    let _ = writeln!(
        out,
        "Rows inserted {}, updated {}, deleted {}, upserted {}, read {}",
        n(&m.rows.inserted),
        n(&m.rows.updated),
        n(&m.rows.deleted),
        n(&m.rows.upserted),
        n(&m.rows.read)
    );
    let _ = writeln!(
        out,
        "Commits {}, rollbacks {}",
        n(&m.commits),
        n(&m.rollbacks)
    );
    section(out, SECTIONS[6]);
    for kind in StatementKind::ALL {
        let s = m.statements_of(kind).snapshot();
        let _ = writeln!(
            out,
            "{} {}, errors {}",
            kind.name(),
            latency(&s),
            m.errors_of(kind)
        );
    }
    section(out, SECTIONS[7]);
    let _ = writeln!(
        out,
        "Open {}, opened since start {}",
        cx.engine.processes.lock().len(),
        n(&m.connections)
    );
}
