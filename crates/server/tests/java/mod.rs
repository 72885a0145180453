//! Running the Java clients of `tests/clients/` through MariaDB Connector/J: the driver jar
//! ($BETULA_JDBC_JAR, else Debian's libmariadb-java location), a client compiled with javac into
//! a temporary directory, and the client run against a server's port. Missing tools fail the test
//! with the packages to install.

use std::path::{Path, PathBuf};
use std::process::Command;

const HINT: &str = "apt-get install -y default-jdk-headless libmariadb-java";

/// The Connector/J jar: $BETULA_JDBC_JAR, else Debian's libmariadb-java location.
pub fn driver_jar() -> PathBuf {
    let jar = std::env::var_os("BETULA_JDBC_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/java/mariadb-java-client.jar"));
    assert!(
        jar.is_file(),
        "JDBC driver jar {} not found: install it with: {HINT} \
         (or point BETULA_JDBC_JAR at a Connector/J jar)",
        jar.display()
    );
    jar
}

/// Runs `cmd`; its standard output, or the test fails with both outputs.
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

/// Compiles `tests/clients/<class>.java` and runs it with the server's `port` as its argument;
/// its standard output.
pub fn run_client(class: &str, port: u16) -> String {
    run_client_with(class, port, &[])
}

/// [`run_client`] with more arguments after the port.
pub fn run_client_with(class: &str, port: u16, extra: &[&str]) -> String {
    let jar = driver_jar();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(format!("{class}.java"));
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
    let classpath = std::env::join_paths([classes.path(), jar.as_path()]).unwrap();
    run(
        Command::new("java")
            .arg("-cp")
            .arg(classpath)
            .arg(class)
            .arg(port.to_string())
            .args(extra),
        &format!("java {class}"),
    )
}
