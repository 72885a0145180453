//! A JDBC driver against the real server: clients/JdbcClient.java, compiled with javac at test
//! time, runs through MariaDB Connector/J (Debian's libmariadb-java) with server-side prepared
//! statements (`useServerPrepStmts=true`): user with a password, DDL, prepared and batch
//! inserts, typed reads of INT/BIGINT/DOUBLE/DECIMAL/VARCHAR/DATETIME/NULL, transactions,
//! duplicate-key errors and DatabaseMetaData calls. The program exits non-zero with a message
//! on the first mismatch. Fails with an install hint if the JDK or the driver jar is missing:
//! `apt-get install -y default-jdk-headless libmariadb-java`.

mod betula;

use std::path::{Path, PathBuf};
use std::process::Command;

const HINT: &str = "apt-get install -y default-jdk-headless libmariadb-java";

/// The Connector/J jar: $BETULA_JDBC_JAR, else Debian's libmariadb-java location.
fn driver_jar() -> PathBuf {
    let jar = std::env::var_os("BETULA_JDBC_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/java/mariadb-java-client.jar"));
    assert!(
        jar.is_file(),
        "JDBC driver jar {} not found: this test needs MariaDB Connector/J; install it with: {HINT} \
         (or point BETULA_JDBC_JAR at a Connector/J jar)",
        jar.display()
    );
    jar
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} not runnable ({e}): install it with: {HINT}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn jdbc_connector_j_round_trip() {
    let jar = driver_jar();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/JdbcClient.java");
    let classes = tempfile::tempdir().unwrap();
    run(
        Command::new("javac")
            .arg("-cp")
            .arg(&jar)
            .arg("-d")
            .arg(classes.path())
            .arg(&source),
        "javac",
    );
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let classpath = std::env::join_paths([classes.path(), jar.as_path()]).unwrap();
    let out = run(
        Command::new("java")
            .arg("-cp")
            .arg(classpath)
            .arg("JdbcClient")
            .arg(server.port.to_string()),
        "java JdbcClient",
    );
    assert_eq!(out.trim(), "jdbc ok");
}
