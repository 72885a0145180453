//! Roll-up tables (docs/time-series.md, design.md RUP1-RUP6): CREATE / DROP ROLLUP, what other
//! statements may do to roll-ups and their base tables, and a model-based test: after random
//! inserts, updates, deletes, rollbacks and reopenings, each roll-up equals the GROUP BY of its
//! base table.

mod common;

use common::engine::{engine, err, exec, rows};
use rand::rngs::SmallRng;
use rand::Rng;

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

const BASE: &str = "CREATE TABLE m (sensor INT NOT NULL, id INT NOT NULL, ts DATETIME NOT NULL, \
                    v INT, d DECIMAL(8,2), PRIMARY KEY (sensor, id))";

/// The roll-ups of the model test and the GROUP BY each must equal: (name, CREATE ROLLUP, the
/// roll-up's rows query, the base table's GROUP BY query).
fn model_rollups() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    vec![
        (
            // Leading base key column grouped: MIN / MAX recomputed by a range read.
            "by_minute",
            "CREATE ROLLUP by_minute ON m GROUP BY sensor, TIME_BUCKET('1 minute', ts) AS minute \
             AGGREGATE COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), SUM(d), COUNT(d), MIN(ts)",
            "SELECT * FROM by_minute ORDER BY sensor, minute",
            "SELECT sensor, TIME_BUCKET('1 minute', ts) AS b, COUNT(*), COUNT(v), SUM(v), \
             MIN(v), MAX(v), SUM(d), COUNT(d), MIN(ts) FROM m GROUP BY sensor, b ORDER BY sensor, b",
        ),
        (
            // No base key prefix: MIN / MAX recomputed by a scan; COUNT(*) and COUNT(d) added.
            "by_hour",
            "CREATE ROLLUP by_hour ON m GROUP BY TIME_BUCKET('1 hour', ts) \
             AGGREGATE MAX(d), SUM(v)",
            "SELECT * FROM by_hour ORDER BY ts",
            "SELECT TIME_BUCKET('1 hour', ts) AS b, COUNT(*), MAX(d), SUM(v), COUNT(d), COUNT(v) \
             FROM m GROUP BY b ORDER BY b",
        ),
        (
            // Integer columns only: the messages' program runs on the stored row's bytes (INS9).
            "by_sensor",
            "CREATE ROLLUP by_sensor ON m GROUP BY sensor AGGREGATE COUNT(*), COUNT(v), MIN(v), MAX(v)",
            "SELECT * FROM by_sensor ORDER BY sensor",
            "SELECT sensor, COUNT(*), COUNT(v), MIN(v), MAX(v) FROM m GROUP BY sensor ORDER BY sensor",
        ),
    ]
}

fn check_model(s: &mut betula_sql::Session, step: &str) {
    for (name, _, rollup, group_by) in model_rollups() {
        assert_eq!(
            rows(s, rollup),
            rows(s, group_by),
            "roll-up {name} differs from its GROUP BY after {step}"
        );
    }
}

fn value(r: &mut SmallRng) -> String {
    if r.gen_range(0..5) == 0 {
        "NULL".into()
    } else {
        r.gen_range(-50..50).to_string()
    }
}

fn row(r: &mut SmallRng) -> String {
    format!(
        "({}, {}, '2026-03-01 {:02}:{:02}:{:02}', {}, {})",
        r.gen_range(0..4),
        r.gen_range(0..60),
        r.gen_range(0..3),
        r.gen_range(0..4),
        r.gen_range(0..60),
        value(r),
        if r.gen_range(0..4) == 0 {
            "NULL".to_string()
        } else {
            format!("{}.{:02}", r.gen_range(-9..9), r.gen_range(0..100))
        }
    )
}

