//! Clustering secondary indexes through the engine: every syntax TokuDB (Percona's and MariaDB's)
//! accepted, SHOW CREATE TABLE's form and its round trip (also through the catalog after a
//! reopen), the write paths besides single statements (index builds on filled tables, in-place
//! and rebuilding ALTERs, LOAD DATA into empty and filled tables, partitions, TRUNCATE), UNIQUE
//! clustering keys, the planner's choice, and CHECK TABLE finding an entry that differs from its
//! row (design.md CIX1-CIX4), and instant column changes on a table with one (its entries carry
//! rows of older versions, read like the primary tree's).

mod common;

use common::engine::{engine, err, exec, local, rows};

/// SHOW CREATE TABLE's text of `t`.
fn show_create(s: &mut betula_sql::Session, t: &str) -> String {
    let r = rows(s, &format!("SHOW CREATE TABLE {t}"));
    r[0].split_once('|').unwrap().1.to_string()
}

/// The key of `q`'s plan and its Extra.
fn plan(s: &mut betula_sql::Session, q: &str) -> (String, String) {
    let r = rows(s, &format!("EXPLAIN {q}"));
    let c: Vec<&str> = r[0].split('|').collect();
    (c[5].to_string(), c[9].to_string())
}

/// `t`'s rows read through clustering index `k` equal those read from the primary tree, and
/// CHECK TABLE is clean.
fn same_through(s: &mut betula_sql::Session, t: &str, k: &str, col: &str) {
    let mut through = rows(
        s,
        &format!("SELECT * FROM {t} FORCE INDEX ({k}) WHERE {col} > -1000000"),
    );
    let mut full = rows(
        s,
        &format!("SELECT * FROM {t} IGNORE INDEX ({k}) WHERE {col} > -1000000"),
    );
    through.sort();
    full.sort();
    assert_eq!(through, full, "{t} through {k}");
    assert_eq!(
        rows(s, &format!("CHECK TABLE {t}")),
        vec![format!("d.{t}|check|status|OK")]
    );
}

#[test]
fn every_form_is_accepted_and_show_create_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(10), c INT, d INT, \
         PRIMARY KEY (id) CLUSTERING=YES, CLUSTERING KEY ka (a), UNIQUE CLUSTERING INDEX ub (b), \
         KEY kc (c) COMMENT 'plain' CLUSTERING=NO, KEY kd (d) `clustering`=yes, \
         CLUSTERING UNIQUE KEY uad (a, d))",
    );
    exec(&mut s, "CREATE CLUSTERING INDEX kcd ON t (c, d)");
    exec(&mut s, "CREATE UNIQUE CLUSTERING INDEX ucd ON t (d, c)");
    exec(&mut s, "CREATE INDEX kx ON t (a, c) CLUSTERING = 1");
    exec(
        &mut s,
        "ALTER TABLE t ADD CLUSTERING KEY kb (b), ADD UNIQUE CLUSTERING KEY ubc (b, c)",
    );
    exec(
        &mut s,
        "ALTER TABLE t ADD KEY kbd (b, d) CLUSTERING=ON, ADD INDEX plain (d)",
    );
    let want = "CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `a` int(11) DEFAULT NULL,\n  \
        `b` varchar(10) DEFAULT NULL,\n  `c` int(11) DEFAULT NULL,\n  `d` int(11) DEFAULT NULL,\n  \
        PRIMARY KEY (`id`),\n  KEY `ka` (`a`) `clustering`=yes,\n  \
        UNIQUE KEY `ub` (`b`) `clustering`=yes,\n  KEY `kc` (`c`) COMMENT 'plain',\n  \
        KEY `kd` (`d`) `clustering`=yes,\n  UNIQUE KEY `uad` (`a`,`d`) `clustering`=yes,\n  \
        KEY `kcd` (`c`,`d`) `clustering`=yes,\n  UNIQUE KEY `ucd` (`d`,`c`) `clustering`=yes,\n  \
        KEY `kx` (`a`,`c`) `clustering`=yes,\n  KEY `kb` (`b`) `clustering`=yes,\n  \
        UNIQUE KEY `ubc` (`b`,`c`) `clustering`=yes,\n  KEY `kbd` (`b`,`d`) `clustering`=yes,\n  \
        KEY `plain` (`d`)\n) ENGINE=Betula DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";
    assert_eq!(show_create(&mut s, "t"), want);
    // The text creates the same table, and the catalog keeps it across a reopen.
    exec(&mut s, &want.replace("TABLE `t`", "TABLE `t2`"));
    assert_eq!(
        show_create(&mut s, "t2"),
        want.replace("TABLE `t`", "TABLE `t2`")
    );
    drop(s);
    drop(e);
    let (_e, mut s) = engine(dir.path());
    assert_eq!(show_create(&mut s, "t"), want);
    // Columns and indexes named `clustering` are columns and indexes.
    exec(
        &mut s,
        "CREATE TABLE n (clustering INT, KEY clustering (clustering), UNIQUE clustering2 (clustering))",
    );
    exec(&mut s, "CREATE TABLE m (a INT)");
    exec(
        &mut s,
        "ALTER TABLE m ADD clustering INT, ADD KEY (clustering)",
    );
    for t in ["n", "m"] {
        let text = show_create(&mut s, t);
        assert!(text.contains("KEY `clustering` (`clustering`)"), "{text}");
        assert!(!text.contains("`clustering`=yes"), "{text}");
    }
    // Bad values: MariaDB's 1912.
    assert_eq!(
        err(&mut s, "CREATE TABLE b (a INT, KEY (a) CLUSTERING=maybe)"),
        1912
    );
    assert_eq!(err(&mut s, "ALTER TABLE t ADD KEY (a) CLUSTERING=2"), 1912);
    assert_eq!(err(&mut s, "CREATE INDEX z ON t (a) CLUSTERING=x"), 1912);
}

