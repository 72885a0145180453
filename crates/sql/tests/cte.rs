//! Common table expressions: WITH (several, referenced several times, column lists, in
//! subqueries, INSERT ... SELECT and CREATE TABLE ... SELECT) and WITH RECURSIVE (series,
//! hierarchies, UNION DISTINCT stopping a cycle, max_recursive_iterations), with MariaDB's errors.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn one(s: &mut betula_sql::Session, sql: &str) -> String {
    rows(s, sql)[0][0].clone()
}

#[test]
fn non_recursive_ctes() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, g INT, x INT)",
            "INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30)",
        ],
    );
    assert_eq!(
        rows(
            &mut s,
            "WITH a AS (SELECT g, SUM(x) s FROM t GROUP BY g), b (gg, total) AS (SELECT g, s FROM a) \
             SELECT a.g, b.total FROM a JOIN b ON a.g = b.gg ORDER BY a.g"
        ),
        vec![vec!["1", "30"], vec!["2", "30"]]
    );
    // A later definition sees an earlier one; an inner WITH hides an outer name.
    assert_eq!(
        one(
            &mut s,
            "WITH c AS (SELECT 1 AS v) SELECT (WITH c AS (SELECT 2 AS v) SELECT v FROM c) + v FROM c"
        ),
        "3"
    );
    assert_eq!(
        one(
            &mut s,
            "WITH c AS (SELECT id FROM t WHERE x > 10) SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM c)"
        ),
        "2"
    );
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, x INT)");
    exec(
        &mut s,
        "INSERT INTO u WITH c AS (SELECT id, x * 2 AS x FROM t) SELECT * FROM c",
    );
    assert_eq!(one(&mut s, "SELECT SUM(x) FROM u"), "120");
    exec(
        &mut s,
        "CREATE TABLE v AS WITH c AS (SELECT id FROM t WHERE g = 1) SELECT id FROM c",
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), "2");
    // A CTE named like a table hides it; a qualified name still reads the table.
    assert_eq!(
        one(&mut s, "WITH t AS (SELECT 7 AS id) SELECT MAX(id) FROM t"),
        "7"
    );
    assert_eq!(
        one(
            &mut s,
            "WITH t AS (SELECT 7 AS id) SELECT MAX(id) FROM test.t"
        ),
        "3"
    );
    assert_eq!(
        err_code(&mut s, "WITH c (a, b) AS (SELECT 1) SELECT * FROM c"),
        4002
    );
    assert_eq!(
        err_code(
            &mut s,
            "WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c"
        ),
        4004
    );
    // Without RECURSIVE the name inside its own query is a table that does not exist.
    assert_eq!(
        err_code(&mut s, "WITH x AS (SELECT * FROM x) SELECT * FROM x"),
        1146
    );
}

#[test]
fn recursive_ctes() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE emp (id INT PRIMARY KEY, boss INT, name VARCHAR(10))",
            "INSERT INTO emp VALUES (1, NULL, 'ceo'), (2, 1, 'cto'), (3, 1, 'cfo'), (4, 2, 'dev'), (5, 4, 'intern')",
            "CREATE TABLE edge (a INT, b INT)",
            "INSERT INTO edge VALUES (1, 2), (2, 3), (3, 1)",
        ],
    );
    assert_eq!(
        rows(
            &mut s,
            "WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 100) \
             SELECT COUNT(*), SUM(n), MAX(n) FROM seq"
        ),
        vec![vec!["100", "5050", "100"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "WITH RECURSIVE chain (id, name, depth, path) AS (\
               SELECT id, name, 0, CAST(name AS CHAR(100)) FROM emp WHERE boss IS NULL \
               UNION ALL \
               SELECT e.id, e.name, c.depth + 1, CONCAT(c.path, '/', e.name) \
               FROM emp e JOIN chain c ON e.boss = c.id) \
             SELECT name, depth, path FROM chain ORDER BY id"
        ),
        vec![
            vec!["ceo", "0", "ceo"],
            vec!["cto", "1", "ceo/cto"],
            vec!["cfo", "1", "ceo/cfo"],
            vec!["dev", "2", "ceo/cto/dev"],
            vec!["intern", "3", "ceo/cto/dev/intern"],
        ]
    );
    // UNION (DISTINCT) ends at the cycle; UNION ALL is cut by max_recursive_iterations with
    // MariaDB's warning 1931.
    assert_eq!(
        rows(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION SELECT b FROM edge JOIN r ON edge.a = r.n) \
             SELECT n FROM r ORDER BY n"
        ),
        vec![vec!["1"], vec!["2"], vec!["3"]]
    );
    exec(&mut s, "SET max_recursive_iterations = 5");
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT b FROM edge JOIN r ON edge.a = r.n) \
             SELECT COUNT(*) FROM r"
        ),
        "6"
    );
    let w = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0][1], "1931");
    assert!(w[0][2].contains("max_recursive_iterations = 5"), "{w:?}");
    exec(&mut s, "SET max_recursive_iterations = DEFAULT");
    // A recursive CTE referenced twice, and one defined from another.
    assert_eq!(
        one(
            &mut s,
            "WITH RECURSIVE a (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM a WHERE n < 3), \
             b (m) AS (SELECT n * 10 FROM a) SELECT COUNT(*) FROM a JOIN a a2 JOIN b"
        ),
        "27"
    );
    assert_eq!(
        err_code(
            &mut s,
            "WITH RECURSIVE r AS (SELECT * FROM r) SELECT * FROM r"
        ),
        4005
    );
    assert_eq!(
        err_code(
            &mut s,
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n, n FROM r) SELECT * FROM r"
        ),
        1222
    );
}
