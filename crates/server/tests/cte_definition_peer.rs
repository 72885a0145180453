//! The checks MariaDB 10.11 makes of a WITH clause's definitions and of derived tables'
//! columns answer as MariaDB answers them: a WITH element no reference reads is still checked
//! (an unknown column or table, its column list's count, 4002, and a name given twice, 1060,
//! after the statement's own errors and in the clause's order), a derived table's or CTE's
//! column named twice is 1060, and a WITH clause holds at most 64 elements (4003). The same
//! statements go to a private MariaDB (InnoDB) and to Betula through the `mariadb` client, and
//! the outputs (rows, or the error line) must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (a INT, b VARCHAR(10));
INSERT INTO t1 VALUES (1, 'x'), (2, 'y'), (3, 'z');
CREATE TABLE e (c INT);";

const QUERIES: &[&str] = &[
    // a column list: its count first (4002), then its names (1060), referenced or not
    "WITH t(f1, f1) AS (SELECT a, b FROM t1) SELECT * FROM t1",
    "WITH t(f1, f1) AS (SELECT a FROM t1) SELECT * FROM t1",
    "WITH t(f1, f1) AS (SELECT a FROM t1) SELECT * FROM t",
    "WITH t(f1, f1) AS (SELECT a, b FROM t1) SELECT * FROM t",
    "WITH t(f) AS (SELECT * FROM t1) SELECT * FROM e",
    "WITH t(x, y) AS (SELECT * FROM t1) SELECT y FROM t ORDER BY x",
    // a derived table's or CTE's columns named twice
    "WITH t AS (SELECT a, a FROM t1) SELECT * FROM t1",
    "WITH t AS (SELECT a, A FROM t1) SELECT * FROM t",
    "SELECT * FROM (SELECT a, a FROM t1) x",
    "SELECT * FROM (SELECT 1, 1) x",
    "SELECT * FROM (SELECT a, b AS a FROM t1) x",
    "SELECT * FROM (SELECT a, b AS c FROM t1) x ORDER BY a",
    // an unreferenced element's definition is checked after the statement's own names
    "WITH t AS (SELECT d FROM t1) SELECT nosuch FROM t1",
    "WITH t AS (SELECT d FROM t1), s AS (SELECT e FROM t1) SELECT a FROM t1",
    "WITH t AS (SELECT d FROM t1), s AS (SELECT * FROM t) SELECT a FROM t1",
    "WITH t AS (SELECT a FROM t1), s AS (SELECT * FROM t WHERE nosuch) SELECT a FROM t1",
    "WITH t AS (SELECT a FROM nosuchtable) SELECT a FROM t1",
    "WITH t AS (SELECT a FROM t1 WHERE a IN (SELECT d FROM e)) SELECT a FROM t1",
    "WITH RECURSIVE t AS (SELECT d FROM t1) SELECT a FROM t1",
    "WITH RECURSIVE t AS (SELECT a FROM t1 UNION SELECT d FROM t) SELECT a FROM t1",
    "SELECT * FROM t1 WHERE a IN (WITH t AS (SELECT d FROM t1) SELECT a FROM t1)",
    "WITH t AS (SELECT 1 AS x) SELECT * FROM t1 WHERE EXISTS (WITH s AS (SELECT x FROM t1) SELECT 1)",
    "WITH t AS (SELECT d FROM t1) SELECT * FROM (WITH s AS (SELECT 1) SELECT 2) x",
    // well-defined unreferenced elements change nothing
    "WITH t AS (SELECT a FROM t1), s AS (SELECT c FROM e) SELECT b FROM t1 ORDER BY b",
    "WITH RECURSIVE r AS (SELECT 1 AS n UNION SELECT n + 1 FROM r WHERE n < 3) SELECT a FROM t1 ORDER BY a",
    "EXPLAIN WITH t AS (SELECT a FROM t1 WHERE b >= 'c') SELECT b FROM t1",
    "EXPLAIN WITH t AS (SELECT a, COUNT(*) FROM t1 GROUP BY a) SELECT b FROM t1",
    "EXPLAIN WITH t AS (SELECT (SELECT MAX(c) FROM e) AS m) SELECT b FROM t1",
];

/// `WITH s1 AS (SELECT 1), ..., sN AS (SELECT 1) SELECT 1`.
fn with_elements(n: usize) -> String {
    let elements: Vec<String> = (1..=n).map(|i| format!("s{i} AS (SELECT 1)")).collect();
    format!("WITH {} SELECT 1", elements.join(", "))
}

#[test]
fn with_definitions_and_derived_columns_are_checked_as_mariadb() {
    // at most 64 elements in one WITH
    let (sixty_four, too_many) = (with_elements(64), with_elements(65));
    let mut queries = QUERIES.to_vec();
    queries.extend([sixty_four.as_str(), too_many.as_str()]);
    mariadb_peer::compare_with_mariadb(SETUP, &queries);
}
