//! Joins by column names answer as MariaDB 10.11 answers them: NATURAL [INNER | LEFT | RIGHT]
//! JOIN and `JOIN ... USING`, their `SELECT *` (each joined column once, first, as the first
//! operand's), unqualified names of joined columns, `t.*`, a NATURAL JOIN without common columns
//! (a cross join), RIGHT JOIN, the errors of an unknown or ambiguous joined column, and the
//! printed form of views over them (SHOW CREATE VIEW). The same statements go to a private
//! MariaDB (InnoDB) and to Betula through the `mariadb` client, and the outputs (rows, or the
//! error line) must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing (crates/sql's join_using.rs unit tests cover the
//! column rules).

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (a INT, b INT, c VARCHAR(5));
CREATE TABLE t2 (c VARCHAR(5), d INT, A INT);
CREATE TABLE t3 (x INT);
INSERT INTO t1 VALUES (1,10,'p'),(2,20,'q'),(3,30,NULL);
INSERT INTO t2 VALUES ('p',100,1),('q',200,5),(NULL,300,3),('r',400,4);
INSERT INTO t3 VALUES (7),(8);
CREATE VIEW v1 AS SELECT * FROM t1 NATURAL JOIN t2;
CREATE VIEW v2 AS SELECT a, t2.d FROM t1 NATURAL LEFT JOIN t2;
CREATE VIEW v5 AS SELECT * FROM t1 NATURAL JOIN t3;
CREATE VIEW v6 AS SELECT * FROM t1 NATURAL LEFT JOIN t3;
CREATE VIEW v7 AS SELECT * FROM t1 JOIN t2 USING (c, a) WHERE a > 0;
CREATE VIEW v8 AS SELECT * FROM t1 NATURAL JOIN t2 NATURAL JOIN t3;
CREATE VIEW v9 AS SELECT x.* FROM t1 x NATURAL JOIN t2 y;";

const QUERIES: &[&str] = &[
    "SELECT * FROM t1 NATURAL JOIN t2",
    "SELECT * FROM t1 NATURAL INNER JOIN t2",
    "SELECT * FROM t1 NATURAL LEFT JOIN t2 ORDER BY a",
    "SELECT * FROM t1 NATURAL LEFT OUTER JOIN t2 ORDER BY b",
    "SELECT * FROM t1 NATURAL RIGHT JOIN t2 ORDER BY d",
    "SELECT * FROM t1 NATURAL RIGHT OUTER JOIN t2 WHERE b IS NULL ORDER BY d",
    "SELECT * FROM t1 NATURAL JOIN t3 ORDER BY a, x",
    "SELECT * FROM t1 NATURAL LEFT JOIN t3 ORDER BY a, x",
    "SELECT a, c, A FROM t1 NATURAL JOIN t2",
    "SELECT t1.a, t2.a, t1.*, t2.* FROM t1 NATURAL LEFT JOIN t2 ORDER BY t1.a",
    "SELECT * FROM t1 NATURAL JOIN t2 NATURAL JOIN t3 ORDER BY x",
    "SELECT * FROM t3, t1 NATURAL JOIN t2 ORDER BY x",
    "SELECT * FROM t1 NATURAL JOIN (t2 JOIN t3) ORDER BY x",
    "SELECT * FROM t1 JOIN t2 ON t1.a = t2.A NATURAL JOIN t3 ORDER BY t1.a, x",
    "SELECT a, COUNT(*) FROM t1 NATURAL LEFT JOIN t2 GROUP BY a ORDER BY a",
    "SELECT * FROM t1 NATURAL JOIN t2 WHERE a > 1",
    "SELECT COUNT(*) FROM t1 NATURAL JOIN t1 x",
    "SELECT * FROM (SELECT 1 a, 2 a2) d NATURAL JOIN t1",
    "SELECT (SELECT COUNT(*) FROM t1 NATURAL JOIN t2 WHERE t2.d > t3.x) n FROM t3 ORDER BY x",
    "SELECT * FROM t1 JOIN t2 USING (a) ORDER BY a",
    "SELECT * FROM t1 JOIN t2 USING (c, a)",
    "SELECT * FROM t1 JOIN t2 USING (a, a)",
    "SELECT a FROM t1 LEFT JOIN t2 USING (a) ORDER BY a",
    "SELECT * FROM t1 LEFT JOIN t2 USING (a) ORDER BY a",
    "SELECT * FROM t1 RIGHT JOIN t2 USING (a) ORDER BY a",
    "SELECT * FROM t1 RIGHT JOIN t2 ON t1.a = t2.A ORDER BY d",
    "SELECT * FROM t1 JOIN t2 USING (b)",
    "SELECT * FROM t1 JOIN t2 ON t1.a = t2.A NATURAL JOIN t1 t4",
    "SELECT * FROM t1 NATURAL JOIN t1",
    "SELECT * FROM v1",
    "SHOW CREATE VIEW v1",
    "SHOW CREATE VIEW v2",
    "SHOW CREATE VIEW v5",
    "SHOW CREATE VIEW v6",
    "SHOW CREATE VIEW v7",
    "SHOW CREATE VIEW v8",
    "SHOW CREATE VIEW v9",
    "SELECT * FROM v8 ORDER BY x",
    "WITH RECURSIVE cte AS (SELECT 1 a UNION SELECT cte.* FROM cte NATURAL JOIN t1) SELECT * FROM cte",
];

#[test]
fn natural_and_using_joins_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
