//! ALTER TABLE rebuilds through the engine: the new generation's trees replace the old ones,
//! the result survives reopening (with and without a checkpoint), a failed rebuild leaves the
//! table and the tree set as they were, and trees a crash left behind are dropped at start-up.

mod sessions;

use betula_sql::Engine;
use sessions::{config, err_code, exec, open, rows};

/// The storage trees of table `test`.`t`.
fn trees_of_t(e: &Engine) -> Vec<String> {
    let mut v: Vec<String> = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.starts_with("test/t/"))
        .collect();
    v.sort();
    v
}

#[test]
fn rebuilt_table_replaces_its_trees_and_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (e, mut s) = open(
            dir.path(),
            &[
                "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5), KEY kv (v))",
                "INSERT INTO t VALUES (1, '7'), (2, '8'), (3, NULL)",
            ],
        );
        assert_eq!(trees_of_t(&e), vec!["test/t/PRIMARY", "test/t/kv"]);
        exec(&mut s, "ALTER TABLE t MODIFY v INT");
        assert_eq!(trees_of_t(&e), vec!["test/t/@1/PRIMARY", "test/t/@1/kv"]);
        // instant: no new generation, old rows read the added column's default
        exec(&mut s, "ALTER TABLE t ADD COLUMN w INT DEFAULT 5");
        assert_eq!(trees_of_t(&e), vec!["test/t/@1/PRIMARY", "test/t/@1/kv"]);
        exec(&mut s, "INSERT INTO t (id, v) VALUES (4, 9)");
        // instant too: old rows lacking the column go on reading 5 (design.md INS3)
        exec(&mut s, "ALTER TABLE t ALTER COLUMN w SET DEFAULT 6");
        assert_eq!(trees_of_t(&e), vec!["test/t/@1/PRIMARY", "test/t/@1/kv"]);
        e.checkpoint().unwrap();
        exec(&mut s, "INSERT INTO t (id, v) VALUES (5, 10)");
        // not checkpointed: recovery replays the switch and the drops from the log
        exec(&mut s, "ALTER TABLE t DROP COLUMN v, ALGORITHM=COPY");
        assert_eq!(trees_of_t(&e), vec!["test/t/@2/PRIMARY"]);
    }
    let (e, mut s) = open(dir.path(), &[]);
    assert_eq!(trees_of_t(&e), vec!["test/t/@2/PRIMARY"]);
    assert_eq!(
        rows(&mut s, "SELECT id, w FROM t ORDER BY id"),
        vec![
            vec!["1", "5"],
            vec!["2", "5"],
            vec!["3", "5"],
            vec!["4", "5"],
            vec!["5", "6"]
        ]
    );
    exec(&mut s, "INSERT INTO t (id) VALUES (6)");
    assert_eq!(
        rows(&mut s, "SELECT w FROM t WHERE id = 6"),
        vec![vec!["6"]]
    );
}

#[test]
fn failed_rebuild_leaves_the_table_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))",
            "INSERT INTO t VALUES (1, 7), (2, 7)",
        ],
    );
    assert_eq!(
        err_code(
            &mut s,
            "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (v)"
        ),
        1062
    );
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t ADD UNIQUE KEY uv (v)"),
        1062
    );
    assert_eq!(trees_of_t(&e), vec!["test/t/PRIMARY", "test/t/kv"]);
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t WHERE v = 7 ORDER BY id"),
        vec![vec!["1", "7"], vec!["2", "7"]]
    );
    assert_eq!(err_code(&mut s, "INSERT INTO t VALUES (1, 0)"), 1062);
}

#[test]
fn trees_left_by_an_interrupted_ddl_are_dropped_at_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (e, _s) = open(
            dir.path(),
            &[
                "CREATE TABLE t (id INT PRIMARY KEY)",
                "INSERT INTO t VALUES (1)",
            ],
        );
        // what a crash between building generation 1 and the catalog switch leaves
        e.store.create_tree("test/t/@1/PRIMARY", None).unwrap();
        e.store.create_tree("test/gone/PRIMARY", None).unwrap();
        e.checkpoint().unwrap();
    }
    let e = Engine::open(config(dir.path())).unwrap();
    assert_eq!(trees_of_t(&e), vec!["test/t/PRIMARY"]);
    assert!(!e
        .store
        .env()
        .tree_names()
        .contains(&"test/gone/PRIMARY".to_string()));
    let mut s = e.session(1, "root", "localhost");
    assert_eq!(rows(&mut s, "SELECT id FROM test.t"), vec![vec!["1"]]);
}
