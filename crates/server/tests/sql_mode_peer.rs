//! `sql_mode` and what it decides answer as MariaDB 10.11's: the variable's default, how a SET
//! writes it back (names in MariaDB's order, combination modes expanded, numbers, 1231 for an
//! unknown name), ERROR_FOR_DIVISION_BY_ZERO (NULL, warning 1365 per evaluation, or error 1365
//! while INSERT, REPLACE, UPDATE or CREATE TABLE ... SELECT store values in strict mode),
//! NO_ZERO_DATE, `||` as OR, and fractional seconds cut to a column's or CAST's precision. The
//! same statements go to a private MariaDB and to Betula through the `mariadb` client; the
//! outputs must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE h (a INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO h VALUES (1), (2), (3);
CREATE TABLE hk (a INT PRIMARY KEY, b INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO hk VALUES (1, 1);
CREATE TABLE z (d DATE, e DATETIME) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE tf (a TIME, b DATETIME(2), c TIMESTAMP(1) NULL, d TIME(3), e DATETIME)
  DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;";

const QUERIES: &[&str] = &[
    "SELECT @@sql_mode, @@global.sql_mode",
    "SET sql_mode = 'error_for_division_by_zero,strict_trans_tables'; SELECT @@sql_mode",
    "SET sql_mode = 'TRADITIONAL'; SELECT @@sql_mode",
    "SET sql_mode = 'STRICT_ALL_TABLES,,NO_ZERO_DATE'; SELECT @@sql_mode",
    "SET sql_mode = ''; SELECT @@sql_mode; SET sql_mode = DEFAULT; SELECT @@sql_mode",
    "SET sql_mode = 2097152; SELECT @@sql_mode",
    "SET sql_mode = 'FOO'",
    "SET sql_mode = 'STRICT_ALL_TABLES , NO_ZERO_DATE'",
    "SET sql_mode = NULL",
    // Division by zero: NULL with one warning per evaluation, in SELECT and DELETE.
    "SELECT 1/0, 5 MOD 0, 5 DIV 0, 1 % 0.0, 1/'0' AS s, 1/0e0 AS d; SHOW WARNINGS",
    "SELECT a/0 FROM h; SHOW WARNINGS",
    "SELECT a FROM h WHERE a/0 IS NULL; SHOW WARNINGS",
    "SET sql_mode = 'STRICT_ALL_TABLES'; SELECT 1/0; SHOW WARNINGS",
    // ... and an error where strict statements store values, unless IGNORE.
    "INSERT INTO h VALUES (1/0)",
    "INSERT INTO h SELECT 1/0",
    "UPDATE h SET a = 2 WHERE a/0 IS NULL",
    "INSERT INTO hk VALUES (1, 1) ON DUPLICATE KEY UPDATE b = 1/0",
    "REPLACE INTO hk VALUES (2, 1/0)",
    "CREATE TABLE k AS SELECT 1/0 AS x",
    "INSERT IGNORE INTO hk VALUES (3, 1/0); SHOW WARNINGS; SELECT * FROM hk ORDER BY a; DELETE FROM hk WHERE a = 3",
    "UPDATE IGNORE h SET a = a/0 WHERE a = 3; SHOW WARNINGS; SELECT * FROM h ORDER BY a; UPDATE h SET a = 3 WHERE a IS NULL",
    "SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'; INSERT INTO h VALUES (1/0); SHOW WARNINGS; DELETE FROM h WHERE a IS NULL",
    "SET sql_mode = 'STRICT_ALL_TABLES'; INSERT INTO h VALUES (1/0); SHOW WARNINGS; DELETE FROM h WHERE a IS NULL",
    // The zero date: accepted without NO_ZERO_DATE, refused or warned with it.
    "INSERT INTO z VALUES ('0000-00-00', '2020-01-01'), (0, 0); SELECT * FROM z; DELETE FROM z",
    "SET sql_mode = 'NO_ZERO_DATE'; INSERT INTO z VALUES ('0000-00-00', '0000-00-00 00:00:00'); SHOW WARNINGS; DELETE FROM z",
    "SET sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE'; INSERT INTO z VALUES (0, NULL)",
    // `||` is OR, with OR's precedence.
    "SELECT 1 || 0, 0 || 0, 1 = 1 || 0, 'a' || 'b', NULL || 1, 0 || NULL, 2 > 1 || 1 > 2 AND 0",
    // Fractions beyond the precision are cut off, in columns and in CAST.
    "INSERT INTO tf VALUES ('00:00:00.5', '2020-01-01 10:00:00.999', '2020-01-01 10:00:00.96',
       '10:00:00.99999', 20200101000000.5), (1.5, 20200101000000.999, NULL, -1.99999, '2020-01-01 00:00:00.5');
     SELECT * FROM tf; DELETE FROM tf",
    "SELECT CAST('00:00:00.7' AS TIME), CAST('2020-01-01 00:00:00.999' AS DATETIME(1)), CAST(1.5 AS TIME),
       TIME('10:00:00.5'), CAST(1.4 AS TIME), CAST(-0.5 AS TIME), CAST(1.5e0 AS TIME),
       CAST(20200101000000.5 AS DATETIME), CAST('2020-01-01 00:00:00.5' AS DATETIME),
       CAST('2020-01-01 00:00:00.5' AS DATE), CAST('10:00:00.123456' AS TIME(4)),
       TIMESTAMP('2020-01-01 10:00:00.25'), TIME(CAST('10:00:00.5' AS TIME(1)))",
    "SELECT CAST(1 AS TIME(7))",
];

#[test]
fn sql_mode_answers_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
