//! Betula as the replica of a real MariaDB primary (Debian's mariadbd with `log-bin`,
//! `binlog-format=ROW`): CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos, START SLAVE, then the
//! primary's inserts, updates, deletes, upserts, REPLACE, multi-statement transactions, rollbacks and
//! DDL over every common column type; the replica's rows must equal the primary's. Then the replica
//! is killed (SIGKILL) while the primary keeps writing, restarted, and must resume from its recorded
//! GTID with no gap and no duplicate; and a replica that finds a row missing stops with 1032
//! (design.md RPA1-RPA5). Skipped with a message when mariadbd is not installed.

mod betula;
mod mariadb_peer;

use std::time::{Duration, Instant};

use betula::{one, root_conn, rows, BetulaServer};
use mariadb_peer::MariaDb;
use mysql::prelude::Queryable;
use mysql::Conn;

const PRIMARY: &str = "log-bin=primary-bin\nserver-id=100\nbinlog-format=ROW\n";

fn primary_conn(m: &MariaDb) -> Conn {
    root_conn(m.port)
}

/// SHOW SLAVE STATUS as (column, value) pairs.
fn slave_status(c: &mut Conn) -> Vec<(String, String)> {
    let rs: Vec<mysql::Row> = c.query("SHOW SLAVE STATUS").unwrap();
    let Some(r) = rs.into_iter().next() else {
        return Vec::new();
    };
    let names: Vec<String> = r
        .columns_ref()
        .iter()
        .map(|c| c.name_str().into())
        .collect();
    names
        .into_iter()
        .zip(r.unwrap().iter().map(betula::render))
        .collect()
}

