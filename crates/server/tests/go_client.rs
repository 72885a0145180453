//! The Go MySQL driver against the real server: clients/go_client.go, built with `go build` in
//! GOPATH mode against Debian's golang-github-go-sql-driver-mysql-dev sources (no network),
//! runs through database/sql: user with a password, DDL, server-side prepared inserts
//! (re-executed and multi-row), typed reads of INT/BIGINT/DOUBLE/DECIMAL/VARCHAR/DATETIME/NULL,
//! transactions, duplicate-key and missing-table errors, information_schema queries. The
//! program exits non-zero with a message on the first mismatch. Fails with an install hint if
//! Go or the driver is missing: `apt-get install -y golang-go golang-github-go-sql-driver-mysql-dev`.
//! The same program runs again over TLS (`tls=skip-verify`) against a server with the test
//! certificate of data/README.tls.

mod betula;

use std::path::{Path, PathBuf};
use std::process::Command;

const HINT: &str = "apt-get install -y golang-go golang-github-go-sql-driver-mysql-dev";

/// The GOPATH holding github.com/go-sql-driver/mysql: $BETULA_GOPATH, else Debian's.
fn gopath() -> PathBuf {
    let path = std::env::var_os("BETULA_GOPATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/gocode"));
    assert!(
        path.join("src/github.com/go-sql-driver/mysql/driver.go")
            .is_file(),
        "go-sql-driver/mysql not found under {}: install it with: {HINT} \
         (or point BETULA_GOPATH at a GOPATH holding it)",
        path.display()
    );
    path
}

/// Builds clients/go_client.go into `dir`.
fn build(dir: &Path) -> PathBuf {
    let gopath = gopath();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/go_client.go");
    let exe = dir.join("go_client");
    let mut go = Command::new("go");
    go.arg("build")
        .arg("-o")
        .arg(&exe)
        .arg(&source)
        .env("GO111MODULE", "off")
        .env("GOPATH", &gopath)
        .env("GOFLAGS", "")
        .env("GOPROXY", "off");
    // Go needs a writable build cache; without HOME it has no default.
    if std::env::var_os("GOCACHE").is_none() && std::env::var_os("HOME").is_none() {
        go.env(
            "GOCACHE",
            std::env::temp_dir().join("betula-go-build-cache"),
        );
    }
    let out = go
        .output()
        .unwrap_or_else(|e| panic!("go not runnable ({e}): install it with: {HINT}"));
    assert!(
        out.status.success(),
        "go build failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, server: &betula::BetulaServer, extra: &[&str]) {
    let out = Command::new(exe)
        .arg(server.port.to_string())
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "go client failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "go ok");
}

#[test]
fn go_sql_driver_round_trip() {
    let build_dir = tempfile::tempdir().unwrap();
    let exe = build(build_dir.path());
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    run(&exe, &server, &[]);
}

/// The same workload over TLS (`tls=skip-verify`) against a server with the test certificate.
#[test]
fn go_sql_driver_over_tls() {
    let build_dir = tempfile::tempdir().unwrap();
    let exe = build(build_dir.path());
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let cert = data.join("tls-cert.pem").display().to_string();
    let key = data.join("tls-key.pem").display().to_string();
    let server =
        betula::BetulaServer::start_with(dir.path(), &["--ssl-cert", &cert, "--ssl-key", &key])
            .unwrap();
    run(&exe, &server, &["&tls=skip-verify"]);
}
