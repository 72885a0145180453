//! A TIME met with a date answers as in MariaDB 10.11: compared with a date-and-time string it
//! is compared with that string's time of day; compared with a DATE or DATETIME, cast to one,
//! or read by a date function it stands on the current date; DATE_ADD of a TIME is a TIME;
//! EXTRACT of a date part of a TIME is 0 (its days for DAY); GREATEST and LEAST of temporal
//! values answer in the type their temporal arguments aggregate to. The same statements go to a
//! private MariaDB and to Betula through the `mariadb` client; the outputs must be equal byte
//! for byte. Answers that hold the current date are compared with CURDATE() so the test does
//! not depend on the day it runs.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE tt (dt DATETIME NOT NULL, t TIME NOT NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO tt VALUES ('2001-01-01 1:1:1', '1:1:1');
CREATE TABLE t2 (dt DATETIME NOT NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO t2 VALUES ('2001-01-01 1:1:1'), ('2001-01-01 1:1:1');";

const QUERIES: &[&str] = &[
    "SELECT t < '2005-11-13 7:41:31', t > '2005-11-13 7:41:31', t = '2005-11-13 01:01:01' FROM tt",
    "SELECT CAST('01:01:01' AS TIME) < '2005-11-13 7:41:31'",
    "SELECT t < '07:41:31', t < '2005-11-13', t < 20051113074131, t < '1 02:00:00' FROM tt",
    "SELECT t IN ('2005-11-13 01:01:01', 'x'),
            t BETWEEN '2000-01-01 00:00:00' AND '2000-01-01 02:00:00' FROM tt",
    "SELECT dt < '07:41:31', dt = '2001-01-01 01:01:01.000', dt < t, t > CURDATE(),
            t < NOW() + INTERVAL 1 DAY, CAST('25:00:00' AS TIME) > CURDATE() + INTERVAL 1 DAY FROM tt",
    // The subquery of MariaDB's subselect_extra test that this answered wrongly.
    "SELECT o.dt FROM tt AS o WHERE o.dt IN (SELECT i.dt FROM t2 AS i WHERE o.t < '2005-11-13 7:41:31')",
    "SELECT CAST(t AS DATETIME) = CONCAT(CURDATE(), ' 01:01:01'), CAST(t AS DATE) = CURDATE(),
            TIMESTAMP(t) = CONCAT(CURDATE(), ' 01:01:01'), DATE(t) = CURDATE(), YEAR(t) = YEAR(CURDATE()),
            MONTH(t) = MONTH(CURDATE()), DAYOFMONTH(t) = DAYOFMONTH(CURDATE()), TO_DAYS(t) - TO_DAYS(CURDATE()),
            DATEDIFF(t, CURDATE()), TIMESTAMPDIFF(SECOND, t, CONCAT(CURDATE(), ' 01:01:02')) FROM tt",
    "SELECT DATE_ADD(t, INTERVAL 1 DAY), DATE_SUB(t, INTERVAL 2 HOUR), t + INTERVAL 1 SECOND, ADDDATE(t, 1),
            SUBDATE(t, INTERVAL 1 DAY), DATE_ADD(t, INTERVAL 1 MONTH), DATE_ADD(t, INTERVAL 1 WEEK),
            DATE_ADD(t, INTERVAL 900 HOUR) FROM tt",
    "SELECT EXTRACT(YEAR FROM t), EXTRACT(MONTH FROM t), EXTRACT(DAY FROM t),
            EXTRACT(DAY FROM CAST('25:00:00' AS TIME)), EXTRACT(HOUR FROM t) FROM tt",
    // GREATEST / LEAST answer in the temporal arguments' aggregated type.
    "SELECT GREATEST(DATE'2020-01-01', 'abc') AS a, GREATEST(DATE'2020-01-01', '2020-01-02 10:00:00') AS b,
            LEAST(TIME'10:00:00', 100) AS c, GREATEST(DATE'2020-01-01', 1.5) AS e, LEAST(TIME'-10:00:00', '1 00:00:00') AS h,
            GREATEST(DATE'2020-01-01', NULL) AS i, LEAST(TIME'10:00:00', DATE'2020-01-01') AS k,
            GREATEST(DATE'2020-01-01', 20200102) AS l, LEAST(DATE'2020-01-01', 'abc') AS m,
            GREATEST(dt, t) = CONCAT(CURDATE(), ' 01:01:01'), LEAST(t, '00:00:01') FROM tt",
];

#[test]
fn times_meet_dates_as_in_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
