//! Drives the protocol server with PyMySQL (`pip install pymysql`): a
//! text-protocol client that does not negotiate DEPRECATE_EOF, so classic
//! EOF terminators are exercised, plus multi-results and status flags.

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn pymysql_round_trips() {
    let python = common::require_program(&["python3"], "apt-get install -y python3");
    let has_pymysql = Command::new(&python)
        .args(["-c", "import pymysql"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(has_pymysql, "python3 cannot import pymysql: install it with `pip install pymysql` (or apt-get install -y python3-pymysql)");
    let (server, state) = common::start();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/py/pymysql_client.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(server.local_addr().port().to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pymysql script failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "pymysql ok");
    assert_eq!(state.kv.lock().unwrap().len(), 1);
    server.shutdown().unwrap();
}
