//! RETENTION on a table without partitions (design.md RET4-RET7): which tables may carry it, and
//! a model-based test of the expiry: after random inserts and retention rounds at random
//! instants, the table (read by its primary key and by a secondary index) holds exactly the rows
//! of the model that are not older than the cutoff; a snapshot older than an expiry still sees
//! its rows; roll-ups keep the summaries of expired rows; a writer holding a key in the expired
//! range makes the expiry wait; the option survives a restart.

mod common;

use betula_sql::ddl::retention::run_round;
use betula_sql::types::temporal::DateTime;
use common::engine::{engine, err, exec, rows};
use rand::Rng;

/// 2026-01-01 00:00:00 plus `secs` (within January 2026), with `millis` when given.
fn instant(secs: i64, millis: Option<u32>) -> String {
    let (d, r) = (secs / 86_400, secs % 86_400);
    let mut s = format!(
        "2026-01-{:02} {:02}:{:02}:{:02}",
        d + 1,
        r / 3600,
        r % 3600 / 60,
        r % 60
    );
    if let Some(ms) = millis {
        s.push_str(&format!(".{ms:03}"));
    }
    s
}

fn now_at(secs: i64) -> DateTime {
    DateTime::parse(&instant(secs, None)).unwrap()
}

#[test]
fn only_tables_whose_keys_lead_with_a_temporal_column_take_a_retention() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    let refused = [
        "CREATE TABLE a (ts DATETIME NOT NULL, v INT) RETENTION = 1 DAY",
        "CREATE TABLE a (id INT PRIMARY KEY, ts DATETIME NOT NULL) RETENTION = 1 DAY",
        "CREATE TABLE a (id INT NOT NULL, ts DATETIME NOT NULL, PRIMARY KEY (id, ts)) RETENTION = 1 DAY",
        "CREATE TABLE a (ts DATETIME NOT NULL, v INT, PRIMARY KEY (ts), KEY (v)) RETENTION = 1 DAY",
        "CREATE TABLE a (d DATE NOT NULL PRIMARY KEY) RETENTION = 2 HOUR",
        "CREATE TABLE a (ts DATETIME NOT NULL PRIMARY KEY) RETENTION = 0 DAY",
        "CREATE TEMPORARY TABLE a (ts DATETIME NOT NULL PRIMARY KEY) RETENTION = 1 DAY",
    ];
    for sql in refused {
        assert_eq!(err(&mut s, sql), 1478, "{sql}");
    }
    exec(
        &mut s,
        "CREATE TABLE t (ts DATETIME NOT NULL, id INT NOT NULL, v INT, \
         PRIMARY KEY (ts, id), KEY k (ts, v)) RETENTION = 7 DAY",
    );
    let shown = rows(&mut s, "SHOW CREATE TABLE t");
    assert!(shown[0].ends_with(" RETENTION=7 DAY"), "{shown:?}");
    // What would break the rule is refused; with the option gone it is allowed.
    assert_eq!(err(&mut s, "CREATE INDEX bad ON t (v)"), 1478);
    assert_eq!(err(&mut s, "ALTER TABLE t ADD KEY bad (v, ts)"), 1478);
    assert_eq!(err(&mut s, "ALTER TABLE t DROP PRIMARY KEY"), 1478);
    exec(&mut s, "ALTER TABLE t RETENTION = 30 DAY");
    exec(&mut s, "CREATE INDEX k2 ON t (ts)");
    assert!(rows(&mut s, "SHOW CREATE TABLE t")[0].ends_with(" RETENTION=30 DAY"));
    exec(&mut s, "ALTER TABLE t RETENTION = NONE");
    exec(&mut s, "CREATE INDEX k3 ON t (v)");
    assert!(!rows(&mut s, "SHOW CREATE TABLE t")[0].contains("RETENTION"));
    assert_eq!(err(&mut s, "ALTER TABLE t RETENTION = 1 DAY"), 1478);
    // A table without a secondary index: the key alone decides.
    exec(
        &mut s,
        "CREATE TABLE u (d DATE NOT NULL, id INT NOT NULL, PRIMARY KEY (d, id))",
    );
    exec(&mut s, "ALTER TABLE u RETENTION = 2 WEEK");
    drop((s, e));
    let (_e, mut s) = engine(dir.path());
    assert!(rows(&mut s, "SHOW CREATE TABLE u")[0].ends_with(" RETENTION=2 WEEK"));
}

