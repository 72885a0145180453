//! String literals, SHOW CREATE TABLE's quoting of strings and CAST of strings to numbers answer
//! as MariaDB 10.11 answers them: the same statements go to a private MariaDB and to Betula
//! through the `mariadb` client, and the outputs must be equal byte for byte. The table is
//! `ENGINE=MyISAM` with its character set written out, which both servers show as written.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE c (a INT COMMENT 'x\\ry\\nz\\0w\\tv\\\\u''q', s VARCHAR(10) DEFAULT 'l1\\nl2\\r',
  e ENUM('p\\nq','r''s','t\\\\u')) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4
  COLLATE=utf8mb4_general_ci COMMENT 'tab\\r\\nle';";

const QUERIES: &[&str] = &[
    "SHOW CREATE TABLE c",
    "SELECT HEX('\\f\\v\\a\\t\\b\\Z\\0\\%\\_\\q') AS h, '\\%' AS p, '\\_' AS u, 'a\\fb' LIKE 'afb' AS l",
    "SELECT HEX(\"\\a\\f\") AS d, 'it''s \\a' AS q, `a` FROM c",
    "SELECT CAST('abc' AS DECIMAL) AS a, CAST('12abc' AS DECIMAL(5,2)) AS b, CAST('' AS DECIMAL(4,1)) AS c, \
     CAST(' 1e2x' AS DECIMAL(6,1)) AS d, CAST('abc' AS SIGNED) AS e, CAST('abc' AS DOUBLE) AS f",
    "SELECT CAST(x'41' AS DECIMAL(3,1)) AS a, CAST('-7.25 apples' AS DECIMAL(6,2)) AS b",
];

#[test]
fn literals_and_quoted_strings_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
