//! Smaller MariaDB forms: UNHEX (and binary strings stored into latin1 columns), INTERVAL(N, N1, ...), UNIX_TIMESTAMP of a time before the
//! epoch and its decimals (from its argument's type), rows nested in a row IN list, VALUES
//! expressions naming the inserted table's columns, an EXISTS item's name, PURGE with a subquery or
//! with the binary log off, RESET MASTER with it off, the `BINARY` column attribute, IS [NOT]
//! UNKNOWN, `rowid_merge_buff_size`, JSON's nesting limit, HEX and LENGTH of a latin1 column (its
//! latin1 bytes), `@var := expr` in a SELECT, COMPRESS / UNCOMPRESS, and
//! information_schema's SYSTEM_VARIABLES / GLOBAL_VARIABLES / SESSION_VARIABLES answer as
//! MariaDB 10.11 answers them (both servers run with the binary log off): the same statements go to a private
//! MariaDB (InnoDB) and to Betula through the `mariadb` client, and the outputs (rows, or the
//! error line) must be equal byte for byte.
//!
//! Not compared here: the variable tables' other rows (each server has variables of its own,
//! and their global values differ), SYSTEM_VARIABLES' columns after
//! GLOBAL_VALUE, which Betula does not have.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE h (id INT PRIMARY KEY, s VARCHAR(20), n INT);
INSERT INTO h VALUES (1, '4142', 4142), (2, '414', 15), (3, 'zz', NULL), (4, NULL, -1), (5, '', 0);";

