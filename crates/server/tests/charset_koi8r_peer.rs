//! The koi8r character set (KOI8-R) against MariaDB 10.11: SHOW CHARACTER SET / SHOW COLLATION
//! rows and information_schema, koi8r columns (their repertoire, error 1366 for a character
//! KOI8-R lacks, byte lengths and HEX in KOI8-R bytes), the order and equality of
//! `koi8r_general_ci` (MariaDB's own weight table: Cyrillic case folding, `ё` a letter between
//! `е` and `ж`) and `koi8r_bin` (KOI8-R byte order) in ORDER BY, GROUP BY, MIN/MAX, an index
//! range and comparisons, the `_koi8r` introducer over hex literals (and `_latin1 0xFF`, which
//! counts as one latin1 byte), REGEXP's classes over them (func_regexp's queries),
//! `CONVERT(x USING koi8r)` and `CREATE TABLE ... SELECT` of koi8r text. The outputs of the
//! `mariadb` client must be equal byte for byte. A koi8r client (SET NAMES koi8r) is compared by
//! client_charset_peer.rs.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing. (Tables are compared through information_schema:
//! SHOW CREATE TABLE names the engines.)

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET koi8r,
  b VARCHAR(10) CHARACTER SET koi8r COLLATE koi8r_bin);
INSERT INTO t VALUES (1,'Жук','Жук'),(2,'жук','жук'),(3,'ёлка','ёлка'),(4,'ель','ель'),(5,'юла','юла'),
  (6,'арбуз','арбуз'),(7,'zebra','zebra'),(8,'Яблоко','Яблоко'),(9,'жук  ','жук');";

const QUERIES: &[&str] = &[
    "SHOW CHARACTER SET LIKE 'koi8r'",
    "SELECT * FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = 'koi8r'",
    "SELECT COLLATION_NAME, CHARACTER_SET_NAME, ID, IS_DEFAULT, IS_COMPILED, SORTLEN FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('koi8r_general_ci', 'koi8r_bin') ORDER BY ID",
    "SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'peer' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
    "SELECT id, s, HEX(s), LENGTH(s), CHAR_LENGTH(s) FROM t ORDER BY s, id",
    "SELECT id, b FROM t ORDER BY b, id",
    "SELECT s, COUNT(*) FROM t GROUP BY s ORDER BY s",
    "SELECT MIN(s), MAX(s), MIN(b), MAX(b) FROM t",
    "SELECT id FROM t WHERE s = 'ЖУК' ORDER BY id",
    "SELECT id FROM t WHERE b = 'жук' ORDER BY id",
    "SELECT UPPER(s), LOWER(b) FROM t WHERE id IN (1, 3) ORDER BY id",
    "CREATE INDEX ix ON t (s); SELECT id, s FROM t FORCE INDEX (ix) WHERE s BETWEEN 'а' AND 'ж' ORDER BY s, id",
    "INSERT INTO t VALUES (10, 'café', 'x')",
    "SET sql_mode = ''; INSERT INTO t VALUES (11, 'café', 'x'); SHOW WARNINGS; SELECT s FROM t WHERE id = 11",
    "SELECT HEX(_koi8r 0xFF), HEX(_latin1 0xFF), LENGTH(_latin1 0xFF), CHARSET(_koi8r 0xFF), COLLATION(_koi8r 0xC1), COERCIBILITY(_koi8r 0xC1), _koi8r 0xC1 = _koi8r 0xE1",
    "SELECT _koi8r 0xFF REGEXP _koi8r '[[:lower:]]' COLLATE koi8r_bin, _koi8r 0xFF REGEXP _koi8r '[[:upper:]]' COLLATE koi8r_bin, _koi8r 0xF7 REGEXP _koi8r '[[:alpha:]]'",
    "SELECT _latin1 0xFF REGEXP _latin1 '[[:lower:]]' COLLATE latin1_bin, _latin1 0xF7 REGEXP _latin1 '[[:alpha:]]'",
    "SELECT HEX(CONVERT('Жé' USING koi8r)), CONVERT('Жé' USING latin1), HEX(CONVERT(_latin1 0xFF USING utf8mb4)), CHARSET(CONVERT('a' USING koi8r)), LENGTH(CONVERT('Жук' USING koi8r))",
    "CREATE TABLE c AS SELECT s, b FROM t WHERE id = 1; SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'peer' AND TABLE_NAME = 'c' ORDER BY ORDINAL_POSITION; SELECT s, HEX(b) FROM c",
    "SET NAMES latin1; CREATE TABLE l AS SELECT REPEAT(' ', 4) AS s1 UNION SELECT NULL; SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'peer' AND TABLE_NAME = 'l' ORDER BY ORDINAL_POSITION",
];

#[test]
fn koi8r_text_is_answered_as_mariadb_answers() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
