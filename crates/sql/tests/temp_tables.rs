//! CREATE TEMPORARY TABLE through the engine: a temporary table is visible to its session only,
//! shadows a permanent table of the same name, rolls back like any table, keeps its trees under
//! the reserved prefix, is dropped when its session ends, and trees a crash left behind are
//! dropped when the engine opens (design.md TMP1–TMP5).

mod sessions;

use betula_sql::{Engine, Output};
use sessions::{config, err_code, exec, open, rows};

const PREFIX: &str = "\u{0}temp/";

fn temp_trees(e: &Engine) -> Vec<String> {
    let mut v: Vec<String> = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.starts_with(PREFIX))
        .collect();
    v.sort();
    v
}

fn show_create(s: &mut betula_sql::Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

#[test]
fn temporary_tables_are_private_shadow_and_vanish_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut a) = open(
        dir.path(),
        &[
            "CREATE TABLE t (c CHAR(1))",
            "INSERT INTO t VALUES ('p')",
            "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(5), KEY kv (v))",
            "INSERT INTO t VALUES (1, '7'), (2, '8')",
        ],
    );
    // the session sees its temporary table, shown as such
    assert_eq!(
        rows(&mut a, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "7"], vec!["2", "8"]]
    );
    assert!(show_create(&mut a, "t").starts_with("CREATE TEMPORARY TABLE `t` ("));
    assert_eq!(temp_trees(&e).len(), 2, "{:?}", temp_trees(&e));
    // not in SHOW TABLES (as MariaDB): the permanent table is listed once
    assert_eq!(rows(&mut a, "SHOW TABLES"), vec![vec!["t"]]);
    // another session sees the permanent table only
    let mut b = e.session(2, "root", "localhost");
    exec(&mut b, "USE test");
    assert_eq!(rows(&mut b, "SELECT c FROM t"), vec![vec!["p"]]);
    assert_eq!(err_code(&mut b, "DROP TEMPORARY TABLE t"), 1051);
    // a second temporary table of the same name is 1050; IF NOT EXISTS a note
    assert_eq!(err_code(&mut a, "CREATE TEMPORARY TABLE t (x INT)"), 1050);
    exec(&mut a, "CREATE TEMPORARY TABLE IF NOT EXISTS t (x INT)");
    // ALTER, RENAME and TRUNCATE work on the temporary table and keep it temporary
    exec(&mut a, "ALTER TABLE t MODIFY v INT");
    assert!(temp_trees(&e).iter().all(|n| n.contains("/@1/")));
    exec(&mut a, "ALTER TABLE t RENAME TO t2");
    assert_eq!(
        rows(&mut a, "SELECT id, v FROM t2 ORDER BY id"),
        vec![vec!["1", "7"], vec!["2", "8"]]
    );
    assert!(show_create(&mut a, "t2").starts_with("CREATE TEMPORARY TABLE `t2`"));
    assert_eq!(rows(&mut a, "SELECT c FROM t"), vec![vec!["p"]]);
    assert_eq!(err_code(&mut b, "SELECT * FROM t2"), 1146);
    // DROP TEMPORARY TABLE leaves the permanent table alone
    exec(&mut a, "CREATE TEMPORARY TABLE t LIKE t2");
    assert!(show_create(&mut a, "t").starts_with("CREATE TEMPORARY TABLE `t`"));
    exec(&mut a, "DROP TEMPORARY TABLE t");
    assert_eq!(rows(&mut a, "SELECT c FROM t"), vec![vec!["p"]]);
    assert_eq!(err_code(&mut a, "DROP TEMPORARY TABLE t"), 1051);
    // the session ends: its temporary tables and their trees are gone
    assert!(!temp_trees(&e).is_empty());
    drop(a);
    assert_eq!(temp_trees(&e), Vec::<String>::new());
    assert_eq!(rows(&mut b, "SELECT c FROM t"), vec![vec!["p"]]);
}

#[test]
fn temporary_tables_roll_back_like_any_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 10)",
        ],
    );
    exec(&mut s, "BEGIN");
    exec(&mut s, "INSERT INTO t VALUES (2, 20)");
    exec(&mut s, "UPDATE t SET v = 11 WHERE id = 1");
    exec(&mut s, "ROLLBACK");
    assert_eq!(rows(&mut s, "SELECT id, v FROM t"), vec![vec!["1", "10"]]);
    // a failing statement changes nothing (statement rollback)
    assert_eq!(
        err_code(&mut s, "INSERT INTO t VALUES (3, 30), (1, 0)"),
        1062
    );
    exec(&mut s, "BEGIN");
    exec(&mut s, "INSERT INTO t VALUES (4, 40)");
    exec(&mut s, "COMMIT");
    assert_eq!(
        rows(&mut s, "SELECT id FROM t ORDER BY id"),
        vec![vec!["1"], vec!["4"]]
    );
}

#[test]
fn temporary_trees_left_by_a_crash_are_dropped_at_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (e, mut s) = open(dir.path(), &["CREATE TABLE p (a INT)"]);
        exec(&mut s, "CREATE TEMPORARY TABLE t (a INT, KEY ka (a))");
        exec(&mut s, "INSERT INTO t VALUES (1)");
        // what a crash leaves: trees of temporary tables whose session never ended
        e.store
            .create_tree(&format!("{PREFIX}99/PRIMARY"), None)
            .unwrap();
        e.store
            .create_tree(&format!("{PREFIX}99/@2/k"), None)
            .unwrap();
        e.checkpoint().unwrap();
        assert_eq!(temp_trees(&e).len(), 4);
        // the session's own trees go with it; the orphans stay until the next start
        drop(s);
        assert_eq!(
            temp_trees(&e),
            vec![format!("{PREFIX}99/@2/k"), format!("{PREFIX}99/PRIMARY")]
        );
    }
    let e = Engine::open(config(dir.path())).unwrap();
    assert_eq!(temp_trees(&e), Vec::<String>::new());
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    assert_eq!(err_code(&mut s, "SELECT * FROM t"), 1146);
    assert!(matches!(
        exec(&mut s, "CREATE TEMPORARY TABLE t (a INT)"),
        Output::Done { .. }
    ));
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), vec![vec!["0"]]);
}