/// One random statement on the base table (errors such as duplicate keys are part of the model:
/// a failed statement changes nothing).
fn statement(r: &mut SmallRng) -> String {
    match r.gen_range(0..9) {
        0 | 1 => {
            let rows: Vec<String> = (0..r.gen_range(1..8)).map(|_| row(r)).collect();
            format!("INSERT IGNORE INTO m VALUES {}", rows.join(","))
        }
        // Autocommit: the set-oriented path (one upsert per group); in a transaction: row by row.
        2 => {
            let rows: Vec<String> = (0..r.gen_range(1..6)).map(|_| row(r)).collect();
            format!("INSERT INTO m VALUES {}", rows.join(","))
        }
        3 => format!("REPLACE INTO m VALUES {}", row(r)),
        4 => format!(
            "INSERT INTO m VALUES {} ON DUPLICATE KEY UPDATE v = v + 1, d = NULL",
            row(r)
        ),
        5 => format!(
            "UPDATE m SET v = {}, ts = ts + INTERVAL {} MINUTE WHERE id % 7 = {}",
            value(r),
            r.gen_range(-3..3),
            r.gen_range(0..7)
        ),
        6 => format!(
            "UPDATE m SET sensor = {}, id = id + 60 WHERE sensor = {} AND id < {}",
            r.gen_range(0..4),
            r.gen_range(0..4),
            r.gen_range(0..20)
        ),
        7 => format!("DELETE FROM m WHERE id % 5 = {}", r.gen_range(0..5)),
        _ => format!(
            "DELETE FROM m WHERE sensor = {} AND v >= {}",
            r.gen_range(0..4),
            r.gen_range(-50..50)
        ),
    }
}

#[test]
fn rollups_equal_their_group_by_after_random_changes_rollbacks_and_reopens() {
    for seed in 0..4 {
        model_run(seed);
    }
}

fn model_run(seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut r = common::rng(seed);
    let (mut e, mut s) = engine(dir.path());
    exec(&mut s, BASE);
    for _ in 0..40 {
        let _ = s.execute(&statement(&mut r), &[]);
    }
    // Backfilled from the rows there, then maintained.
    for (_, create, _, _) in model_rollups() {
        exec(&mut s, create);
    }
    check_model(&mut s, "the backfill");
    for round in 0..24 {
        let explicit = round % 3 != 0;
        if explicit {
            exec(&mut s, "BEGIN");
        }
        let mut done = Vec::new();
        for _ in 0..r.gen_range(1..12) {
            let sql = statement(&mut r);
            let _ = s.execute(&sql, &[]);
            done.push(sql);
        }
        if explicit {
            // Inside the transaction, the session sees its own changes in both.
            check_model(
                &mut s,
                &format!("round {round} in its transaction: {done:#?}"),
            );
            let end = if r.gen_range(0..3) == 0 {
                "ROLLBACK"
            } else {
                "COMMIT"
            };
            exec(&mut s, end);
        }
        check_model(&mut s, &format!("round {round}: {done:#?}"));
        if round % 4 == 3 {
            drop(s);
            drop(e);
            (e, s) = engine(dir.path());
            check_model(&mut s, &format!("reopening after round {round}"));
        }
    }
    let n: usize = rows(&mut s, "SELECT COUNT(*) FROM m")[0].parse().unwrap();
    assert!(n > 20, "the model kept {n} rows");
}

