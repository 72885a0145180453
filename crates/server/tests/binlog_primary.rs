//! Betula as the primary of a real MariaDB replica (Debian's mariadbd, `CHANGE MASTER TO ...
//! MASTER_USE_GTID=slave_pos`): inserts, updates, deletes, upserts, REPLACE, a multi-statement
//! transaction, a rollback, CREATE / ALTER / DROP TABLE and VIEW over the common column types reach the
//! replica, whose rows and CHECKSUM TABLE then equal the primary's; `mariadb-binlog` decodes every
//! file Betula wrote (exit 0, the rows in its output); and a primary SIGKILLed while a writer
//! streams rows restarts with its binary log and its data agreeing (each committed row logged
//! once, nothing logged that is not in the data) while the replica carries on (design.md
//! BLG1-BLG6). Skipped with a message when mariadbd is not installed.

mod betula;
mod mariadb_peer;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use betula::{one, root_conn as conn, rows, BetulaServer};
use mariadb_peer::MariaDb;
use mysql::prelude::Queryable;
use mysql::Conn;

const PRIMARY_FLAGS: &[&str] = &["--log-bin", "ON", "--server-id", "1"];

/// SHOW SLAVE STATUS's `name` column.
fn slave_field(c: &mut Conn, name: &str) -> String {
    let rs: Vec<mysql::Row> = c.query("SHOW SLAVE STATUS").unwrap();
    let Some(r) = rs.into_iter().next() else {
        return String::new();
    };
    let i = r.columns_ref().iter().position(|c| c.name_str() == name);
    i.and_then(|i| r.as_ref(i).map(betula::render))
        .unwrap_or_default()
}

