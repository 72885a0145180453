//! LOCK TABLES, UNLOCK TABLES and FLUSH TABLES WITH READ LOCK across real connections, with MariaDB's
//! errors (design.md TLK1-TLK6): a session under LOCK TABLES uses only its tables (1100) and writes only
//! those it locked WRITE (1099); other sessions' writes wait for a READ lock and everything waits for a
//! WRITE lock (1205 after lock_wait_timeout); the global read lock holds off writes and commits of other
//! sessions (autocommit multi-row INSERTs and upserts on the set-oriented path too) and refuses its
//! holder's (1223); it cannot be taken under LOCK TABLES (1192); a transaction's
//! uncommitted change holds off LOCK TABLES; a disconnect releases everything.

mod betula;

use std::time::Duration;

use betula::{code, BetulaServer};
use mysql::prelude::*;

fn setup(s: &BetulaServer) {
    let mut c = s.conn(None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (a INT PRIMARY KEY, b INT)",
        "CREATE TABLE d.u (a INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1, 1), (2, 2)",
    ] {
        c.query_drop(sql).unwrap();
    }
}

/// A connection whose table-lock waits give up after one second.
fn impatient(s: &BetulaServer) -> mysql::Conn {
    let mut c = s.conn(Some("d"));
    c.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    c
}

fn rows(c: &mut mysql::Conn, sql: &str) -> u64 {
    c.query_first(sql).unwrap().unwrap()
}

#[test]
fn lock_tables_read_and_write() {
    let dir = tempfile::tempdir().unwrap();
    let s = BetulaServer::start(dir.path());
    setup(&s);
    let mut a = s.conn(Some("d"));
    let mut b = impatient(&s);

    a.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 2);
    assert_eq!(code(a.query_drop("INSERT INTO t VALUES (3, 3)")), 1099);
    assert_eq!(code(a.query_drop("SELECT * FROM u")), 1100);
    assert_eq!(code(a.query_drop("ALTER TABLE t ADD COLUMN c INT")), 1099);
    assert_eq!(code(a.query_drop("CREATE TABLE n (x INT)")), 1100);
    // Temporary tables and information_schema are outside LOCK TABLES.
    a.query_drop("CREATE TEMPORARY TABLE tmp (x INT)").unwrap();
    a.query_drop("INSERT INTO tmp VALUES (1)").unwrap();
    assert_eq!(
        rows(
            &mut a,
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'"
        ),
        2
    );
    // Others read, and their writes wait (then time out).
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), 2);
    assert_eq!(code(b.query_drop("INSERT INTO t VALUES (4, 4)")), 1205);
    assert_eq!(code(b.query_drop("LOCK TABLES t WRITE")), 1205);
    b.query_drop("LOCK TABLES t READ").unwrap();
    b.query_drop("UNLOCK TABLES").unwrap();
    b.query_drop("INSERT INTO u VALUES (1)").unwrap();

    // A writer waiting for the lock goes on when it is released.
    let mut w = s.conn(Some("d"));
    let waiter = std::thread::spawn(move || w.query_drop("INSERT INTO t VALUES (5, 5)"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), 2);
    a.query_drop("UNLOCK TABLES").unwrap();
    waiter.join().unwrap().unwrap();
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), 3);

    // WRITE: the holder writes; others can neither read nor write.
    a.query_drop("LOCK TABLES t WRITE, u AS uu READ").unwrap();
    a.query_drop("UPDATE t SET b = b + 1").unwrap();
    a.query_drop("INSERT INTO t SELECT a + 10, b FROM t")
        .unwrap();
    assert_eq!(code(a.query_drop("INSERT INTO u VALUES (2)")), 1099);
    assert_eq!(code(b.query_drop("SELECT * FROM t")), 1205);
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM u"), 1);
    // LOCK TABLES again replaces the list; a disconnect releases it.
    a.query_drop("LOCK TABLES u WRITE").unwrap();
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), 6);
    drop(a);
    b.query_drop("INSERT INTO u VALUES (3)").unwrap();
}

#[test]
fn dropping_a_write_locked_table_and_ending_lock_tables_mode() {
    let dir = tempfile::tempdir().unwrap();
    let s = BetulaServer::start(dir.path());
    setup(&s);
    let mut a = s.conn(Some("d"));
    a.query_drop("LOCK TABLES t WRITE, u READ").unwrap();
    assert_eq!(code(a.query_drop("DROP TABLE u")), 1099);
    a.query_drop("DROP TABLE t").unwrap();
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM u"), 0);
    // BEGIN ends LOCK TABLES mode.
    a.query_drop("BEGIN").unwrap();
    a.query_drop("INSERT INTO u VALUES (1)").unwrap();
    a.query_drop("COMMIT").unwrap();
    a.query_drop("CREATE TABLE t (a INT)").unwrap();
}

