//! Status counters MariaDB keeps per connection and sums for the server: SHOW STATUS (the
//! session's values), SHOW GLOBAL STATUS and information_schema.SESSION_STATUS /
//! GLOBAL_STATUS show them with the server-wide figures (infoschema/processlist.rs).
//!
//! | counter | counts |
//! | --- | --- |
//! | `Created_tmp_disk_tables` | GROUP BYs whose group table passed min(`tmp_table_size`, `max_heap_table_size`) and spilled to disk (exec/group_table.rs) |
//! | `Created_tmp_tables` | GROUP BYs run (each holds its groups in a group table, MariaDB's internal temporary table) |
//! | `Feature_window_functions` | SELECT blocks with window functions run (a statement with two derived tables that have them counts 2) |
//! | `Sort_merge_passes` | merge passes of sorts that spilled (exec/external_sort.rs: each intermediate merge of runs, and the last one) |
//! | `Sort_priority_queue_sorts` | ORDER BY ... LIMIT sorts that kept only the first rows in memory |
//! | `Sort_range` | sorts of rows read by a range scan: always 0, Betula counts every sort as `Sort_scan` |
//! | `Sort_rows` | rows sorts returned (with LIMIT, at most LIMIT + OFFSET) |
//! | `Sort_scan` | sorts: each ORDER BY that no index order serves and each window's sort |
//!
//! `Ssl_version` and `Ssl_cipher` are the connection's TLS parameters ([`TlsStatus`], set when
//! the session opens; empty for a plain connection), shown by SHOW STATUS and SHOW GLOBAL
//! STATUS alike, as MariaDB shows them.
//!
//! Invariants: a count goes to the session's counter and to the server's at the same time, so
//! the global value is the sum over every connection since the server started; FLUSH STATUS
//! zeroes the session's counters only.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Context;

/// What a statement's sorts did (exec/external_sort.rs `SortStats`, converted by the caller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortCounts {
    pub sorts: u64,
    pub rows: u64,
    pub merge_passes: u64,
    pub priority_queue_sorts: u64,
}

impl SortCounts {
    pub fn add(&mut self, o: SortCounts) {
        self.sorts += o.sorts;
        self.rows += o.rows;
        self.merge_passes += o.merge_passes;
        self.priority_queue_sorts += o.priority_queue_sorts;
    }
}

/// The TLS parameters of an encrypted connection, under MariaDB's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsStatus {
    /// `Ssl_version`: `TLSv1.2` or `TLSv1.3`.
    pub version: String,
    /// `Ssl_cipher`: the cipher suite's OpenSSL name.
    pub cipher: String,
}

/// One connection's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStatus {
    pub feature_window_functions: u64,
    pub sorts: SortCounts,
    pub tmp_tables: u64,
    pub tmp_disk_tables: u64,
}

/// The server's counters: every connection's, summed.
#[derive(Debug, Default)]
pub struct GlobalStatus {
    feature_window_functions: AtomicU64,
    tmp_tables: AtomicU64,
    tmp_disk_tables: AtomicU64,
    sort_scan: AtomicU64,
    sort_rows: AtomicU64,
    sort_merge_passes: AtomicU64,
    sort_priority_queue_sorts: AtomicU64,
}

impl Context {
    /// Counts a SELECT block with window functions run (`Feature_window_functions`).
    pub fn count_window_functions(&mut self) {
        self.status.feature_window_functions += 1;
        self.engine
            .status
            .feature_window_functions
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a group table (`Created_tmp_tables`), and (`disk`) its spill to disk
    /// (`Created_tmp_disk_tables`).
    pub fn count_tmp_table(&mut self, disk: bool) {
        let g = &self.engine.status;
        self.status.tmp_tables += 1;
        g.tmp_tables.fetch_add(1, Ordering::Relaxed);
        if disk {
            self.status.tmp_disk_tables += 1;
            g.tmp_disk_tables.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts what a statement's sorts did (`Sort_*`).
    pub fn count_sorts(&mut self, c: SortCounts) {
        self.status.sorts.add(c);
        let g = &self.engine.status;
        g.sort_scan.fetch_add(c.sorts, Ordering::Relaxed);
        g.sort_rows.fetch_add(c.rows, Ordering::Relaxed);
        g.sort_merge_passes
            .fetch_add(c.merge_passes, Ordering::Relaxed);
        g.sort_priority_queue_sorts
            .fetch_add(c.priority_queue_sorts, Ordering::Relaxed);
    }

    /// The counters by MariaDB's names: the session's, or (`global`) the server's.
    pub fn status_counters(&self, global: bool) -> Vec<(&'static str, u64)> {
        let (windows, sorts, tmp) = if global {
            let g = &self.engine.status;
            let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
            let tmp = (load(&g.tmp_tables), load(&g.tmp_disk_tables));
            let sorts = SortCounts {
                sorts: load(&g.sort_scan),
                rows: load(&g.sort_rows),
                merge_passes: load(&g.sort_merge_passes),
                priority_queue_sorts: load(&g.sort_priority_queue_sorts),
            };
            (load(&g.feature_window_functions), sorts, tmp)
        } else {
            let s = &self.status;
            (
                s.feature_window_functions,
                s.sorts,
                (s.tmp_tables, s.tmp_disk_tables),
            )
        };
        vec![
            ("Created_tmp_disk_tables", tmp.1),
            ("Created_tmp_tables", tmp.0),
            ("Feature_window_functions", windows),
            ("Sort_merge_passes", sorts.merge_passes),
            ("Sort_priority_queue_sorts", sorts.priority_queue_sorts),
            ("Sort_range", 0),
            ("Sort_rows", sorts.rows),
            ("Sort_scan", sorts.sorts),
        ]
    }

    /// `Ssl_cipher` and `Ssl_version` of this connection (empty when it is not encrypted).
    pub fn tls_status(&self) -> Vec<(&'static str, String)> {
        let (version, cipher) = match &self.tls {
            Some(t) => (t.version.clone(), t.cipher.clone()),
            None => (String::new(), String::new()),
        };
        vec![("Ssl_cipher", cipher), ("Ssl_version", version)]
    }

    /// FLUSH STATUS: the session's counters start again from 0.
    pub fn flush_status(&mut self) {
        self.status = SessionStatus::default();
    }
}
