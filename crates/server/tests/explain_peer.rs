//! EXPLAIN EXTENDED, EXPLAIN UPDATE and the query of an EXISTS answer as MariaDB 10.11 answers
//! them: the same statements go to a private MariaDB (InnoDB) and to Betula through the
//! `mariadb` client, and the outputs (rows, warnings, or the error line) must be equal byte for
//! byte.
//!
//! * EXPLAIN EXTENDED: EXPLAIN's rows with the `filtered` column (100.00 for a table read, NULL
//!   where none is) and note 1003 holding the query with its names resolved (`db`.`t`.`c`,
//!   `db`.`alias`.`c`, every select item named, `/* select#N */` when it has several SELECTs);
//! * EXPLAIN UPDATE of a full scan: its row (`Using where` only for a condition read on the
//!   rows, not for a constant EXISTS) and the blocks of its uncorrelated subqueries, a UNION's
//!   with `UNION` and `UNION RESULT` rows; an empty table's estimate is 1, as InnoDB's;
//! * EXPLAIN of a top-level UNION of SELECTs: `PRIMARY` / `UNION` rows and the `UNION RESULT`
//!   row (absent for UNION ALL alone without ORDER BY); derived tables and the UNION forms
//!   Betula does not number as MariaDB are refused (1235, tests/sql/explain.test);
//! * EXISTS: the `*` of its SELECTs is a constant (no 1096 for a SELECT without tables), a
//!   UNION's ORDER BY is not read, a single SELECT's is; the answers of SELECT and UPDATE over
//!   such a subquery are MariaDB's.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (xxx CHAR(128), n INT);
INSERT INTO t1 VALUES ('this is a test of some long text', 1), ('another', 2), ('third one', 3);
CREATE TABLE e (c INT);
CREATE TABLE k (a INT, b VARCHAR(10), KEY (a));
INSERT INTO k VALUES (1, 'x'), (2, 'y'), (3, 'z');";

const QUERIES: &[&str] = &[
    // EXPLAIN EXTENDED
    "EXPLAIN EXTENDED SELECT * FROM t1 WHERE xxx REGEXP('is a test'); SHOW WARNINGS",
    "EXPLAIN EXTENDED SELECT 1; SHOW WARNINGS",
    "EXPLAIN EXTENDED SELECT n + 1, xxx AS x FROM t1 WHERE n > 1; SHOW WARNINGS",
    "EXPLAIN EXTENDED SELECT t.n FROM t1 t WHERE t.xxx LIKE 'a%'; SHOW WARNINGS",
    "EXPLAIN EXTENDED SELECT (SELECT MAX(n) FROM t1) AS m FROM t1; SHOW WARNINGS",
    "EXPLAIN EXTENDED SELECT * FROM e; SHOW WARNINGS",
    // an aggregate without GROUP BY needs no temporary table
    "EXPLAIN SELECT MAX(n), COUNT(*) FROM t1",
    // a select item's name keeps its character set introducer
    "SELECT _latin1 0x41 REGEXP _latin1 'a' COLLATE latin1_bin, _latin1'a' REGEXP 'A'",
    // EXPLAIN UPDATE of a full scan, with a UNION in an EXISTS
    "EXPLAIN UPDATE e SET c = 1 WHERE EXISTS (SELECT * UNION SELECT * FROM e ORDER BY c = ROW_NUMBER() OVER e)",
    "EXPLAIN UPDATE t1 SET n = n + 1 WHERE EXISTS (SELECT * UNION SELECT * FROM t1)",
    "EXPLAIN UPDATE t1 SET n = 1 WHERE xxx = 'another'",
    "EXPLAIN UPDATE t1 SET n = 1",
    "EXPLAIN SELECT * FROM t1 WHERE EXISTS (SELECT * UNION SELECT * FROM e)",
    "EXPLAIN UPDATE e SET c = 1 WHERE EXISTS (SELECT * FROM e ORDER BY c = ROW_NUMBER() OVER e)",
    // EXPLAIN of a top-level UNION: PRIMARY, UNION, and the UNION RESULT row when a temporary
    // table puts the rows together (DISTINCT, or an ORDER BY: Using filesort)
    "EXPLAIN SELECT * FROM t1 UNION SELECT * FROM t1",
    "EXPLAIN SELECT * FROM t1 UNION ALL SELECT * FROM t1",
    "EXPLAIN SELECT n FROM t1 UNION SELECT c FROM e UNION ALL SELECT 1",
    "EXPLAIN SELECT n FROM t1 UNION ALL SELECT c FROM e UNION SELECT n FROM t1",
    "EXPLAIN SELECT n FROM t1 UNION SELECT c FROM e ORDER BY 1",
    "EXPLAIN SELECT n FROM t1 UNION ALL SELECT c FROM e ORDER BY 1 LIMIT 1",
    "EXPLAIN SELECT n FROM t1 UNION ALL SELECT c FROM e LIMIT 1",
    "EXPLAIN SELECT 1 UNION SELECT 2",
    "EXPLAIN SELECT a FROM k UNION SELECT c FROM e WHERE c > 1",
    "EXPLAIN (SELECT a FROM k) UNION (SELECT n FROM t1)",
    "EXPLAIN SELECT n, COUNT(*) FROM t1 UNION SELECT c, 1 FROM e",
    "EXPLAIN EXTENDED SELECT a FROM k UNION SELECT c FROM e; SHOW WARNINGS",
    // EXISTS over such subqueries, run
    "SELECT EXISTS (SELECT * UNION SELECT * FROM e ORDER BY c = ROW_NUMBER() OVER e)",
    "SELECT EXISTS (SELECT * FROM e UNION SELECT * FROM e ORDER BY nosuch)",
    "SELECT EXISTS (SELECT 1 FROM e ORDER BY c = ROW_NUMBER() OVER nosuch)",
    "SELECT 1 IN (SELECT * UNION SELECT 1 FROM e)",
    "SELECT n FROM t1 WHERE NOT EXISTS (SELECT * FROM e UNION SELECT * FROM e WHERE c = 0) ORDER BY n",
    "CREATE TABLE u (c INT); INSERT INTO u VALUES (5), (6); \
     UPDATE u SET c = c + 1 WHERE EXISTS (SELECT * UNION SELECT * FROM e); \
     UPDATE u SET c = c + 10 WHERE EXISTS (SELECT * FROM e UNION SELECT * FROM e); \
     SELECT * FROM u ORDER BY c; DROP TABLE u",
];

#[test]
fn explain_extended_update_and_exists_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
