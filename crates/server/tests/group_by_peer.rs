//! Grouped queries answer as MariaDB 10.11's: names in HAVING (the select list, its aliases
//! before the FROM columns, and the GROUP BY columns; 1054 for a column neither selected nor
//! grouped, 1052 when an alias and a grouped column share a name) and the checks of
//! `sql_mode` ONLY_FULL_GROUP_BY (1055, 1140); a GROUP BY without ORDER BY sorted by its group
//! keys (NULL first, under the keys' collations), none with ORDER BY NULL. The same statements go to a private MariaDB and
//! to Betula through the `mariadb` client; the outputs must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (a INT, b INT, c INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO t VALUES (1, 2, 3), (1, 3, 4), (2, 5, 6);
CREATE TABLE u (a INT PRIMARY KEY, b INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO u VALUES (1, 1), (2, 2);
CREATE TABLE gg (id INT PRIMARY KEY, g INT, s VARCHAR(5)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO gg VALUES (1, 5, 'b'), (2, 3, 'A'), (3, 9, 'a'), (4, 3, NULL), (5, NULL, 'c');";

const QUERIES: &[&str] = &[
    // GROUP BY without ORDER BY: sorted by the group keys.
    "SELECT g, COUNT(*) FROM gg GROUP BY g",
    "SELECT s, COUNT(*) FROM gg GROUP BY s",
    "SELECT g, COUNT(*) FROM gg GROUP BY g ORDER BY NULL",
    "SELECT g + 1 AS x, COUNT(*) FROM gg GROUP BY x LIMIT 2",
    "SELECT g, s FROM gg GROUP BY g, s HAVING g > 1",
    "SELECT s, SUM(g) FROM gg GROUP BY 1 LIMIT 1, 2",
    // An alias in HAVING is the select-list item, not a FROM column of the same name.
    "SELECT a + 1 AS b FROM t GROUP BY a HAVING b = 3",
    "SELECT a + 10 AS c FROM t GROUP BY a HAVING c > 5 ORDER BY c",
    "SELECT a + 10 AS b FROM t HAVING b > 5 ORDER BY b",
    "SELECT b + 10 AS b FROM t HAVING b > 5 ORDER BY b",
    // Selected or grouped columns, by name or qualified; aggregates read any column.
    "SELECT a FROM t GROUP BY a HAVING t.a > 1",
    "SELECT a, c FROM t GROUP BY a HAVING c > 3",
    "SELECT a FROM t GROUP BY a, b HAVING b > 2 ORDER BY a",
    "SELECT a FROM t GROUP BY a HAVING MAX(t.b) > 4",
    "SELECT a AS x FROM t GROUP BY a HAVING a > 1",
    "SELECT a FROM t GROUP BY a HAVING (SELECT COUNT(*) FROM u WHERE u.a = t.a) > 0 ORDER BY a",
    "SELECT a FROM t HAVING a > 1",
    // Neither selected nor grouped: 1054; an alias and a different grouped column: 1052.
    "SELECT a FROM t HAVING b > 1",
    "SELECT a, COUNT(*) FROM t GROUP BY a HAVING b > 1",
    "SELECT a + b FROM t GROUP BY a HAVING b > 0",
    "SELECT a FROM t GROUP BY a HAVING t.b > 2",
    "SELECT COUNT(*) FROM t HAVING a > 1",
    "SELECT a FROM t GROUP BY a HAVING u.a > 0",
    "SELECT a AS b FROM t GROUP BY a, b HAVING b > 1",
    // ONLY_FULL_GROUP_BY.
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT a, b FROM t GROUP BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT a, COUNT(*) FROM t",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT MAX(a), b FROM t",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT COUNT(*) FROM t ORDER BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT a FROM t ORDER BY COUNT(*)",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT DISTINCT a, COUNT(*) FROM t",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT a, b FROM u GROUP BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT x.b FROM t x GROUP BY x.a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT (a + 1) * 2 FROM t GROUP BY a + 1",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT IF(a > 1, 'x', b) FROM t GROUP BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT b, SUM(a) OVER () FROM t GROUP BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY'; SELECT COUNT(*), b FROM t GROUP BY a",
    "SET sql_mode = 'ONLY_FULL_GROUP_BY';
     SELECT a + 1, COUNT(*) FROM t GROUP BY a + 1 ORDER BY 1;
     SELECT a + 1 x, COUNT(*) FROM t GROUP BY x ORDER BY x;
     SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY b;
     SELECT 1, COUNT(*) FROM t;
     SELECT COUNT(*) FROM t WHERE b > 1;
     SELECT ABS(a) FROM t GROUP BY a ORDER BY 1;
     SELECT a * b FROM t GROUP BY a, b ORDER BY 1;
     SELECT CONCAT(a, 'x'), COUNT(*) FROM t GROUP BY CONCAT(a, 'x') ORDER BY 1;
     SELECT a, SUM(b) OVER () FROM t GROUP BY a ORDER BY a;
     SELECT a, (SELECT MAX(b) FROM u WHERE u.a = t.a) FROM t GROUP BY a ORDER BY a;
     SELECT a FROM (SELECT a, b FROM t) d GROUP BY a ORDER BY a",
];

#[test]
fn grouped_queries_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
