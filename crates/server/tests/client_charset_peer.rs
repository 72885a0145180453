//! The connection's character sets against MariaDB 10.11: a client that connects with latin1
//! (the `mariadb` client's `--default-character-set=latin1`, as `mariadb-test` does) sends its
//! statements in latin1 and reads results in latin1; the variables the handshake, SET NAMES, SET
//! CHARACTER SET and SET of each variable leave, CHARSET() / COLLATION() / COERCIBILITY(), a
//! character latin1 cannot hold (`?`), `character_set_results = NULL`, and the result columns'
//! metadata (`--column-type-info`: collation id and length) answer as MariaDB's. Outputs are
//! compared as bytes (they are latin1, not UTF-8). A koi8r client reads and writes KOI8-R the
//! same way. A utf8mb3 client (the `mariadb` client's
//! default under a UTF-8 locale) gets `?` for a character outside the BMP.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

use std::io::Write;
use std::process::{Command, Stdio};

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10) CHARACTER SET latin1, b VARCHAR(10) CHARACTER SET utf8mb4,
  c TEXT CHARACTER SET utf8mb4, d VARBINARY(10));";

/// Statements as a latin1 client writes them (`\xE9` is é, `\x80` is €).
const LATIN1_QUERIES: &[&[u8]] = &[
    b"SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection",
    b"INSERT INTO t VALUES (1, 'caf\xe9', 'caf\xe9 \x80', 'h\xe9', 'x'); SELECT * FROM t",
    b"SELECT 'caf\xe9' AS 'n\xe9', LENGTH('caf\xe9'), CHAR_LENGTH('\x80'), HEX('\xe9')",
    b"SELECT HEX(a), HEX(b), LENGTH(b) FROM t",
    b"INSERT INTO t VALUES (2, 'x', _utf8mb4 0xE28692, CONCAT('\xe9', _utf8mb4 0xF09F988A), 'y'); SELECT b, c FROM t WHERE id = 2",
    b"SELECT CHARSET('a'), COLLATION('a'), COERCIBILITY('a'), CHARSET(1), COERCIBILITY(1), COERCIBILITY(NULL), CHARSET(NULL)",
    b"SELECT CHARSET(a), COLLATION(b), COERCIBILITY(a), CHARSET(d), COLLATION(a COLLATE latin1_bin), COERCIBILITY(a COLLATE latin1_bin), CHARSET(USER()), COERCIBILITY(DATABASE()) FROM t WHERE id = 1",
    b"SELECT CHARSET(JSON_OBJECT()), COLLATION(JSON_UNQUOTE('\"a\"')), CHARSET(CONCAT('a', 1)), COERCIBILITY(NOW())",
    b"SET @v = 'x'; SELECT COLLATION(@v), COERCIBILITY(@v)",
    b"SET NAMES utf8mb4; SELECT @@character_set_client, @@character_set_results, @@collation_connection; SELECT a, b FROM t WHERE id = 1",
    b"SET NAMES latin1 COLLATE latin1_bin; SELECT @@collation_connection, COLLATION('x')",
    b"SET CHARACTER SET utf8mb3; SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection",
    b"SET NAMES DEFAULT; SELECT @@character_set_client, @@collation_connection",
    b"SET character_set_results = NULL; SELECT @@character_set_results; SELECT a, b FROM t WHERE id = 1",
    b"SET character_set_client = 33, collation_connection = 48; SELECT @@character_set_client, @@character_set_connection, @@collation_connection",
    b"SET NAMES foo",
    b"SET NAMES ucs2",
    b"SET NAMES utf8 COLLATE latin1_bin",
    b"SET character_set_client = NULL",
    b"SET collation_connection = 'nope'",
    b"PREPARE s FROM 'SELECT ? AS p, CONCAT(a, ?) AS q FROM t WHERE id = 1'; SET @p = 'caf\xe9'; EXECUTE s USING @p, @p",
];

