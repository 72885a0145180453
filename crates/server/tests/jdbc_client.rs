//! A JDBC driver against the real server: clients/JdbcClient.java, compiled with javac at test
//! time, runs through MariaDB Connector/J (Debian's libmariadb-java) with server-side prepared
//! statements (`useServerPrepStmts=true`): user with a password, DDL, prepared and batch
//! inserts, typed reads of INT/BIGINT/DOUBLE/DECIMAL/VARCHAR/DATETIME/NULL, transactions,
//! duplicate-key errors and DatabaseMetaData calls. The program exits non-zero with a message
//! on the first mismatch. Fails with an install hint if the JDK or the driver jar is missing:
//! `apt-get install -y default-jdk-headless libmariadb-java`.

mod betula;
mod java;

#[test]
fn jdbc_connector_j_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let out = java::run_client("JdbcClient", server.port);
    assert_eq!(out.trim(), "jdbc ok");
}
