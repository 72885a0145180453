//! End-to-end tests of the real `betula` binary over TCP: the Rust `mysql` crate (text and
//! binary protocol), the mysql/mariadb command-line client, restart persistence, users and
//! passwords, refusal of a non-loopback bind while root has no password.

mod betula;

use betula::{code, BetulaServer};
use mysql::prelude::*;
use mysql::Value as MyValue;

#[test]
fn ddl_dml_and_prepared_statements() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE app").unwrap();
    c.query_drop("USE app").unwrap();
    c.query_drop(
        "CREATE TABLE items (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         name VARCHAR(40) NOT NULL, price DECIMAL(8,2), made DATETIME, KEY by_name (name))",
    )
    .unwrap();
    let ins = c
        .prep("INSERT INTO items (name, price, made) VALUES (?, ?, ?)")
        .unwrap();
    for i in 0..20u32 {
        c.exec_drop(
            &ins,
            (
                format!("item{i:02}"),
                format!("{i}.25"),
                "2024-05-06 07:08:09",
            ),
        )
        .unwrap();
    }
    assert_eq!(c.last_insert_id(), 20);
    let sel = c
        .prep("SELECT id, name, price, made FROM items WHERE id BETWEEN ? AND ? ORDER BY id")
        .unwrap();
    let rows: Vec<(u64, String, String, MyValue)> = c.exec(&sel, (3, 5)).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].0, 3);
    assert_eq!(rows[0].1, "item02");
    assert_eq!(rows[0].2, "2.25");
    assert_eq!(rows[0].3, MyValue::Date(2024, 5, 6, 7, 8, 9, 0));
    // Re-execute with other parameters (binary protocol, no re-prepare).
    let rows: Vec<(u64, String, String, MyValue)> = c.exec(&sel, (19, 100)).unwrap();
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![19, 20]);
    // Secondary-index lookup through a prepared statement.
    let n: Option<u64> = c
        .exec_first("SELECT id FROM items WHERE name = ?", ("item07",))
        .unwrap();
    assert_eq!(n, Some(8));
    let affected = {
        c.exec_drop("UPDATE items SET price = price * 2 WHERE id <= ?", (2,))
            .unwrap();
        c.affected_rows()
    };
    assert_eq!(affected, 2);
    let total: Option<String> = c.query_first("SELECT SUM(price) FROM items").unwrap();
    assert_eq!(total.as_deref(), Some("196.50"));
    c.query_drop("DELETE FROM items WHERE id > 10").unwrap();
    assert_eq!(c.affected_rows(), 10);
    let cnt: Option<i64> = c.query_first("SELECT COUNT(*) FROM items").unwrap();
    assert_eq!(cnt, Some(10));
    // NULL parameters and typed binary results.
    c.exec_drop(
        "INSERT INTO items (name, price) VALUES (?, ?)",
        ("nullprice", MyValue::NULL),
    )
    .unwrap();
    let p: Option<Option<String>> = c
        .query_first("SELECT price FROM items WHERE name = 'nullprice'")
        .unwrap();
    assert_eq!(p, Some(None));
    // Multi-statement text returns each result.
    let mut r = c.query_iter("SELECT 1; SELECT 2, 3").unwrap();
    let mut sets = 0;
    while let Some(set) = r.iter() {
        sets += 1;
        assert_eq!(set.count(), 1);
    }
    assert_eq!(sets, 2);
}

