//! Accounts over TCP against the real `betula` binary (design.md ACC1-ACC9): host patterns pick
//! the account, grants are per account, each plugin logs in with the clients that speak it (the
//! mariadb command-line client through libmariadb's client plugins, PyMySQL with pynacl and
//! cryptography), wrong passwords and REQUIRE SSL over plaintext are 1045, and SHOW CREATE USER /
//! SHOW GRANTS print what MariaDB 10.11 prints for the same statements.

mod betula;

use std::process::Command;

use betula::{code, BetulaServer};
use mysql::prelude::*;

fn one(c: &mut mysql::Conn, sql: &str) -> String {
    let v: Option<String> = c.query_first(sql).unwrap();
    v.unwrap_or_default()
}

#[test]
fn host_patterns_pick_the_most_specific_account() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut root = server.conn(None);
    for sql in [
        "CREATE DATABASE d1",
        "CREATE USER h@'127.0.0.1' IDENTIFIED BY 'a'",
        "CREATE USER h@'%' IDENTIFIED BY 'b'",
        "CREATE USER h@'10.%' IDENTIFIED BY 'c'",
        "CREATE USER h@'10.0.0.0/255.0.0.0' IDENTIFIED BY 'c'",
        "GRANT ALL ON d1.* TO h@'%'",
    ] {
        root.query_drop(sql).unwrap();
    }
    // 127.0.0.1 is exact: it wins over '%', and only its password opens it.
    let mut c = server.conn_as("h", Some("a"), None).unwrap();
    assert_eq!(one(&mut c, "SELECT CURRENT_USER()"), "h@127.0.0.1");
    assert_eq!(one(&mut c, "SELECT USER()"), "h@127.0.0.1");
    // Grants are the account's: h@'%' has d1, h@'127.0.0.1' has not.
    assert_eq!(code(c.query_drop("USE d1")), 1044);
    assert_eq!(code(server.conn_as("h", Some("b"), None)), 1045);
    assert_eq!(code(server.conn_as("h", Some("c"), None)), 1045);
    root.query_drop("DROP USER h@'127.0.0.1'").unwrap();
    let mut c = server.conn_as("h", Some("b"), None).unwrap();
    assert_eq!(one(&mut c, "SELECT CURRENT_USER()"), "h@%");
    c.query_drop("USE d1").unwrap();
    // localhost matches the loopback address and is more specific than '%'.
    root.query_drop("CREATE USER h@localhost IDENTIFIED BY 'l'")
        .unwrap();
    let mut c = server.conn_as("h", Some("l"), None).unwrap();
    assert_eq!(one(&mut c, "SELECT CURRENT_USER()"), "h@localhost");
    // Anonymous accounts come after every account of the user's own name.
    root.query_drop("CREATE USER ''@'127.0.0.1' IDENTIFIED BY 'anon'")
        .unwrap();
    let mut c = server.conn_as("stranger", Some("anon"), None).unwrap();
    assert_eq!(one(&mut c, "SELECT CURRENT_USER()"), "@127.0.0.1");
    assert_eq!(one(&mut c, "SELECT USER()"), "stranger@127.0.0.1");
    assert_eq!(code(server.conn_as("h", Some("anon"), None)), 1045);
}