const QUERIES: &[&str] = &[
    "SELECT id, HEX(UNHEX(s)) AS a, UNHEX(s) IS NULL AS b, HEX(UNHEX(n)) AS c FROM h ORDER BY id",
    "SELECT UNHEX('4D61726961') AS a, HEX(UNHEX('F')) AS b, UNHEX('4g') AS c, UNHEX(NULL) AS d",
    "SELECT UNHEX('41', '42')",
    "SELECT INTERVAL(55, 10) AS a, interval(5, 1, 10) AS b, INTERVAL(NULL, 1) AS c, INTERVAL(3, NULL, 1) AS d, INTERVAL(1, 2, 3) AS e, INTERVAL(2.5, 1, 2.4, 3) AS f, INTERVAL('3', '10', 2) AS g",
    "SELECT INTERVAL(5, 1, 6, 2, 3, 4) AS a, INTERVAL(5, 6, 1, 2, 3, 4) AS b, INTERVAL(n, 0, 10, 100) AS c FROM h ORDER BY id",
    "SELECT interval(5, 1, 10)",
    "SELECT NOW() + INTERVAL (1 + 1) DAY > NOW() AS a, DATE_ADD('2020-01-01', INTERVAL (2) DAY) AS b",
    "CREATE VIEW vi AS SELECT interval(55, 10) AS c; SELECT * FROM vi; DROP VIEW vi",
    "SELECT UNIX_TIMESTAMP('1969-12-31 23:59:59') AS a, UNIX_TIMESTAMP('1970-01-01 00:00:00') AS b, UNIX_TIMESTAMP('1000-01-01') AS c",
    "SET time_zone = '+10:00'; SELECT UNIX_TIMESTAMP('1969-12-31 14:00:01') AS a, UNIX_TIMESTAMP('1970-01-01 10:00:00') AS b; SET time_zone = '+00:00'",
    "CREATE TABLE ut (s VARCHAR(30), i INT, d DATETIME(3), t TIMESTAMP(2) NULL, dc DECIMAL(20,3), f DOUBLE, dt DATE, z TIME); \
     INSERT INTO ut VALUES ('2020-01-01 00:00:00.5', 20200101, '2020-01-01 00:00:00.123', '2020-01-01 00:00:00.12', 20200101000000.5, 20200101000000.25, '2020-01-01', '10:00:00'); \
     SELECT UNIX_TIMESTAMP(s) a, UNIX_TIMESTAMP(i) b, UNIX_TIMESTAMP(d) c, UNIX_TIMESTAMP(t) d, UNIX_TIMESTAMP(dc) e, UNIX_TIMESTAMP(f) f, \
     UNIX_TIMESTAMP(dt) g, UNIX_TIMESTAMP(CONCAT(dt, ' ', z)) h FROM ut; DROP TABLE ut",
    "SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00.5') a, UNIX_TIMESTAMP('2020-01-01 00:00:00.50') b, UNIX_TIMESTAMP(20200101000000.5) c, \
     UNIX_TIMESTAMP('2020-01-01 00:00:00.123456') d, UNIX_TIMESTAMP('2020-01-01') e",
    "SELECT (1, (2, 3)) IN ((1, (2, 3)), (2, (3, 4))) a, (1, 1, (1, NULL)) IN ((1, 1, (1, 1))) b, (1, (2, 3)) IN ((1, (2, 4))) c, \
     (1, (2, NULL)) NOT IN ((2, (2, 3))) d",
    "SELECT EXISTS (SELECT 1), NOT EXISTS(SELECT 2), EXISTS (SELECT 1 ORDER BY 1+SUM(2) OVER ())",
    "SELECT (1, (1, 2)) IN ((1, 1))",
    "SELECT (1, 1) IN ((1, (1, 2)))",
    "CREATE TABLE iv (a INT NOT NULL, b INT, c INT DEFAULT 7); INSERT INTO iv VALUES (5, a + 1, b), (6, (SELECT a * 2), c); \
     INSERT INTO iv (b, a) VALUES (a, 9); INSERT INTO iv (c, a, b) VALUES (DEFAULT, 10, c + a); \
     INSERT INTO iv (a) VALUES (EXISTS (SELECT AVG(3) OVER (ORDER BY a))); SELECT * FROM iv; DROP TABLE iv",
    "SELECT AVG('1') OVER () x WHERE (1, 1, (1, NULL)) IN ((1, 1, (1, 1))) ORDER BY x BETWEEN 25 AND ((x = x) / x) OR x = x = AVG(NULL) OR x = 94",
    "PURGE MASTER LOGS BEFORE (SELECT NOW())",
    "PURGE BINARY LOGS BEFORE NOW() + INTERVAL (SELECT 1) DAY",
    "PURGE MASTER LOGS BEFORE ADDDATE(CURRENT_TIMESTAMP(), INTERVAL -4 DAY); SHOW WARNINGS",
    "PURGE BINARY LOGS TO 'nothing.000001'; SHOW WARNINGS",
    "RESET MASTER",
    "CREATE TABLE l (a VARCHAR(20) CHARACTER SET latin1, b VARCHAR(20)); INSERT INTO l VALUES (UNHEX('22CA22'), 'x'), (UNHEX('80E9FF'), 'y'), (X'41', 'z'); SELECT a, b FROM l ORDER BY b; DROP TABLE l",
    "SHOW BINARY LOGS",
    "SELECT COUNT(*) FROM information_schema.SYSTEM_VARIABLES WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'",
    "SET SESSION sql_mode = 'NO_ZERO_DATE'; SELECT VARIABLE_NAME, SESSION_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ('sql_mode', 'autocommit') ORDER BY 1",
    "SET SESSION autocommit = 0; SELECT VARIABLE_NAME, SESSION_VALUE, GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'autocommit'; SET SESSION autocommit = 1",
    "SET SESSION sql_mode = 'NO_ZERO_DATE'; SELECT * FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('sql_mode', 'autocommit') ORDER BY 1",
    "SET SESSION sql_mode = 'NO_ZERO_DATE'; SELECT * FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'autocommit'",
    // the BINARY column attribute: the character set's _bin collation
    "CREATE TABLE ba (a VARCHAR(10) BINARY NOT NULL, b VARCHAR(10) CHARACTER SET latin1 BINARY, c CHAR(3) BINARY CHARACTER SET utf8mb4, d ENUM('x','Y') BINARY, e TEXT BINARY); SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'ba' ORDER BY ORDINAL_POSITION; INSERT INTO ba VALUES ('A', 'a', 'x', 'Y', 'E'); SELECT a = 'a', b = 'A', e = 'e' FROM ba; DROP TABLE ba",
    "CREATE TABLE bc (a VARCHAR(3) BINARY COLLATE latin1_german1_ci)",
    // IS [NOT] UNKNOWN, also of a row IN subquery
    "SELECT NULL IS UNKNOWN AS a, 1 IS UNKNOWN AS b, 0 IS NOT UNKNOWN AS c, (1, NULL) IN (SELECT 1, 2) IS UNKNOWN AS d, (1, 2) IN (SELECT 1, 2) IS NOT UNKNOWN AS e",
    "SELECT id FROM h WHERE (n, 1) IN (SELECT n, 1 FROM h WHERE id > 2) IS UNKNOWN ORDER BY id",
    "SELECT @@rowid_merge_buff_size, @@global.rowid_merge_buff_size; SET rowid_merge_buff_size = 0; SELECT @@rowid_merge_buff_size",
    // JSON nests at most 31 containers
    "SELECT JSON_VALID(CONCAT(REPEAT('[', 31), REPEAT(']', 31))) AS a, JSON_DEPTH(CONCAT(REPEAT('[', 31), REPEAT(']', 31))) AS b",
    "SELECT JSON_EQUALS(CONCAT(REPEAT('{\"a\": ', 31), '1', REPEAT('}', 31)), '1') AS a; SHOW WARNINGS",
    "SELECT JSON_DEPTH(CONCAT(REPEAT('[', 32), REPEAT(']', 32))) AS a; SHOW WARNINGS",
    // a latin1 column's bytes
    "CREATE TABLE hl (a VARCHAR(5) CHARACTER SET latin1, b CHAR(3) CHARACTER SET ascii); INSERT INTO hl VALUES (UNHEX('CA80'), 'ab'); SELECT HEX(a), LENGTH(a), OCTET_LENGTH(a), CHAR_LENGTH(a), HEX(b), HEX(CONCAT(a, 'x')), HEX(UPPER(a)) FROM hl; DROP TABLE hl",
    // @var := expr, evaluated row by row
    "SET @a = 0; SELECT id, @a := @a + 1 AS n, @a FROM h ORDER BY id; SELECT @a",
    "SET @c = 0; SELECT id, @c := @c + 1 AS n FROM h WHERE @c < 3 ORDER BY id",
    "SET @j = '{\"b\": 1, \"a\": 2}'; SELECT @k := JSON_NORMALIZE(@j); SELECT JSON_EXTRACT(@k, '$.a') AS a, @k",
    "SELECT @x := 1 AND 0 AS a, @x, @v := 5, @v + 1, @w := @v * 2, @w",
    "SET @s = 10; SELECT @s := @s - n AS r FROM h WHERE n IS NOT NULL ORDER BY id; SELECT @s",
    "SELECT HEX(COMPRESS('a')) AS a, HEX(COMPRESS('')) AS b, HEX(COMPRESS(REPEAT('ab', 100))) AS c, UNCOMPRESS(COMPRESS('hello')) AS d, UNCOMPRESSED_LENGTH(COMPRESS(REPEAT('x', 1000))) AS e, COMPRESS(NULL) AS f, UNCOMPRESS(NULL) AS g",
    "SELECT UNCOMPRESS('abc') AS a, UNCOMPRESSED_LENGTH('ab') AS b; SHOW WARNINGS",
    "SELECT HEX(COMPRESS(5.140264e+307)) AS a, JSON_ARRAY(1, COMPRESS(5.140264e+307)) IS NULL AS b",
    "CREATE VIEW vv AS SELECT @a := 1 AS x",
    "CREATE VIEW vv AS SELECT 1 FROM h WHERE n = @a",
    "CREATE VIEW vs AS SELECT @@max_recursive_iterations AS m",
    "CREATE VIEW vs AS SELECT '@a' AS m; SELECT * FROM vs; DROP VIEW vs",
];

#[test]
fn smaller_forms_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
