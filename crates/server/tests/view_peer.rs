//! Views answer as MariaDB 10.11 answers them: the same statements go to a private MariaDB
//! (InnoDB) and to Betula through the `mariadb` client, and the outputs (rows, or the error line)
//! must be equal byte for byte. Compared: reading views (joins, views over views, subqueries,
//! column lists), SHOW FULL TABLES and information_schema's table types, and the errors of
//! CREATE / ALTER / DROP VIEW, of a view whose base table is gone and of writes to views that are
//! not updatable, writes through a simple view with its check option, and the definitions SHOW
//! CREATE VIEW and information_schema.VIEWS.VIEW_DEFINITION print (MariaDB's printed form of the
//! SELECT: qualified names, generated aliases, its spelling of expressions). Not compared:
//! writes through a join view (MariaDB changes one of its tables, Betula refuses: both in
//! docs/mysql-compat.md).
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing (crates/sql/tests/views.rs covers the same ground).

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (id INT PRIMARY KEY, g INT, x INT, s VARCHAR(10));
INSERT INTO t VALUES (1,1,10,'a'),(2,1,20,'b'),(3,2,30,'c'),(4,2,NULL,'d'),(5,3,-5,NULL);
CREATE TABLE u (g INT PRIMARY KEY, label VARCHAR(10));
INSERT INTO u VALUES (1,'one'),(2,'two'),(4,'four');
CREATE VIEW v AS SELECT id, g, x FROM t WHERE x > 0;
CREATE VIEW agg (k, total, n) AS SELECT g, SUM(x), COUNT(*) FROM t GROUP BY g;
CREATE VIEW vv AS SELECT v.id, u.label FROM v JOIN u ON u.g = v.g;";

const QUERIES: &[&str] = &[
    "SELECT * FROM v ORDER BY id",
    "SELECT * FROM agg ORDER BY k",
    "SELECT * FROM vv ORDER BY id",
    "SELECT a.k, a.total, u.label FROM agg a LEFT JOIN u ON u.g = a.k ORDER BY a.k",
    "SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM v)",
    "SELECT MAX(total) FROM (SELECT total FROM agg) d",
    "WITH c AS (SELECT * FROM vv) SELECT label, COUNT(*) FROM c GROUP BY label ORDER BY label",
    "SELECT k FROM agg WHERE n > 1 ORDER BY k",
    "SHOW FULL TABLES",
    "SHOW TABLES LIKE 'v%'",
    "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'peer' \
     ORDER BY TABLE_NAME",
    "SELECT TABLE_NAME, CHECK_OPTION, IS_UPDATABLE, SECURITY_TYPE, ALGORITHM FROM information_schema.VIEWS \
     WHERE TABLE_SCHEMA = 'peer' AND TABLE_NAME <> 'vv' ORDER BY TABLE_NAME",
    "SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE, \
     CHARACTER_MAXIMUM_LENGTH, COLLATION_NAME FROM information_schema.COLUMNS \
     WHERE TABLE_SCHEMA = 'peer' AND TABLE_NAME IN ('v', 'vv') ORDER BY TABLE_NAME, ORDINAL_POSITION",
    "CREATE VIEW v AS SELECT 1",
    "CREATE VIEW t AS SELECT 1",
    "CREATE TABLE v (a INT)",
    "CREATE OR REPLACE VIEW t AS SELECT 1",
    "CREATE VIEW bad AS SELECT * FROM nope",
    "CREATE VIEW bad AS SELECT nope FROM t",
    "CREATE VIEW bad (a, b) AS SELECT id FROM t",
    "CREATE VIEW bad AS SELECT id, id FROM t",
    "ALTER VIEW nope AS SELECT 1",
    "DROP TABLE v",
    "DROP VIEW t",
    "DROP VIEW nope",
    "DROP VIEW IF EXISTS nope; SHOW WARNINGS",
    "INSERT INTO agg VALUES (9, 9, 9)",
    "UPDATE agg SET total = 0",
    "DELETE FROM agg",
    "CREATE VIEW w AS SELECT id, x FROM t WHERE x > 0 WITH CHECK OPTION",
    "INSERT INTO w VALUES (6, -1)",
    "INSERT INTO w VALUES (6, 60); UPDATE w SET x = x + 1 WHERE id > 2; SELECT * FROM t ORDER BY id",
    "UPDATE w SET x = -x WHERE id = 6",
    "DELETE FROM w WHERE id IN (4, 6); SELECT * FROM w ORDER BY id",
    "CREATE VIEW a1 AS SELECT g FROM u; CREATE VIEW a2 AS SELECT g FROM a1; \
     CREATE OR REPLACE VIEW a1 AS SELECT g FROM a2",
    "ALTER VIEW v AS SELECT id, s FROM t WHERE id < 3; SELECT * FROM v ORDER BY id",
    "CREATE VIEW gone AS SELECT id FROM u2; CREATE TABLE u2 (id INT); CREATE VIEW gone AS SELECT id FROM u2; \
     DROP TABLE u2; SELECT * FROM gone",
    "RENAME TABLE agg TO agg2; SELECT COUNT(*) FROM agg2; SELECT COUNT(*) FROM agg",
    "DROP VIEW agg2, vv; SHOW FULL TABLES",
];