#[test]
fn account_statements_keyed_by_user_and_host() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut root = server.conn(None);
    root.query_drop("CREATE USER u@'10.%'").unwrap();
    assert_eq!(code(root.query_drop("CREATE USER u@'10.%'")), 1396);
    root.query_drop("CREATE USER IF NOT EXISTS u@'10.%'")
        .unwrap();
    assert_eq!(code(root.query_drop("DROP USER u")), 1396);
    assert_eq!(code(root.query_drop("DROP USER u@'%'")), 1396);
    assert_eq!(
        code(root.query_drop("SET PASSWORD FOR u = PASSWORD('x')")),
        1133
    );
    assert_eq!(code(root.query_drop("GRANT ALL ON *.* TO u")), 1133);
    assert_eq!(code(root.query_drop("REVOKE ALL ON *.* FROM u")), 1141);
    assert_eq!(
        code(root.query_drop("SET PASSWORD FOR u@'10.%' = 'nothex'")),
        1372
    );
    assert_eq!(
        code(root.query_drop("CREATE USER v IDENTIFIED VIA sha256_password")),
        1524
    );
    assert_eq!(code(root.query_drop("CREATE USER v REQUIRE X509")), 1235);
    root.query_drop("RENAME USER u@'10.%' TO w@'10.0.%'")
        .unwrap();
    assert_eq!(
        one(&mut root, "SHOW CREATE USER w@'10.0.%'"),
        "CREATE USER `w`@`10.0.%`"
    );
    assert_eq!(code(root.query_drop("RENAME USER u@'10.%' TO x")), 1396);
    root.query_drop("DROP USER w@'10.0.%'").unwrap();
    assert_eq!(
        code(root.query_drop("DROP USER root@'%'")),
        1396,
        "last root"
    );
}

/// The expected texts are MariaDB 10.11's for the same statements.
#[test]
fn show_create_user_and_grants_as_mariadb() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut root = server.conn(None);
    root.query_drop(
        "CREATE USER c2 IDENTIFIED VIA mysql_native_password USING PASSWORD('x') REQUIRE SSL",
    )
    .unwrap();
    assert_eq!(
        one(&mut root, "SHOW CREATE USER c2"),
        "CREATE USER `c2`@`%` IDENTIFIED BY PASSWORD \
         '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' REQUIRE SSL"
    );
    root.query_drop(
        "CREATE USER c3@'10.%' IDENTIFIED BY PASSWORD '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'",
    )
    .unwrap();
    assert_eq!(
        one(&mut root, "SHOW CREATE USER c3@'10.%'"),
        "CREATE USER `c3`@`10.%` IDENTIFIED BY PASSWORD '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'"
    );
    root.query_drop("CREATE USER s2 IDENTIFIED VIA ed25519 USING PASSWORD('secret')")
        .unwrap();
    assert_eq!(
        one(&mut root, "SHOW CREATE USER s2"),
        "CREATE USER `s2`@`%` IDENTIFIED VIA ed25519 USING \
         'ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY'"
    );
    root.query_drop("CREATE USER e1 IDENTIFIED VIA ed25519")
        .unwrap();
    assert_eq!(
        one(&mut root, "SHOW CREATE USER e1"),
        "CREATE USER `e1`@`%` IDENTIFIED VIA ed25519"
    );
    root.query_drop("CREATE USER e0").unwrap();
    root.query_drop("ALTER USER e0 REQUIRE SSL").unwrap();
    let grants: Vec<String> = root.query("SHOW GRANTS FOR e0").unwrap();
    assert_eq!(grants, vec!["GRANT USAGE ON *.* TO `e0`@`%` REQUIRE SSL"]);
    root.query_drop("CREATE USER c4 IDENTIFIED BY 'x'").unwrap();
    root.query_drop("GRANT SELECT ON test.* TO c4").unwrap();
    let grants: Vec<String> = root.query("SHOW GRANTS FOR c4").unwrap();
    assert_eq!(
        grants[0],
        "GRANT USAGE ON *.* TO `c4`@`%` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227'"
    );
    // SET PASSWORD keeps the plugin; a caching_sha2_password form is salted.
    root.query_drop("SET PASSWORD FOR s2 = PASSWORD('x')")
        .unwrap();
    let s2 = one(&mut root, "SHOW CREATE USER s2");
    assert!(s2.contains("IDENTIFIED VIA ed25519 USING '"), "{s2}");
    root.query_drop("CREATE USER s3 IDENTIFIED WITH caching_sha2_password BY 'pw'")
        .unwrap();
    let s3 = one(&mut root, "SHOW CREATE USER s3");
    assert!(
        s3.starts_with("CREATE USER `s3`@`%` IDENTIFIED VIA caching_sha2_password USING '$A$005$"),
        "{s3}"
    );
}

