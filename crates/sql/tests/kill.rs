//! KILL without a network (context/interrupt.rs): sessions on one engine, one of them killing
//! another's statement from its own thread. Each long statement (a join, UPDATE, DELETE,
//! INSERT ... SELECT, LOAD DATA of an endless file, a table rebuild, an index build, SLEEP) stops
//! with 1317, leaves the data as it was, and the session goes on; KILL CONNECTION makes every
//! later statement of the session fail with 1927; errors 1094, 1095, 1227.

mod common;

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use betula_sql::{Engine, ErrorCode, Session};
use common::engine::{engine, exec, local, rows};

const VICTIM: u64 = 1;

/// Fills `d.t` with `n` rows (id, v = 1).
fn fill(s: &mut Session, n: usize) {
    exec(s, "CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT)");
    for chunk in (0..n).collect::<Vec<_>>().chunks(5000) {
        let values: Vec<String> = chunk.iter().map(|i| format!("({i}, 1, {i})")).collect();
        exec(s, &format!("INSERT INTO t VALUES {}", values.join(",")));
    }
}

/// Sends `KILL QUERY <VICTIM>` from its own session whenever the victim is running a statement,
/// until `done`: a KILL that lands before the statement's start is forgotten, the next one is
/// not. Returns how many KILLs it sent.
fn killer(e: &Arc<Engine>, done: &Arc<AtomicBool>) -> thread::JoinHandle<usize> {
    let (e, done) = (e.clone(), done.clone());
    thread::spawn(move || {
        let mut s = e.session(99, "root", "localhost");
        let mut kills = 0;
        while !done.load(Ordering::SeqCst) {
            let running = e
                .processes
                .lock()
                .get(&VICTIM)
                .is_some_and(|p| p.info.is_some());
            if running {
                exec(&mut s, &format!("KILL QUERY {VICTIM}"));
                kills += 1;
            }
            thread::sleep(Duration::from_millis(2));
        }
        kills
    })
}

/// Runs `sql` on the victim while a killer runs; returns the error code it stopped with.
fn killed(e: &Arc<Engine>, s: &mut Session, sql: &str) -> ErrorCode {
    let done = Arc::new(AtomicBool::new(false));
    let k = killer(e, &done);
    let r = s.execute(sql, &[]);
    done.store(true, Ordering::SeqCst);
    assert!(k.join().unwrap() > 0, "{sql}: never killed");
    match r {
        Err(err) => err.code,
        Ok(o) => panic!("{sql} was not interrupted: {o:?}"),
    }
}

fn one(s: &mut Session, sql: &str) -> String {
    rows(s, sql).remove(0)
}

#[test]
fn sleep_waits_per_evaluation_and_returns_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    assert_eq!(
        one(&mut s, "SELECT SLEEP(0), SLEEP(NULL), SLEEP(-1)"),
        "0|0|0"
    );
    exec(&mut s, "CREATE TABLE r (id INT PRIMARY KEY)");
    exec(&mut s, "INSERT INTO r VALUES (1), (2), (3)");
    let start = Instant::now();
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM r WHERE SLEEP(0.05) = 0"),
        "3"
    );
    assert!(
        start.elapsed() >= Duration::from_millis(150),
        "SLEEP in WHERE waits once per row"
    );
    let e = s.execute("SELECT SLEEP(1, 2)", &[]).unwrap_err();
    assert_eq!(e.code, ErrorCode::WrongParamcountToNativeFct);
}

#[test]
fn kill_query_stops_a_join_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    fill(&mut s, 400);
    let code = killed(&e, &mut s, "SELECT COUNT(*) FROM t a, t b, t c");
    assert_eq!(code, ErrorCode::QueryInterrupted);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "400");
    // A KILL QUERY sent while the session is idle is forgotten at its next statement.
    let mut other = e.session(2, "root", "localhost");
    exec(&mut other, &format!("KILL QUERY {VICTIM}"));
    assert_eq!(one(&mut s, "SELECT 1"), "1");
    // SLEEP wakes at once.
    let code = killed(&e, &mut s, "SELECT SLEEP(30)");
    assert_eq!(code, ErrorCode::QueryInterrupted);
}

