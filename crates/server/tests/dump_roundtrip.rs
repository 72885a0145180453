//! `mariadb-dump` against the real server, loaded back with the `mariadb` client: the dump's own
//! preamble (SQL_NOTES, TIME_ZONE, UNIQUE_CHECKS, SQL_MODE, executable comments, LOCK TABLES) is
//! accepted, the dump tool reports no error (it reads information_schema.FILES), and every table
//! has the same CHECKSUM TABLE and rows after the load as before (a table with clustering keys
//! keeps them: its SHOW CREATE TABLE is the same). Both the plain form and
//! `--single-transaction` are driven, the latter also against a server that clients keep writing to
//! (the load must hold exactly the dump's snapshot). Needs Debian's mariadb-client (mariadb, mariadb-dump).

mod betula;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use betula::BetulaServer;
use mysql::prelude::*;

fn program(name: &str) -> String {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(found, "{name} is needed: apt-get install -y mariadb-client");
    name.to_string()
}

fn ok(o: Output, what: &str) -> Vec<u8> {
    assert!(
        o.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// The dump's bytes: a BLOB's value is written as raw bytes, so the file is not UTF-8.
fn dump(port: u16, extra: &[&str]) -> Vec<u8> {
    let o = Command::new(program("mariadb-dump"))
        .args(["--no-defaults", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{port}"))
        .args(extra)
        .args(["--databases", "d"])
        .output()
        .expect("run mariadb-dump");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        stderr.trim().is_empty(),
        "mariadb-dump complained: {stderr}"
    );
    ok(o, "mariadb-dump")
}

fn load(port: u16, sql: &[u8]) {
    let mut child = Command::new(program("mariadb"))
        .args(["--no-defaults", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{port}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mariadb");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(sql)
        .expect("write the dump");
    ok(child.wait_with_output().expect("wait"), "loading the dump");
}

const TABLES: &[&str] = &["readings", "events", "empty_one", "clustered"];

fn fill(server: &BetulaServer) {
    let mut c = server.conn(None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.readings (sensor_id INT NOT NULL, ts DATETIME(3) NOT NULL, \
         v DOUBLE, note VARCHAR(40), PRIMARY KEY (sensor_id, ts), KEY by_ts (ts))",
        "CREATE TABLE d.events (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         kind ENUM('a','b','c') NOT NULL, amount DECIMAL(12,3), body TEXT, raw BLOB, \
         day DATE, UNIQUE KEY kind_day (kind, day)) COMPRESSION='zstd'",
        "CREATE TABLE d.empty_one (a INT, b CHAR(3))",
        // TokuDB's clustering keys, Percona's form and MariaDB's.
        "CREATE TABLE d.clustered (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(20),          CLUSTERING KEY ka (a), KEY kb (b) CLUSTERING=YES, UNIQUE CLUSTERING KEY uab (a, b))",
    ] {
        c.query_drop(sql).unwrap();
    }
    let mut values = Vec::new();
    for i in 0..500 {
        values.push(format!(
            "({}, '2024-01-01 00:00:00' + INTERVAL {} SECOND, {}, {})",
            i % 7,
            i,
            if i % 11 == 0 {
                "NULL".to_string()
            } else {
                format!("{}.25", i)
            },
            if i % 3 == 0 {
                "'it''s \\\\ \"quoted\"\\n'".to_string()
            } else {
                "NULL".to_string()
            }
        ));
    }
    c.query_drop(format!(
        "INSERT INTO d.readings VALUES {}",
        values.join(",")
    ))
    .unwrap();
    c.query_drop(
        "INSERT INTO d.clustered SELECT sensor_id * 1000 + MINUTE(ts) * 60 + SECOND(ts), \
         sensor_id, IF(note IS NULL, NULL, CONCAT('n', MINUTE(ts) * 60 + SECOND(ts))) \
         FROM d.readings",
    )
    .unwrap();
    // Views: one over a table (aggregate, column list), one over it and a join, which the dump
    // writes as stand-ins first and as their definitions after every table.
    for sql in [
        "CREATE VIEW d.per_sensor (sensor, n, total) AS SELECT sensor_id, COUNT(*), SUM(v) \
         FROM readings GROUP BY sensor_id",
        "CREATE SQL SECURITY INVOKER VIEW d.busy AS SELECT p.sensor, p.n, c.b FROM per_sensor p \
         JOIN clustered c ON c.id = p.sensor * 1000 WHERE p.n > 70",
    ] {
        c.query_drop(sql).unwrap();
    }
    c.query_drop(
        "INSERT INTO d.events (kind, amount, body, raw, day) VALUES \
         ('a', 1.5, 'x', X'00FF10', '2024-02-29'), ('b', -99.125, NULL, NULL, NULL), \
         ('c', NULL, REPEAT('long ', 100), X'', '1999-12-31')",
    )
    .unwrap();
}

fn checksums(server: &BetulaServer) -> Vec<(String, Option<u64>)> {
    let mut c = server.conn(Some("d"));
    TABLES
        .iter()
        .map(|t| {
            let row: (String, Option<u64>) = c
                .query_first(format!("CHECKSUM TABLE {t}"))
                .unwrap()
                .unwrap();
            row
        })
        .collect()
}

fn show_create(server: &BetulaServer, table: &str) -> String {
    let mut c = server.conn(Some("d"));
    let row: (String, String) = c
        .query_first(format!("SHOW CREATE TABLE {table}"))
        .unwrap()
        .unwrap();
    row.1
}

/// The views' definitions and rows.
fn views(server: &BetulaServer) -> Vec<String> {
    let mut c = server.conn(Some("d"));
    let mut out = Vec::new();
    for v in VIEWS {
        let row: (String, String, String, String) = c
            .query_first(format!("SHOW CREATE VIEW {v}"))
            .unwrap()
            .unwrap();
        out.push(row.1);
        let rows: Vec<(i64, i64, Option<String>)> = c
            .query(format!("SELECT * FROM {v} ORDER BY 1"))
            .unwrap_or_else(|_| {
                let r: Vec<(i64, i64, Option<f64>)> =
                    c.query(format!("SELECT * FROM {v} ORDER BY 1")).unwrap();
                r.into_iter()
                    .map(|(a, b, x)| (a, b, x.map(|x| x.to_string())))
                    .collect()
            });
        out.push(format!("{rows:?}"));
    }
    out
}

const VIEWS: &[&str] = &["per_sensor", "busy"];

fn next_auto_increment(server: &BetulaServer) -> u64 {
    let mut c = server.conn(Some("d"));
    c.query_drop("INSERT INTO events (kind, day) VALUES ('a', '2030-01-01')")
        .unwrap();
    c.query_first("SELECT LAST_INSERT_ID()").unwrap().unwrap()
}

fn round_trip(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    fill(&server);
    let before = checksums(&server);
    assert!(before[0].1.is_some_and(|c| c != 0), "{before:?}");
    let views_before = views(&server);
    assert!(
        views_before[3].contains("(0, 72, Some(\"n0\"))"),
        "{views_before:?}"
    );
    let clustered = show_create(&server, "clustered");
    assert!(
        clustered.contains("KEY `ka` (`a`) `clustering`=yes"),
        "{clustered}"
    );
    let bytes = dump(server.port, extra);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("SQL_NOTES"), "the dump sets SQL_NOTES");
    assert!(text.contains("CREATE TABLE `readings`"), "{text}");
    assert!(text.contains("VIEW `busy` AS"), "{text}");
    assert!(
        text.contains("UNIQUE KEY `uab` (`a`,`b`) `clustering`=yes"),
        "{text}"
    );

    // Into the same server after dropping the database, and into a fresh one.
    server.conn(None).query_drop("DROP DATABASE d").unwrap();
    load(server.port, &bytes);
    assert_eq!(checksums(&server), before);
    assert_eq!(views(&server), views_before);
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = BetulaServer::start(fresh_dir.path());
    load(fresh.port, &bytes);
    assert_eq!(checksums(&fresh), before);
    assert_eq!(views(&fresh), views_before);
    assert_eq!(show_create(&fresh, "clustered"), clustered);
    assert_eq!(show_create(&server, "clustered"), clustered);
    // AUTO_INCREMENT continues after the loaded rows in both.
    assert_eq!(next_auto_increment(&server), 4);
    assert_eq!(next_auto_increment(&fresh), 4);
    let mut c = fresh.conn(Some("d"));
    let n: u64 = c
        .query_first("SELECT COUNT(*) FROM readings WHERE note LIKE 'it''s%'")
        .unwrap()
        .unwrap();
    assert_eq!(n, 167);
}

#[test]
fn a_mariadb_dump_of_a_database_loads_back_with_the_same_checksums() {
    round_trip(&[]);
}

#[test]
fn a_single_transaction_dump_loads_back_with_the_same_checksums() {
    round_trip(&["--single-transaction"]);
}

#[test]
fn sql_notes_off_keeps_notes_out_of_show_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    // DROP TABLE IF EXISTS of a missing table gives a note (1051) unless sql_notes is off.
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("DROP TABLE IF EXISTS d.missing").unwrap();
    let n: u64 = c.query_first("SELECT @@warning_count").unwrap().unwrap();
    assert_eq!(n, 1);
    c.query_drop("SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0")
        .unwrap();
    c.query_drop("DROP TABLE IF EXISTS d.missing").unwrap();
    let n: u64 = c.query_first("SELECT @@warning_count").unwrap().unwrap();
    assert_eq!(n, 0);
    c.query_drop("SET SQL_NOTES=@OLD_SQL_NOTES").unwrap();
    let on: i64 = c.query_first("SELECT @@sql_notes").unwrap().unwrap();
    assert_eq!(on, 1);
}

/// Rows appended by the insert clients of the busy test, and transfers with their ledger rows.
const BUSY_ACCOUNTS: i64 = 10;

/// Client `w` appends rows (w, 0), (w, 1), ... in 20-row statements until stopped.
fn append_rows(
    mut c: mysql::Conn,
    w: i64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> impl FnOnce() {
    move || {
        let mut next = 0i64;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let rows: Vec<String> = (next..next + 20)
                .map(|i| format!("({w}, {i}, 'row {i}', {}.25)", i % 101))
                .collect();
            c.query_drop(format!("INSERT INTO log VALUES {}", rows.join(",")))
                .unwrap();
            next += 20;
        }
    }
}

/// Transfers n = 1, 2, ...: each moves n % 7 + 1 from one account to another and records itself in the
/// ledger, in one transaction.
fn transfers(
    mut c: mysql::Conn,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> impl FnOnce() {
    move || {
        let mut n = 0i64;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            n += 1;
            let (from, to, amount) = (n % BUSY_ACCOUNTS, (n * 3 + 1) % BUSY_ACCOUNTS, n % 7 + 1);
            let mut t = c.start_transaction(Default::default()).unwrap();
            t.query_drop(format!(
                "UPDATE bank SET balance = balance - {amount} WHERE id = {from}"
            ))
            .unwrap();
            t.query_drop(format!(
                "UPDATE bank SET balance = balance + {amount} WHERE id = {to}"
            ))
            .unwrap();
            t.query_drop(format!(
                "INSERT INTO ledger VALUES ({n}, {from}, {to}, {amount})"
            ))
            .unwrap();
            t.commit().unwrap();
        }
    }
}

fn busy_checksums(server: &BetulaServer) -> Vec<(String, Option<u64>)> {
    let mut c = server.conn(Some("b"));
    c.query("CHECKSUM TABLE log, bank, ledger").unwrap()
}

/// `mariadb-dump --single-transaction` of a server that clients keep writing to: loaded into a fresh
/// server, every table has the CHECKSUM TABLE the source had at the dump's snapshot. The snapshot is
/// recovered on the source afterwards from what the load holds: each insert client's rows are a prefix
/// (later ones are deleted), the ledger is a prefix of the transfers (later transfers are undone, in
/// reverse), and the bank's balances must then agree with it.
#[test]
fn a_single_transaction_dump_of_a_busy_server_restores_its_snapshot() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    for sql in [
        "CREATE DATABASE b",
        "CREATE TABLE b.log (client INT NOT NULL, seq INT NOT NULL, note VARCHAR(20), v DOUBLE, \
         PRIMARY KEY (client, seq), KEY by_v (v))",
        "CREATE TABLE b.bank (id INT PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE b.ledger (n BIGINT PRIMARY KEY, src INT, dst INT, amount INT)",
    ] {
        c.query_drop(sql).unwrap();
    }
    let accounts: Vec<String> = (0..BUSY_ACCOUNTS).map(|i| format!("({i}, 1000)")).collect();
    c.query_drop(format!("INSERT INTO b.bank VALUES {}", accounts.join(",")))
        .unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let mut threads: Vec<_> = (0..2)
        .map(|w| std::thread::spawn(append_rows(server.conn(Some("b")), w, stop.clone())))
        .collect();
    threads.push(std::thread::spawn(transfers(
        server.conn(Some("b")),
        stop.clone(),
    )));
    std::thread::sleep(std::time::Duration::from_millis(800));
    let o = Command::new(program("mariadb-dump"))
        .args([
            "--no-defaults",
            "-h127.0.0.1",
            "-uroot",
            "--single-transaction",
        ])
        .arg(format!("-P{}", server.port))
        .args(["--databases", "b"])
        .output()
        .expect("run mariadb-dump");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = ok(o, "mariadb-dump");
    std::thread::sleep(std::time::Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }

    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = BetulaServer::start(fresh_dir.path());
    load(fresh.port, &bytes);
    let mut f = fresh.conn(Some("b"));
    let mut s = server.conn(Some("b"));
    // Insert clients: a prefix each; the source's later rows go.
    let mut after_dump = 0;
    for w in 0..2 {
        let (n, next): (u64, Option<i64>) = f
            .query_first(format!(
                "SELECT COUNT(*), MAX(seq) + 1 FROM log WHERE client = {w}"
            ))
            .unwrap()
            .unwrap();
        assert_eq!(n as i64, next.unwrap_or(0), "client {w}: not a prefix");
        s.query_drop(format!("DELETE FROM log WHERE client = {w} AND seq >= {n}"))
            .unwrap();
        after_dump += s.affected_rows();
    }
    // Transfers: the ledger is a prefix; later transfers are undone on the source.
    let (k, last): (u64, Option<i64>) = f
        .query_first("SELECT COUNT(*), MAX(n) FROM ledger")
        .unwrap()
        .unwrap();
    assert_eq!(k as i64, last.unwrap_or(0), "the ledger is not a prefix");
    let later: Vec<(i64, i64, i64, i64)> = s
        .query(format!(
            "SELECT n, src, dst, amount FROM ledger WHERE n > {k} ORDER BY n DESC"
        ))
        .unwrap();
    after_dump += later.len() as u64;
    assert!(after_dump > 0, "nothing was written while the dump ran");
    for (n, from, to, amount) in later {
        s.query_drop(format!(
            "UPDATE bank SET balance = balance + {amount} WHERE id = {from}"
        ))
        .unwrap();
        s.query_drop(format!(
            "UPDATE bank SET balance = balance - {amount} WHERE id = {to}"
        ))
        .unwrap();
        s.query_drop(format!("DELETE FROM ledger WHERE n = {n}"))
            .unwrap();
    }
    let total: i64 = f
        .query_first("SELECT SUM(balance) FROM bank")
        .unwrap()
        .unwrap();
    assert_eq!(total, BUSY_ACCOUNTS * 1000);
    assert!(k > 0, "no transfer before the dump");
    assert_eq!(busy_checksums(&fresh), busy_checksums(&server));
}

/// SHOW CREATE of the dumped routines, and what they compute.
fn routines(server: &BetulaServer) -> Vec<String> {
    let mut c = server.conn(Some("d"));
    let mut out = Vec::new();
    for what in ["FUNCTION twice", "PROCEDURE counted"] {
        let row: (String, String, String, String, String, String) = c
            .query_first(format!("SHOW CREATE {what}"))
            .unwrap()
            .unwrap();
        out.push(row.2);
    }
    c.query_drop("CALL counted(@n)").unwrap();
    let n: (i64, i64) = c.query_first("SELECT @n, twice(21)").unwrap().unwrap();
    out.push(format!("{n:?}"));
    out
}

#[test]
fn a_dump_with_routines_loads_back_with_the_same_routines() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1), (2), (3)",
        "CREATE FUNCTION d.twice(a INT) RETURNS INT DETERMINISTIC RETURN a * 2",
        "CREATE PROCEDURE d.counted(OUT n INT) COMMENT 'how many'\nBEGIN\n  DECLARE k INT DEFAULT 0;\n  SELECT COUNT(*) INTO k FROM t;\n  SET n = k;\nEND",
    ] {
        c.query_drop(sql).unwrap();
    }
    let before = routines(&server);
    assert_eq!(before[2], "(3, 42)");
    let bytes = dump(server.port, &["--routines"]);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("FUNCTION `twice`"), "{text}");
    server.conn(None).query_drop("DROP DATABASE d").unwrap();
    load(server.port, &bytes);
    assert_eq!(routines(&server), before);
}
