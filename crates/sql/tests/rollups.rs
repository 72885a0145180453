//! Roll-up tables (docs/time-series.md, design.md RUP1-RUP6): CREATE / DROP ROLLUP, what other
//! statements may do to roll-ups and their base tables, and a model-based test: after random
//! inserts, updates, deletes, rollbacks and reopenings, each roll-up equals the GROUP BY of its
//! base table.

mod common;

use common::engine::{engine, exec, rows};

fn err(s: &mut betula_sql::Session, sql: &str) -> u16 {
    match s.execute(sql, &[]) {
        Ok(o) => panic!("{sql}: accepted: {o:?}"),
        Err(e) => e.code.number(),
    }
}

#[test]
fn a_rollup_is_backfilled_and_follows_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE sensordata (sensor_id INT NOT NULL, ts DATETIME NOT NULL, v INT, \
         PRIMARY KEY (sensor_id, ts))",
    );
    exec(
        &mut s,
        "INSERT INTO sensordata VALUES (1, '2026-01-01 00:00:10', 5), \
         (1, '2026-01-01 00:00:50', 7), (2, '2026-01-01 00:01:10', NULL)",
    );
    exec(
        &mut s,
        "CREATE ROLLUP r ON sensordata GROUP BY sensor_id, TIME_BUCKET('1 minute', ts) \
         AGGREGATE COUNT(*), SUM(v), MIN(v), MAX(v)",
    );
    let q = "SELECT * FROM r ORDER BY sensor_id, ts";
    assert_eq!(
        rows(&mut s, q),
        [
            "1|2026-01-01 00:00:00|2|12|5|7|2",
            "2|2026-01-01 00:01:00|1|NULL|NULL|NULL|0"
        ]
    );
    exec(
        &mut s,
        "INSERT INTO sensordata VALUES (1, '2026-01-01 00:00:20', 1), (3, '2026-01-01 00:05:00', 9)",
    );
    exec(
        &mut s,
        "INSERT INTO sensordata VALUES (2, '2026-01-01 00:01:20', 4)",
    );
    assert_eq!(
        rows(&mut s, q),
        [
            "1|2026-01-01 00:00:00|3|13|1|7|3",
            "2|2026-01-01 00:01:00|2|4|4|4|1",
            "3|2026-01-01 00:05:00|1|9|9|9|1"
        ]
    );
    exec(&mut s, "DELETE FROM sensordata WHERE v = 1");
    exec(
        &mut s,
        "UPDATE sensordata SET v = 100 WHERE sensor_id = 2 AND v IS NULL",
    );
    exec(&mut s, "DELETE FROM sensordata WHERE sensor_id = 3");
    assert_eq!(
        rows(&mut s, q),
        [
            "1|2026-01-01 00:00:00|2|12|5|7|2",
            "2|2026-01-01 00:01:00|2|104|4|100|2",
        ]
    );
}