#[test]
fn the_planner_reads_ranges_through_the_clustering_key_without_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, v VARCHAR(10), \
         KEY kb (b), KEY ka_plain (a), CLUSTERING KEY ka (a))",
    );
    let values: Vec<String> = (0..300)
        .map(|i| format!("({i}, {}, {}, 'v{i}')", i % 17, i % 5))
        .collect();
    exec(
        &mut s,
        &format!("INSERT INTO t VALUES {}", values.join(",")),
    );
    // A range on the clustering key's column: that key (not the plain one on the same column),
    // covering every column.
    let (k, extra) = plan(&mut s, "SELECT * FROM t WHERE a BETWEEN 3 AND 5");
    assert_eq!(k, "ka");
    assert!(extra.contains("Using index"), "{extra}");
    // The same plan the conformance script (crates/server/tests/sql/clustering.test) expects.
    exec(&mut s, "CREATE TABLE x (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT, CLUSTERING KEY ka (a), KEY kc (c) CLUSTERING=YES, KEY kb (b))");
    exec(&mut s, "INSERT INTO x VALUES (1, 10, 'p', 100), (2, 20, 'q', 200), (3, 30, 'r', 300), (4, 20, 'Q', 400)");
    assert_eq!(
        rows(&mut s, "EXPLAIN SELECT * FROM x WHERE a BETWEEN 15 AND 25"),
        vec!["1|SIMPLE|x|range|ka|ka|5|NULL|4|Using index"]
    );
    let (k, extra) = plan(&mut s, "SELECT v FROM t WHERE a = 4");
    assert_eq!((k.as_str(), extra.contains("Using index")), ("ka", true));
    // A read with no range stays on the primary tree, in primary key order.
    assert_eq!(plan(&mut s, "SELECT * FROM t").0, "NULL");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t LIMIT 3"),
        vec!["0|v0", "1|v1", "2|v2"]
    );
    let mut got = rows(&mut s, "SELECT * FROM t WHERE a BETWEEN 3 AND 5");
    let mut want = rows(
        &mut s,
        "SELECT * FROM t IGNORE INDEX (ka, ka_plain) WHERE a BETWEEN 3 AND 5",
    );
    got.sort();
    want.sort();
    assert_eq!(got.len(), 54);
    assert_eq!(got, want);
}

#[test]
fn unique_clustering_keys_refuse_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, u INT, v VARCHAR(10), UNIQUE CLUSTERING KEY ku (u))",
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, NULL, 'c'), (4, NULL, 'd')",
    );
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (5, 10, 'e')"), 1062);
    assert_eq!(err(&mut s, "UPDATE t SET u = 20 WHERE id = 1"), 1062);
    exec(
        &mut s,
        "INSERT INTO t VALUES (5, 10, 'e') ON DUPLICATE KEY UPDATE v = 'upserted'",
    );
    exec(&mut s, "REPLACE INTO t VALUES (6, 20, 'replaced')");
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, u, v FROM t WHERE u BETWEEN 0 AND 100 ORDER BY u"
        ),
        vec!["1|10|upserted", "6|20|replaced"]
    );
    same_through(&mut s, "t", "ku", "id");
    // A UNIQUE clustering index built on rows with duplicates fails and leaves no index.
    exec(&mut s, "INSERT INTO t VALUES (7, 30, 'c')");
    assert_eq!(
        err(&mut s, "ALTER TABLE t ADD UNIQUE CLUSTERING KEY kv (v)"),
        1062
    );
    assert!(!show_create(&mut s, "t").contains("`kv`"));
}