#[test]
fn rollups_are_read_only_and_guard_their_base_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(&mut s, BASE);
    exec(
        &mut s,
        "INSERT INTO m VALUES (1, 1, '2026-03-01 00:00:00', 1, 1.5)",
    );
    exec(
        &mut s,
        "CREATE ROLLUP r ON m GROUP BY sensor AGGREGATE COUNT(*), SUM(v)",
    );
    // DML into the roll-up: 1288.
    assert_eq!(err(&mut s, "INSERT INTO r VALUES (5, 1, 1, 1)"), 1288);
    assert_eq!(err(&mut s, "INSERT INTO r SELECT * FROM r"), 1288);
    assert_eq!(err(&mut s, "REPLACE INTO r VALUES (5, 1, 1, 1)"), 1288);
    assert_eq!(err(&mut s, "UPDATE r SET sum_v = 0"), 1288);
    assert_eq!(err(&mut s, "DELETE FROM r"), 1288);
    assert_eq!(
        err(&mut s, "DELETE LOW_PRIORITY FROM r WHERE sensor = 1"),
        1288
    );
    assert_eq!(
        err(
            &mut s,
            "UPDATE m JOIN r ON m.sensor = r.sensor SET r.sum_v = 0"
        ),
        1288
    );
    assert_eq!(
        err(&mut s, "DELETE r FROM r JOIN m ON m.sensor = r.sensor"),
        1288
    );
    assert_eq!(err(&mut s, "TRUNCATE r"), 1235);
    // The base table keeps its shape while it has roll-ups.
    assert_eq!(err(&mut s, "ALTER TABLE m DROP COLUMN v"), 1235);
    assert_eq!(err(&mut s, "ALTER TABLE m MODIFY v BIGINT"), 1235);
    assert_eq!(err(&mut s, "ALTER TABLE r ADD COLUMN x INT"), 1235);
    assert_eq!(err(&mut s, "CREATE INDEX kv ON m (v)"), 1235);
    assert_eq!(err(&mut s, "RENAME TABLE m TO m2"), 1235);
    assert_eq!(
        err(&mut s, "LOAD DATA INFILE '/nonexistent' INTO TABLE m"),
        1235
    );
    exec(
        &mut s,
        "CREATE TABLE p (sensor INT NOT NULL, id INT NOT NULL, ts DATETIME NOT NULL, v INT, \
         d DECIMAL(8,2), PRIMARY KEY (sensor, id)) PARTITION BY HASH (sensor) PARTITIONS 2",
    );
    assert_eq!(
        err(&mut s, "ALTER TABLE p EXCHANGE PARTITION p0 WITH TABLE m"),
        1235
    );
    // Unsupported definitions.
    let create = |what: &str| format!("CREATE ROLLUP x ON m {what}");
    assert_eq!(
        err(&mut s, &create("GROUP BY sensor AGGREGATE AVG(v)")),
        1235
    );
    assert_eq!(err(&mut s, &create("GROUP BY v AGGREGATE COUNT(*)")), 1235);
    assert_eq!(
        err(&mut s, &create("GROUP BY sensor AGGREGATE SUM(ts)")),
        1235
    );
    assert_eq!(
        err(&mut s, &create("GROUP BY nope AGGREGATE COUNT(*)")),
        1054
    );
    assert_eq!(
        err(
            &mut s,
            &create("GROUP BY sensor AGGREGATE COUNT(*), COUNT(*)")
        ),
        1060
    );
    assert_eq!(
        err(
            &mut s,
            &create("GROUP BY TIME_BUCKET('1 fortnight', ts) AGGREGATE COUNT(*)")
        ),
        1210
    );
    assert_eq!(
        err(
            &mut s,
            &create("GROUP BY TIME_BUCKET('1 minute', sensor) AGGREGATE COUNT(*)")
        ),
        1210
    );
    assert_eq!(
        err(
            &mut s,
            "CREATE ROLLUP r ON m GROUP BY sensor AGGREGATE COUNT(*)"
        ),
        1050
    );
    assert_eq!(
        err(
            &mut s,
            "CREATE ROLLUP x ON r GROUP BY sensor AGGREGATE COUNT(*)"
        ),
        1235
    );
    assert_eq!(err(&mut s, "DROP ROLLUP m"), 1347);
    exec(&mut s, "CREATE TEMPORARY TABLE tmp (a INT)");
    assert_eq!(err(&mut s, "DROP ROLLUP tmp"), 1347);
    exec(&mut s, "DROP TEMPORARY TABLE tmp");
    // Visible as a table, with its definition as the comment.
    assert_eq!(
        rows(
            &mut s,
            "SELECT table_name, table_comment FROM information_schema.tables \
             WHERE table_schema = 'd' ORDER BY table_name"
        ),
        [
            "m|",
            "p|",
            "r|ROLLUP ON m GROUP BY sensor AGGREGATE COUNT(*), SUM(v)"
        ]
    );
    assert_eq!(rows(&mut s, "SHOW TABLES"), ["m", "p", "r"]);
    assert_eq!(
        rows(&mut s, "SELECT * FROM information_schema.betula_rollups"),
        ["d|r|m|sensor|COUNT(*), SUM(v), COUNT(v)"]
    );
    assert!(rows(&mut s, "SHOW CREATE TABLE r")[0].contains("PRIMARY KEY (`sensor`)"));
    // Reads are free; TRUNCATE of the base empties the roll-up, DROP TABLE drops it.
    assert_eq!(rows(&mut s, "SELECT * FROM r"), ["1|1|1|1"]);
    exec(&mut s, "TRUNCATE m");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM r"), ["0"]);
    exec(
        &mut s,
        "INSERT INTO m VALUES (2, 1, '2026-03-01 00:00:00', 4, NULL)",
    );
    assert_eq!(rows(&mut s, "SELECT * FROM r"), ["2|1|4|1"]);
    exec(&mut s, "DROP ROLLUP r");
    assert_eq!(err(&mut s, "SELECT * FROM r"), 1146);
    exec(&mut s, "DROP ROLLUP IF EXISTS r");
    exec(&mut s, "ALTER TABLE m ADD COLUMN w INT");
    exec(
        &mut s,
        "CREATE ROLLUP r2 ON m GROUP BY sensor AGGREGATE MAX(w)",
    );
    exec(&mut s, "DROP TABLE m");
    assert_eq!(rows(&mut s, "SHOW TABLES"), ["p"]);
}

