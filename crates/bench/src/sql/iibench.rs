//! iibench (Tokutek's insert benchmark): C clients insert 1000-row batches into `purchases_index`, an
//! AUTO_INCREMENT primary key plus 3 secondary indexes on random columns, so every row changes three
//! random places; run long enough (full mode) for the indexes to outgrow the cache. Values as iibench.py:
//! cashregisterid 0..1000, customerid 0..100000, productid 0..10000, price 0..500, a 10-character data
//! string; each batch's values come from an RNG seeded by (seed, batch) so a run is reproducible. It runs
//! until the data directory has grown by `--iibench-cache-factor` (10) × the cache, or for
//! `--iibench-duration` s.
//! Figures: rows/s over time (first vs last minute), worst 1-s window, bytes written, datadir growth.

use super::driver::{self, TxSql};
use super::outcome::classify;
use super::sensor_data::batch_ts;
use super::sensor_stream::{per, tail_mean};
use super::{cost_figures, fig, rate_figures, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::Server;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::time::Duration;

pub const TABLE: &str = "purchases_index";
pub const ROWS_PER_BATCH: u64 = 1000;

pub const DESCRIPTION: &str = "iibench: `purchases_index` (transactionid BIGINT AUTO_INCREMENT PRIMARY KEY, dateandtime, cashregisterid, customerid, productid, price, data VARCHAR(4000)) with iibench's 3 secondary indexes marketsegment (price, customerid), registersegment (cashregisterid, price, customerid), pdc (price, dateandtime, customerid); C clients send 1000-row INSERTs of random values (iibench.py's ranges, RNG seeded per batch), autocommit, until the datadir has grown by `--iibench-cache-factor` (10) × the cache or for at most `--iibench-duration` s (the note says which); no concurrent queries";

pub fn create_sql(table_options: &str) -> String {
    format!(
        "CREATE TABLE {TABLE} (transactionid BIGINT NOT NULL AUTO_INCREMENT, dateandtime DATETIME, \
         cashregisterid INT NOT NULL, customerid INT NOT NULL, productid INT NOT NULL, price FLOAT NOT NULL, \
         data VARCHAR(4000), PRIMARY KEY (transactionid), KEY marketsegment (price, customerid), \
         KEY registersegment (cashregisterid, price, customerid), KEY pdc (price, dateandtime, customerid))\
         {table_options}"
    )
}

/// The INSERT of batch `b` (a pure function of (seed, b)).
pub fn batch_sql(seed: u64, b: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let ts = batch_ts(b);
    let mut s = format!(
        "INSERT INTO {TABLE} (dateandtime, cashregisterid, customerid, productid, price, data) VALUES "
    );
    for i in 0..ROWS_PER_BATCH {
        if i > 0 {
            s.push(',');
        }
        let data: String = (0..10)
            .map(|_| (b'a' + rng.gen_range(0..26u8)) as char)
            .collect();
        let _ = write!(
            s,
            "('{ts}',{},{},{},{:.2},'{data}')",
            rng.gen_range(0..1000),
            rng.gen_range(0..100_000),
            rng.gen_range(0..10_000),
            rng.gen_range(0.0..500.0f64)
        );
    }
    s
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::Iibench);
    let create = create_sql(server.kind.table_options());
    let mut conn = match driver::open_table(server, &create) {
        Ok(c) => c,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    let du0 = server.datadir_bytes();
    let seed = p.seed;
    let builders: Vec<TxSql> = (0..p.clients)
        .map(|_| Box::new(move |b| vec![batch_sql(seed, b)]) as TxSql)
        .collect();
    // Until the data directory has grown by `iibench_cache_factor` × the cache, or the time cap.
    let target = p.start.cache_bytes.saturating_mul(p.iibench_cache_factor);
    let run = driver::run_until(
        server,
        builders,
        ROWS_PER_BATCH,
        Duration::from_secs(p.iibench_secs),
        u64::MAX,
        &|| {
            server
                .datadir_bytes()
                .is_some_and(|d| d.saturating_sub(du0.unwrap_or(0)) >= target)
        },
    );
    r.notes.push(if run.stopped_early {
        format!(
            "stopped when the datadir had grown by {}× the cache ({} bytes), after {:.0} s",
            p.iibench_cache_factor, target, run.secs
        )
    } else {
        format!(
            "stopped at the time cap ({} s) before the datadir had grown by {}× the cache",
            p.iibench_secs, p.iibench_cache_factor
        )
    });
    let du1 = server.datadir_bytes();
    let (per_sec, series) = driver::per_second_series(&run);
    r.series = series;
    let rows = run.rows;
    r.figures = vec![
        fig("rows inserted", Some(rows as f64), Better::Higher),
        fig("seconds", Some(run.secs), Better::Neither),
    ];
    r.figures.extend(rate_figures(rows, run.secs, &per_sec));
    let first: Vec<u64> = per_sec.iter().take(60).copied().collect();
    r.figures.extend([
        fig("rows/s, first 60 s", tail_mean(&first, 60), Better::Higher),
        fig("rows/s, last 60 s", tail_mean(&per_sec, 60), Better::Higher),
        fig(
            "datadir growth, bytes/row",
            du0.zip(du1)
                .and_then(|(a, b)| per(Some(b.saturating_sub(a)), rows)),
            Better::Lower,
        ),
    ]);
    r.figures.extend(cost_figures(&run, rows));
    if let Some(st) = run.error {
        r.status = st;
        return r;
    }
    let count_sql = format!("SELECT COUNT(*), CAST(MAX(transactionid) AS UNSIGNED) FROM {TABLE}");
    match conn.query_first::<(u64, Option<u64>), _>(&count_sql) {
        Ok(Some((n, _))) if n == rows => r
            .notes
            .push(format!("check: COUNT(*) = {n} = rows acknowledged")),
        Ok(got) => r.notes.push(format!(
            "CHECK FAILED: (COUNT(*), MAX(transactionid)) = {got:?}, rows acknowledged = {rows}"
        )),
        Err(e) => r.notes.push(format!(
            "check COUNT(*) not possible: {}",
            classify(&e, &count_sql).label()
        )),
    }
    // The secondary index pdc must hold every row too: count through a range on its first column.
    let idx_sql = format!("SELECT COUNT(*) FROM {TABLE} WHERE price >= 0");
    match conn.query_first::<u64, _>(&idx_sql) {
        Ok(Some(n)) if n == rows => r.notes.push(format!(
            "check: `{idx_sql}` = {n} (a range on the indexes' first column)"
        )),
        Ok(n) => r.notes.push(format!(
            "CHECK FAILED: `{idx_sql}` = {n:?}, rows acknowledged = {rows}"
        )),
        Err(e) => r.notes.push(format!(
            "check not possible: {}",
            classify(&e, &idx_sql).label()
        )),
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_reproducible_and_in_range() {
        let a = batch_sql(42, 7);
        assert_eq!(a, batch_sql(42, 7));
        assert_ne!(a, batch_sql(42, 8));
        assert_ne!(a, batch_sql(43, 7));
        assert!(a.starts_with("INSERT INTO purchases_index (dateandtime,"));
        assert_eq!(a.matches("('2024-01-01 00:00:07',").count(), 1000);
        let first = a.split("VALUES (").nth(1).unwrap();
        let fields: Vec<&str> = first.split(')').next().unwrap().split(',').collect();
        assert_eq!(fields.len(), 6);
        assert!(fields[1].parse::<u32>().unwrap() < 1000);
        assert!(fields[4].parse::<f64>().unwrap() < 500.0);
        assert_eq!(fields[5].len(), 12);
        let c = create_sql(" ENGINE=InnoDB");
        assert_eq!(c.matches("KEY ").count(), 4);
    }
}