/// One random table shape: the temporal column's type, the unit, and whether the secondary
/// index is a clustering one.
struct Shape {
    ty: &'static str,
    millis: bool,
    date: bool,
    unit: (&'static str, i64),
    amount: i64,
    clustering: bool,
}

fn random_shape(r: &mut impl Rng) -> Shape {
    let (ty, millis, date) = match r.gen_range(0..4) {
        0 => ("DATETIME", false, false),
        1 => ("DATETIME(3)", true, false),
        2 => ("TIMESTAMP", false, false),
        _ => ("DATE", false, true),
    };
    let unit = if date || r.gen_bool(0.5) {
        ("DAY", 86_400)
    } else {
        ("HOUR", 3_600)
    };
    Shape {
        ty,
        millis,
        date,
        unit,
        amount: r.gen_range(1..4),
        clustering: r.gen_bool(0.3),
    }
}

/// A row of the model: id, the column's instant in seconds (days for DATE), its text, v.
type Row = (u32, i64, String, i64);

fn row_text(shape: &Shape, r: &mut impl Rng, id: u32, horizon: i64) -> Row {
    let secs = r.gen_range(0..horizon);
    let v = r.gen_range(0..1000);
    if shape.date {
        let day = secs / 86_400 * 86_400;
        return (id, day, instant(day, None)[..10].to_string(), v);
    }
    // Values printed without a type drop trailing zeros: draw fractions without any.
    let ms = shape
        .millis
        .then(|| r.gen_range(0..100) * 10 + r.gen_range(1..10));
    (id, secs, instant(secs, ms), v)
}

fn expected(model: &[Row], cutoff: i64) -> (Vec<String>, Vec<String>) {
    let mut kept: Vec<&Row> = model.iter().filter(|r| r.1 >= cutoff).collect();
    kept.sort_by(|a, b| (&a.2, a.0).cmp(&(&b.2, b.0)));
    let by_pk = kept
        .iter()
        .map(|r| format!("{}|{}|{}", r.2, r.0, r.3))
        .collect();
    kept.sort_by(|a, b| (&a.2, a.3, a.0).cmp(&(&b.2, b.3, b.0)));
    let by_index = kept
        .iter()
        .map(|r| format!("{}|{}|{}", r.2, r.3, r.0))
        .collect();
    (by_pk, by_index)
}

#[test]
fn expiry_matches_a_model_of_random_inserts_and_rounds() {
    let mut r = common::rng(0x7e7e);
    for case in 0..12 {
        let shape = random_shape(&mut r);
        let dir = tempfile::tempdir().unwrap();
        let (e, mut s) = engine(dir.path());
        exec(&mut s, "SET time_zone = '+00:00'");
        let kind = if shape.clustering {
            "CLUSTERING KEY"
        } else {
            "KEY"
        };
        exec(
            &mut s,
            &format!(
                "CREATE TABLE t (ts {} NOT NULL, id INT NOT NULL, v INT NOT NULL, \
                 PRIMARY KEY (ts, id), {kind} k (ts, v)) RETENTION = {} {}",
                shape.ty, shape.amount, shape.unit.0
            ),
        );
        let mut model: Vec<Row> = Vec::new();
        let mut next_id = 0u32;
        let mut now = 2 * 86_400 + r.gen_range(0..86_400);
        let mut cutoff = i64::MIN;
        for _round in 0..6 {
            let batch: Vec<Row> = (0..r.gen_range(1..60))
                .map(|_| {
                    next_id += 1;
                    row_text(&shape, &mut r, next_id, now + 3_600)
                })
                .collect();
            let values: Vec<String> = batch
                .iter()
                .map(|x| format!("('{}', {}, {})", x.2, x.0, x.3))
                .collect();
            exec(
                &mut s,
                &format!("INSERT INTO t VALUES {}", values.join(",")),
            );
            model.extend(batch);
            let log = run_round(&e, now_at(now));
            assert!(
                log.iter().all(|l| l.contains("deleted the rows")),
                "case {case}: {log:?}"
            );
            let at = now - shape.amount * shape.unit.1;
            cutoff = if shape.date { at / 86_400 * 86_400 } else { at };
            model.retain(|x| x.1 >= cutoff);
            let (by_pk, by_index) = expected(&model, cutoff);
            assert_eq!(
                rows(&mut s, "SELECT * FROM t ORDER BY ts, id"),
                by_pk,
                "case {case} ({}, {} {}) at {}",
                shape.ty,
                shape.amount,
                shape.unit.0,
                instant(now, None)
            );
            assert_eq!(
                rows(
                    &mut s,
                    "SELECT ts, v, id FROM t FORCE INDEX (k) WHERE ts >= '2000-01-01' \
                     ORDER BY ts, v, id"
                ),
                by_index,
                "case {case}: read through the index"
            );
            now += r.gen_range(1_800..2 * 86_400);
        }
        let check = rows(&mut s, "CHECK TABLE t");
        assert!(check.last().unwrap().ends_with("|OK"), "{check:?}");
        let status = rows(&mut s, "SHOW STATUS LIKE 'Betula_retention_expiries'");
        assert_eq!(status, ["Betula_retention_expiries|6"]);
        // The expired rows stay gone after a restart.
        drop((s, e));
        let (_e, mut s) = engine(dir.path());
        assert_eq!(
            rows(&mut s, "SELECT * FROM t ORDER BY ts, id"),
            expected(&model, cutoff).0
        );
    }
}

#[test]
fn a_snapshot_older_than_an_expiry_still_sees_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (ts DATETIME NOT NULL PRIMARY KEY, v INT) RETENTION = 1 DAY",
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES ('2026-01-01 10:00:00', 1), ('2026-01-02 10:00:00', 2), \
         ('2026-01-03 10:00:00', 3)",
    );
    let mut old = e.session(2, "root", "localhost");
    exec(&mut old, "USE d");
    exec(&mut old, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    assert_eq!(rows(&mut old, "SELECT COUNT(*) FROM t"), ["3"]);
    run_round(&e, now_at(2 * 86_400 + 12 * 3_600));
    assert_eq!(rows(&mut s, "SELECT v FROM t ORDER BY ts"), ["3"]);
    assert_eq!(
        rows(&mut old, "SELECT v FROM t ORDER BY ts"),
        ["1", "2", "3"]
    );
    exec(&mut old, "COMMIT");
    assert_eq!(rows(&mut old, "SELECT v FROM t ORDER BY ts"), ["3"]);
}