#[test]
fn views_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}

const PRINT_SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (a INT, b VARCHAR(10), c INT);
INSERT INTO t1 VALUES (1,'x',10),(2,'y',20),(2,'z',NULL);
CREATE TABLE t2 (a INT, d INT);
INSERT INTO t2 VALUES (1,5),(2,6);
CREATE DATABASE IF NOT EXISTS peer2;
CREATE TABLE peer2.t3 (a INT, e INT);
INSERT INTO peer2.t3 VALUES (2,7);
CREATE VIEW vb AS SELECT a, c FROM t1;";

/// Each body becomes view `p`; its definition is compared three ways (VIEW_DEFINITION, SHOW
/// CREATE VIEW from its database and from another) and its rows once.
const PRINTED_VIEWS: &[&str] = &[
    "SELECT * FROM t1",
    "SELECT t1.a, d FROM t1 JOIN t2 ON t1.a = t2.a",
    "SELECT t1.a FROM t1 LEFT JOIN t2 ON t1.a = t2.a JOIN t2 x ON x.d = t1.c",
    "SELECT t1.a FROM t1 JOIN t2 USING (a)",
    "SELECT x.a FROM t1 x, peer2.t3 y WHERE x.a = y.a",
    "SELECT * FROM vb",
    "SELECT vb.a, COUNT(*) cnt FROM vb GROUP BY a HAVING cnt > 0 ORDER BY cnt DESC",
    "SELECT a FROM (SELECT a, b FROM t1) s",
    "(SELECT 1) UNION (SELECT 2)",
    "SELECT 1 UNION ALL SELECT 2 ORDER BY 1",
    "SELECT a+1, -a, a IS NOT NULL, a IN (1,2), a NOT BETWEEN 1 AND 2 FROM t1",
    "SELECT a FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a) AND a NOT IN (SELECT d FROM t2)",
    "SELECT (SELECT MAX(d) FROM t2 WHERE t2.a = t1.a) m, COUNT(DISTINCT b), SUM(c) FROM t1 GROUP BY a",
    "SELECT NOT (a > 1), a AND b OR c, a XOR c, a != 1, NOT a FROM t1",
    "SELECT a FROM t1 GROUP BY 1 HAVING COUNT(*) > 0",
    "SELECT a DIV 2, a % 2, CONCAT(b, 'x'), UPPER(b), IFNULL(a, 0), COALESCE(a, c), IF(a, 1, 2) FROM t1",
    "SELECT 1.5, -2, NULL, 'it''s'",
    "SELECT a, ROW_NUMBER() OVER (PARTITION BY c ORDER BY a DESC), SUM(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t1",
    "SELECT DISTINCT a FROM t1 WHERE b LIKE 'x%' LIMIT 3 OFFSET 1",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
    "WITH t AS (SELECT a FROM t1 WHERE b >= 'c'), u AS (SELECT * FROM t) SELECT t2.d, u.a FROM t2, u WHERE t2.a = u.a",
    "SELECT 'c1', 'c2 ', ' c3', ' c4 ', 'Name_exp_2'",
    "SELECT a FROM t1 WHERE EXISTS (SELECT a AS alias FROM t1 GROUP BY alias)",
    "SELECT INTERVAL(55, 10) AS my_col",
];

#[test]
fn view_definitions_print_as_mariadb() {
    let mut queries = Vec::new();
    for body in PRINTED_VIEWS {
        queries.push(format!(
            "SET NAMES utf8mb4; CREATE OR REPLACE VIEW p AS {body}; \\
             SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_NAME = 'p'; \\
             SHOW CREATE VIEW p; USE peer2; SHOW CREATE VIEW peer.p; USE peer; SELECT * FROM p"
        ));
    }
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    mariadb_peer::compare_with_mariadb(PRINT_SETUP, &queries);
}