#[test]
fn killed_changes_are_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    fill(&mut s, 50_000);
    exec(&mut s, "CREATE TABLE t2 (id INT PRIMARY KEY, v INT, w INT)");
    let sum = "SELECT COUNT(*), SUM(v) FROM t";
    for sql in [
        "UPDATE t SET v = v + 1",
        "DELETE FROM t",
        "INSERT INTO t2 SELECT * FROM t",
        "UPDATE t SET v = v + 1 WHERE w >= 0 ORDER BY w DESC",
    ] {
        assert_eq!(killed(&e, &mut s, sql), ErrorCode::QueryInterrupted);
        assert_eq!(one(&mut s, sum), "50000|50000", "{sql}");
        assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t2"), "0", "{sql}");
    }
    // Inside a transaction only the statement is undone.
    exec(&mut s, "BEGIN");
    exec(&mut s, "INSERT INTO t2 VALUES (1, 1, 1)");
    assert_eq!(
        killed(&e, &mut s, "UPDATE t SET v = 2"),
        ErrorCode::QueryInterrupted
    );
    exec(&mut s, "COMMIT");
    assert_eq!(one(&mut s, sum), "50000|50000");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t2"), "1");
}

/// An endless delimited file: `id\t1\tid` lines.
struct Endless(u64, Vec<u8>);

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            self.0 += 1;
            self.1 = format!("{}\t1\t{}\n", self.0 + 1_000_000, self.0).into_bytes();
        }
        let n = buf.len().min(self.1.len());
        buf[..n].copy_from_slice(&self.1[..n]);
        self.1.drain(..n);
        Ok(n)
    }
}

#[test]
fn kill_query_stops_load_data_and_table_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    fill(&mut s, 50_000);
    exec(
        &mut s,
        "CREATE TABLE empty_t (id INT PRIMARY KEY, v INT, w INT)",
    );
    for table in ["t", "empty_t"] {
        // Only a KILL ends this load: its file never ends.
        let done = Arc::new(AtomicBool::new(false));
        let k = killer(&e, &done);
        let sql = format!("LOAD DATA LOCAL INFILE 'endless' INTO TABLE {table}");
        let r = s.execute_with_input(&sql, &[], Some(&mut Endless(0, Vec::new())));
        done.store(true, Ordering::SeqCst);
        k.join().unwrap();
        assert_eq!(r.unwrap_err().code, ErrorCode::QueryInterrupted, "{table}");
    }
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "50000");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM empty_t"), "0");
    let before = rows(&mut s, "SHOW CREATE TABLE t");
    for sql in [
        "ALTER TABLE t MODIFY v BIGINT, ALGORITHM=COPY",
        "ALTER TABLE t FORCE",
        "ALTER TABLE t ADD INDEX iw (w)",
        "CREATE INDEX iv ON t (v)",
    ] {
        assert_eq!(
            killed(&e, &mut s, sql),
            ErrorCode::QueryInterrupted,
            "{sql}"
        );
        assert_eq!(rows(&mut s, "SHOW CREATE TABLE t"), before, "{sql}");
    }
    assert_eq!(one(&mut s, "SELECT COUNT(*), SUM(v) FROM t"), "50000|50000");
    assert!(one(&mut s, "CHECK TABLE t").ends_with("OK"));
    // A small LOAD DATA still loads.
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'f' INTO TABLE empty_t",
        b"1\t2\t3\n",
    );
    assert!(o.is_ok());
}

#[test]
fn kill_connection_privileges_and_unknown_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut root) = engine(dir.path());
    exec(&mut root, "CREATE USER u");
    let mut u1 = e.session(10, "u", "localhost");
    let mut u2 = e.session(11, "u", "localhost");
    let code = |r: Result<_, betula_sql::DbError>| r.map(|_| ()).unwrap_err().code;
    assert_eq!(
        code(root.execute("KILL 12345", &[])),
        ErrorCode::NoSuchThread
    );
    assert_eq!(
        code(u1.execute(&format!("KILL QUERY {VICTIM}"), &[])),
        ErrorCode::KillDeniedError
    );
    assert_eq!(
        code(u1.execute("SHUTDOWN", &[])),
        ErrorCode::SpecificAccessDeniedError
    );
    // Without a server there is nothing to stop.
    assert_eq!(
        code(root.execute("SHUTDOWN", &[])),
        ErrorCode::NotSupportedYet
    );
    // A user kills its own connections; a killed connection runs nothing more.
    exec(&mut u1, "KILL CONNECTION 11");
    assert!(rows(&mut root, "SHOW PROCESSLIST")
        .iter()
        .any(|r| r.starts_with("11|u|") && r.contains("|Killed|")));
    assert_eq!(
        code(u2.execute("SELECT 1", &[])),
        ErrorCode::ConnectionKilled
    );
    // Root kills anyone's, itself included (its KILL then fails too).
    exec(&mut root, "KILL 10");
    assert_eq!(
        code(u1.execute("SELECT 1", &[])),
        ErrorCode::ConnectionKilled
    );
    assert_eq!(
        code(root.execute(&format!("KILL {VICTIM}"), &[])),
        ErrorCode::ConnectionKilled
    );
}