#[test]
fn index_builds_alters_loads_partitions_and_truncate_keep_it_equal_to_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c DOUBLE, KEY kb (b))",
    );
    let values: Vec<String> = (0..500)
        .map(|i| format!("({i}, {}, 'B{}', {}.5)", i % 23, i % 7, i))
        .collect();
    exec(
        &mut s,
        &format!("INSERT INTO t VALUES {}", values.join(",")),
    );
    // A build on a filled table, in place.
    exec(&mut s, "ALTER TABLE t ADD CLUSTERING KEY ka (a, b)");
    same_through(&mut s, "t", "ka", "a");
    // An instant column at the end: old entries read it as its default, as old rows do.
    exec(&mut s, "ALTER TABLE t ADD COLUMN d INT DEFAULT 7");
    exec(&mut s, "UPDATE t SET d = id WHERE id < 50");
    same_through(&mut s, "t", "ka", "a");
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*), SUM(d) FROM t FORCE INDEX (ka) WHERE a >= 0"
        ),
        vec![format!("500|{}", (0..50).sum::<i64>() + 450 * 7)]
    );
    // A rebuild (a column type changes): every tree again.
    exec(
        &mut s,
        "ALTER TABLE t MODIFY c DECIMAL(10,2), DROP INDEX kb",
    );
    same_through(&mut s, "t", "ka", "a");
    // LOAD DATA into a filled table (batched merge, REPLACE of existing rows), then after
    // TRUNCATE into the empty one (bulk build).
    let file: String = (490..520)
        .map(|i| format!("{i}\t{}\tL{i}\t1.25\t{i}\n", i % 3))
        .collect();
    local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'x' REPLACE INTO TABLE t",
        file.as_bytes(),
    )
    .unwrap();
    same_through(&mut s, "t", "ka", "a");
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, b FROM t WHERE a = 1 AND b LIKE 'L%' ORDER BY id"
        ),
        (490..520)
            .filter(|i| i % 3 == 1)
            .map(|i| format!("{i}|L{i}"))
            .collect::<Vec<_>>()
    );
    exec(&mut s, "TRUNCATE TABLE t");
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM t FORCE INDEX (ka) WHERE a >= 0"
        ),
        vec!["0"]
    );
    local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'x' INTO TABLE t",
        file.as_bytes(),
    )
    .unwrap();
    same_through(&mut s, "t", "ka", "a");
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t WHERE a BETWEEN 0 AND 2"),
        vec!["30"]
    );

    // Partitions: each has its own trees; an update that moves a row moves its entry.
    exec(
        &mut s,
        "CREATE TABLE p (id INT NOT NULL PRIMARY KEY, a INT, v VARCHAR(10), CLUSTERING KEY ka (a)) \
         PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE)",
    );
    let values: Vec<String> = (0..200)
        .map(|i| format!("({i}, {}, 'v{i}')", i % 9))
        .collect();
    exec(
        &mut s,
        &format!("INSERT INTO p VALUES {}", values.join(",")),
    );
    exec(
        &mut s,
        "UPDATE p SET id = id + 1000, v = 'moved' WHERE id < 10",
    );
    exec(&mut s, "ALTER TABLE p ADD CLUSTERING KEY kv (v)");
    same_through(&mut s, "p", "ka", "a");
    same_through(&mut s, "p", "kv", "a");
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM p PARTITION (p1) WHERE v = 'moved'"
        ),
        vec!["10"]
    );
    exec(&mut s, "ALTER TABLE p TRUNCATE PARTITION p0");
    same_through(&mut s, "p", "ka", "a");
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM p WHERE a >= 0"),
        vec!["110"]
    );
}

#[test]
fn check_table_finds_an_entry_that_differs_from_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, v VARCHAR(10), CLUSTERING KEY ka (a))",
    );
    exec(&mut s, "INSERT INTO t VALUES (1, 5, 'one'), (2, 6, 'two')");
    assert_eq!(rows(&mut s, "CHECK TABLE t"), vec!["d.t|check|status|OK"]);
    // Give the first entry the second entry's value (a valid row, of another row).
    let name = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .find(|n| n.ends_with("/ka"))
        .expect("the index tree");
    let tree = e.store.tree(&name).unwrap();
    let entries: Vec<(Vec<u8>, Vec<u8>)> = tree
        .range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        )
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(entries.len(), 2);
    tree.put(&entries[0].0, &entries[1].1).unwrap();
    let got = rows(&mut s, "CHECK TABLE t");
    assert_eq!(
        got,
        vec![
            "d.t|check|error|clustering index 'ka': an entry whose values differ from its row's",
            "d.t|check|status|Corrupt"
        ]
    );
}

#[test]
fn instant_column_changes_keep_clustering_entries_readable() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), v DOUBLE, CLUSTERING KEY ka (a))",
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES (1, 10, 'x', 1.5), (2, 20, 'y', -0.0)",
    );
    exec(
        &mut s,
        "ALTER TABLE t ADD COLUMN m INT DEFAULT 7 AFTER a, ALGORITHM=INSTANT",
    );
    exec(&mut s, "INSERT INTO t VALUES (3, 30, 8, 'z', 2.5)");
    exec(&mut s, "ALTER TABLE t DROP COLUMN b, ALGORITHM=INSTANT");
    exec(
        &mut s,
        "ALTER TABLE t MODIFY v DOUBLE NULL, RENAME COLUMN m TO mm, ALGORITHM=INSTANT",
    );
    exec(&mut s, "INSERT INTO t VALUES (4, 40, 9, 3.5)");
    exec(&mut s, "UPDATE t SET mm = mm + 1 WHERE id = 1");
    same_through(&mut s, "t", "ka", "a");
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, a, mm, v FROM t FORCE INDEX (ka) WHERE a BETWEEN 10 AND 40 ORDER BY a"
        ),
        vec!["1|10|8|1.5", "2|20|7|0", "3|30|8|2.5", "4|40|9|3.5"]
    );
}
