//! The second half of upsert-rollup: the seed's event schema — `events`, PK (hid, mid, id) — written 4 rows
//! per explicit transaction (4 single-row INSERTs), each transaction also folding its rows into two roll-up
//! tables with `INSERT … ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), total = total + VALUES(total)`:
//! per (hid, hour) and per (hid, mid). C clients; transaction t's values come from an RNG seeded by
//! (seed, t); roll-up rows are sorted by key inside each statement so concurrent transactions lock them in
//! one order. Deadlocks and lock wait timeouts are retried (counted). Afterwards both roll-ups' SUM(cnt)
//! must equal COUNT(*) of events, and that the acknowledged rows.

use super::driver::{self, TxSql};
use super::outcome::{classify, Status};
use super::sensor_data::{datetime, START_EPOCH};
use super::sensor_stream::per;
use super::{fig, rate_figures, Better, Figure, SqlParams};
use crate::peer::Server;
use crate::stats;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

/// Rows (INSERT statements) per transaction.
pub const ROWS_PER_TX: u64 = 4;
/// Hosts and metrics the events are spread over.
pub const HOSTS: u64 = 1000;
pub const METRICS: u64 = 100;

pub fn create_sql(table_options: &str) -> [String; 3] {
    [
        format!("CREATE TABLE events (hid INT NOT NULL, mid INT NOT NULL, id BIGINT NOT NULL, ts DATETIME NOT NULL, val DOUBLE NOT NULL, PRIMARY KEY (hid, mid, id)){table_options}"),
        format!("CREATE TABLE rollup_hour (hid INT NOT NULL, hour DATETIME NOT NULL, cnt BIGINT NOT NULL, total DOUBLE NOT NULL, PRIMARY KEY (hid, hour)){table_options}"),
        format!("CREATE TABLE rollup_metric (hid INT NOT NULL, mid INT NOT NULL, cnt BIGINT NOT NULL, total DOUBLE NOT NULL, PRIMARY KEY (hid, mid)){table_options}"),
    ]
}