#[test]
fn concurrent_writers_of_the_same_groups_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(&mut s, BASE);
    for (_, create, _, _) in model_rollups() {
        exec(&mut s, create);
    }
    let workers: Vec<_> = (0..4u64)
        .map(|w| {
            let e = e.clone();
            std::thread::spawn(move || {
                let mut s = e.session(10 + w, "root", "localhost");
                exec(&mut s, "USE d");
                exec(&mut s, "SET SESSION innodb_lock_wait_timeout = 5");
                let mut r = common::rng(100 + w);
                let mut committed = 0;
                for _ in 0..40 {
                    let _ = s.execute("BEGIN", &[]);
                    let mut failed = false;
                    for _ in 0..r.gen_range(1..4) {
                        if let Err(err) = s.execute(&statement(&mut r), &[]) {
                            // A deadlock ends the transaction; anything else ends the statement.
                            failed |= err.code.number() == 1213;
                        }
                    }
                    if !failed {
                        let end = if r.gen_range(0..4) == 0 {
                            "ROLLBACK"
                        } else {
                            "COMMIT"
                        };
                        committed += usize::from(s.execute(end, &[]).is_ok() && end == "COMMIT");
                    }
                }
                committed
            })
        })
        .collect();
    let committed: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert!(committed > 40, "only {committed} transactions committed");
    check_model(&mut s, "concurrent writers");
}

#[test]
fn a_recursive_cte_fills_the_gaps_of_a_rollups_series() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE g (sensor_id INT NOT NULL, ts DATETIME NOT NULL, v DOUBLE, \
         PRIMARY KEY (sensor_id, ts))",
    );
    exec(
        &mut s,
        "CREATE ROLLUP g_minute ON g GROUP BY sensor_id, TIME_BUCKET('1 minute', ts) AS minute \
         AGGREGATE COUNT(*), SUM(v)",
    );
    exec(
        &mut s,
        "INSERT INTO g VALUES (1, '2026-05-01 10:00:05', 1.5), (1, '2026-05-01 10:00:35', 2.5), \
         (1, '2026-05-01 10:01:00', 4), (1, '2026-05-01 10:03:59', 8), (2, '2026-05-01 10:02:00', 16)",
    );
    // Every minute of the range, those without readings as 0 (docs/time-series.md, "Gaps").
    let q = "WITH RECURSIVE m (minute) AS (SELECT TIMESTAMP '2026-05-01 10:00:00' UNION ALL \
             SELECT minute + INTERVAL 1 MINUTE FROM m WHERE minute < '2026-05-01 10:04:00') \
             SELECT m.minute, COALESCE(r.count_star, 0), COALESCE(r.sum_v, 0) FROM m \
             LEFT JOIN g_minute r ON r.sensor_id = 1 AND r.minute = m.minute ORDER BY m.minute";
    assert_eq!(
        rows(&mut s, q),
        [
            "2026-05-01 10:00:00|2|4",
            "2026-05-01 10:01:00|1|4",
            "2026-05-01 10:02:00|0|0",
            "2026-05-01 10:03:00|1|8",
            "2026-05-01 10:04:00|0|0",
        ]
    );
}