#[test]
fn a_rollup_keeps_the_summary_of_expired_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (ts DATETIME NOT NULL, sensor INT NOT NULL, v INT, \
         PRIMARY KEY (ts, sensor))",
    );
    exec(
        &mut s,
        "CREATE ROLLUP daily ON t GROUP BY sensor, TIME_BUCKET('1 day', ts) AS day \
         AGGREGATE COUNT(*), SUM(v)",
    );
    // RETENTION is the one ALTER TABLE a base table with roll-ups takes.
    assert_eq!(err(&mut s, "ALTER TABLE t ADD COLUMN w INT"), 1235);
    exec(&mut s, "ALTER TABLE t RETENTION = 1 DAY");
    exec(
        &mut s,
        "INSERT INTO t VALUES ('2026-01-01 01:00:00', 1, 5), ('2026-01-01 02:00:00', 1, 7), \
         ('2026-01-03 01:00:00', 1, 1)",
    );
    let summary = rows(&mut s, "SELECT * FROM daily ORDER BY sensor, day");
    run_round(&e, now_at(2 * 86_400 + 12 * 3_600));
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), ["1"]);
    assert_eq!(
        rows(&mut s, "SELECT * FROM daily ORDER BY sensor, day"),
        summary
    );
    assert_eq!(summary[0], "1|2026-01-01 00:00:00|2|12|2");
}

#[test]
fn a_writer_in_the_expired_range_makes_the_expiry_wait() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (ts DATETIME NOT NULL PRIMARY KEY, v INT) RETENTION = 1 DAY",
    );
    exec(&mut s, "INSERT INTO t VALUES ('2026-01-05 00:00:00', 0)");
    exec(&mut s, "SET GLOBAL innodb_lock_wait_timeout = 1");
    let mut late = e.session(2, "root", "localhost");
    exec(&mut late, "USE d");
    exec(&mut late, "BEGIN");
    exec(&mut late, "INSERT INTO t VALUES ('2026-01-01 00:00:00', 1)");
    let log = run_round(&e, now_at(5 * 86_400));
    assert!(log.iter().any(|l| l.contains("failed")), "{log:?}");
    exec(&mut late, "COMMIT");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), ["2"]);
    let log = run_round(&e, now_at(5 * 86_400));
    assert!(log[0].contains("deleted the rows"), "{log:?}");
    assert_eq!(rows(&mut s, "SELECT v FROM t"), ["0"]);
    let errors = rows(&mut s, "SHOW STATUS LIKE 'Betula_retention_errors'");
    assert_eq!(errors, ["Betula_retention_errors|1"]);
}
