//! drop-partition: how long `ALTER TABLE ... DROP PARTITION` takes on a partition holding N rows
//! (`--drop-rows`). C clients load N rows into partition p0 of a RANGE-partitioned table (1000-row
//! INSERTs, autocommit) and 1000 rows into p1; then p0 is dropped once and timed from the client;
//! the table must hold exactly p1's rows afterwards.

use super::driver::{self, BatchSql};
use super::outcome::{classify, Status};
use super::{fig, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::Server;
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

pub const DESCRIPTION: &str = "drop-partition: C clients load N rows (1000-row INSERTs, autocommit) into partition p0 of `PARTITION BY RANGE (id)` and 1000 rows into p1; then `ALTER TABLE … DROP PARTITION p0` is timed once from the client, and the table must hold p1's rows only";

const TABLE: &str = "drop_partition";
const ROWS_PER_BATCH: u64 = 1000;

pub fn create_sql(table_options: &str, rows: u64) -> String {
    format!(
        "CREATE TABLE {TABLE} (id BIGINT NOT NULL, ts DATETIME NOT NULL, v DOUBLE, note VARCHAR(16), \
         PRIMARY KEY (id)){table_options} PARTITION BY RANGE (id) \
         (PARTITION p0 VALUES LESS THAN ({rows}), PARTITION p1 VALUES LESS THAN MAXVALUE)"
    )
}

/// The INSERT of batch `b`: ids b·1000 .. b·1000 + 999.
pub fn batch_sql(b: u64) -> String {
    let values: Vec<String> = (b * ROWS_PER_BATCH..(b + 1) * ROWS_PER_BATCH)
        .map(|id| {
            format!(
                "({id},'2024-01-01 00:00:00' + INTERVAL {} SECOND,{}.5,'n{}')",
                id / 1000,
                id % 977,
                id % 100
            )
        })
        .collect();
    format!(
        "INSERT INTO {TABLE} (id, ts, v, note) VALUES {}",
        values.join(",")
    )
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::DropPartition);
    let batches = p.drop_rows.div_ceil(ROWS_PER_BATCH).max(1);
    let rows = batches * ROWS_PER_BATCH;
    r.notes
        .push(format!("N = {rows} rows in the partition dropped"));
    let create = create_sql(server.kind.table_options(), rows);
    let mut conn = match driver::open_table(server, &create) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    let builders: Vec<BatchSql> = (0..p.clients)
        .map(|_| Box::new(batch_sql) as BatchSql)
        .collect();
    let load = driver::run_limited(
        server,
        builders,
        ROWS_PER_BATCH,
        Duration::from_secs(24 * 3600),
        batches + 1,
    );
    r.figures
        .push(fig("rows loaded", Some(load.rows as f64), Better::Neither));
    r.figures.push(fig(
        "load rows/s",
        crate::stats::ratio(load.rows as f64, load.secs),
        Better::Higher,
    ));
    if let Some(e) = load.error {
        r.status = e;
        return r;
    }
    let sql = format!("ALTER TABLE {TABLE} DROP PARTITION p0");
    let t = Instant::now();
    if let Err(e) = conn.query_drop(&sql) {
        r.status = classify(&e, &sql);
        return r;
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    r.figures
        .push(fig("DROP PARTITION ms", Some(ms), Better::Lower));
    let count: Option<u64> = conn
        .query_first(format!("SELECT COUNT(*) FROM {TABLE}"))
        .unwrap_or(None);
    if count != Some(ROWS_PER_BATCH) {
        r.status = Status::Failed(format!(
            "CHECK FAILED: {count:?} rows after the drop, expected {ROWS_PER_BATCH} (p1's)"
        ));
        return r;
    }
    r.notes
        .push("check: after the drop the table holds exactly p1's rows".into());
    let _ = conn.query_drop(format!("DROP TABLE {TABLE}"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_fill_p0_then_one_batch_of_p1() {
        let c = create_sql(" ENGINE=InnoDB", 3000);
        assert!(c.contains(
            "ENGINE=InnoDB PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (3000)"
        ));
        let b = batch_sql(2);
        assert!(b.contains("(2000,") && b.contains("(2999,") && !b.contains("(3000,"));
    }
}