#[test]
fn errors_keep_the_session_usable() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(Some("test"));
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
        .unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 1)").unwrap();
    assert_eq!(code(c.query_drop("INSERT INTO t VALUES (1, 2)")), 1062);
    match c.query_drop("INSERT INTO t VALUES (1, 2)") {
        Err(mysql::Error::MySqlError(e)) => {
            assert_eq!(e.message, "Duplicate entry '1' for key 'PRIMARY'");
            assert_eq!(e.state, "23000");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(code(c.query_drop("SELECT * FROM nope")), 1146);
    assert_eq!(code(c.query_drop("SELEC 1")), 1064);
    assert_eq!(code(c.query_drop("SELECT zz FROM t")), 1054);
    assert_eq!(code(c.query_drop("USE nodb")), 1049);
    assert_eq!(code(c.query_drop("CREATE TABLE t (a INT)")), 1050);
    assert_eq!(code(c.query_drop("DROP TABLE zz")), 1051);
    assert_eq!(code(c.query_drop("INSERT INTO t VALUES (1)")), 1136);
    assert_eq!(code(c.query_drop("INSERT INTO t VALUES (2, NULL)")), 1048);
    assert_eq!(code(c.prep("SELECT FROM WHERE")), 1064);
    // Garbage and deep nesting never kill the server.
    let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(c.query_drop(&deep).is_err());
    for junk in [
        "\u{0}\u{1}",
        "SELECT '",
        "INSERT INTO t VALUES (",
        ";;;",
        "SHOW",
        "SET @@",
        "CREATE TABLE x (a FOO)",
    ] {
        assert!(c.query_drop(junk).is_err(), "{junk:?} should fail");
    }
    // Very long operator chains are refused (1436) instead of overflowing the stack; long but
    // accepted ones work, as text and as prepared statements.
    let huge = format!("SELECT {}", vec!["1"; 100_000].join("+"));
    assert_eq!(code(c.query_drop(&huge)), 1436);
    assert_eq!(code(c.prep(&huge)), 1436);
    let long = format!("SELECT {}", vec!["1"; 2500].join("+"));
    let sum: Option<i64> = c.query_first(&long).unwrap();
    assert_eq!(sum, Some(2500));
    let stmt = c.prep(&long).unwrap();
    let sum: Option<i64> = c.exec_first(&stmt, ()).unwrap();
    assert_eq!(sum, Some(2500));
    let v: Option<i64> = c.query_first("SELECT v FROM t WHERE id = 1").unwrap();
    assert_eq!(v, Some(1));
}

#[test]
fn data_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let server = BetulaServer::start(dir.path());
        let mut c = server.conn(None);
        c.query_drop("CREATE DATABASE keep").unwrap();
        c.query_drop(
            "CREATE TABLE keep.t (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(10), KEY ks (s)) COMPRESSION='lz4'",
        )
        .unwrap();
        c.query_drop("INSERT INTO keep.t (s) VALUES ('a'), ('b'), ('c')")
            .unwrap();
        c.query_drop("INSERT INTO keep.t VALUES (3, 'x') ON DUPLICATE KEY UPDATE s = 'C'")
            .unwrap();
        c.query_drop("CREATE USER 'app'@'%' IDENTIFIED BY 'pw'")
            .unwrap();
        c.query_drop("GRANT ALL ON keep.* TO 'app'@'%'").unwrap();
        c.query_drop("CREATE SERVER srv FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'h', PORT 3307)")
            .unwrap();
        drop(c);
        assert!(server.stop().success(), "clean shutdown");
    }
    // Second run: a clean shutdown happened above; now stop without one (kill) and reopen.
    {
        let server = BetulaServer::start(dir.path());
        let mut c = server.conn(Some("keep"));
        let rows: Vec<(i64, String)> = c.query("SELECT id, s FROM t ORDER BY id").unwrap();
        assert_eq!(
            rows,
            vec![(1, "a".into()), (2, "b".into()), (3, "C".into())]
        );
        let by_index: Vec<i64> = c.query("SELECT id FROM t WHERE s = 'b'").unwrap();
        assert_eq!(by_index, vec![2]);
        c.query_drop("INSERT INTO t (s) VALUES ('d')").unwrap();
        assert_eq!(
            c.last_insert_id(),
            4,
            "AUTO_INCREMENT continues after restart"
        );
        let ddl: Vec<(String, String)> = c.query("SHOW CREATE TABLE t").unwrap();
        assert!(ddl[0].1.contains("COMPRESSION='lz4'"), "{}", ddl[0].1);
        // Foreign server definitions are in the catalog.
        let dup = c.query_drop("CREATE SERVER SRV FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'x')");
        assert!(
            matches!(dup, Err(mysql::Error::MySqlError(ref e)) if e.code == 1476),
            "{dup:?}"
        );
        c.query_drop("DROP SERVER srv").unwrap();
        // BetulaServer's Drop kills the process (no checkpoint): recovery replays the log.
    }
    let server = BetulaServer::start(dir.path());
    let mut app = server.conn_as("app", Some("pw"), Some("keep")).unwrap();
    let n: Option<i64> = app.query_first("SELECT COUNT(*) FROM t").unwrap();
    assert_eq!(n, Some(4));
    assert!(server.conn_as("app", Some("wrong"), None).is_err());
    assert_eq!(code(app.query_drop("USE test")), 1044);
}

