//! The metrics in Prometheus's text exposition format (version 0.0.4): every family with its `# HELP`
//! and `# TYPE` lines, then its samples. docs/monitoring.md lists the families.
//!
//! Invariants: a family's name appears in one `# TYPE` line and its samples follow it without another
//! family between; label values are escaped (`\\`, `\"`, `\n`); histograms give cumulative `le` buckets
//! ending with `+Inf`, then `_sum` (seconds) and `_count`; counters end in `_total`.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use betula_sql::context::metrics::StatementKind;
use betula_sql::infoschema::{tree_infos, TreeInfo};
use betula_sql::Engine;
use betula_storage::{EnvStats, LatencySnapshot};

/// Text being built, one family at a time.
#[derive(Default)]
pub struct Exposition {
    out: String,
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn labels(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

impl Exposition {
    /// Starts a family: its help and type lines.
    pub fn family(&mut self, name: &str, kind: &str, help: &str) -> &mut Self {
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
        self
    }

    /// One sample of the current family.
    pub fn sample(&mut self, name: &str, pairs: &[(&str, &str)], value: f64) -> &mut Self {
        let _ = writeln!(self.out, "{name}{} {value}", labels(pairs));
        self
    }

    /// A family of one sample without labels.
    pub fn single(&mut self, name: &str, kind: &str, help: &str, value: f64) -> &mut Self {
        self.family(name, kind, help).sample(name, &[], value)
    }

    /// The samples of one histogram (of a family already started) with `pairs` as labels.
    pub fn histogram(&mut self, name: &str, pairs: &[(&str, &str)], s: &LatencySnapshot) {
        for (bound_micros, total) in s.cumulative() {
            let le = (bound_micros as f64 / 1e6).to_string();
            let mut with = pairs.to_vec();
            with.push(("le", le.as_str()));
            self.sample(&format!("{name}_bucket"), &with, total as f64);
        }
        let mut with = pairs.to_vec();
        with.push(("le", "+Inf"));
        self.sample(&format!("{name}_bucket"), &with, s.count as f64);
        self.sample(&format!("{name}_sum"), pairs, s.sum_micros as f64 / 1e6);
        self.sample(&format!("{name}_count"), pairs, s.count as f64);
    }

    pub fn finish(self) -> String {
        self.out
    }
}

fn load(c: &AtomicU64) -> f64 {
    c.load(Ordering::Relaxed) as f64
}

/// The whole exposition of `engine`'s figures.
pub fn render(engine: &Engine) -> String {
    let mut x = Exposition::default();
    let st = engine.store.env().stats();
    sql_families(&mut x, engine);
    storage_families(&mut x, &st);
    table_families(&mut x, &tree_infos(engine, &engine.catalog.all_tables()));
    x.finish()
}

/// Rows, statements, connections, commits: the SQL layer's counters.
fn sql_families(x: &mut Exposition, engine: &Engine) {
    let m = &engine.metrics;
    x.single(
        "betula_uptime_seconds",
        "gauge",
        "Seconds since the server started.",
        engine.started.elapsed().as_secs_f64(),
    );
    x.family(
        "betula_rows_total",
        "counter",
        "Rows written and read by statements, by operation (upserted: blind upsert messages).",
    );
    for (op, c) in [
        ("inserted", &m.rows.inserted),
        ("updated", &m.rows.updated),
        ("deleted", &m.rows.deleted),
        ("upserted", &m.rows.upserted),
        ("read", &m.rows.read),
    ] {
        x.sample("betula_rows_total", &[("op", op)], load(c));
    }
    x.family(
        "betula_statement_duration_seconds",
        "histogram",
        "Statements by kind and how long each took, its commit included.",
    );
    for kind in StatementKind::ALL {
        let s = m.statements_of(kind).snapshot();
        x.histogram(
            "betula_statement_duration_seconds",
            &[("kind", kind.name())],
            &s,
        );
    }
    x.family(
        "betula_statement_errors_total",
        "counter",
        "Statements that ended with an error, by kind.",
    );
    for kind in StatementKind::ALL {
        let n = m.errors_of(kind) as f64;
        x.sample("betula_statement_errors_total", &[("kind", kind.name())], n);
    }
    x.single(
        "betula_connections_total",
        "counter",
        "Client connections opened since start.",
        load(&m.connections),
    );
    x.single(
        "betula_connections",
        "gauge",
        "Client connections open now.",
        engine.processes.lock().len() as f64,
    );
    x.single(
        "betula_commits_total",
        "counter",
        "Transactions with changes committed by sessions (explicit or autocommit).",
        load(&m.commits),
    );
    x.single(
        "betula_rollbacks_total",
        "counter",
        "Transactions with changes rolled back by sessions.",
        load(&m.rollbacks),
    );
}

/// The storage engine's figures: cache, log, checkpoints, flusher, transactions.
fn storage_families(x: &mut Exposition, st: &EnvStats) {
    let n = |v: u64| v as f64;
    x.single(
        "betula_engine_failed",
        "gauge",
        "1 once a failed write or fsync has made the engine read-only (until restarted).",
        if st.failure.is_some() { 1.0 } else { 0.0 },
    );
    x.single(
        "betula_cache_used_bytes",
        "gauge",
        "Bytes of nodes in the cache.",
        n(st.cache_used_bytes),
    );
    x.single(
        "betula_cache_limit_bytes",
        "gauge",
        "The cache's budget in bytes.",
        n(st.cache_limit_bytes),
    );
    x.single(
        "betula_cache_internal_bytes",
        "gauge",
        "Bytes of internal nodes (mostly message buffers) in the cache.",
        n(st.cache_internal_bytes),
    );
    x.single(
        "betula_cache_internal_limit_bytes",
        "gauge",
        "The internal nodes' share of the cache; past it buffers are flushed down.",
        n(st.cache_internal_limit_bytes),
    );
    x.single(
        "betula_cache_lookups_total",
        "counter",
        "Node lookups in the cache, hits and misses.",
        n(st.node_lookups),
    );
    x.single(
        "betula_cache_misses_total",
        "counter",
        "Node lookups that read the node from disk.",
        n(st.node_reads),
    );
    x.single(
        "betula_partition_reads_total",
        "counter",
        "Basements and message buffers read from disk and decompressed.",
        n(st.part_reads),
    );
    x.single(
        "betula_frame_reads_total",
        "counter",
        "Point reads that decompressed one frame of a basement not in memory.",
        n(st.frame_reads),
    );
    x.family(
        "betula_bytes_written_total",
        "counter",
        "Bytes written to files, by file kind.",
    );
    x.sample(
        "betula_bytes_written_total",
        &[("file", "log")],
        n(st.wal_bytes_written),
    );
    x.sample(
        "betula_bytes_written_total",
        &[("file", "tree")],
        n(st.node_bytes_written),
    );
    x.single(
        "betula_log_bytes_appended_total",
        "counter",
        "Bytes of log records appended (before compression).",
        n(st.wal_bytes_appended),
    );
    x.single(
        "betula_log_segments",
        "gauge",
        "Log segments on disk.",
        st.wal_segments as f64,
    );
    x.family(
        "betula_log_fsync_duration_seconds",
        "histogram",
        "Fsyncs of the log and how long each took.",
    );
    x.histogram(
        "betula_log_fsync_duration_seconds",
        &[],
        &st.log_fsync_latency,
    );
    x.family(
        "betula_checkpoint_duration_seconds",
        "histogram",
        "Completed checkpoints and how long each took.",
    );
    x.histogram(
        "betula_checkpoint_duration_seconds",
        &[],
        &st.checkpoint_latency,
    );
    x.single(
        "betula_flusher_pending_trees",
        "gauge",
        "Trees waiting for the flusher thread.",
        st.flusher_pending_trees as f64,
    );
    x.single(
        "betula_flusher_flushes_total",
        "counter",
        "Tree flushes done by the flusher thread.",
        n(st.background_flushes),
    );
    x.single(
        "betula_storage_transactions_total",
        "counter",
        "Storage transactions with writes committed.",
        n(st.txn_commits),
    );
    x.single(
        "betula_storage_rollbacks_total",
        "counter",
        "Storage transactions with writes rolled back.",
        n(st.txn_rollbacks),
    );
    x.single(
        "betula_row_locks",
        "gauge",
        "Row locks held.",
        st.row_locks as f64,
    );
    x.single(
        "betula_lock_waiters",
        "gauge",
        "Transactions waiting for a row lock.",
        st.lock_waiters as f64,
    );
    x.single(
        "betula_read_views",
        "gauge",
        "Read views (snapshots, scans) open.",
        st.open_views as f64,
    );
}

/// Per table (summed over its partitions and indexes): bytes on disk, in the cache, and buffered.
fn table_families(x: &mut Exposition, trees: &[TreeInfo]) {
    let mut tables: Vec<((String, String), [u64; 5])> = Vec::new();
    for i in trees {
        let key = (i.schema.clone(), i.table.clone());
        let s = &i.stats;
        let add = [
            s.file_bytes,
            s.free_bytes,
            s.cached_bytes as u64,
            s.buffered_bytes,
            s.buffered_messages,
        ];
        match tables.iter_mut().find(|(k, _)| *k == key) {
            Some((_, sums)) => sums.iter_mut().zip(add).for_each(|(a, b)| *a += b),
            None => tables.push((key, add)),
        }
    }
    let families = [
        (
            "betula_table_file_bytes",
            "Bytes of the table's tree files.",
        ),
        (
            "betula_table_free_bytes",
            "Free bytes inside the table's tree files.",
        ),
        (
            "betula_table_cached_bytes",
            "Bytes of the table's nodes in the cache.",
        ),
        (
            "betula_table_buffered_bytes",
            "Bytes of messages buffered in the table's internal nodes in memory.",
        ),
        (
            "betula_table_buffered_messages",
            "Messages buffered in the table's loaded message buffers.",
        ),
    ];
    for (j, (name, help)) in families.iter().enumerate() {
        x.family(name, "gauge", help);
        for ((schema, table), sums) in &tables {
            let pairs = [("schema", schema.as_str()), ("table", table.as_str())];
            x.sample(name, &pairs, sums[j] as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_histograms_cumulative() {
        let mut x = Exposition::default();
        x.family("a_total", "counter", "help")
            .sample("a_total", &[("t", "x\"y\\z\nw")], 3.0);
        let h = betula_storage::LatencyHistogram::default();
        h.record(std::time::Duration::from_micros(70));
        h.record(std::time::Duration::from_secs(60));
        x.family("h_seconds", "histogram", "h");
        x.histogram("h_seconds", &[("k", "v")], &h.snapshot());
        let text = x.finish();
        assert!(
            text.contains("a_total{t=\"x\\\"y\\\\z\\nw\"} 3\n"),
            "{text}"
        );
        assert!(
            text.contains("h_seconds_bucket{k=\"v\",le=\"0.00005\"} 0\n"),
            "{text}"
        );
        assert!(
            text.contains("h_seconds_bucket{k=\"v\",le=\"0.0001\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("h_seconds_bucket{k=\"v\",le=\"10\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("h_seconds_bucket{k=\"v\",le=\"+Inf\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("h_seconds_count{k=\"v\"} 2\n"), "{text}");
        assert!(text.contains("h_seconds_sum{k=\"v\"} 60.00007\n"), "{text}");
    }
}