/// Runs `sql` with the mariadb client on `port` (batch mode, metadata, errors kept) as a client
/// of `charset`; stdout then stderr, as bytes.
fn client(port: u16, charset: &str, sql: &[u8]) -> Vec<u8> {
    let mut child = Command::new("mariadb")
        .args([
            "--no-defaults",
            "-h127.0.0.1",
            "-uroot",
            "--batch",
            "--force",
            "--column-type-info",
        ])
        .arg(format!("--default-character-set={charset}"))
        .arg(format!("-P{port}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mariadb client is needed: apt-get install -y mariadb-client");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(sql).expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let mut all = out.stdout;
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        let line = match line.find(" at line ") {
            Some(i) => format!(
                "{}{}",
                &line[..i],
                &line[i + line[i..].find(':').unwrap_or(0)..]
            ),
            None => line.to_string(),
        };
        all.extend_from_slice(line.replace("Betula", "MariaDB").as_bytes());
        all.push(b'\n');
    }
    all
}

/// Each query's output (after `USE peer`), on the server at `port`.
fn answers(port: u16, charset: &str, queries: &[&[u8]]) -> Vec<Vec<u8>> {
    assert!(
        client(port, "utf8mb4", SETUP.as_bytes()).is_empty(),
        "setup failed"
    );
    queries
        .iter()
        .map(|q| {
            let mut sql = b"USE peer;\n".to_vec();
            sql.extend_from_slice(q);
            sql.extend_from_slice(b";\n");
            client(port, charset, &sql)
        })
        .collect()
}

/// The `Db:`/`Table:`/`Org_table:` lines of `--column-type-info` name InnoDB's temporary tables
/// differently from Betula's (empty); they are dropped, every other byte is compared.
fn without_table_lines(out: &[u8]) -> Vec<u8> {
    out.split(|&b| b == b'\n')
        .filter(|l| {
            !(l.starts_with(b"Db:") || l.starts_with(b"Table:") || l.starts_with(b"Org_table:"))
        })
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect()
}

fn compare(charset: &str, queries: &[&[u8]]) {
    let Some(maria) = mariadb_peer::MariaDb::start() else {
        eprintln!("mariadbd is not installed: nothing compared");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let betula = betula::BetulaServer::start(dir.path());
    let want = answers(maria.port, charset, queries);
    let got = answers(betula.port, charset, queries);
    let mut differ = Vec::new();
    for ((q, w), g) in queries.iter().zip(&want).zip(&got) {
        let (w, g) = (without_table_lines(w), without_table_lines(g));
        if w != g {
            differ.push(format!(
                "{}\n--- MariaDB\n{}--- Betula\n{}",
                String::from_utf8_lossy(q),
                String::from_utf8_lossy(&w).escape_debug(),
                String::from_utf8_lossy(&g).escape_debug()
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn a_latin1_client_is_answered_as_mariadb_answers() {
    compare("latin1", LATIN1_QUERIES);
}

#[test]
fn a_utf8mb3_client_gets_question_marks_outside_the_bmp() {
    compare(
        "utf8mb3",
        &[
            b"SELECT @@character_set_client, @@character_set_results, @@collation_connection",
            "SELECT _utf8mb4 0xF09F988A AS e, 'é' AS f".as_bytes(),
        ],
    );
}

/// Statements as a koi8r client writes them (`\xF6\xD5\xCB` is Жук, `\xE1\xC2` is АБ).
const KOI8R_QUERIES: &[&[u8]] = &[
    b"SELECT @@character_set_client, @@character_set_results, @@collation_connection",
    b"SELECT '\xf6\xd5\xcb' AS '\xe9\xcd\xd1', HEX('\xf6'), LENGTH('\xf6\xd5\xcb'), COLLATION('a')",
    b"INSERT INTO t VALUES (20, 'x', '\xe1\xc2', 'caf\xc3', 'y'); SELECT a, b, HEX(b), c FROM t WHERE id = 20",
    b"SELECT _utf8mb4 0xC3A9 AS e, _utf8mb4 0xD096 AS zh, 'caf\xc3\xa9'",
    b"PREPARE s FROM 'SELECT ? AS p, CONCAT(b, ?) AS q FROM t WHERE id = 20'; SET @p = '\xf6'; EXECUTE s USING @p, @p",
    b"SET NAMES koi8r COLLATE koi8r_bin; SELECT @@collation_connection, COLLATION('x')",
    b"SET NAMES utf8mb4; SELECT b FROM t WHERE id = 20",
];

#[test]
fn a_koi8r_client_is_answered_as_mariadb_answers() {
    compare("koi8r", KOI8R_QUERIES);
}
