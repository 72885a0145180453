//! Support for the disk-fault tests: a server started with the fault-injection seam
//! (`betula_server::fault_control`), its faults armed and cleared through the control file, a table of
//! self-checking rows, and the judge of every answer: the right rows, or an error, never wrong rows.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;

use super::server::{Server, ServerSpec};
use betula_server::fault_control::{status_path, CONTROL_ENV};

/// Rows of the big table `f.t`: enough that a cold read reaches many blocks.
pub const ROWS: u64 = 20_000;
/// Rows of the small table `f.u`, read into the cache before faults are armed.
pub const SMALL_ROWS: u64 = 200;

/// The value of row `id`: derived from the id, so any row read back can be checked by itself.
pub fn value(id: u64) -> String {
    format!("v{id:08}-{}", "abcdefghij".repeat((id % 7) as usize + 1))
}

/// A data directory whose server runs with fault injection.
pub struct FaultRig {
    pub spec: ServerSpec,
    pub control: PathBuf,
    _dir: tempfile::TempDir,
}

impl FaultRig {
    /// A data directory with a small cache (cold reads hit the disk) and a control file.
    pub fn new() -> FaultRig {
        let dir = tempfile::tempdir().unwrap();
        let control = dir.path().join("faults");
        std::fs::write(&control, "").unwrap();
        let spec = ServerSpec {
            datadir: dir.path().join("data"),
            config: vec![("cache_size".into(), "4M".into())],
            env: vec![(CONTROL_ENV.into(), control.display().to_string())],
        };
        FaultRig {
            spec,
            control,
            _dir: dir,
        }
    }

    pub fn start(&self) -> Server {
        Server::start(&self.spec).unwrap_or_else(|e| panic!("start failed:\n{}", e.stderr))
    }

    /// Installs a fault spec and waits until the server has read it.
    pub fn arm(&self, spec: &str) {
        std::fs::write(&self.control, spec).unwrap();
        let status = status_path(&self.control);
        let want = format!("applied\n{spec}\n--");
        let t0 = Instant::now();
        loop {
            if std::fs::read_to_string(&status).is_ok_and(|s| s.starts_with(&want)) {
                return;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "the server never applied the fault spec {spec:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn clear(&self) {
        self.arm("");
    }

    /// Clears the control file while no server runs (nobody answers in the status file).
    pub fn clear_before_start(&self) {
        std::fs::write(&self.control, "").unwrap();
    }

    /// Faults injected so far, once the status file reports at least `min` (the server rewrites it
    /// every few milliseconds, so it lags the faults); what it reports after 10 s otherwise.
    pub fn wait_injected(&self, min: u64) -> u64 {
        let t0 = Instant::now();
        loop {
            let n = self.injected();
            if n >= min || t0.elapsed() > Duration::from_secs(10) {
                return n;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Faults injected so far, as the status file reports.
    pub fn injected(&self) -> u64 {
        let text = std::fs::read_to_string(status_path(&self.control)).unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix("injected "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    }
}

/// Creates `f.t` (`rows` rows, a secondary index) and `f.u` (SMALL_ROWS rows), then checkpoints.
pub fn load(server: &Server, rows: u64) {
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE f").unwrap();
    c.query_drop("CREATE TABLE f.t (id BIGINT PRIMARY KEY, v VARCHAR(100) NOT NULL, KEY by_v (v))")
        .unwrap();
    c.query_drop("CREATE TABLE f.u (id BIGINT PRIMARY KEY, v VARCHAR(100) NOT NULL)")
        .unwrap();
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|id| format!("({id}, '{}')", value(*id)))
            .collect();
        c.query_drop(format!("INSERT INTO f.t VALUES {}", rows.join(",")))
            .unwrap();
    }
    let rows: Vec<String> = (0..SMALL_ROWS)
        .map(|id| format!("({id}, '{}')", value(id)))
        .collect();
    c.query_drop(format!("INSERT INTO f.u VALUES {}", rows.join(",")))
        .unwrap();
    c.query_drop("FLUSH TABLES").unwrap();
}

/// What a query returned, once judged.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// The right rows.
    Right,
    /// An error from the server (code, message).
    Error(u16, String),
}

/// Any error other than a server error (the connection failed: a crash or a hang) fails the test.
fn judge<T>(r: mysql::Result<T>, what: &str, right: impl FnOnce(T) -> bool) -> Answer {
    match r {
        Ok(rows) => {
            assert!(right(rows), "WRONG ANSWER to {what}");
            Answer::Right
        }
        Err(mysql::Error::MySqlError(e)) => Answer::Error(e.code, e.message),
        Err(e) => panic!("{what}: the connection failed ({e}): the server died or hung"),
    }
}

/// A full scan of `table`: every row checked, the count and the sum of ids exact.
pub fn scan(c: &mut Conn, table: &str, rows: u64) -> Answer {
    let sql = format!("SELECT id, v FROM f.{table}");
    judge(c.query::<(u64, String), _>(&sql), &sql, |got| {
        got.len() as u64 == rows
            && got.iter().all(|(id, v)| *v == value(*id))
            && got.iter().map(|(id, _)| id).sum::<u64>() == (0..rows).sum::<u64>()
    })
}

/// Point reads of `count` ids spread over the first `rows` of `f.t`, by primary key and through the
/// secondary index.
pub fn points(c: &mut Conn, rows: u64, count: u64) -> Vec<Answer> {
    let mut out = Vec::new();
    for i in 0..count {
        let id = (i * 7919) % rows;
        let sql = format!("SELECT id, v FROM f.t WHERE id = {id}");
        out.push(judge(c.query::<(u64, String), _>(&sql), &sql, |got| {
            got == vec![(id, value(id))]
        }));
        let sql = format!(
            "SELECT id FROM f.t FORCE INDEX (by_v) WHERE v = '{}'",
            value(id)
        );
        out.push(judge(c.query::<u64, _>(&sql), &sql, |got| got == vec![id]));
    }
    out
}

/// The tree files of a data directory, largest first.
pub fn tree_files(datadir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(datadir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bt"))
        .map(|p| (std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0), p))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files.into_iter().map(|(_, p)| p).collect()
}

/// Whether an error message names a file of the data directory and a block in it.
pub fn names_file_and_block(msg: &str) -> bool {
    msg.contains(".bt") && msg.contains("block at offset")
}