#[test]
fn an_uncommitted_change_holds_off_lock_tables() {
    let dir = tempfile::tempdir().unwrap();
    let s = BetulaServer::start(dir.path());
    setup(&s);
    let mut a = s.conn(Some("d"));
    let mut b = impatient(&s);
    a.query_drop("BEGIN").unwrap();
    a.query_drop("INSERT INTO t VALUES (7, 7)").unwrap();
    assert_eq!(code(b.query_drop("LOCK TABLES t READ")), 1205);
    b.query_drop("LOCK TABLES u WRITE").unwrap();
    b.query_drop("UNLOCK TABLES").unwrap();
    a.query_drop("COMMIT").unwrap();
    b.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), 3);
}

#[test]
fn flush_tables_with_read_lock() {
    let dir = tempfile::tempdir().unwrap();
    let s = BetulaServer::start(dir.path());
    setup(&s);
    let mut a = s.conn(Some("d"));
    let mut b = impatient(&s);
    let mut c = impatient(&s);
    c.query_drop("CREATE TEMPORARY TABLE tmp (x INT)").unwrap();
    // b has an uncommitted change; FTWRL does not wait for transactions, only for statements.
    b.query_drop("BEGIN").unwrap();
    b.query_drop("INSERT INTO u VALUES (1)").unwrap();
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(code(a.query_drop("INSERT INTO t VALUES (3, 3)")), 1223);
    assert_eq!(code(a.query_drop("DROP TABLE u")), 1223);
    assert_eq!(code(a.query_drop("CREATE DATABASE e")), 1223);
    assert_eq!(code(a.query_drop("LOCK TABLES t WRITE")), 1223);
    a.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 2);
    // Others read; their writes and their commits of changes wait.
    assert_eq!(code(b.query_drop("COMMIT")), 1205);
    assert_eq!(rows(&mut c, "SELECT COUNT(*) FROM t"), 2);
    assert_eq!(code(c.query_drop("UPDATE t SET b = 0")), 1205);
    assert_eq!(code(c.query_drop("CREATE TABLE d.n (x INT)")), 1205);
    // Temporary tables are the session's own: their rows change under the lock.
    c.query_drop("INSERT INTO tmp VALUES (1)").unwrap();
    a.query_drop("UNLOCK TABLES").unwrap();
    c.query_drop("UPDATE t SET b = 0").unwrap();
    b.query_drop("COMMIT").unwrap();
    // Refused under LOCK TABLES and inside a transaction.
    a.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(code(a.query_drop("FLUSH TABLES WITH READ LOCK")), 1192);
    a.query_drop("UNLOCK TABLES").unwrap();
    a.query_drop("BEGIN").unwrap();
    assert_eq!(code(a.query_drop("FLUSH TABLES WITH READ LOCK")), 1192);
    a.query_drop("ROLLBACK").unwrap();
    // A session holding a WRITE lock holds FTWRL off.
    c.query_drop("LOCK TABLES t WRITE").unwrap();
    a.query_drop("SET SESSION lock_wait_timeout = 1").unwrap();
    assert_eq!(code(a.query_drop("FLUSH TABLES WITH READ LOCK")), 1205);
    drop(c);
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    // Only root (MariaDB: the RELOAD privilege).
    a.query_drop("UNLOCK TABLES").unwrap();
    a.query_drop("CREATE USER v").unwrap();
    a.query_drop("GRANT ALL ON d.* TO v").unwrap();
    let mut v = s.conn_as("v", None, Some("d")).unwrap();
    assert_eq!(code(v.query_drop("FLUSH TABLES WITH READ LOCK")), 1227);
    v.query_drop("LOCK TABLES t READ").unwrap();
}

/// Autocommit multi-row INSERTs (the set-oriented path, exec/dml/insert_batch.rs), plain and as
/// upserts, wait for another session's global read lock: one that gives up (1205) leaves no row, and
/// one that waits writes its rows only once the lock is released.
#[test]
fn autocommit_multi_row_inserts_wait_for_the_global_read_lock() {
    let dir = tempfile::tempdir().unwrap();
    let s = BetulaServer::start(dir.path());
    setup(&s);
    let mut a = s.conn(Some("d"));
    let mut b = impatient(&s);
    let upsert = "INSERT INTO t VALUES (1, 5), (13, 5) ON DUPLICATE KEY UPDATE b = b + VALUES(b)";
    a.query_drop("FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(
        code(b.query_drop("INSERT INTO t VALUES (10, 1), (11, 1), (12, 1)")),
        1205
    );
    assert_eq!(code(b.query_drop(upsert)), 1205);
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 2);
    let mut w = s.conn(Some("d"));
    let waiter =
        std::thread::spawn(move || w.query_drop("INSERT INTO t VALUES (20, 2), (21, 2), (22, 2)"));
    std::thread::sleep(Duration::from_millis(500));
    assert!(!waiter.is_finished(), "the INSERT did not wait");
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 2);
    a.query_drop("UNLOCK TABLES").unwrap();
    waiter.join().unwrap().unwrap();
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 5);
    b.query_drop(upsert).unwrap();
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM t"), 6);
    assert_eq!(rows(&mut a, "SELECT b FROM t WHERE a = 1"), 6);
}
