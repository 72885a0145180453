//! A JDBC driver against the real server: clients/JdbcClient.java, compiled with javac at test
//! time, runs through MariaDB Connector/J (Debian's libmariadb-java) with server-side prepared
//! statements (`useServerPrepStmts=true`): user with a password, DDL, prepared and batch
//! inserts, typed reads of INT/BIGINT/DOUBLE/DECIMAL/VARCHAR/DATETIME/NULL, transactions,
//! duplicate-key errors and DatabaseMetaData calls. The program exits non-zero with a message
//! on the first mismatch. Fails with an install hint if the JDK or the driver jar is missing:
//! `apt-get install -y default-jdk-headless libmariadb-java`. The same program runs again over TLS
//! (`useSsl=true&trustServerCertificate=true`) against a server with the test certificate of
//! data/README.tls.

mod betula;
mod java;

#[test]
fn jdbc_connector_j_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let out = java::run_client("JdbcClient", server.port);
    assert_eq!(out.trim(), "jdbc ok");
}

#[test]
fn jdbc_connector_j_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let cert = data.join("tls-cert.pem").display().to_string();
    let key = data.join("tls-key.pem").display().to_string();
    let server =
        betula::BetulaServer::start_with(dir.path(), &["--ssl-cert", &cert, "--ssl-key", &key])
            .unwrap();
    let extra = "&useSsl=true&trustServerCertificate=true";
    let out = java::run_client_with("JdbcClient", server.port, &[extra]);
    assert_eq!(out.trim(), "jdbc ok");
}