fn field(status: &[(String, String)], name: &str) -> String {
    status
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// Waits until the replica has applied everything the primary logged (its recorded GTID position
/// equals the primary's binlog position); panics with SHOW SLAVE STATUS's errors otherwise.
fn wait_caught_up(primary: &mut Conn, replica: &mut Conn) {
    let target = one(primary, "SELECT @@GLOBAL.gtid_binlog_pos");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let st = slave_status(replica);
        if field(&st, "Gtid_IO_Pos") == target {
            return;
        }
        let sql_err = field(&st, "Last_SQL_Error");
        let io_err = field(&st, "Last_IO_Error");
        assert!(
            Instant::now() < deadline,
            "replica at {:?}, primary at {target:?}; SQL error {sql_err:?}, I/O error {io_err:?}",
            field(&st, "Gtid_IO_Pos")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn same_rows(primary: &mut Conn, replica: &mut Conn, sql: &str) {
    assert_eq!(rows(replica, sql), rows(primary, sql), "{sql}");
}

fn change_master(replica: &mut Conn, m: &MariaDb) {
    replica
        .query_drop(format!(
            "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root', \
             MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
            m.port
        ))
        .unwrap();
}

const TABLE: &str = "CREATE TABLE app.t (id INT PRIMARY KEY, name VARCHAR(20) CHARACTER SET latin1, \
    amount DECIMAL(10,2), ts TIMESTAMP(3) NULL, d DATE, dt DATETIME(6), tm TIME, big BIGINT UNSIGNED, \
    small TINYINT UNSIGNED, f DOUBLE, b VARBINARY(10), e ENUM('x','y','z'), st SET('a','b','c'), \
    bits BIT(5), note TEXT) ENGINE=InnoDB";

/// A MariaDB primary and its connection, and a Betula server (its directory, and a connection)
/// to become its replica; None (and a note) without mariadbd.
fn primary_and_replica() -> Option<(MariaDb, Conn, tempfile::TempDir, BetulaServer, Conn)> {
    let Some(m) = MariaDb::start_with(PRIMARY) else {
        eprintln!("skipped: mariadbd is not installed (apt-get install mariadb-server)");
        return None;
    };
    let p = primary_conn(&m);
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let r = server.conn(None);
    Some((m, p, dir, server, r))
}

#[test]
fn betula_follows_a_mariadb_primary_and_resumes_after_a_crash() {
    let Some((m, mut p, dir, server, mut r)) = primary_and_replica() else {
        return;
    };
    assert!(
        slave_status(&mut r).is_empty(),
        "no replica before CHANGE MASTER"
    );
    change_master(&mut r, &m);
    r.query_drop("START SLAVE").unwrap();
    // START SLAVE twice is harmless; CHANGE MASTER while running is 1198.
    r.query_drop("START SLAVE").unwrap();
    assert_eq!(
        betula::code(r.query_drop("CHANGE MASTER TO MASTER_PORT=1")),
        1198
    );

    p.query_drop("CREATE DATABASE app").unwrap();
    p.query_drop(TABLE).unwrap();
    // With its `;`, as an init file's statements reach the binlog.
    p.query_drop("CREATE TABLE app.nokey (a INT, b VARCHAR(10)) ENGINE=InnoDB;")
        .unwrap();
    p.query_drop(
        "INSERT INTO app.t VALUES \
         (1, 'héllo', 12.50, '2026-11-28 10:00:00.123', '2026-11-28', '2026-11-28 10:00:00.000001', \
          '-12:30:00', 18446744073709551615, 255, 0.1, X'00FF', 'y', 'a,c', b'10101', 'long text'), \
         (2, NULL, -0.01, NULL, NULL, NULL, NULL, 0, 0, -1.5e300, NULL, NULL, '', b'0', NULL), \
         (3, 'x', 1, '1970-01-01 00:00:01', '1000-01-01', '9999-12-31 23:59:59', '838:59:59', 1, 1, 3, \
          '', 'z', 'b', b'11111', '')",
    )
    .unwrap();
    p.query_drop("INSERT INTO app.nokey VALUES (1, 'a'), (1, 'a'), (2, NULL)")
        .unwrap();
    p.query_drop("UPDATE app.t SET amount = amount * 2, name = 'übung' WHERE id <= 2")
        .unwrap();
    p.query_drop("UPDATE app.nokey SET b = 'z' WHERE a = 2")
        .unwrap();
    p.query_drop("DELETE FROM app.nokey WHERE a = 1 LIMIT 1")
        .unwrap();
    p.query_drop(
        "INSERT INTO app.t (id, name) VALUES (3, 'dup') ON DUPLICATE KEY UPDATE name = 'upserted'",
    )
    .unwrap();
    p.query_drop("REPLACE INTO app.t (id, name) VALUES (2, 'replaced')")
        .unwrap();
    p.query_drop("BEGIN").unwrap();
    p.query_drop("INSERT INTO app.t (id, name) VALUES (10, 'in txn')")
        .unwrap();
    p.query_drop("DELETE FROM app.t WHERE id = 1").unwrap();
    p.query_drop("COMMIT").unwrap();
    p.query_drop("BEGIN").unwrap();
    p.query_drop("INSERT INTO app.t (id, name) VALUES (11, 'rolled back')")
        .unwrap();
    p.query_drop("ROLLBACK").unwrap();
    p.query_drop("ALTER TABLE app.t ADD COLUMN extra INT DEFAULT 7")
        .unwrap();
    p.query_drop("INSERT INTO app.t (id, name, extra) VALUES (12, 'after alter', 8)")
        .unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.t ORDER BY id");
    same_rows(&mut p, &mut r, "SELECT * FROM app.nokey ORDER BY a, b");
    let st = slave_status(&mut r);
    assert_eq!(field(&st, "Slave_IO_Running"), "Yes");
    assert_eq!(field(&st, "Slave_SQL_Running"), "Yes");
    assert_eq!(field(&st, "Using_Gtid"), "Slave_Pos");

    // Killed while the primary writes; restarted, it resumes where its last commit left it.
    p.query_drop("CREATE TABLE app.stream (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        .unwrap();
    let writer = {
        let port = m.port;
        std::thread::spawn(move || {
            let mut c = root_conn(port);
            for i in 0..400 {
                c.query_drop(format!("INSERT INTO app.stream VALUES ({i}, {i} * 3)"))
                    .unwrap();
                if i % 50 == 0 {
                    c.query_drop(format!("UPDATE app.stream SET v = v + 1 WHERE id < {i}"))
                        .unwrap();
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    drop(r);
    drop(server); // SIGKILL
    writer.join().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut r = server.conn(None);
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.stream ORDER BY id");
    same_rows(&mut p, &mut r, "SELECT * FROM app.t ORDER BY id");

    // A row the primary updates but the replica lacks: the replica stops with 1032.
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("DELETE FROM app.stream WHERE id = 5").unwrap();
    r.query_drop("START SLAVE").unwrap();
    p.query_drop("UPDATE app.stream SET v = 0 WHERE id = 5")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = slave_status(&mut r);
        if field(&st, "Last_SQL_Errno") == "1032" {
            assert_eq!(field(&st, "Slave_SQL_Running"), "No");
            break;
        }
        assert!(Instant::now() < deadline, "no 1032: {st:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("RESET SLAVE ALL").unwrap();
    assert!(slave_status(&mut r).is_empty());
}

/// Waits until the replica's applier stopped with error `code`; SHOW SLAVE STATUS's error text.
fn wait_stopped_with(replica: &mut Conn, code: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = slave_status(replica);
        if field(&st, "Last_SQL_Errno") == code {
            assert_eq!(field(&st, "Slave_SQL_Running"), "No");
            return field(&st, "Last_SQL_Error");
        }
        assert!(Instant::now() < deadline, "no {code}: {st:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A 1000-row INSERT into `app.s` (one timestamp, sensors 0..1000): one transaction of inserts
/// only, which the replica writes as one set (design.md RPA6).
fn sensor_batch(second: u32) -> String {
    let rows: Vec<String> = (0..1000)
        .map(|s| format!("({s}, '2026-01-01 00:00:{second:02}', {s}.5)"))
        .collect();
    format!("INSERT INTO app.s VALUES {}", rows.join(","))
}

/// Inserts, alone or mixed with other changes in one transaction, are applied as the primary
/// committed them; a row the replica holds already stops the applier with 1062 and nothing of
/// the transaction, on the set-oriented path (primary key) as on the row-at-a-time one (a UNIQUE
/// secondary index); once the replica's stray row is gone it applies the transaction again
/// (design.md RPA3, RPA6, SES10).
#[test]
fn a_duplicate_key_on_the_replica_stops_the_applier() {
    let Some((m, mut p, _dir, _server, mut r)) = primary_and_replica() else {
        return;
    };
    change_master(&mut r, &m);
    r.query_drop("START SLAVE").unwrap();
    p.query_drop("CREATE DATABASE app").unwrap();
    p.query_drop(
        "CREATE TABLE app.s (sensor INT NOT NULL, ts DATETIME NOT NULL, v DOUBLE, \
         PRIMARY KEY (sensor, ts), KEY by_ts (ts)) ENGINE=InnoDB",
    )
    .unwrap();
    p.query_drop(
        "CREATE TABLE app.u (id INT PRIMARY KEY, code INT, UNIQUE KEY uk_code (code)) ENGINE=InnoDB",
    )
    .unwrap();
    p.query_drop(sensor_batch(0)).unwrap();
    p.query_drop("INSERT INTO app.u VALUES (1, 1), (2, 2), (3, NULL), (4, NULL)")
        .unwrap();
    // Inserts followed by other changes of the same table, and by another table's inserts.
    p.query_drop("BEGIN").unwrap();
    p.query_drop(sensor_batch(1)).unwrap();
    p.query_drop("UPDATE app.s SET v = -v WHERE sensor < 10 AND ts = '2026-01-01 00:00:01'")
        .unwrap();
    p.query_drop("DELETE FROM app.s WHERE sensor = 999")
        .unwrap();
    p.query_drop(sensor_batch(2)).unwrap();
    p.query_drop("COMMIT").unwrap();
    p.query_drop("BEGIN").unwrap();
    p.query_drop(sensor_batch(3)).unwrap();
    p.query_drop("INSERT INTO app.u VALUES (5, 5)").unwrap();
    p.query_drop("COMMIT").unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.s ORDER BY sensor, ts");
    same_rows(&mut p, &mut r, "SELECT * FROM app.u ORDER BY id");
    same_rows(
        &mut p,
        &mut r,
        "SELECT ts, COUNT(*) FROM app.s GROUP BY ts ORDER BY ts",
    );

    // The replica holds a row of its own that the primary's next batch also inserts.
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("INSERT INTO app.s VALUES (3, '2026-01-01 00:00:04', 0)")
        .unwrap();
    r.query_drop("START SLAVE").unwrap();
    p.query_drop(sensor_batch(4)).unwrap();
    let err = wait_stopped_with(&mut r, "1062");
    assert!(
        err.contains("Duplicate entry '3-2026-01-01 00:00:04' for key 'PRIMARY'"),
        "{err}"
    );
    let at_4 = "SELECT COUNT(*) FROM app.s WHERE ts = '2026-01-01 00:00:04'";
    assert_eq!(one(&mut r, at_4), "1", "nothing of the transaction applied");
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("DELETE FROM app.s WHERE ts = '2026-01-01 00:00:04'")
        .unwrap();
    r.query_drop("START SLAVE").unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.s ORDER BY sensor, ts");

    // The replica holds a UNIQUE value of its own that the primary's next row also takes.
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("INSERT INTO app.u VALUES (100, 7)").unwrap();
    r.query_drop("START SLAVE").unwrap();
    p.query_drop("INSERT INTO app.u VALUES (6, 6), (7, 7), (8, 8)")
        .unwrap();
    let err = wait_stopped_with(&mut r, "1062");
    assert!(
        err.contains("Duplicate entry '7' for key 'uk_code'"),
        "{err}"
    );
    assert_eq!(one(&mut r, "SELECT COUNT(*) FROM app.u WHERE id >= 6"), "1");
    r.query_drop("STOP SLAVE").unwrap();
    r.query_drop("DELETE FROM app.u WHERE id = 100").unwrap();
    r.query_drop("START SLAVE").unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM app.u ORDER BY id");
    same_rows(&mut p, &mut r, "SELECT * FROM app.s ORDER BY sensor, ts");
    r.query_drop("STOP SLAVE").unwrap();
}

/// A database and table the primary made without a character set get the primary's
/// `collation_server` of that statement on the replica too (design.md RPA7), so that
/// SHOW CREATE TABLE and CHECKSUM TABLE agree with the primary's.
#[test]
fn tables_made_on_the_primary_keep_its_character_set() {
    let Some((m, mut p, _dir, _server, mut r)) = primary_and_replica() else {
        return;
    };
    change_master(&mut r, &m);
    r.query_drop("START SLAVE").unwrap();
    p.query_drop("SET SESSION collation_server = 'latin1_swedish_ci'")
        .unwrap();
    p.query_drop("CREATE DATABASE l1").unwrap();
    p.query_drop("CREATE TABLE l1.t (id INT PRIMARY KEY, c CHAR(10) NOT NULL) ENGINE=InnoDB")
        .unwrap();
    p.query_drop("INSERT INTO l1.t VALUES (1, 'abc'), (2, 'xyz')")
        .unwrap();
    wait_caught_up(&mut p, &mut r);
    same_rows(&mut p, &mut r, "SELECT * FROM l1.t ORDER BY id");
    let create: (String, String) = r.query_first("SHOW CREATE TABLE l1.t").unwrap().unwrap();
    assert!(
        create
            .1
            .contains("DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci"),
        "{}",
        create.1
    );
    same_rows(&mut p, &mut r, "CHECKSUM TABLE l1.t");
}
