//! clustering-range: a range query over 100k rows of a table of N ≥ 1M rows (`--clustering-rows`,
//! rounded up to a power of two), read through a clustering secondary key and through a plain
//! secondary key over the same values. C clients load the table (1000-row INSERTs, autocommit);
//! columns `kc` and `kp` both hold `id · 40503 mod N` (a permutation of 0..N, so a key range is
//! spread over the whole primary key range), `v` a number to sum. Then one connection runs
//! `SELECT COUNT(*), SUM(v) … FORCE INDEX (kc) WHERE kc BETWEEN lo AND lo + 99999` and the same
//! through `kp`, alternately, at random `lo`, after a warm-up run of each; every run must count
//! exactly 100,000 rows and both keys must give the same sum for the same range.
//!
//! Only Betula has clustering secondary keys: on InnoDB and MyRocks `kc` is a plain key too, so
//! their figure is the plain key's (the comparable), and the clustering figures are Betula's.

use super::driver::{self, BatchSql};
use super::outcome::{classify, Status};
use super::{fig, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::{EngineKind, Server};
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

pub const DESCRIPTION: &str = "clustering-range: C clients load N rows (1000-row INSERTs, autocommit) into a table with a clustering key `kc` and a plain key `kp` over the same values (a permutation of 0..N, spread over the primary key); then one connection runs `SELECT COUNT(*), SUM(v) … WHERE k BETWEEN lo AND lo+99999` through each key alternately (random lo, one warm-up each); every run must count 100,000 rows and both keys give the same sum. InnoDB and MyRocks have no clustering secondary keys: their `kc` is plain";

const TABLE: &str = "clustering_range";
const ROWS_PER_BATCH: u64 = 1000;
/// Rows each query reads.
pub const RANGE_ROWS: u64 = 100_000;
/// Odd, so `id · MULT mod 2^k` is a permutation.
const MULT: u64 = 40503;

/// The table's rows: at least `asked` and at least twice the range, a power of two.
pub fn table_rows(asked: u64) -> u64 {
    asked.max(2 * RANGE_ROWS).next_power_of_two()
}

/// The key of row `id` in a table of `rows` rows (a power of two).
pub fn key_of(id: u64, rows: u64) -> u64 {
    id.wrapping_mul(MULT) & (rows - 1)
}

pub fn create_sql(kind: EngineKind) -> String {
    let clustering = if kind == EngineKind::Betula {
        "CLUSTERING "
    } else {
        ""
    };
    format!(
        "CREATE TABLE {TABLE} (id BIGINT NOT NULL, kc BIGINT NOT NULL, kp BIGINT NOT NULL, \
         v DOUBLE NOT NULL, pad VARCHAR(24) NOT NULL, PRIMARY KEY (id), {clustering}KEY kc (kc), \
         KEY kp (kp)){}",
        kind.table_options()
    )
}

/// The INSERT of batch `b` (ids b·1000 .. b·1000 + 999).
pub fn batch_sql(b: u64, rows: u64) -> String {
    let values: Vec<String> = (b * ROWS_PER_BATCH..(b + 1) * ROWS_PER_BATCH)
        .map(|id| {
            let k = key_of(id, rows);
            format!("({id},{k},{k},{}.5,'pad-{:08}')", id % 1000, id % 99_991)
        })
        .collect();
    format!("INSERT INTO {TABLE} VALUES {}", values.join(","))
}

pub fn query_sql(key: &str, lo: u64) -> String {
    format!(
        "SELECT COUNT(*), SUM(v) FROM {TABLE} FORCE INDEX ({key}) WHERE {key} BETWEEN {lo} AND {}",
        lo + RANGE_ROWS - 1
    )
}

/// Timed runs of one key: seconds of each.
struct Timings {
    secs: Vec<f64>,
}

impl Timings {
    fn total(&self) -> f64 {
        self.secs.iter().sum()
    }
    fn per_sec(&self) -> Option<f64> {
        crate::stats::ratio(self.secs.len() as f64, self.total())
    }
}

/// One run of `key` at `lo`: its (count, sum) and seconds.
fn run_query(conn: &mut mysql::Conn, key: &str, lo: u64) -> Result<((u64, f64), f64), Status> {
    let sql = query_sql(key, lo);
    let t = Instant::now();
    let row: Option<(u64, f64)> = conn.query_first(&sql).map_err(|e| classify(&e, &sql))?;
    let secs = t.elapsed().as_secs_f64();
    let row = row.ok_or_else(|| Status::Failed(format!("CHECK FAILED: no row from {sql}")))?;
    if row.0 != RANGE_ROWS {
        return Err(Status::Failed(format!(
            "CHECK FAILED: {sql} counted {} rows, expected {RANGE_ROWS}",
            row.0
        )));
    }
    Ok((row, secs))
}

/// EXPLAIN's key and Extra of `key`'s query (for the notes).
fn explain(conn: &mut mysql::Conn, key: &str) -> String {
    let sql = format!("EXPLAIN {}", query_sql(key, 0));
    match conn.query_first::<mysql::Row, _>(&sql) {
        Ok(Some(row)) => {
            let col = |i: usize| -> String {
                row.get_opt::<Option<String>, _>(i)
                    .and_then(|r| r.ok())
                    .flatten()
                    .unwrap_or_else(|| "NULL".into())
            };
            format!("key {}, Extra: {}", col(5), col(9))
        }
        Ok(None) => "no plan".into(),
        Err(e) => format!("EXPLAIN failed: {e}"),
    }
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::ClusteringRange);
    let rows = table_rows(p.clustering_rows);
    let batches = rows / ROWS_PER_BATCH + u64::from(!rows.is_multiple_of(ROWS_PER_BATCH));
    let clustered = server.kind == EngineKind::Betula;
    let mut conn = match driver::open_table(server, &create_sql(server.kind)) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    // The last batch may pass `rows`: it is cut to the table's size.
    let builders: Vec<BatchSql> = (0..p.clients)
        .map(|_| {
            Box::new(move |b: u64| {
                let sql = batch_sql(b, rows);
                if (b + 1) * ROWS_PER_BATCH <= rows {
                    return sql;
                }
                let keep: Vec<String> = (b * ROWS_PER_BATCH..rows)
                    .map(|id| {
                        let k = key_of(id, rows);
                        format!("({id},{k},{k},{}.5,'pad-{:08}')", id % 1000, id % 99_991)
                    })
                    .collect();
                format!("INSERT INTO {TABLE} VALUES {}", keep.join(","))
            }) as BatchSql
        })
        .collect();
    let load = driver::run_limited(
        server,
        builders,
        ROWS_PER_BATCH,
        Duration::from_secs(24 * 3600),
        batches,
    );
    if let Some(e) = load.error {
        r.status = e;
        return r;
    }
    let count: Option<u64> = conn
        .query_first(format!("SELECT COUNT(*) FROM {TABLE}"))
        .unwrap_or(None);
    if count != Some(rows) {
        r.status = Status::Failed(format!(
            "CHECK FAILED: the table holds {count:?} rows after the load, expected {rows}"
        ));
        return r;
    }
    r.figures
        .push(fig("rows loaded", Some(rows as f64), Better::Neither));
    r.figures.push(fig(
        "load rows/s",
        crate::stats::ratio(rows as f64, load.secs),
        Better::Higher,
    ));
    r.notes.push(format!(
        "N = {rows} rows; each query reads {RANGE_ROWS} rows ({:.1}% of the table)",
        RANGE_ROWS as f64 * 100.0 / rows as f64
    ));
    if !clustered {
        r.notes.push(
            "no clustering secondary keys in this engine: `kc` is a plain key, the clustering figures are not measured"
                .into(),
        );
    }
    for key in ["kc", "kp"] {
        let plan = explain(&mut conn, key);
        r.notes.push(format!("EXPLAIN through {key}: {plan}"));
    }
    let runs = if p.quick { 6 } else { 20 };
    let keys: &[&str] = if clustered { &["kc", "kp"] } else { &["kp"] };
    let mut timings: Vec<Timings> = keys.iter().map(|_| Timings { secs: Vec::new() }).collect();
    let mut rng = StdRng::seed_from_u64(p.seed);
    for run in 0..=runs {
        let lo = rng.gen_range(0..=rows - RANGE_ROWS);
        let mut sums = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            match run_query(&mut conn, key, lo) {
                Ok(((_, sum), secs)) => {
                    sums.push(sum);
                    // Run 0 warms the caches up.
                    if run > 0 {
                        timings[i].secs.push(secs);
                    }
                }
                Err(st) => {
                    r.status = st;
                    return r;
                }
            }
        }
        if sums.windows(2).any(|w| w[0] != w[1]) {
            r.status = Status::Failed(format!(
                "CHECK FAILED: the keys gave different sums for lo = {lo}: {sums:?}"
            ));
            return r;
        }
    }
    r.notes.push(format!(
        "check: every run counted {RANGE_ROWS} rows{}",
        if clustered {
            ", and both keys gave the same SUM(v) for each range"
        } else {
            ""
        }
    ));
    let plain = timings.last().and_then(Timings::per_sec);
    let clustering = clustered.then(|| timings[0].per_sec()).flatten();
    let rows_per = |q: Option<f64>| q.map(|q| q * RANGE_ROWS as f64);
    r.figures.extend([
        fig("clustering key: queries/s", clustering, Better::Higher),
        fig(
            "clustering key: rows/s",
            rows_per(clustering),
            Better::Higher,
        ),
        fig("plain key: queries/s", plain, Better::Higher),
        fig("plain key: rows/s", rows_per(plain), Better::Higher),
        fig(
            "clustering ÷ plain",
            clustering
                .zip(plain)
                .and_then(|(c, p)| crate::stats::ratio(c, p)),
            Better::Higher,
        ),
    ]);
    let _ = conn.query_drop(format!("DROP TABLE {TABLE}"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_a_permutation_and_ranges_hold_the_range_size() {
        let rows = table_rows(1_000_000);
        assert_eq!(rows, 1 << 20);
        let small = 1 << 12;
        let mut seen = vec![false; small as usize];
        for id in 0..small {
            seen[key_of(id, small) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert!(create_sql(EngineKind::Betula).contains("CLUSTERING KEY kc (kc)"));
        assert!(!create_sql(EngineKind::Innodb).contains("CLUSTERING"));
        assert!(query_sql("kc", 5).ends_with("kc BETWEEN 5 AND 100004"));
        assert!(batch_sql(1, rows).starts_with("INSERT INTO clustering_range VALUES (1000,"));
    }
}
