//! A table's size on disk, measured the same way on every server: first each engine's own step that puts
//! buffered data into its files (Betula `FLUSH TABLES` = checkpoint; MyRocks memtable flush, then optionally
//! a manual compaction of the table's column family; InnoDB allocates pages in the tablespace as the table
//! grows, so nothing is needed), then `ANALYZE TABLE` and `DATA_LENGTH + INDEX_LENGTH` from
//! information_schema.TABLES. What the number means differs: Betula = bytes of the table's trees on disk,
//! InnoDB = pages allocated to its indexes × page size, MyRocks = SST bytes of the table's keys.

use super::outcome::{classify, Status};
use crate::peer::EngineKind;
use mysql::prelude::Queryable;
use std::time::Instant;

/// What a measurement found.
#[derive(Debug, Clone, Default)]
pub struct TableSize {
    /// DATA_LENGTH + INDEX_LENGTH after the flush (and compaction) step.
    pub bytes: Option<u64>,
    /// Seconds the flush / compaction statements took.
    pub flush_secs: f64,
    /// What was done, for the report.
    pub how: String,
}

/// The statements that push `kind`'s buffered writes into its files; `compact` adds MyRocks' manual
/// compaction of column family `cf`.
pub fn flush_statements(kind: EngineKind, table: &str, compact: Option<&str>) -> Vec<String> {
    match kind {
        EngineKind::Betula => vec!["FLUSH TABLES".into()],
        EngineKind::Innodb => vec![],
        EngineKind::Rocksdb => {
            let mut v = vec!["SET GLOBAL rocksdb_force_flush_memtable_now = 1".to_string()];
            if let Some(cf) = compact {
                v.push(format!("SET GLOBAL rocksdb_compact_cf = '{cf}'"));
            }
            let _ = table;
            v
        }
    }
}

pub fn measure(
    conn: &mut mysql::Conn,
    kind: EngineKind,
    table: &str,
    compact_cf: Option<&str>,
) -> Result<TableSize, Status> {
    let mut out = TableSize::default();
    let t = Instant::now();
    let stmts = flush_statements(kind, table, compact_cf);
    for sql in &stmts {
        conn.query_drop(sql).map_err(|e| classify(&e, sql))?;
    }
    out.flush_secs = t.elapsed().as_secs_f64();
    let analyze = format!("ANALYZE TABLE {table}");
    // ANALYZE returns a result set; its rows are not needed.
    let _ = conn.query::<mysql::Row, _>(&analyze);
    let q = format!(
        "SELECT CAST(DATA_LENGTH + INDEX_LENGTH AS UNSIGNED) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = 'bench' AND TABLE_NAME = '{table}'"
    );
    out.bytes = conn
        .query_first::<Option<u64>, _>(&q)
        .map_err(|e| classify(&e, &q))?
        .flatten();
    out.how = if stmts.is_empty() {
        format!("`{analyze}`, then DATA_LENGTH + INDEX_LENGTH")
    } else {
        format!(
            "`{}`, `{analyze}`, then DATA_LENGTH + INDEX_LENGTH",
            stmts.join("`, `")
        )
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flush_steps_per_engine() {
        assert_eq!(
            flush_statements(EngineKind::Betula, "t", None),
            vec!["FLUSH TABLES"]
        );
        assert!(flush_statements(EngineKind::Innodb, "t", Some("x")).is_empty());
        let r = flush_statements(EngineKind::Rocksdb, "t", Some("cf_zstd"));
        assert_eq!(r.len(), 2);
        assert!(r[1].contains("rocksdb_compact_cf = 'cf_zstd'"));
    }
}