/// Waits until the replica applied everything the primary logged.
fn wait_caught_up(primary: &mut Conn, replica: &mut Conn) {
    let target = one(primary, "SELECT @@GLOBAL.gtid_binlog_pos");
    assert!(!target.is_empty(), "the primary logged nothing");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if one(replica, "SELECT @@GLOBAL.gtid_slave_pos") == target {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "replica at {:?}, primary at {target:?}; SQL error {:?}, I/O error {:?}",
            one(replica, "SELECT @@GLOBAL.gtid_slave_pos"),
            slave_field(replica, "Last_SQL_Error"),
            slave_field(replica, "Last_IO_Error"),
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn same_rows(primary: &mut Conn, replica: &mut Conn, sql: &str) {
    assert_eq!(rows(replica, sql), rows(primary, sql), "{sql}");
}

fn start_replica(replica: &mut Conn, primary_port: u16) {
    replica
        .query_drop(format!(
            "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={primary_port}, \
             MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, \
             MASTER_CONNECT_RETRY=1"
        ))
        .unwrap();
    replica.query_drop("START SLAVE").unwrap();
}

/// `mariadb-binlog --verbose` of every file `SHOW BINARY LOGS` lists: its output (exit 0).
fn decode(c: &mut Conn, datadir: &Path) -> String {
    let files: Vec<String> = rows(c, "SHOW BINARY LOGS")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(!files.is_empty());
    let o = Command::new("mariadb-binlog")
        .args(["--no-defaults", "--base64-output=decode-rows", "--verbose"])
        .args(files.iter().map(|f| datadir.join(f)))
        .output()
        .expect("run mariadb-binlog");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success() && !String::from_utf8_lossy(&o.stderr).contains("ERROR"),
        "mariadb-binlog failed: {}\n{out}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The first column of every row `mariadb-binlog --verbose` shows inserted into `table`.
fn logged_inserts(decoded: &str, table: &str) -> Vec<i64> {
    let head = format!("### INSERT INTO {table}");
    let mut ids = Vec::new();
    let mut lines = decoded.lines();
    while let Some(l) = lines.next() {
        if l == head {
            let id = lines
                .find_map(|l| l.strip_prefix("###   @1="))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .expect("@1 of an inserted row");
            ids.push(id);
        }
    }
    ids
}

const TABLE: &str = "CREATE TABLE app.t (id INT PRIMARY KEY, name VARCHAR(20), \
    amount DECIMAL(10,2), ts TIMESTAMP(3) NULL, d DATE, dt DATETIME(6), tm TIME, \
    big BIGINT UNSIGNED, small TINYINT, f DOUBLE, fl FLOAT, b VARBINARY(10), \
    e ENUM('x','y','z'), st SET('a','b','c'), bits BIT(5), note TEXT, bl BLOB, yr YEAR, \
    ch CHAR(3))";

fn workload(p: &mut Conn) {
    for sql in [
        "CREATE DATABASE app",
        TABLE,
        "CREATE TABLE app.nokey_free (k INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO app.t VALUES \
         (1, 'héllo', 12.50, '2026-11-28 10:00:00.123', '2026-11-28', '2026-11-28 10:00:00.000001', \
          '-12:30:00', 18446744073709551615, -128, 0.1, 1.5, X'00FF', 'y', 'a,c', b'10101', 'long text', \
          X'DEADBEEF', 2026, 'abc'), \
         (2, NULL, -0.01, NULL, NULL, NULL, NULL, 0, 0, -1.5e300, NULL, NULL, NULL, '', b'0', NULL, \
          NULL, NULL, NULL), \
         (3, 'x', 1, '1970-01-01 00:00:01', '1000-01-01', '9999-12-31 23:59:59', '838:59:59', 1, 127, 3, \
          -2.25, '', 'z', 'b', b'11111', '', '', 1901, '')",
        "UPDATE app.t SET amount = amount * 2, name = 'übung' WHERE id <= 2",
        "INSERT INTO app.t (id, name) VALUES (3, 'dup') ON DUPLICATE KEY UPDATE name = 'upserted'",
        "INSERT INTO app.t (id, name) VALUES (4, 'new') ON DUPLICATE KEY UPDATE name = 'never'",
        "REPLACE INTO app.t (id, name) VALUES (2, 'replaced')",
        "INSERT INTO app.nokey_free VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
        "DELETE FROM app.nokey_free WHERE k BETWEEN 2 AND 3",
        "BEGIN",
        "INSERT INTO app.t (id, name) VALUES (10, 'in txn')",
        "UPDATE app.t SET name = 'in txn 2' WHERE id = 10",
        "DELETE FROM app.t WHERE id = 1",
        "INSERT INTO app.nokey_free VALUES (9, 'txn')",
        "COMMIT",
        "BEGIN",
        "INSERT INTO app.t (id, name) VALUES (11, 'rolled back')",
        "ROLLBACK",
        "ALTER TABLE app.t ADD COLUMN extra INT DEFAULT 7",
        "INSERT INTO app.t (id, name, extra) VALUES (12, 'after alter', 8)",
        "CREATE TABLE app.gone (a INT PRIMARY KEY)",
        "INSERT INTO app.gone VALUES (1)",
        "DROP TABLE app.gone",
        "CREATE VIEW app.v (k, n) AS SELECT id, name FROM app.t WHERE id < 10",
        "CREATE VIEW app.vgone AS SELECT 1 AS one",
        "ALTER VIEW app.vgone AS SELECT 2 AS two",
        "DROP VIEW app.vgone",
    ] {
        p.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// A private MariaDB (server id 2) replicating from a fresh Betula primary that logs: (the
/// replica's server, the primary's data directory, the primary, a connection to each); None,
/// with a message, when mariadbd is not installed.
fn primary_with_replica() -> Option<(MariaDb, tempfile::TempDir, BetulaServer, Conn, Conn)> {
    let Some(m) = MariaDb::start_with("server-id=2\n") else {
        eprintln!("skipped: mariadbd is not installed (apt-get install mariadb-server)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start_with(dir.path(), PRIMARY_FLAGS).unwrap();
    let p = server.conn(None);
    let mut r = conn(m.port);
    start_replica(&mut r, server.port);
    Some((m, dir, server, p, r))
}

#[test]
fn a_mariadb_replica_follows_betula_and_mariadb_binlog_reads_its_files() {
    let Some((_m, dir, _server, mut p, mut r)) = primary_with_replica() else {
        return;
    };
    assert_eq!(one(&mut p, "SELECT @@GLOBAL.log_bin"), "1");
    assert_eq!(one(&mut p, "SELECT @@sql_log_bin"), "1");
    workload(&mut p);
    // sql_log_bin = 0 keeps a session's changes out of the log.
    p.query_drop("SET sql_log_bin = 0").unwrap();
    p.query_drop("INSERT INTO app.nokey_free VALUES (100, 'unlogged')")
        .unwrap();
    p.query_drop("SET sql_log_bin = 1").unwrap();
    p.query_drop("FLUSH BINARY LOGS").unwrap();
    p.query_drop("INSERT INTO app.t (id, name) VALUES (13, 'second file')")
        .unwrap();
    wait_caught_up(&mut p, &mut r);
    assert_eq!(slave_field(&mut r, "Slave_SQL_Running"), "Yes");
    same_rows(&mut p, &mut r, "SELECT * FROM app.t ORDER BY id");
    assert_eq!(
        rows(&mut r, "SELECT * FROM app.nokey_free ORDER BY k"),
        vec![
            vec!["1".to_string(), "a".to_string()],
            vec!["4".to_string(), "d".to_string()],
            vec!["9".to_string(), "txn".to_string()],
        ]
    );
    assert_eq!(
        one(
            &mut r,
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'gone'"
        ),
        "0"
    );
    // Views reach the replica as their definitions (CREATE OR REPLACE ... VIEW), DROP VIEW as written.
    same_rows(&mut p, &mut r, "SELECT * FROM app.v ORDER BY k");
    assert_eq!(
        one(
            &mut r,
            "SELECT COUNT(*) FROM information_schema.views WHERE table_schema = 'app'"
        ),
        "1"
    );
    let cks = "CHECKSUM TABLE app.t";
    assert_eq!(rows(&mut r, cks)[0][1], rows(&mut p, cks)[0][1], "{cks}");

    // SHOW MASTER STATUS names the current (second) file; SHOW BINLOG EVENTS reads it.
    let st = rows(&mut p, "SHOW MASTER STATUS");
    assert!(st[0][0].ends_with(".000002"), "{st:?}");
    let ev = rows(&mut p, &format!("SHOW BINLOG EVENTS IN '{}'", st[0][0]));
    let types: BTreeSet<String> = ev.iter().map(|e| e[2].clone()).collect();
    for t in [
        "Format_desc",
        "Gtid_list",
        "Gtid",
        "Table_map",
        "Write_rows_v1",
        "Xid",
    ] {
        assert!(types.contains(t), "{t} missing from {types:?}");
    }

    let out = decode(&mut p, dir.path());
    for needle in [
        "Start: binlog v 4, server v 10.",
        "Gtid list",
        "Binlog checkpoint",
        "GTID 0-1-",
        "Table_map: `app`.`t`",
        "Write_rows",
        "Update_rows",
        "Delete_rows",
        "Xid = ",
        "Rotate to",
        "CREATE TABLE",
        "ALTER TABLE app.t ADD COLUMN extra",
        "DROP TABLE IF EXISTS `app`.`gone`",
        "CREATE OR REPLACE ALGORITHM=UNDEFINED DEFINER=`root`@`127.0.0.1` SQL SECURITY DEFINER VIEW `v` AS select `app`.`t`.`id` AS `k`",
        "DROP VIEW app.vgone",
        "### INSERT INTO `app`.`t`",
        "### UPDATE `app`.`t`",
        "### DELETE FROM `app`.`nokey_free`",
        "'after alter'",
        "'upserted'",
    ] {
        assert!(
            out.contains(needle),
            "mariadb-binlog output lacks {needle:?}:\n{out}"
        );
    }
    assert!(!out.contains("unlogged"), "sql_log_bin = 0 was logged");
    r.query_drop("STOP SLAVE").unwrap();
}

#[test]
fn a_killed_primary_recovers_a_binlog_that_agrees_with_its_data() {
    let Some(m) = MariaDb::start_with("server-id=3\n") else {
        eprintln!("skipped: mariadbd is not installed (apt-get install mariadb-server)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start_with(dir.path(), PRIMARY_FLAGS).unwrap();
    let mut p = server.conn(None);
    p.query_drop("CREATE DATABASE app").unwrap();
    p.query_drop("CREATE TABLE app.stream (id INT PRIMARY KEY, v INT)")
        .unwrap();
    let mut r = conn(m.port);
    start_replica(&mut r, server.port);
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let (port, acked) = (server.port, acked.clone());
            std::thread::spawn(move || {
                let mut c = conn(port);
                for i in 0..100_000i64 {
                    let id = i * 2 + w;
                    let sql = if i % 10 == 9 {
                        format!("UPDATE app.stream SET v = v + 1 WHERE id = {}", id - 2)
                    } else {
                        format!("INSERT INTO app.stream VALUES ({id}, {id})")
                    };
                    if c.query_drop(&sql).is_err() {
                        return; // the server was killed
                    }
                    if i % 10 != 9 {
                        acked.lock().unwrap().push(id);
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(2500));
    drop(p);
    drop(server); // SIGKILL
    for w in writers {
        w.join().unwrap();
    }
    let server = BetulaServer::start_with(dir.path(), PRIMARY_FLAGS).unwrap();
    let mut p = server.conn(None);
    let data: BTreeSet<i64> = rows(&mut p, "SELECT id FROM app.stream")
        .into_iter()
        .map(|r| r[0].parse().unwrap())
        .collect();
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() > 20, "the writers got going: {}", acked.len());
    let lost: Vec<&i64> = acked.iter().filter(|id| !data.contains(id)).collect();
    assert!(lost.is_empty(), "committed rows lost: {lost:?}");
    let logged = logged_inserts(&decode(&mut p, dir.path()), "`app`.`stream`");
    let logged_set: BTreeSet<i64> = logged.iter().copied().collect();
    assert_eq!(logged.len(), logged_set.len(), "a row logged twice");
    assert_eq!(logged_set, data, "the binary log and the data disagree");
    // The restarted primary listens on another port: pointed at it, the replica goes on from
    // its GTID position and ends with the same rows; the log goes on.
    r.query_drop("STOP SLAVE").unwrap();
    start_replica(&mut r, server.port);
    p.query_drop("INSERT INTO app.stream VALUES (-1, -1)")
        .unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.stream ORDER BY id");
    r.query_drop("STOP SLAVE").unwrap();
}

/// The value of a `SHOW STATUS` counter.
fn status(c: &mut Conn, name: &str) -> u64 {
    let r = rows(c, &format!("SHOW STATUS LIKE '{name}'"));
    r[0][1].parse().unwrap()
}

#[test]
fn a_mariadb_replica_follows_what_retention_removes() {
    let Some((_m, _dir, _server, mut p, mut r)) = primary_with_replica() else {
        return;
    };
    let old_bound = one(&mut p, "SELECT TO_DAYS(NOW() - INTERVAL 3 DAY)");
    let events = format!(
        "CREATE TABLE app.events (ts DATETIME NOT NULL, id INT NOT NULL, \
         PRIMARY KEY (ts, id)) RETENTION = 1 DAY PARTITION BY RANGE (TO_DAYS(ts)) \
         (PARTITION pold VALUES LESS THAN ({old_bound}), PARTITION pnow VALUES LESS THAN MAXVALUE)"
    );
    for sql in [
        "CREATE DATABASE app",
        // Expired by range deletes (design.md RET4-RET5).
        "CREATE TABLE app.readings (ts DATETIME NOT NULL, id INT NOT NULL, v INT, \
         PRIMARY KEY (ts, id), KEY k (ts, v)) RETENTION = 1 DAY",
        // Expired by dropping partitions; new ones are added ahead (RET1-RET3).
        &events,
        "INSERT INTO app.readings VALUES (NOW() - INTERVAL 5 DAY, 1, 10), \
         (NOW() - INTERVAL 2 DAY, 2, 20), (NOW(), 3, 30), (NOW() + INTERVAL 1 HOUR, 4, 40)",
        "INSERT INTO app.events VALUES (NOW() - INTERVAL 5 DAY, 1), (NOW(), 2)",
    ] {
        p.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // RETENTION alone is not logged; mixed with other changes it is refused while logging.
    p.query_drop("ALTER TABLE app.readings RETENTION = 1 DAY")
        .unwrap();
    let mixed = p.query_drop("ALTER TABLE app.readings ADD COLUMN w INT, RETENTION = 2 DAY");
    assert!(format!("{mixed:?}").contains("1235"), "{mixed:?}");
    wait_caught_up(&mut p, &mut r);
    let created = rows(&mut r, "SHOW CREATE TABLE app.readings")[0][1].clone();
    assert!(!created.contains("RETENTION"), "{created}");

    p.query_drop("SET GLOBAL betula_retention_interval = 1")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while status(&mut p, "Betula_retention_expiries") == 0
        || status(&mut p, "Betula_retention_partitions_dropped") == 0
    {
        assert!(Instant::now() < deadline, "no retention round ran");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(status(&mut p, "Betula_retention_errors"), 0);
    assert_eq!(
        one(
            &mut p,
            "SELECT GROUP_CONCAT(id ORDER BY id) FROM app.readings"
        ),
        "3,4"
    );
    assert_eq!(one(&mut p, "SELECT GROUP_CONCAT(id) FROM app.events"), "2");
    wait_caught_up(&mut p, &mut r);
    assert_eq!(slave_field(&mut r, "Slave_SQL_Running"), "Yes");
    same_rows(&mut p, &mut r, "SELECT * FROM app.readings ORDER BY ts, id");
    same_rows(&mut p, &mut r, "SELECT * FROM app.events ORDER BY ts, id");
    let parts = "SELECT PARTITION_NAME FROM information_schema.PARTITIONS \
                 WHERE TABLE_SCHEMA = 'app' AND TABLE_NAME = 'events' ORDER BY PARTITION_ORDINAL_POSITION";
    same_rows(&mut p, &mut r, parts);
    r.query_drop("STOP SLAVE").unwrap();
}
