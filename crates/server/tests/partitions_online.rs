//! Partitioned tables through the real server: DROP PARTITION (and ADD PARTITION) while other
//! clients keep inserting into other partitions: every insert succeeds (the DDL waits only for
//! the statements in flight, design.md SES3 and PRT4), no row of the kept partitions is lost, the
//! dropped partition's rows are gone, and the result survives a restart. Also the retention
//! thread: a table with RETENTION gets partitions ahead and loses expired ones by itself.

mod betula;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use betula::BetulaServer;
use mysql::prelude::*;

#[test]
fn drop_partition_while_other_clients_insert() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.ev (day INT NOT NULL, id BIGINT NOT NULL, v INT, PRIMARY KEY (day, id), \
         KEY kv (v)) PARTITION BY RANGE (day) (PARTITION d0 VALUES LESS THAN (1), \
         PARTITION d1 VALUES LESS THAN (2), PARTITION d2 VALUES LESS THAN (3), \
         PARTITION d3 VALUES LESS THAN (4), PARTITION d4 VALUES LESS THAN (5))",
    )
    .unwrap();
    // The old days, to be dropped while the writers run.
    for day in 0..2 {
        let values: Vec<String> = (0..500).map(|i| format!("({day}, {i}, {i})")).collect();
        c.query_drop(format!("INSERT INTO d.ev VALUES {}", values.join(",")))
            .unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let next_id = Arc::new(AtomicU64::new(1_000));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let mut conn = server.conn(Some("d"));
            let (stop, next_id) = (stop.clone(), next_id.clone());
            std::thread::spawn(move || {
                let mut written = Vec::new();
                while !stop.load(Ordering::SeqCst) {
                    let day = 2 + (w % 3);
                    let rows: Vec<u64> = (0..20)
                        .map(|_| next_id.fetch_add(1, Ordering::SeqCst))
                        .collect();
                    let values: Vec<String> =
                        rows.iter().map(|i| format!("({day}, {i}, {w})")).collect();
                    conn.query_drop(format!("INSERT INTO ev VALUES {}", values.join(",")))
                        .expect("an insert into a kept partition fails");
                    written.extend(rows.into_iter().map(|i| (day, i)));
                }
                written
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    c.query_drop("ALTER TABLE d.ev DROP PARTITION d0").unwrap();
    c.query_drop("ALTER TABLE d.ev ADD PARTITION (PARTITION d5 VALUES LESS THAN (6))")
        .unwrap();
    c.query_drop("ALTER TABLE d.ev DROP PARTITION d1").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    stop.store(true, Ordering::SeqCst);
    let mut expected: Vec<(i64, i64)> = Vec::new();
    for w in writers {
        expected.extend(
            w.join()
                .unwrap()
                .into_iter()
                .map(|(d, i)| (d as i64, i as i64)),
        );
    }
    expected.sort();
    assert!(
        expected.len() >= 60,
        "the writers wrote too little: {}",
        expected.len()
    );
    let check = |c: &mut mysql::Conn| {
        let got: Vec<(i64, i64)> = c
            .query("SELECT day, id FROM d.ev ORDER BY day, id")
            .unwrap();
        assert_eq!(got, expected);
        let parts: Vec<String> = c
            .query(
                "SELECT partition_name FROM information_schema.partitions \
                 WHERE table_schema = 'd' AND table_name = 'ev' ORDER BY partition_ordinal_position",
            )
            .unwrap();
        assert_eq!(parts, ["d2", "d3", "d4", "d5"]);
        let old: Option<i64> = c
            .query_first("SELECT COUNT(*) FROM d.ev WHERE day < 2")
            .unwrap();
        assert_eq!(old, Some(0));
    };
    check(&mut c);
    drop(c);
    server.stop();
    let server = BetulaServer::start(dir.path());
    check(&mut server.conn(None));
}

#[test]
fn retention_adds_and_drops_partitions_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE d").unwrap();
    // Two partitions of long ago: both expired; none ahead of the clock yet.
    c.query_drop(
        "CREATE TABLE d.ev (ts DATETIME NOT NULL, id INT NOT NULL, PRIMARY KEY (ts, id)) \
         RETENTION = 2 DAY PARTITION BY RANGE (TO_SECONDS(ts)) \
         (PARTITION old0 VALUES LESS THAN (TO_SECONDS('2020-01-01')), \
          PARTITION old1 VALUES LESS THAN (TO_SECONDS('2020-01-02')))",
    )
    .unwrap();
    c.query_drop("INSERT INTO d.ev VALUES ('2019-12-31 10:00:00', 1), ('2020-01-01 10:00:00', 2)")
        .unwrap();
    c.query_drop("SET GLOBAL betula_retention_interval = 1")
        .unwrap();
    let mut names: Vec<String> = Vec::new();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        names = c
            .query(
                "SELECT partition_name FROM information_schema.partitions \
                 WHERE table_schema = 'd' AND table_name = 'ev' ORDER BY partition_ordinal_position",
            )
            .unwrap();
        if !names.iter().any(|n| n.starts_with("old")) && names.len() >= 3 {
            break;
        }
    }
    assert!(
        !names.iter().any(|n| n.starts_with("old")),
        "expired partitions kept: {names:?}"
    );
    assert!(names.len() >= 3, "no partitions ahead: {names:?}");
    // Rows of today go in; the expired ones are gone.
    c.query_drop("INSERT INTO d.ev VALUES (NOW(), 3)").unwrap();
    let ids: Vec<i64> = c.query("SELECT id FROM d.ev ORDER BY id").unwrap();
    assert_eq!(ids, [3]);
    let status: Vec<(String, String)> = c.query("SHOW STATUS LIKE 'Betula_retention%'").unwrap();
    let get = |n: &str| {
        status
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.parse::<u64>().unwrap())
            .unwrap()
    };
    assert!(get("Betula_retention_partitions_dropped") >= 2);
    assert!(get("Betula_retention_partitions_added") >= 3);
    assert_eq!(get("Betula_retention_errors"), 0);
    drop(c);
    let status = server.stop();
    assert!(status.success());
}
