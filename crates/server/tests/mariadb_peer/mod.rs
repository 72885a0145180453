//! A private MariaDB server (Debian's mariadb-server: `mariadb-install-db`, `mariadbd`) on a free port
//! with a data directory of its own, for tests that compare Betula with MariaDB; None when `mariadbd` is
//! not installed. Killed and removed when dropped.
#![allow(dead_code)]

use std::io::Write;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct MariaDb {
    child: Child,
    pub port: u16,
    _dir: tempfile::TempDir,
}

fn installed(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

impl MariaDb {
    pub fn start() -> Option<MariaDb> {
        Self::start_with("skip-log-bin\n")
    }

    /// Like `start` with `options` (my.cnf lines, each ending in a newline) in the server's
    /// section, in place of `skip-log-bin`; they come last, so they win over the defaults here.
    pub fn start_with(options: &str) -> Option<MariaDb> {
        if !installed("mariadbd") || !installed("mariadb-install-db") {
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let d = dir.path().display().to_string();
        let cnf = dir.path().join("my.cnf");
        std::fs::write(
            &cnf,
            format!(
                "[mariadbd]\nuser=root\ndatadir={d}/data\nsocket={d}/sock\npid-file={d}/pid\n\
                 log-error={d}/err\nbind-address=127.0.0.1\nport={port}\nskip-name-resolve\n\
                 performance_schema=OFF\ndefault-time-zone=+00:00\n\
                 character-set-server=utf8mb4\ncollation-server=utf8mb4_general_ci\n\
                 innodb_buffer_pool_size=32M\n{options}"
            ),
        )
        .expect("write my.cnf");
        let defaults = format!("--defaults-file={}", cnf.display());
        let install = || {
            Command::new("mariadb-install-db")
                .args([
                    &defaults,
                    "--user=root",
                    "--auth-root-authentication-method=normal",
                ])
                .output()
        };
        // Its bootstrap has failed once in a while on a loaded machine; a second try from an
        // empty data directory, and the tool's own words if that fails too.
        let first = install();
        let out = match first {
            Ok(o) if o.status.success() => o,
            _ => {
                let _ = std::fs::remove_dir_all(dir.path().join("data"));
                install().expect("run mariadb-install-db")
            }
        };
        assert!(
            out.status.success(),
            "mariadb-install-db failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let child = Command::new("mariadbd")
            .args([&defaults, "--user=root"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mariadbd");
        let server = MariaDb {
            child,
            port,
            _dir: dir,
        };
        for _ in 0..600 {
            let up = Command::new("mariadb")
                .args(["--no-defaults", "-h127.0.0.1", "-uroot", "-e", "SELECT 1"])
                .arg(format!("-P{port}"))
                .output()
                .is_ok_and(|o| o.status.success());
            if up {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("mariadbd did not start (see {d}/err)");
    }

    /// `mariadb-dump` of this server with `args`; its bytes (stderr must stay empty).
    pub fn dump(&self, args: &[&str]) -> Vec<u8> {
        let o = Command::new("mariadb-dump")
            .args(["--no-defaults", "-h127.0.0.1", "-uroot"])
            .arg(format!("-P{}", self.port))
            .args(args)
            .output()
            .expect("run mariadb-dump");
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "mariadb-dump: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the statements with the mariadb client on `port` (batch mode, column names, errors kept: `--force`);
/// stdout and stderr.
pub fn client(port: u16, sql: &str) -> String {
    let mut child = Command::new("mariadb")
        .args([
            "--no-defaults",
            "-h127.0.0.1",
            "-uroot",
            "--batch",
            "--force",
        ])
        .arg(format!("-P{port}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mariadb client is needed: apt-get install -y mariadb-client");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(sql.as_bytes()).expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    // The error text names the server ("MariaDB" / "Betula"); the code and the rest must agree.
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        // `ERROR 4018 (HY000) at line 2: ...`: the line number is the client's.
        let line = match line.find(" at line ") {
            Some(i) => {
                let rest = &line[i..];
                format!("{}{}", &line[..i], &rest[rest.find(':').unwrap_or(0)..])
            }
            None => line.to_string(),
        };
        s.push_str(&line.replace("Betula", "MariaDB"));
        s.push('\n');
    }
    s
}

/// Each of `queries` run after `setup` (which must print nothing) in database `peer` on `port`, as
/// [`client`] prints it.
pub fn answers(port: u16, setup: &str, queries: &[&str]) -> Vec<String> {
    assert!(client(port, setup).trim().is_empty(), "setup failed");
    queries
        .iter()
        .map(|q| client(port, &format!("USE peer;\n{q};\n")))
        .collect()
}

/// Asserts that MariaDB (`want`) and Betula (`got`) answered each of `queries` alike, listing
/// every query they differ on.
pub fn assert_same_answers(queries: &[&str], want: &[String], got: &[String]) {
    let mut differ = Vec::new();
    for ((q, w), g) in queries.iter().zip(want).zip(got) {
        if w != g {
            differ.push(format!("{q}\n--- MariaDB\n{w}--- Betula\n{g}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// Runs `setup`, then each of `queries`, on a private MariaDB and on a Betula server of its own and
/// asserts that they answer alike ([`assert_same_answers`]); without `mariadbd` it says so and
/// compares nothing.
pub fn compare_with_mariadb(setup: &str, queries: &[&str]) {
    compare_with_mariadb_in(None, setup, queries);
}

/// [`compare_with_mariadb`] with both servers started with `server` (a character set and its
/// collation) as their default (`character-set-server` / `collation-server` of MariaDB's my.cnf,
/// Betula's settings of the same names); None: utf8mb4 / utf8mb4_general_ci, the default of both.
pub fn compare_with_mariadb_in(server: Option<(&str, &str)>, setup: &str, queries: &[&str]) {
    let (charset, collation) = server.unwrap_or(("utf8mb4", "utf8mb4_general_ci"));
    let options =
        format!("skip-log-bin\ncharacter-set-server={charset}\ncollation-server={collation}\n");
    let Some(maria) = MariaDb::start_with(&options) else {
        eprintln!("mariadbd is not installed: nothing compared");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (cs, co) = (
        format!("character_set_server={charset}"),
        format!("collation_server={collation}"),
    );
    let betula = super::betula::BetulaServer::start_with(dir.path(), &["--set", &cs, "--set", &co])
        .expect("betula serve did not start");
    let want = answers(maria.port, setup, queries);
    let got = answers(betula.port, setup, queries);
    assert_same_answers(queries, &want, &got);
}