#[test]
fn transactions_and_isolation_between_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut a = server.conn(Some("test"));
    let mut b = server.conn(Some("test"));
    a.query_drop("CREATE TABLE acct (id INT PRIMARY KEY, bal INT)")
        .unwrap();
    a.query_drop("INSERT INTO acct VALUES (1, 100)").unwrap();
    a.query_drop("START TRANSACTION").unwrap();
    a.query_drop("UPDATE acct SET bal = 0 WHERE id = 1")
        .unwrap();
    // b does not see a's uncommitted change.
    let v: Option<i64> = b.query_first("SELECT bal FROM acct WHERE id = 1").unwrap();
    assert_eq!(v, Some(100));
    // b's write waits for a's transaction; with a short lock wait timeout it fails with 1205.
    b.query_drop("SET innodb_lock_wait_timeout = 1").unwrap();
    assert_eq!(
        code(b.query_drop("UPDATE acct SET bal = 5 WHERE id = 1")),
        1205
    );
    a.query_drop("COMMIT").unwrap();
    let v: Option<i64> = b.query_first("SELECT bal FROM acct WHERE id = 1").unwrap();
    assert_eq!(v, Some(0));
    b.query_drop("UPDATE acct SET bal = 5 WHERE id = 1")
        .unwrap();
    let v: Option<i64> = a.query_first("SELECT bal FROM acct WHERE id = 1").unwrap();
    assert_eq!(v, Some(5));
    // REPEATABLE READ: b's transaction keeps reading the snapshot taken at BEGIN...
    b.query_drop("SET innodb_lock_wait_timeout = 50").unwrap();
    b.query_drop("BEGIN").unwrap();
    let v: Option<i64> = b.query_first("SELECT bal FROM acct WHERE id = 1").unwrap();
    assert_eq!(v, Some(5));
    a.query_drop("UPDATE acct SET bal = 6 WHERE id = 1")
        .unwrap();
    a.query_drop("INSERT INTO acct VALUES (2, 1)").unwrap();
    let v: Vec<(i64, i64)> = b.query("SELECT id, bal FROM acct ORDER BY id").unwrap();
    assert_eq!(v, vec![(1, 5)], "snapshot read");
    // ...while its writes read the latest committed row (no lost update of a's change).
    b.query_drop("UPDATE acct SET bal = bal + 1 WHERE id = 1")
        .unwrap();
    let v: Option<i64> = b.query_first("SELECT bal FROM acct WHERE id = 1").unwrap();
    assert_eq!(v, Some(7), "own write over the latest committed value");
    // A locking read sees the latest commit, not the snapshot.
    let v: Vec<(i64, i64)> = b
        .query("SELECT id, bal FROM acct ORDER BY id FOR UPDATE")
        .unwrap();
    assert_eq!(v, vec![(1, 7), (2, 1)]);
    b.query_drop("COMMIT").unwrap();
    let v: Vec<(i64, i64)> = b.query("SELECT id, bal FROM acct ORDER BY id").unwrap();
    assert_eq!(v, vec![(1, 7), (2, 1)]);
    // READ COMMITTED: every read sees the latest commits.
    b.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
        .unwrap();
    b.query_drop("BEGIN").unwrap();
    a.query_drop("DELETE FROM acct WHERE id = 2").unwrap();
    let n: Option<i64> = b.query_first("SELECT COUNT(*) FROM acct").unwrap();
    assert_eq!(n, Some(1));
    b.query_drop("COMMIT").unwrap();
    let iso: Option<String> = b.query_first("SELECT @@transaction_isolation").unwrap();
    assert_eq!(iso.as_deref(), Some("READ-COMMITTED"));
}

#[test]
fn refuses_non_loopback_bind_without_root_password() {
    let dir = tempfile::tempdir().unwrap();
    let err = BetulaServer::start_with(dir.path(), &["--bind", "0.0.0.0"])
        .err()
        .expect("must refuse to start");
    assert!(err.contains("root has no password"), "{err}");
    // Give root a password, then the same bind is accepted.
    {
        let server = BetulaServer::start(dir.path());
        let mut c = server.conn(None);
        c.query_drop("ALTER USER 'root'@'%' IDENTIFIED BY 'sekret'")
            .unwrap();
        server.stop();
    }
    let server = BetulaServer::start_with(dir.path(), &["--bind", "0.0.0.0"]).unwrap();
    assert!(server.conn_as("root", None, None).is_err());
    let mut c = server.conn_as("root", Some("sekret"), None).unwrap();
    let one: Option<i64> = c.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
}

#[test]
fn config_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("betula.conf");
    std::fs::write(
        &cfg,
        "# test config\ncache_size = 32M\ndurability = periodic:20\ncompression = snappy\n",
    )
    .unwrap();
    let data = dir.path().join("data");
    let server = BetulaServer::start_with(&data, &["--config", cfg.to_str().unwrap()]).unwrap();
    let mut c = server.conn(None);
    let rows: Vec<(String, String)> = c.query("SHOW VARIABLES LIKE 'betula_%'").unwrap();
    assert!(
        rows.contains(&("betula_compression".into(), "snappy".into())),
        "{rows:?}"
    );
    assert!(
        rows.contains(&("betula_cache_size".into(), (32u64 << 20).to_string())),
        "{rows:?}"
    );
    let bad = dir.path().join("bad.conf");
    std::fs::write(&bad, "durability = sometimes\n").unwrap();
    let err =
        BetulaServer::start_with(&dir.path().join("d2"), &["--config", bad.to_str().unwrap()])
            .err()
            .unwrap();
    assert!(err.contains("durability"), "{err}");
}

