//! Index prefix lengths (`KEY (c(n))`) through the engine: reads through a prefix index (point,
//! IN, ranges with bounds beyond the prefix, ORDER BY) give a full scan's rows, across
//! reopening; a UNIQUE prefix refuses values that share the prefix (1062); a prefix PRIMARY KEY
//! keys rows by the prefix; bad prefixes are MariaDB's errors; row subqueries compare rows.

mod sessions;

use sessions::{err_code, exec, open, rows};

const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), b BLOB, KEY kv (v(3)), KEY kb (b(2), id))",
    "INSERT INTO t VALUES (1,'abcdef','xyz'),(2,'abcxyz','xy'),(3,'abd','x'),(4,'ABC','xyzz'),\
     (5,'ab',NULL),(6,NULL,'xya'),(7,'abcd','yy'),(8,'b','xy')",
];

/// Each query read through the prefix index (FORCE INDEX) and through the rows (IGNORE INDEX).
const QUERIES: &[&str] = &[
    "SELECT id FROM t {} WHERE v = 'abcd' ORDER BY id",
    "SELECT id FROM t {} WHERE v IN ('abcdef','abd','zz') ORDER BY id",
    "SELECT id FROM t {} WHERE v > 'abc' ORDER BY id",
    "SELECT id FROM t {} WHERE v >= 'abcd' AND v < 'abcx' ORDER BY id",
    "SELECT id FROM t {} WHERE v < 'abcd' ORDER BY id",
    "SELECT id, v FROM t {} WHERE v BETWEEN 'ab' AND 'abcz' ORDER BY v, id",
    "SELECT id, b FROM t {} WHERE b = 'xy' ORDER BY id",
    "SELECT id, b FROM t {} WHERE b > 'xy' ORDER BY b DESC, id",
    "SELECT v FROM t {} ORDER BY v, id",
];

fn check_all(s: &mut betula_sql::Session) {
    for q in QUERIES {
        let idx = if q.contains(" b ") || q.contains("b =") || q.contains("b >") {
            "kb"
        } else {
            "kv"
        };
        let through = rows(s, &q.replace("{}", &format!("FORCE INDEX ({idx})")));
        let full = rows(s, &q.replace("{}", "IGNORE INDEX (kv, kb)"));
        assert_eq!(through, full, "{q}");
    }
}

#[test]
fn prefix_index_reads_equal_full_scans_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(dir.path(), SETUP);
        check_all(&mut s);
        assert_eq!(
            rows(&mut s, "SELECT id FROM t WHERE v > 'abc' ORDER BY id"),
            vec![vec!["1"], vec!["2"], vec!["3"], vec!["7"], vec!["8"]]
        );
        // the prefix index does not cover v: EXPLAIN does not read it alone
        let plan = rows(&mut s, "EXPLAIN SELECT v FROM t");
        assert_eq!(plan[0][5], "NULL", "{plan:?}");
        exec(&mut s, "UPDATE t SET v = 'abcq' WHERE id = 3");
        exec(&mut s, "DELETE FROM t WHERE id = 2");
        check_all(&mut s);
    }
    let (_e, mut s) = open(dir.path(), &[]);
    check_all(&mut s);
    let show = rows(&mut s, "SHOW CREATE TABLE t");
    assert!(
        show[0][1].contains("KEY `kv` (`v`(3))") && show[0][1].contains("KEY `kb` (`b`(2),`id`)"),
        "{show:?}"
    );
    let idx = rows(&mut s, "SHOW INDEX FROM t");
    let sub: Vec<&str> = idx.iter().map(|r| r[7].as_str()).collect();
    assert_eq!(sub, vec!["NULL", "3", "2", "NULL"]);
}

#[test]
fn unique_prefix_and_prefix_primary_key_enforce_uniqueness_over_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE u (a INT, c CHAR(8), UNIQUE KEY uc (c(2)) USING HASH)",
            "INSERT INTO u VALUES (1, 'abc')",
            "CREATE TABLE p (b BLOB, n INT, PRIMARY KEY (b(3)))",
            "INSERT INTO p VALUES ('abcdef', 1), ('abd', 2)",
        ],
    );
    assert_eq!(err_code(&mut s, "INSERT INTO u VALUES (2, 'ABx')"), 1062);
    exec(&mut s, "INSERT INTO u VALUES (3, 'ac')");
    assert_eq!(err_code(&mut s, "UPDATE u SET c = 'abz' WHERE a = 3"), 1062);
    assert_eq!(err_code(&mut s, "INSERT INTO p VALUES ('abcxyz', 3)"), 1062);
    assert_eq!(
        rows(&mut s, "SELECT n FROM p WHERE b = 'abcdef'"),
        vec![vec!["1"]]
    );
    assert!(rows(&mut s, "SELECT n FROM p WHERE b = 'abc'").is_empty());
    let idx = rows(&mut s, "SHOW INDEX FROM u");
    assert_eq!(idx[0][10], "HASH");
}

#[test]
fn bad_prefixes_are_mariadb_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    for (sql, code) in [
        ("CREATE TABLE e1 (a INT, KEY (a(2)))", 1089),
        ("CREATE TABLE e2 (v VARCHAR(4), KEY (v(5)))", 1089),
        ("CREATE TABLE e3 (v VARCHAR(4), KEY (v(0)))", 1391),
        ("CREATE TABLE e4 (t TEXT, KEY (t))", 1170),
        ("CREATE TABLE e5 (t TEXT, PRIMARY KEY (t))", 1170),
        ("CREATE TABLE e6 (t TEXT, KEY (t(1000)))", 1071),
    ] {
        assert_eq!(err_code(&mut s, sql), code, "{sql}");
    }
    exec(
        &mut s,
        "CREATE TABLE ok1 (v VARCHAR(4), t TEXT, KEY (v(4)), KEY (t(10)))",
    );
    let idx = rows(&mut s, "SHOW INDEX FROM ok1");
    // a prefix as long as the column is the whole column (Sub_part NULL), as in MariaDB
    assert_eq!(idx[0][7], "NULL");
    assert_eq!(idx[1][7], "10");
    assert_eq!(err_code(&mut s, "ALTER TABLE ok1 ADD KEY (t)"), 1170);
    exec(
        &mut s,
        "ALTER TABLE ok1 ADD KEY kt2 (t(5)) KEY_BLOCK_SIZE=8",
    );
    assert_eq!(rows(&mut s, "SHOW INDEX FROM ok1")[2][7], "5");
}

#[test]
fn row_subquery_in_compares_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE r (i INT, a INT, b INT, KEY ab (a, b))",
            "INSERT INTO r VALUES (1,1,2),(2,3,4),(3,5,6),(4,NULL,4)",
        ],
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT i FROM r WHERE (a, b) IN (SELECT a, b FROM r WHERE i > 1) ORDER BY i"
        ),
        vec![vec!["2"], vec!["3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT i FROM r WHERE (a, b) NOT IN (SELECT a, b FROM r WHERE i = 2) ORDER BY i"
        ),
        vec![vec!["1"], vec!["3"]]
    );
    assert_eq!(
        err_code(&mut s, "SELECT i FROM r WHERE (a, b) IN (SELECT a FROM r)"),
        1241
    );
}
