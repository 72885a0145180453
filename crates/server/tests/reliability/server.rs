//! One `betula serve` process for the reliability tests: started on an ephemeral port with a data
//! directory, a config file and extra environment variables, its stderr kept in a file (the log the tests
//! search for error lines and panics), killed with SIGKILL or stopped with SIGTERM, and measured
//! (resident memory from /proc/<pid>/status).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql::{Conn, OptsBuilder};

/// How a server is started.
#[derive(Clone, Debug, Default)]
pub struct ServerSpec {
    pub datadir: PathBuf,
    /// `key = value` lines of the config file (none: no file).
    pub config: Vec<(String, String)>,
    /// Environment variables of the process.
    pub env: Vec<(String, String)>,
}

/// Why a start failed.
#[derive(Debug)]
pub struct StartError {
    pub stderr: String,
}

/// A running server.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub pid: u32,
    pub stderr_path: PathBuf,
}

/// Reads a whole log file (empty if missing).
pub fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

impl Server {
    /// Starts the server and waits for its "listening on" line. Its stderr is appended to
    /// `<datadir>.log`, so one file holds the log of every restart of a data directory.
    pub fn start(spec: &ServerSpec) -> Result<Server, StartError> {
        let stderr_path = log_path(&spec.datadir);
        let mut child = command(spec).spawn().expect("spawn betula");
        let stdout = child.stdout.take().expect("stdout");
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).ok();
        std::thread::spawn(move || {
            let mut sink = String::new();
            while reader.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        let port = line
            .split("listening on ")
            .nth(1)
            .and_then(|a| a.split_whitespace().next())
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(StartError {
                stderr: read_log(&stderr_path),
            });
        };
        Ok(Server {
            pid: child.id(),
            child: Some(child),
            port,
            stderr_path,
        })
    }

    /// Starts the server and kills it with SIGKILL after `delay`, whatever it is doing then (recovering,
    /// most likely): a crash during recovery.
    pub fn start_and_kill(spec: &ServerSpec, delay: Duration) {
        let mut child = command(spec).spawn().expect("spawn betula");
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Connection options for this server (root, no password).
    pub fn opts(&self, db: Option<&str>) -> OptsBuilder {
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .db_name(db)
            .prefer_socket(false)
            .read_timeout(Some(Duration::from_secs(120)))
            .write_timeout(Some(Duration::from_secs(120)))
    }

    /// A connection (panics if the server refuses it).
    pub fn conn(&self, db: Option<&str>) -> Conn {
        Conn::new(self.opts(db)).expect("connect")
    }

    /// Kills the process with SIGKILL and waits for it.
    pub fn kill9(mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Waits (up to `limit`) for the process to exit by itself; its exit status if it did.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        let child = self.child.as_mut()?;
        while start.elapsed() < limit {
            if let Ok(Some(st)) = child.try_wait() {
                self.child = None;
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Stops with SIGTERM (clean shutdown: a final checkpoint) and returns the exit status.
    pub fn stop(mut self) -> Option<std::process::ExitStatus> {
        let pid = self.pid.to_string();
        let _ = Command::new("kill").arg("-TERM").arg(&pid).status();
        let st = self.wait_exit(Duration::from_secs(60));
        if st.is_none() {
            if let Some(mut c) = self.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        st
    }

    /// The process's resident memory in bytes (VmRSS of /proc/<pid>/status).
    pub fn rss_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        read_log(&self.stderr_path)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The command that starts a server as `spec` says, its stderr appended to the data directory's log.
fn command(spec: &ServerSpec) -> Command {
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path(&spec.datadir))
        .expect("open the server log");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_betula"));
    cmd.arg("serve")
        .arg("--datadir")
        .arg(&spec.datadir)
        .arg("--port")
        .arg("0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if !spec.config.is_empty() {
        let path = spec.datadir.with_extension("cnf");
        let text: String = spec
            .config
            .iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect();
        std::fs::write(&path, text).expect("write the config file");
        cmd.arg("--config").arg(path);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    cmd
}

/// The log file of a data directory's servers.
pub fn log_path(datadir: &Path) -> PathBuf {
    datadir.with_extension("log")
}

/// Panics if a server log shows a panic (the tests demand none, whatever the fault).
pub fn assert_no_panic(log: &str, context: &str) {
    assert!(
        !log.contains("panicked at"),
        "{context}: the server panicked:\n{log}"
    );
}