/// The statements of transaction `t`: 4 INSERTs into events, then the two roll-up upserts.
pub fn tx_sql(seed: u64, t: u64) -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(seed ^ t.wrapping_mul(0xD1B5_4A32_D192_ED03));
    // One event per second of stream time per transaction; the hour advances with t.
    let epoch = START_EPOCH + t as i64;
    let ts = datetime(epoch);
    let hour = datetime(epoch / 3600 * 3600);
    let mut rows: Vec<(u64, u64, u64, f64)> = (0..ROWS_PER_TX)
        .map(|j| {
            (
                rng.gen_range(1..=HOSTS),
                rng.gen_range(1..=METRICS),
                t * ROWS_PER_TX + j,
                (rng.gen_range(0.0..1000.0f64) * 100.0).round() / 100.0,
            )
        })
        .collect();
    let mut out: Vec<String> = rows
        .iter()
        .map(|(h, m, id, v)| {
            format!(
                "INSERT INTO events (hid, mid, id, ts, val) VALUES ({h},{m},{id},'{ts}',{v:.2})"
            )
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    let by_hour: Vec<String> = rows
        .iter()
        .map(|(h, _, _, v)| format!("({h},'{hour}',1,{v:.2})"))
        .collect();
    out.push(format!(
        "INSERT INTO rollup_hour (hid, hour, cnt, total) VALUES {} ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), total = total + VALUES(total)",
        by_hour.join(",")
    ));
    rows.sort_by_key(|r| (r.0, r.1));
    let by_metric: Vec<String> = rows
        .iter()
        .map(|(h, m, _, v)| format!("({h},{m},1,{v:.2})"))
        .collect();
    out.push(format!(
        "INSERT INTO rollup_metric (hid, mid, cnt, total) VALUES {} ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), total = total + VALUES(total)",
        by_metric.join(",")
    ));
    out
}

/// Runs the phase; figures are prefixed "events tx: ". Returns figures, per-second rows, notes, status.
pub fn run(server: &Server, p: &SqlParams) -> (Vec<Figure>, Vec<u64>, Vec<String>, Status) {
    let mut notes = Vec::new();
    let mut conn = match mysql::Conn::new(server.opts()) {
        Ok(c) => c,
        Err(e) => {
            return (
                vec![],
                vec![],
                notes,
                Status::Failed(format!("connect: {e}")),
            )
        }
    };
    for sql in create_sql(server.kind.table_options()) {
        if let Err(e) = conn.query_drop(&sql) {
            return (vec![], vec![], notes, classify(&e, &sql));
        }
    }
    let seed = p.seed;
    let builders: Vec<TxSql> = (0..p.clients)
        .map(|_| Box::new(move |t| tx_sql(seed, t)) as TxSql)
        .collect();
    let run = driver::run_tx(
        server,
        builders,
        ROWS_PER_TX,
        Duration::from_secs(p.upsert_secs),
        u64::MAX,
    );
    let per_sec = stats::per_second(&run.row_marks);
    let rows = run.rows;
    let pre = |f: Figure| Figure {
        name: format!("events tx: {}", f.name),
        ..f
    };
    let mut figs: Vec<Figure> = vec![pre(fig(
        "transactions/s",
        stats::ratio((rows / ROWS_PER_TX) as f64, run.secs),
        Better::Higher,
    ))];
    figs.extend(rate_figures(rows, run.secs, &per_sec).into_iter().map(pre));
    figs.extend([
        pre(fig(
            "transactions retried (deadlock, lock wait)",
            Some(run.retries as f64),
            Better::Lower,
        )),
        pre(fig(
            "server bytes written/row",
            per(run.server_write_bytes, rows),
            Better::Lower,
        )),
        pre(fig(
            "server CPU µs/row",
            run.server_cpu_secs
                .and_then(|c| stats::ratio(c * 1e6, rows as f64)),
            Better::Lower,
        )),
    ]);
    if let Some(st) = run.error {
        return (figs, per_sec, notes, st);
    }
    let q = "SELECT (SELECT COUNT(*) FROM events), (SELECT CAST(SUM(cnt) AS SIGNED) FROM rollup_hour), \
             (SELECT CAST(SUM(cnt) AS SIGNED) FROM rollup_metric)";
    match conn.query_first::<(u64, Option<i64>, Option<i64>), _>(q) {
        Ok(Some((n, Some(h), Some(m)))) if n == rows && h as u64 == rows && m as u64 == rows => notes.push(format!(
            "events tx: check: COUNT(*) of events = SUM(cnt) of rollup_hour = SUM(cnt) of rollup_metric = {rows} rows acknowledged"
        )),
        Ok(got) => notes.push(format!(
            "events tx: CHECK FAILED: (COUNT(*) events, SUM(cnt) rollup_hour, SUM(cnt) rollup_metric) = {got:?}, rows acknowledged = {rows}"
        )),
        Err(e) => notes.push(format!("events tx: check not possible: {}", classify(&e, q).label())),
    }
    (figs, per_sec, notes, Status::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_statements() {
        let t = tx_sql(42, 10);
        assert_eq!(t, tx_sql(42, 10));
        assert_eq!(t.len(), 6);
        for (j, s) in t[..4].iter().enumerate() {
            assert!(s.starts_with("INSERT INTO events (hid, mid, id, ts, val) VALUES ("));
            assert!(s.contains(&format!(",{},'2024-01-01 00:00:10',", 40 + j)));
        }
        assert!(t[4].contains("'2024-01-01 00:00:00',1,"));
        assert!(t[4].ends_with("total = total + VALUES(total)"));
        assert!(t[5].starts_with("INSERT INTO rollup_metric"));
        assert_eq!(t[5].matches("),(").count(), 3);
        assert_eq!(
            create_sql("")[0]
                .matches("PRIMARY KEY (hid, mid, id)")
                .count(),
            1
        );
    }
}