fn mysql_cli() -> String {
    for c in ["mariadb", "mysql"] {
        if std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok()
        {
            return c.into();
        }
    }
    panic!("mysql/mariadb command-line client not found: apt-get install -y mariadb-client");
}

#[test]
fn mysql_command_line_client() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let run = |args: &[&str], sql: &str| {
        let out = std::process::Command::new(mysql_cli())
            .args([
                "-h",
                "127.0.0.1",
                "-P",
                &server.port.to_string(),
                "-u",
                "root",
                "--batch",
            ])
            .args(args)
            .arg("-e")
            .arg(sql)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.success(),
        )
    };
    let (out, err, ok) = run(
        &[],
        "CREATE DATABASE cli; USE cli; CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(5)); \
         INSERT INTO t VALUES (1,'x'),(2,NULL); SELECT * FROM t ORDER BY id",
    );
    assert!(ok, "{err}");
    assert_eq!(out, "id\ts\n1\tx\n2\tNULL\n");
    let (out, _, ok) = run(&["cli"], "SELECT @@version_comment LIMIT 1; SHOW TABLES");
    assert!(ok);
    assert!(
        out.contains("Betula") && out.contains("Tables_in_cli\nt\n"),
        "{out}"
    );
    let (_, err, ok) = run(&["cli"], "INSERT INTO t VALUES (1,'dup')");
    assert!(!ok);
    assert!(err.contains("ERROR 1062 (23000)"), "{err}");
}

#[test]
fn result_column_names_are_the_select_text() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(Some("test"));
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    c.query_drop("INSERT INTO t VALUES (1, 2)").unwrap();
    let r = c
        .query_iter("SELECT id, t.v, COUNT(*), DATE_ADD('2024-01-31', INTERVAL 1 MONTH), v IS NOT NULL, 'txt', v + 1 AS w FROM t GROUP BY id")
        .unwrap();
    let names: Vec<String> = r
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![
            "id",
            "v",
            "COUNT(*)",
            "DATE_ADD('2024-01-31', INTERVAL 1 MONTH)",
            "v IS NOT NULL",
            "txt",
            "w"
        ]
    );
}

/// The MariaDB-style definition (display widths, kept table options, index comments, TEXT(n) size
/// class) is stored as SHOW CREATE TABLE text and must parse again at start-up unchanged.
#[test]
fn mariadb_style_definition_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let create = "CREATE TABLE test.o (a INT, b BOOL, c INT(5) UNSIGNED, t TEXT(10), \
                  v VARCHAR(65000), KEY ka (a) COMMENT 'x''y', UNIQUE KEY kb (b) COMMENT 'z') \
                  MIN_ROWS=1 MAX_ROWS=100 AVG_ROW_LENGTH=30 PACK_KEYS=0 CHECKSUM=1 DELAY_KEY_WRITE=1 \
                  KEY_BLOCK_SIZE=8 COMMENT='c' CONNECTION='srv' ROW_FORMAT=COMPACT";
    let before = {
        let server = BetulaServer::start(dir.path());
        let mut c = server.conn(None);
        c.query_drop("SET SESSION sql_mode = ''").unwrap();
        c.query_drop(create).unwrap();
        c.query_drop("ALTER TABLE test.o MAX_ROWS=5 COMMENT='d'")
            .unwrap();
        c.query_drop("INSERT INTO test.o (a, b) VALUES (1, 1)")
            .unwrap();
        let ddl: Vec<(String, String)> = c.query("SHOW CREATE TABLE test.o").unwrap();
        drop(c);
        assert!(server.stop().success(), "clean shutdown");
        ddl[0].1.clone()
    };
    for part in [
        "`a` int(11) DEFAULT NULL",
        "`b` tinyint(1) DEFAULT NULL",
        "`c` int(5) unsigned DEFAULT NULL",
        "`t` tinytext",
        "`v` mediumtext",
        "KEY `ka` (`a`) COMMENT 'x''y'",
        "UNIQUE KEY `kb` (`b`) COMMENT 'z'",
        "MIN_ROWS=1 MAX_ROWS=5 AVG_ROW_LENGTH=30 PACK_KEYS=0 CHECKSUM=1 DELAY_KEY_WRITE=1 \
         ROW_FORMAT=COMPACT KEY_BLOCK_SIZE=8 COMMENT='d' CONNECTION='srv'",
    ] {
        assert!(before.contains(part), "missing {part:?} in {before}");
    }
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(Some("test"));
    let after: Vec<(String, String)> = c.query("SHOW CREATE TABLE o").unwrap();
    assert_eq!(after[0].1, before, "definition changed across a restart");
    let rows: Vec<(i64, i64)> = c.query("SELECT a, b FROM o").unwrap();
    assert_eq!(rows, vec![(1, 1)]);
}