fn mariadb_cli(port: u16, user: &str, pw: &str) -> Result<String, String> {
    let out = Command::new("mariadb")
        .args([
            "--no-defaults",
            "-h127.0.0.1",
            &format!("-P{port}"),
            &format!("-u{user}"),
            &format!("-p{pw}"),
            "--plugin-dir=/usr/lib/x86_64-linux-gnu/libmariadb3/plugin",
            "-N",
            "-e",
            "SELECT CURRENT_USER()",
        ])
        .output()
        .expect("mariadb client (apt-get install -y mariadb-client)");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const PY_LOGIN: &str = r#"
import sys, pymysql
port, user, pw = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    c = pymysql.connect(host='127.0.0.1', port=port, user=user, password=pw)
    cur = c.cursor(); cur.execute("SELECT CURRENT_USER()"); print(cur.fetchone()[0])
except pymysql.err.OperationalError as e:
    print("error", e.args[0])
"#;

fn pymysql(port: u16, user: &str, pw: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", PY_LOGIN, &port.to_string(), user, pw])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python3 with pymysql, pynacl and cryptography is required:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn each_plugin_logs_in_with_real_clients() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut root = server.conn(None);
    for sql in [
        "CREATE USER n IDENTIFIED VIA mysql_native_password USING PASSWORD('pw n')",
        "CREATE USER p IDENTIFIED BY PASSWORD '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'",
        "CREATE USER e IDENTIFIED VIA ed25519 USING PASSWORD('pw e')",
        "CREATE USER s IDENTIFIED WITH caching_sha2_password BY 'pw s'",
        "CREATE USER t IDENTIFIED WITH caching_sha2_password BY 'pw t'",
        "CREATE USER r IDENTIFIED BY 'pw r' REQUIRE SSL",
    ] {
        root.query_drop(sql).unwrap();
    }
    let port = server.port;
    for (user, pw) in [("n", "pw n"), ("p", "secret"), ("e", "pw e"), ("s", "pw s")] {
        // PyMySQL first: for s it is the full authentication (RSA), the CLI then takes the
        // fast path from the cache.
        assert_eq!(
            pymysql(port, user, pw),
            format!("{user}@%"),
            "pymysql {user}"
        );
        assert_eq!(pymysql(port, user, "wrong"), "error 1045", "pymysql {user}");
        assert_eq!(
            mariadb_cli(port, user, pw).as_deref(),
            Ok(format!("{user}@%").as_str()),
            "mariadb {user}"
        );
        let err = mariadb_cli(port, user, "wrong").unwrap_err();
        assert!(err.contains("1045"), "mariadb {user}: {err}");
    }
    assert!(dir
        .path()
        .join(betula_server::protocol::auth_sha2::RSA_KEY_FILE)
        .exists());
    // Not yet: the CLI's own full authentication over plaintext (libmariadb's RSA exchange)
    // is refused; PyMySQL's is above, and the CLI then logs in by the fast path.
    let err = mariadb_cli(port, "t", "pw t").unwrap_err();
    assert!(err.contains("1045"), "{err}");
    // A new password empties the fast-path cache: the old one no longer opens the account.
    root.query_drop("SET PASSWORD FOR s = PASSWORD('new s')")
        .unwrap();
    assert!(mariadb_cli(port, "s", "pw s").is_err());
    assert_eq!(pymysql(port, "s", "new s"), "s@%");
    assert_eq!(mariadb_cli(port, "s", "new s").as_deref(), Ok("s@%"));
    // REQUIRE SSL over plaintext: the same 1045 as a wrong password.
    assert_eq!(pymysql(port, "r", "pw r"), "error 1045");
    assert_eq!(code(server.conn_as("r", Some("pw r"), None)), 1045);
}
