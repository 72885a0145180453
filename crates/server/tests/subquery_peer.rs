//! Correlated subqueries and PREPARE / EXECUTE in SQL answer as MariaDB 10.11 answers them: the
//! same statements go to a private MariaDB (InnoDB) and to Betula through the `mariadb` client,
//! and the outputs (rows, or the error line) must be equal byte for byte.
//!
//! Not compared here (crates/sql/tests covers them): 1242, which MariaDB sends after the result's
//! column definitions (the client then prints it without echoing the statement) and Betula before
//! them; the names of computed columns of a prepared statement, which show Betula's numbered `?1`.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing (crates/sql/tests/correlated_subqueries.rs and
//! sql_prepare.rs cover the same ground against a model and MariaDB's documented answers).

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (id INT PRIMARY KEY, g INT, v INT, s VARCHAR(10));
CREATE TABLE t2 (id INT PRIMARY KEY, g INT, w INT, s VARCHAR(10), KEY (g));
INSERT INTO t1 VALUES (1,1,10,'a'),(2,1,20,'B'),(3,2,30,NULL),(4,NULL,40,'c'),(5,3,NULL,'A'),(6,2,30,'b');
INSERT INTO t2 VALUES (1,1,10,'A'),(2,1,11,'b'),(3,2,30,'c'),(4,NULL,50,NULL),(5,4,NULL,'a'),(6,2,31,'B');";

const QUERIES: &[&str] = &[
    "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g) ORDER BY id",
    "SELECT id FROM t1 WHERE NOT EXISTS (SELECT * FROM t2 WHERE t2.g = t1.g AND t2.w > t1.v) ORDER BY id",
    "SELECT id, v IN (SELECT w FROM t2 WHERE t2.g = t1.g) i, v NOT IN (SELECT w FROM t2 WHERE t2.g = t1.g OR t2.g = 4) n FROM t1 ORDER BY id",
    "SELECT id FROM t1 WHERE v NOT IN (SELECT w FROM t2 WHERE t2.g <=> t1.g) ORDER BY id",
    "SELECT id, (SELECT MAX(w) FROM t2 WHERE t2.g = t1.g) m, (SELECT COUNT(*) FROM t2 WHERE t2.w < t1.v) c FROM t1 ORDER BY m DESC, id",
    "SELECT id, (SELECT w FROM t2 WHERE t2.id = t1.id + 1) FROM t1 ORDER BY id",
    "SELECT id, (SELECT w FROM t2 WHERE t2.g = t1.g) FROM t1 WHERE id = 4",
    "SELECT g, SUM(v) FROM t1 GROUP BY g HAVING EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g AND t2.w > 10) ORDER BY g",
    "SELECT g, COUNT(*), (SELECT MIN(w) FROM t2 WHERE t2.g = t1.g) FROM t1 GROUP BY g ORDER BY g",
    "SELECT id FROM t1 WHERE (g, v) IN (SELECT g, w FROM t2 WHERE t2.id = t1.id) ORDER BY id",
    "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g AND EXISTS (SELECT 1 FROM t2 x WHERE x.id = t1.id AND x.w = t1.v)) ORDER BY id",
    "SELECT id, s, (SELECT COUNT(*) FROM t2 WHERE t2.s = t1.s) FROM t1 ORDER BY id",
    "SELECT a.id, b.w FROM t1 a JOIN t2 b ON a.id = b.id WHERE b.w = (SELECT MAX(w) FROM t2 WHERE t2.g = a.g) ORDER BY a.id",
    "WITH c AS (SELECT g, w FROM t2) SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM c WHERE c.g = t1.g AND c.w > 10) ORDER BY id",
    "SELECT id FROM t1 WHERE id = (SELECT MIN(id) FROM t1 x WHERE x.g = t1.g) ORDER BY id",
    "SELECT COUNT(*) FROM (SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g)) d",
    "SELECT table_name, (SELECT column_name FROM information_schema.columns c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.data_type IN ('varchar') ORDER BY ordinal_position LIMIT 1) AS time_column FROM information_schema.tables t WHERE t.table_schema = database() ORDER BY table_name",
    "PREPARE s FROM 'SELECT id, v FROM t1 WHERE g = ? AND v > ? ORDER BY id'; SET @g = 1; EXECUTE s USING @g, 5; EXECUTE s USING 2, @g * 10",
    "PREPARE s FROM 'SELECT ?'; EXECUTE s",
    "EXECUTE nope",
    "DEALLOCATE PREPARE nope",
    "PREPARE s FROM 'SELECT 1'; DEALLOCATE PREPARE s; EXECUTE s",
    "PREPARE s FROM 'PREPARE t FROM ''SELECT 1'''",
    "SET @q = CONCAT('SELECT COUNT(*) FROM t', 2); PREPARE s FROM @q; EXECUTE s; DROP PREPARE s",
    "EXECUTE IMMEDIATE 'SELECT ? + 1 AS r' USING 41",
];

#[test]
fn correlated_subqueries_and_sql_prepare_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
