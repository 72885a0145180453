//! A UNION column's values print as the type MariaDB 10.11 aggregates its branches' types to:
//! an integer beside a DECIMAL shows the largest scale, exact numbers beside a DOUBLE print as
//! DOUBLEs, a DATE beside a DATETIME prints as a DATETIME; an empty branch counts by its column's
//! type. The same statements go to a private MariaDB and to Betula through the `mariadb` client;
//! the outputs must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE tu (i INT, d DECIMAL(6,2), f DOUBLE, dt DATETIME(2), da DATE, s VARCHAR(10));
INSERT INTO tu VALUES (1, 2.5, 0.125, '2020-01-02 10:00:00.5', '2020-03-04', 'x'), (NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE te (d DECIMAL(5,3), dt DATETIME(1));";

const QUERIES: &[&str] = &[
    "SELECT 1.5 AS a UNION SELECT 2",
    "SELECT 1 AS a UNION SELECT 2.25 UNION SELECT 3.125",
    "SELECT 1.50 AS a UNION SELECT 1e0",
    "SELECT 1.0 AS a UNION SELECT 1",
    "SELECT 2 AS a UNION ALL SELECT 1.5 UNION ALL SELECT 1.25e0",
    "SELECT DATE'2020-01-01' AS a UNION SELECT TIMESTAMP'2020-01-02 10:00:00.5'",
    "SELECT i FROM tu UNION ALL SELECT d FROM tu ORDER BY 1",
    "SELECT d FROM tu UNION ALL SELECT f FROM tu ORDER BY 1",
    "SELECT i FROM tu UNION ALL SELECT d FROM te",
    "SELECT da FROM tu UNION ALL SELECT dt FROM te",
    "SELECT da FROM tu UNION SELECT dt FROM tu ORDER BY 1",
    "SELECT i FROM tu UNION SELECT s FROM tu ORDER BY 1",
    "SELECT * FROM (SELECT 1 AS a UNION SELECT 0.5) AS x ORDER BY a",
    "SELECT 1 AS a UNION SELECT '1'",
    "SELECT 'a' AS a UNION SELECT 1.50 UNION SELECT 10 ORDER BY 1",
    "SELECT dt FROM tu UNION SELECT 'z' ORDER BY 1",
    "SELECT s FROM tu UNION ALL SELECT f FROM tu UNION ALL SELECT da FROM tu ORDER BY 1",
];

#[test]
fn union_column_types_match_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
