//! A `mariadb-dump` of a real MariaDB InnoDB database (several column types, a UNIQUE and secondary
//! indexes, AUTO_INCREMENT past deleted rows, BLOBs with every byte that needs escaping) loads into Betula
//! unchanged with the `mariadb` client, and every query of `QUERIES` answers as MariaDB answers it:
//! the rows, CHECKSUM TABLE, the columns and indexes information_schema describes, index scans, and the
//! next AUTO_INCREMENT value.
//!
//! With `mariadbd` installed (Debian's mariadb-server) the dump and MariaDB's answers are made fresh from
//! `tests/dumps/shop-schema.sql`; without it the committed `shop-innodb.sql` and `shop-innodb.expected`
//! (made the same way, by `BETULA_RECORD_DUMP=1 cargo test -p betula-server --test innodb_dump`) are used.

mod betula;
mod mariadb_peer;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use betula::BetulaServer;

/// Asked of both servers, in order, after the load (the INSERTs last: they change the data).
const QUERIES: &[&str] = &[
    "SELECT * FROM customers ORDER BY id",
    "SELECT * FROM orders ORDER BY id",
    "SELECT * FROM empty_table",
    "CHECKSUM TABLE customers, orders, empty_table",
    "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, EXTRA \
     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME, ORDINAL_POSITION",
    "SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS \
     WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
    "SELECT id, born FROM customers FORCE INDEX (by_born) WHERE born > '1990-01-01' ORDER BY born",
    "SELECT tier, credit FROM customers FORCE INDEX (by_tier_credit) ORDER BY tier, credit",
    "SELECT COUNT(*), SUM(amount) FROM orders FORCE INDEX (cust) WHERE customer_id = 1",
    "SELECT email FROM customers WHERE email = 'c@x.org'",
    "SELECT HEX(avatar), LENGTH(note) FROM customers ORDER BY id",
    "INSERT INTO customers (email) VALUES ('e@x.org'); SELECT LAST_INSERT_ID()",
    "INSERT INTO orders (customer_id, amount) VALUES (2, 1); SELECT LAST_INSERT_ID()",
];

fn dumps() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dumps")
}

/// Runs `sql` with the mariadb client against `port` (batch mode, no column names); its output.
fn client(port: u16, db: Option<&str>, sql: &[u8]) -> String {
    let mut child = Command::new("mariadb")
        .args(["--no-defaults", "-h127.0.0.1", "-uroot", "--batch", "-N"])
        .arg(format!("-P{port}"))
        .args(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mariadb client is needed: apt-get install -y mariadb-client");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(sql)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "mariadb failed or complained: {stderr}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every query's answer, one block per query.
fn answers(port: u16) -> String {
    QUERIES
        .iter()
        .map(|q| format!("> {q}\n{}", client(port, Some("shop"), q.as_bytes())))
        .collect()
}

/// The dump and MariaDB's answers: fresh from a private MariaDB if there is one, else the committed ones.
fn dump_and_expected() -> (Vec<u8>, String) {
    let (sql, expected) = (
        dumps().join("shop-innodb.sql"),
        dumps().join("shop-innodb.expected"),
    );
    let Some(peer) = mariadb_peer::MariaDb::start() else {
        eprintln!("mariadbd is not installed: using the committed dump");
        return (
            std::fs::read(sql).unwrap(),
            std::fs::read_to_string(expected).unwrap(),
        );
    };
    client(
        peer.port,
        None,
        &std::fs::read(dumps().join("shop-schema.sql")).unwrap(),
    );
    let dump = peer.dump(&["--databases", "shop"]);
    let answers = answers(peer.port);
    if std::env::var_os("BETULA_RECORD_DUMP").is_some() {
        std::fs::write(&sql, &dump).unwrap();
        std::fs::write(&expected, &answers).unwrap();
    }
    (dump, answers)
}

#[test]
fn a_mariadb_dump_of_an_innodb_database_loads_unchanged() {
    let (dump, expected) = dump_and_expected();
    let text = String::from_utf8_lossy(&dump);
    assert!(text.contains("ENGINE=InnoDB") && text.contains("LOCK TABLES `customers` WRITE"));
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    client(server.port, None, &dump);
    let got = answers(server.port);
    for (g, e) in got.split("> ").zip(expected.split("> ")) {
        assert_eq!(g, e, "Betula's answer differs from MariaDB's");
    }
    assert_eq!(got, expected);
}
