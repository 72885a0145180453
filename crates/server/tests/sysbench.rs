//! A short sysbench OLTP read/write run against the real server: prepare, run 5 seconds, and
//! require zero errors other than the occasional deadlock between two writers (retried). Fails with a clear message if sysbench is not installed
//! (`apt-get install -y sysbench`).

mod betula;

use mysql::prelude::*;
use std::process::Command;

fn sysbench(port: u16, cmd: &str) -> (bool, String) {
    let out = Command::new("sysbench")
        .args([
            "oltp_read_write",
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            "--mysql-user=root",
            "--mysql-db=sbtest",
            "--tables=1",
            "--table-size=1000",
            "--threads=2",
            "--time=5",
            // Only deadlocks may be retried (two writers can lock the same rows in opposite
            // orders, as with InnoDB); a lock wait timeout or any other error fails the run.
            "--mysql-ignore-errors=1213",
            cmd,
        ])
        .output()
        .unwrap_or_else(|e| panic!("sysbench not runnable ({e}): apt-get install -y sysbench"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn sysbench_oltp_read_write_has_no_errors() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    server
        .conn(None)
        .query_drop("CREATE DATABASE sbtest")
        .unwrap();
    let (ok, out) = sysbench(server.port, "prepare");
    assert!(ok, "sysbench prepare failed:\n{out}");
    let (ok, out) = sysbench(server.port, "run");
    assert!(ok, "sysbench run failed:\n{out}");
    let field = |name: &str| -> u64 {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no '{name}' in sysbench output:\n{out}"))
    };
    let txns = field("transactions");
    assert!(txns > 0, "{out}");
    // Deadlocks need two transactions to pick the same rows (4 writes each among 1000 rows).
    assert!(field("ignored errors") * 20 <= txns, "{out}");
    assert_eq!(field("reconnects"), 0, "{out}");
    let mut c = server.conn(Some("sbtest"));
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM sbtest1").unwrap();
    assert_eq!(n, Some(1000), "delete+insert pairs keep the row count");
}
