//! The SQL engine without the network: sessions on an engine over a temporary data directory.
//! Checks reopen persistence, statement atomicity inside transactions, and that concurrent
//! sessions' read-modify-write and blind-upsert increments are never lost.

mod sessions;

use std::sync::Arc;

use betula_sql::Engine;
use sessions::{config, exec, open, rows};

#[test]
fn reopen_keeps_tables_rows_and_counters() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(config(dir.path())).unwrap();
        let mut s = e.session(1, "root", "localhost");
        exec(&mut s, "USE test");
        exec(
            &mut s,
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5), UNIQUE KEY uv (v))",
        );
        exec(&mut s, "INSERT INTO t (v) VALUES ('a'), ('b')");
        exec(&mut s, "CREATE TABLE nopk (x INT)");
        exec(&mut s, "INSERT INTO nopk VALUES (1), (1)");
        e.checkpoint().unwrap();
    }
    let e = Engine::open(config(dir.path())).unwrap();
    let mut s = e.session(2, "root", "localhost");
    exec(&mut s, "USE test");
    exec(&mut s, "INSERT INTO t (v) VALUES ('c')");
    exec(&mut s, "INSERT INTO nopk VALUES (2)");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "a"], vec!["2", "b"], vec!["3", "c"]]
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM nopk"), vec![vec!["3"]]);
    assert_eq!(
        s.execute("INSERT INTO t (v) VALUES ('a')", &[])
            .unwrap_err()
            .code
            .number(),
        1062
    );
}

#[test]
fn failed_statement_inside_a_transaction_is_undone_alone() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, KEY kk (k))",
    );
    exec(&mut s, "BEGIN");
    exec(&mut s, "INSERT INTO t VALUES (1, 10)");
    let err = s
        .execute("INSERT INTO t VALUES (2, 20), (1, 30)", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1062);
    exec(&mut s, "COMMIT");
    assert_eq!(rows(&mut s, "SELECT id, k FROM t"), vec![vec!["1", "10"]]);
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE k = 20"),
        Vec::<Vec<String>>::new()
    );
}

#[test]
fn concurrent_increments_are_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let e: Arc<Engine> = Engine::open(config(dir.path())).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    exec(
        &mut s,
        "CREATE TABLE rmw (id INT PRIMARY KEY, n INT, KEY kn (n))",
    );
    exec(&mut s, "CREATE TABLE blind (id INT PRIMARY KEY, n INT)");
    exec(&mut s, "INSERT INTO rmw VALUES (1, 0)");
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let e = e.clone();
            std::thread::spawn(move || {
                let mut s = e.session(10 + t, "root", "localhost");
                exec(&mut s, "USE test");
                for _ in 0..50 {
                    // The committed row is always found (a read view made before the tree lock
                    // once let a flush collect the version it needed: the row read as absent).
                    match exec(&mut s, "UPDATE rmw SET n = n + 1 WHERE id = 1") {
                        betula_sql::Output::Done { affected, .. } => {
                            assert_eq!(affected, 1, "the UPDATE did not find the row")
                        }
                        other => panic!("UPDATE returned {other:?}"),
                    }
                    exec(
                        &mut s,
                        "INSERT INTO blind VALUES (1, 1) ON DUPLICATE KEY UPDATE n = n + 1",
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(rows(&mut s, "SELECT n FROM rmw"), vec![vec!["200"]]);
    assert_eq!(
        rows(&mut s, "SELECT id FROM rmw WHERE n = 200"),
        vec![vec!["1"]]
    );
    assert_eq!(rows(&mut s, "SELECT n FROM blind"), vec![vec!["200"]]);
}

#[test]
fn savepoints_undo_later_changes_only() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))"],
    );
    exec(&mut s, "BEGIN");
    exec(&mut s, "INSERT INTO t VALUES (1, 10)");
    exec(&mut s, "SAVEPOINT a");
    exec(&mut s, "INSERT INTO t VALUES (2, 20)");
    exec(&mut s, "UPDATE t SET v = 11 WHERE id = 1");
    exec(&mut s, "SAVEPOINT b");
    exec(&mut s, "DELETE FROM t WHERE id = 1");
    exec(&mut s, "ROLLBACK TO SAVEPOINT b");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "11"], vec!["2", "20"]]
    );
    exec(&mut s, "ROLLBACK WORK TO a");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "10"]]
    );
    // b came after a: gone. a stays until released.
    assert_eq!(
        s.execute("ROLLBACK TO b", &[]).unwrap_err().code.number(),
        1305
    );
    exec(&mut s, "INSERT INTO t VALUES (3, 30)");
    exec(&mut s, "RELEASE SAVEPOINT a");
    assert_eq!(
        s.execute("RELEASE SAVEPOINT a", &[])
            .unwrap_err()
            .code
            .number(),
        1305
    );
    exec(&mut s, "COMMIT");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "10"], vec!["3", "30"]]
    );
    // The index agrees with the rows.
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE v = 20"),
        Vec::<Vec<String>>::new()
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE v = 30"),
        vec![vec!["3"]]
    );
    // COMMIT forgets savepoints.
    assert_eq!(
        s.execute("ROLLBACK TO a", &[]).unwrap_err().code.number(),
        1305
    );
}
