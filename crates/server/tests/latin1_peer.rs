//! The server's default character set latin1 / latin1_swedish_ci from its start (MariaDB's
//! compiled-in default, my.cnf's `character-set-server` / `collation-server`; Betula's
//! `character_set_server` / `collation_server` settings): the global variables, the character set
//! a database and a table made without one get, and TEXT(n), which counts characters of the
//! column's character set (latin1's TEXT(65535) is TEXT, utf8mb4's MEDIUMTEXT), answer as
//! MariaDB 10.11 answers them. The same statements go to a private MariaDB (InnoDB) and to
//! Betula through the `mariadb` client, both started with latin1, and the outputs must be equal
//! byte for byte.
//!
//! The connection's variables (`character_set_client` and the others), which both take from the
//! client's handshake, are compared by client_charset_peer.rs.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (a TEXT(65535), b TEXT(65536), c TEXT(255), d TEXT(256),
  e TEXT(64) CHARACTER SET utf8mb4, f TEXT(63) CHARACTER SET utf8mb4, g TEXT(85) CHARACTER SET utf8mb3,
  h TEXT(86) CHARACTER SET utf8mb3, i VARCHAR(10), j TEXT(65535) COLLATE latin1_bin);
CREATE TABLE u (a TEXT(65535)) CHARACTER SET utf8mb4;";

const QUERIES: &[&str] = &[
    "SELECT @@global.character_set_server, @@global.collation_server, @@global.character_set_database, @@global.collation_database",
    "SELECT @@character_set_server, @@collation_server, @@character_set_database, @@collation_database",
    "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'peer'",
    "CREATE DATABASE peer2; SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'peer2'; DROP DATABASE peer2",
    "SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'peer' ORDER BY 1",
    "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'peer' ORDER BY TABLE_NAME, ORDINAL_POSITION",
    "SET sql_mode = ''; INSERT INTO t (a, j) VALUES (REPEAT('e', 65535), REPEAT('e', 65536)); SHOW WARNINGS; SELECT LENGTH(a), LENGTH(j) FROM t; DELETE FROM t",
    "SET sql_mode = ''; INSERT INTO u (a) VALUES (REPEAT('e', 65536)); SHOW WARNINGS; SELECT LENGTH(a) FROM u; DELETE FROM u",
];

#[test]
fn a_latin1_server_answers_as_mariadb() {
    mariadb_peer::compare_with_mariadb_in(Some(("latin1", "latin1_swedish_ci")), SETUP, QUERIES);
}
