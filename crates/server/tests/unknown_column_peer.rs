//! An unknown column is 1054 naming the clause as MariaDB 10.11 names it (`'SELECT'`,
//! `'WHERE'`, `'ORDER BY'`, `'GROUP BY'`, `'HAVING'`, `'ON'`, `'FROM'` for USING, `'SET'`,
//! `'INSERT INTO'`, `'VALUES'`, `'UPDATE'`), in queries, subqueries and writes. The same
//! statements go to a private MariaDB and to Betula through the `mariadb` client; the outputs
//! must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (a INT PRIMARY KEY, b INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE u (a INT, c INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;";

const QUERIES: &[&str] = &[
    "SELECT nosuch FROM t",
    "SELECT SUM(nosuch) FROM t",
    "SELECT a FROM t WHERE nosuch",
    "SELECT a FROM t ORDER BY nosuch",
    "SELECT a FROM t GROUP BY nosuch",
    "SELECT a FROM t HAVING nosuch",
    "SELECT (SELECT nosuch) FROM t",
    "SELECT a FROM t WHERE a IN (SELECT 1 FROM u WHERE nosuch)",
    "SELECT a FROM t UNION SELECT a FROM t ORDER BY nosuch",
    "SELECT * FROM t JOIN u ON nosuch",
    "SELECT * FROM t LEFT JOIN u ON nosuch",
    "SELECT * FROM t JOIN u USING (nosuch)",
    "SELECT * FROM t NATURAL JOIN u WHERE nosuch",
    "UPDATE t SET nosuch = 1",
    "UPDATE t SET a = nosuch",
    "UPDATE t SET a = 1 WHERE nosuch",
    "UPDATE t SET a = 1 ORDER BY nosuch",
    "DELETE FROM t WHERE nosuch",
    "DELETE FROM t ORDER BY nosuch",
    "UPDATE t, u SET t.a = 1 WHERE nosuch",
    "DELETE t FROM t, u WHERE nosuch",
    "INSERT INTO t (nosuch) VALUES (1)",
    "INSERT INTO t SET nosuch = 1",
    "REPLACE INTO t (nosuch) VALUES (1)",
    "INSERT INTO t VALUES (nosuch, 1)",
    "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE nosuch = 1",
    "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = nosuch",
    "INSERT INTO u SELECT nosuch, 1 FROM t",
    "CREATE TABLE z AS SELECT nosuch FROM t",
    "SET @x = nosuch",
    "SELECT GROUP_CONCAT(a ORDER BY nosuch) FROM t",
];

#[test]
fn unknown_columns_name_the_clause_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
