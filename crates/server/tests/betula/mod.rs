//! Starts the real `betula` binary (built by cargo) on an ephemeral port with a data directory,
//! for integration tests. Test-only helper shared by sql_server.rs, conformance.rs and
//! sysbench.rs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mysql::{Conn, OptsBuilder};

pub struct BetulaServer {
    child: Option<Child>,
    pub port: u16,
    pub datadir: PathBuf,
    /// The server's first line ("betula: listening on ...").
    pub banner: String,
}

impl BetulaServer {
    /// Starts `betula serve --datadir dir --port 0` and waits for its "listening on" line.
    pub fn start(dir: &Path) -> BetulaServer {
        Self::start_with(dir, &[]).expect("betula serve did not start")
    }

    /// Like `start` with extra arguments; `Err(stderr)` if the server exits instead.
    pub fn start_with(dir: &Path, extra: &[&str]) -> Result<BetulaServer, String> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_betula"))
            .arg("serve")
            .arg("--datadir")
            .arg(dir)
            .arg("--port")
            .arg("0")
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn betula");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        let mut reader = BufReader::new(stdout);
        reader.read_line(&mut line).ok();
        // Keep draining stdout so later prints never hit a closed pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while reader.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        let Some(addr) = line.split("listening on ").nth(1) else {
            let out = child.wait_with_output().expect("wait");
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        };
        let port: u16 = addr
            .split_whitespace()
            .next()
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .expect("port in the listening line");
        Ok(BetulaServer {
            child: Some(child),
            port,
            datadir: dir.to_path_buf(),
            banner: line.trim_end().to_string(),
        })
    }

    pub fn conn(&self, db: Option<&str>) -> Conn {
        self.conn_as("root", None, db).expect("connect")
    }

    pub fn conn_as(&self, user: &str, pass: Option<&str>, db: Option<&str>) -> mysql::Result<Conn> {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some(user))
            .pass(pass)
            .db_name(db)
            .prefer_socket(false);
        Conn::new(opts)
    }

    /// Stops with SIGTERM (clean shutdown: final checkpoint) and waits.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        for _ in 0..200 {
            if let Ok(Some(st)) = child.try_wait() {
                return st;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        child.wait().expect("wait")
    }
}

impl BetulaServer {
    /// Waits up to `timeout` for the server to exit on its own (SHUTDOWN); its exit status, or
    /// None if it had to be killed.
    pub fn wait_exit(mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let mut child = self.child.take().expect("running");
        let end = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < end {
            if let Ok(Some(st)) = child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }
}

impl Drop for BetulaServer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The MySQL error code of a failed call.
pub fn code<T: std::fmt::Debug>(r: mysql::Result<T>) -> u16 {
    match r {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("expected a MySQL error, got {other:?}"),
    }
}

/// Renders a text-protocol value as the conformance files write it.
pub fn render(v: &mysql::Value) -> String {
    match v {
        mysql::Value::NULL => "NULL".into(),
        mysql::Value::Bytes(b) => String::from_utf8_lossy(b)
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\t', "\\t"),
        other => other.as_sql(true).trim_matches('\'').to_string(),
    }
}

/// A root connection to any MySQL-protocol server on 127.0.0.1:`port` over TCP.
pub fn root_conn(port: u16) -> Conn {
    Conn::new(
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(port)
            .user(Some("root"))
            .prefer_socket(false),
    )
    .unwrap_or_else(|e| panic!("connect to 127.0.0.1:{port}: {e}"))
}

/// Every row of a query, values rendered as text ([`render`]).
pub fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    use mysql::prelude::Queryable;
    let rs: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rs.into_iter()
        .map(|r| r.unwrap().iter().map(render).collect())
        .collect()
}

/// The first value of a query's first row (empty when there is none).
pub fn one(c: &mut Conn, sql: &str) -> String {
    rows(c, sql)
        .first()
        .and_then(|r| r.first().cloned())
        .unwrap_or_default()
}
