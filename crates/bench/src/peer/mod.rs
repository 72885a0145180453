//! Servers the SQL suite runs against, each started by the suite itself as a child process on loopback
//! with a fresh data directory, and stopped by its PID at the end: Betula (`betula serve`), MariaDB with
//! InnoDB, MariaDB with MyRocks.

pub mod betula;
pub mod mariadb;

use crate::engine::BenchResult;
use crate::io_stats::ProcIo;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A server kind the suite knows how to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Betula,
    Innodb,
    Rocksdb,
}

impl EngineKind {
    pub fn parse(s: &str) -> Option<EngineKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "betula" => Some(EngineKind::Betula),
            "innodb" => Some(EngineKind::Innodb),
            "rocksdb" | "myrocks" => Some(EngineKind::Rocksdb),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Betula => "betula",
            EngineKind::Innodb => "innodb",
            EngineKind::Rocksdb => "rocksdb",
        }
    }

    /// What goes after `CREATE TABLE t (...)`: Betula has one engine, so nothing.
    pub fn table_options(self) -> &'static str {
        match self {
            EngineKind::Betula => "",
            EngineKind::Innodb => " ENGINE=InnoDB",
            EngineKind::Rocksdb => " ENGINE=ROCKSDB",
        }
    }
}

/// How to start servers.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// The `betula` binary.
    pub betula_bin: PathBuf,
    /// Cache given to every engine (Betula cache_size, innodb_buffer_pool_size, rocksdb_block_cache_size).
    pub cache_bytes: u64,
    /// Extra `key = value` lines for Betula's config file (`--betula-set`), e.g. `read_block_size=16K`.
    pub betula_settings: Vec<String>,
    /// Extra `key = value` lines for MariaDB's `[mariadbd]` section, after the others (a later line
    /// wins: `log-bin = f` undoes `skip-log-bin`).
    pub mariadb_settings: Vec<String>,
}

/// A running server: its process, where it listens and keeps its data, and how it was configured.
pub struct Server {
    pub kind: EngineKind,
    pub port: u16,
    pub datadir: PathBuf,
    /// The server's version string, as the binary reports it.
    pub version: String,
    /// The configuration, verbatim (config file text plus command line), for the report.
    pub config: String,
    child: Child,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Bytes written so far, for per-second marks: the data directory's disk device when the suite
    /// watches it (`io_stats::watch_device`), else the server process's `/proc/PID/io` `write_bytes`
    /// (`None` when unreadable). The device counter also counts other processes' writes to that disk.
    pub fn write_bytes(&self) -> Option<u64> {
        crate::io_stats::server_written(false, || self.process_write_bytes())
    }

    /// As [`Server::write_bytes`], after writing every dirty page to the disk first (`sync`): the count
    /// to take at the start and the end of a measured step, so that a step is charged with the pages it
    /// dirtied even where the kernel writes them back later (buffered I/O: Betula, MyRocks), and not with
    /// an earlier step's.
    pub fn write_bytes_settled(&self) -> Option<u64> {
        crate::io_stats::server_written(true, || self.process_write_bytes())
    }

    fn process_write_bytes(&self) -> Option<u64> {
        ProcIo::of_pid(self.pid()).map(|io| io.write_bytes)
    }

    /// Allocated bytes of the whole data directory (what `du -B1` reports).
    pub fn datadir_bytes(&self) -> Option<u64> {
        crate::io_stats::dir_size(&self.datadir)
            .ok()
            .map(|(_, alloc)| alloc)
    }

    /// Client connection options for the `bench` database.
    pub fn opts(&self) -> mysql::Opts {
        client_opts(self.port, Some("bench"))
    }

    /// Stops the server with SIGTERM (by its PID), waiting up to `grace` before SIGKILL.
    pub fn stop(mut self, grace: Duration) -> BenchResult<()> {
        let pid = self.pid().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let t = Instant::now();
        while t.elapsed() < grace {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!(
            "{} (pid {pid}) did not stop in {grace:?}: SIGKILL",
            self.kind.name()
        );
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

pub fn client_opts(port: u16, db: Option<&str>) -> mysql::Opts {
    mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .db_name(db)
        .prefer_socket(false)
        .into()
}

/// Starts `kind` with a fresh data directory under `root` (emptied first).
pub fn start(kind: EngineKind, root: &Path, o: &StartOptions) -> BenchResult<Server> {
    if root.exists() {
        std::fs::remove_dir_all(root)?;
    }
    std::fs::create_dir_all(root)?;
    let port = free_port()?;
    match kind {
        EngineKind::Betula => betula::start(root, port, o),
        EngineKind::Innodb | EngineKind::Rocksdb => mariadb::start(kind, root, port, o),
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> BenchResult<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until the server accepts a MySQL connection (or its process exits, or `timeout` passes), then
/// creates the `bench` database.
fn wait_ready(child: &mut Child, port: u16, timeout: Duration, log: &Path) -> BenchResult<()> {
    let t = Instant::now();
    let mut last_err = String::from("no connection attempt");
    while t.elapsed() < timeout {
        if let Some(status) = child.try_wait()? {
            let tail = std::fs::read_to_string(log).unwrap_or_default();
            let tail: String = tail.lines().rev().take(15).collect::<Vec<_>>().join("\n");
            return Err(format!("server exited ({status}) before accepting connections; log tail (newest first):\n{tail}").into());
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            match mysql::Conn::new(client_opts(port, None)) {
                Ok(mut c) => {
                    use mysql::prelude::Queryable;
                    c.query_drop("CREATE DATABASE IF NOT EXISTS bench")?;
                    return Ok(());
                }
                Err(e) => last_err = e.to_string(),
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!("server not ready after {timeout:?}: {last_err}").into())
}

/// First line of `cmd args` (stdout), or what went wrong.
fn version_of(cmd: &Path, args: &[&str]) -> String {
    match Command::new(cmd).args(args).output() {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("?")
            .trim()
            .to_string(),
        Err(e) => format!("? ({}: {e})", cmd.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names_round_trip() {
        for k in [EngineKind::Betula, EngineKind::Innodb, EngineKind::Rocksdb] {
            assert_eq!(EngineKind::parse(k.name()), Some(k));
        }
        assert_eq!(EngineKind::parse("MyRocks"), Some(EngineKind::Rocksdb));
        assert_eq!(EngineKind::parse("tokudb"), None);
        assert_eq!(EngineKind::Betula.table_options(), "");
        assert_eq!(EngineKind::Rocksdb.table_options(), " ENGINE=ROCKSDB");
    }

    #[test]
    fn free_port_is_nonzero() {
        assert_ne!(free_port().unwrap(), 0);
    }
}
