//! Online backup through the real server and the real command-line tools: `betula backup` while clients
//! insert and transfer money, `betula restore`, `betula verify`, and the restored server holding every
//! row acknowledged before the backup began and, per client, a gapless prefix of its rows (a log prefix:
//! the model at the backup's end LSN), the bank's total intact, indexes equal to their tables. A backup
//! cancelled with KILL QUERY or by Ctrl-C of `betula backup`, or cut short by killing the server, leaves
//! the server working and nothing restorable; BACKUP's restrictions (root, secure_file_priv, empty
//! directory, one at a time) give MariaDB's errors.

mod betula;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use betula::{code, BetulaServer};
use mysql::prelude::*;

fn betula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_betula"))
        .args(args)
        .output()
        .expect("run betula")
}

fn ok(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn start(data: &Path, files: &Path) -> BetulaServer {
    BetulaServer::start_with(
        data,
        &["--secure-file-priv", files.to_str().expect("utf-8 path")],
    )
    .expect("betula serve did not start")
}

const ACCOUNTS: u64 = 20;

fn schema(s: &BetulaServer) {
    let mut c = s.conn(None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.r (client INT NOT NULL, seq INT NOT NULL, v DOUBLE, note VARCHAR(40), \
         PRIMARY KEY (client, seq), KEY by_v (v))",
        "CREATE TABLE d.bank (id INT PRIMARY KEY, balance BIGINT NOT NULL)",
    ] {
        c.query_drop(sql).unwrap();
    }
    let rows: Vec<String> = (0..ACCOUNTS).map(|i| format!("({i}, 1000)")).collect();
    c.query_drop(format!("INSERT INTO d.bank VALUES {}", rows.join(",")))
        .unwrap();
}

/// Client `w` inserts 50-row statements of consecutive `seq`s; `acked` is how many rows were acknowledged.
fn insert_loop(
    s: &BetulaServer,
    w: u64,
    acked: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> impl FnOnce() {
    let mut c = s.conn(Some("d"));
    move || {
        let mut next = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let rows: Vec<String> = (next..next + 50)
                .map(|i| format!("({w}, {i}, {}.5, 'row {i} of client {w}')", i % 997))
                .collect();
            c.query_drop(format!("INSERT INTO r VALUES {}", rows.join(",")))
                .unwrap();
            next += 50;
            acked.store(next, Ordering::SeqCst);
        }
    }
}

/// Transfers between accounts in transactions: the total never changes.
fn transfer_loop(s: &BetulaServer, stop: Arc<AtomicBool>) -> impl FnOnce() {
    let mut c = s.conn(Some("d"));
    move || {
        let mut i = 0u64;
        while !stop.load(Ordering::Relaxed) {
            i += 1;
            let (a, b) = (i % ACCOUNTS, (i * 7 + 3) % ACCOUNTS);
            let mut t = c.start_transaction(Default::default()).unwrap();
            t.query_drop(format!(
                "UPDATE bank SET balance = balance - 3 WHERE id = {a}"
            ))
            .unwrap();
            t.query_drop(format!(
                "UPDATE bank SET balance = balance + 3 WHERE id = {b}"
            ))
            .unwrap();
            t.commit().unwrap();
        }
    }
}

fn count(c: &mut mysql::Conn, sql: &str) -> u64 {
    c.query_first(sql).unwrap().unwrap()
}

#[test]
fn a_backup_during_writes_restores_every_acknowledged_row() {
    let root = tempfile::tempdir().unwrap();
    let (data, files) = (root.path().join("data"), root.path().join("files"));
    std::fs::create_dir_all(&files).unwrap();
    let server = start(&data, &files);
    schema(&server);
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Vec<Arc<AtomicU64>> = (0..3).map(|_| Arc::new(AtomicU64::new(0))).collect();
    let mut threads: Vec<_> = (0..3u64)
        .map(|w| {
            std::thread::spawn(insert_loop(
                &server,
                w,
                acked[w as usize].clone(),
                stop.clone(),
            ))
        })
        .collect();
    threads.push(std::thread::spawn(transfer_loop(&server, stop.clone())));
    std::thread::sleep(Duration::from_millis(1500));
    let before: Vec<u64> = acked.iter().map(|a| a.load(Ordering::SeqCst)).collect();
    let port = server.port.to_string();
    let to = files.join("full");
    let out = betula(&[
        "backup",
        "--port",
        &port,
        "--user",
        "root",
        "--to",
        to.to_str().unwrap(),
        "--quiet",
    ]);
    let summary = ok(&out, "betula backup");
    assert!(summary.contains("blocks copied"), "{summary}");
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let after: Vec<u64> = acked.iter().map(|a| a.load(Ordering::SeqCst)).collect();

    // An incremental backup after more rows, through SQL.
    let mut c = server.conn(Some("d"));
    c.query_drop("INSERT INTO r VALUES (9, 0, 1, 'after the full backup')")
        .unwrap();
    let row: mysql::Row = c
        .query_first(format!(
            "BACKUP TO '{}' INCREMENTAL FROM '{}'",
            files.join("incr").display(),
            to.display()
        ))
        .unwrap()
        .unwrap();
    let from_base: u64 = row.get("Blocks_from_base").unwrap();
    assert!(from_base > 0, "the increment took nothing from its base");
    let status: Vec<(String, String)> = c.query("SHOW STATUS LIKE 'Betula_backup_phase'").unwrap();
    assert_eq!(status, vec![("Betula_backup_phase".into(), "3".into())]);
    drop(c);
    drop(server);

    let restored = root.path().join("restored");
    let out = betula(&[
        "restore",
        "--from",
        to.to_str().unwrap(),
        "--datadir",
        restored.to_str().unwrap(),
    ]);
    ok(&out, "betula restore");
    ok(
        &betula(&["verify", "--datadir", restored.to_str().unwrap()]),
        "betula verify",
    );
    let copy = start(&restored, &files);
    let mut c = copy.conn(Some("d"));
    for w in 0..3u64 {
        let n = count(
            &mut c,
            &format!("SELECT COUNT(*) FROM r WHERE client = {w}"),
        );
        let max: Option<u64> = c
            .query_first(format!("SELECT MAX(seq) + 1 FROM r WHERE client = {w}"))
            .unwrap()
            .unwrap();
        assert_eq!(
            Some(n),
            max.or(Some(0)),
            "client {w}: rows missing inside its prefix"
        );
        assert!(
            n >= before[w as usize] && n <= after[w as usize],
            "client {w}: {n} rows restored, {} acknowledged before the backup, {} in all",
            before[w as usize],
            after[w as usize]
        );
    }
    assert_eq!(
        count(&mut c, "SELECT SUM(balance) FROM bank"),
        ACCOUNTS * 1000
    );
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM r WHERE client = 9"), 0);
    let check: Vec<(String, String, String, String)> = c.query("CHECK TABLE r, bank").unwrap();
    assert!(check.iter().all(|r| r.3 == "OK"), "{check:?}");
    let by_index = count(
        &mut c,
        "SELECT COUNT(*) FROM r FORCE INDEX (by_v) WHERE v >= 0",
    );
    assert_eq!(by_index, count(&mut c, "SELECT COUNT(*) FROM r"));
    drop(c);
    drop(copy);

    // The increment restores to the later state.
    let restored2 = root.path().join("restored2");
    let incr = files.join("incr");
    ok(
        &betula(&[
            "restore",
            "--from",
            incr.to_str().unwrap(),
            "--datadir",
            restored2.to_str().unwrap(),
        ]),
        "betula restore of the increment",
    );
    let copy = start(&restored2, &files);
    let mut c = copy.conn(Some("d"));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM r WHERE client = 9"), 1);
    for w in 0..3u64 {
        let n = count(
            &mut c,
            &format!("SELECT COUNT(*) FROM r WHERE client = {w}"),
        );
        assert_eq!(n, after[w as usize], "client {w} after the increment");
    }
}

/// Waits until the running backup has read something.
fn wait_for_progress(c: &mut mysql::Conn) {
    for _ in 0..600 {
        let read: Option<(String, u64)> = c
            .query_first("SHOW STATUS LIKE 'Betula_backup_bytes_read'")
            .unwrap();
        let phase: Option<(String, u64)> = c
            .query_first("SHOW STATUS LIKE 'Betula_backup_phase'")
            .unwrap();
        if read.is_some_and(|r| r.1 > 0) && phase.is_some_and(|p| p.1 == 1) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the backup never started copying");
}

fn fill(s: &BetulaServer, rows: u64) {
    let mut c = s.conn(Some("d"));
    for chunk in 0..rows / 1000 {
        let v: Vec<String> = (0..1000)
            .map(|i| {
                let n = chunk * 1000 + i;
                format!(
                    "(1, {n}, {}, '{:x}')",
                    n * 31 % 1009,
                    n * 2654435761 % 4294967291
                )
            })
            .collect();
        c.query_drop(format!("INSERT INTO r VALUES {}", v.join(",")))
            .unwrap();
    }
}

#[test]
fn a_cancelled_or_killed_backup_leaves_the_server_unaffected() {
    let root = tempfile::tempdir().unwrap();
    let (data, files) = (root.path().join("data"), root.path().join("files"));
    std::fs::create_dir_all(&files).unwrap();
    let server = start(&data, &files);
    schema(&server);
    fill(&server, 20_000);
    let mut watcher = server.conn(Some("d"));

    // KILL QUERY of the backup's connection.
    let mut runner = server.conn(None);
    let id = runner.connection_id();
    let dir = files.join("killed");
    let sql = format!("BACKUP TO '{}' THROTTLE 65536", dir.display());
    let job = std::thread::spawn(move || code(runner.query_drop(sql)));
    wait_for_progress(&mut watcher);
    watcher.query_drop(format!("KILL QUERY {id}")).unwrap();
    assert_eq!(job.join().unwrap(), 1317);
    assert!(!dir.join("backup.manifest").exists());
    let refused = betula(&[
        "restore",
        "--from",
        dir.to_str().unwrap(),
        "--datadir",
        "/nonexistent/x",
    ]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a complete backup"));

    // Ctrl-C of `betula backup` cancels the backup on the server.
    let dir2 = files.join("interrupted");
    let port = server.port.to_string();
    let child = Command::new(env!("CARGO_BIN_EXE_betula"))
        .args([
            "backup",
            "--port",
            &port,
            "--quiet",
            "--throttle",
            "65536",
            "--to",
        ])
        .arg(&dir2)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_progress(&mut watcher);
    Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interrupted"),
        "{out:?}"
    );
    assert!(!dir2.join("backup.manifest").exists());

    // The server goes on: writes, a checkpoint, and a complete backup.
    watcher
        .query_drop("INSERT INTO r VALUES (2, 0, 0, 'after')")
        .unwrap();
    watcher.query_drop("CHECKPOINT").unwrap();
    let row: mysql::Row = watcher
        .query_first(format!("BACKUP TO '{}'", files.join("good").display()))
        .unwrap()
        .unwrap();
    assert!(row.get::<u64, _>("Blocks_copied").unwrap() > 0);

    // A server killed in the middle of a backup restarts with everything, and the half-made backup is
    // refused.
    let mut runner = server.conn(None);
    let dir3 = files.join("server-killed");
    let sql = format!("BACKUP TO '{}' THROTTLE 65536", dir3.display());
    let job = std::thread::spawn(move || runner.query_drop(sql).is_err());
    wait_for_progress(&mut watcher);
    drop(watcher);
    drop(server); // SIGKILL
    assert!(job.join().unwrap());
    let server = start(&data, &files);
    let mut c = server.conn(Some("d"));
    assert_eq!(count(&mut c, "SELECT COUNT(*) FROM r"), 20_001);
    let check: Vec<(String, String, String, String)> = c.query("CHECK TABLE r").unwrap();
    assert_eq!(check[0].3, "OK");
    let refused = betula(&[
        "restore",
        "--from",
        dir3.to_str().unwrap(),
        "--datadir",
        "/nonexistent/y",
    ]);
    assert!(!refused.status.success());
}

#[test]
fn backup_is_refused_where_mariadb_would_refuse_it() {
    let root = tempfile::tempdir().unwrap();
    let (data, files) = (root.path().join("data"), root.path().join("files"));
    std::fs::create_dir_all(&files).unwrap();
    let plain = BetulaServer::start(&root.path().join("plain"));
    // No secure_file_priv: no directory SQL may write.
    let mut c = plain.conn(None);
    assert_eq!(
        code(c.query_drop(format!("BACKUP TO '{}'", files.join("x").display()))),
        1290
    );
    drop(plain);
    let server = start(&data, &files);
    let mut c = server.conn(None);
    assert_eq!(
        code(c.query_drop("BACKUP TO '/tmp/outside-secure-file-priv'")),
        1290
    );
    assert_eq!(
        code(c.query_drop(format!("BACKUP TO '{}/../escape'", files.display()))),
        1290
    );
    assert_eq!(
        code(c.query_drop("BACKUP TO 'relative/missing-parent'")),
        29
    );
    assert_eq!(code(c.query_drop("BACKUP STAGE START")), 1235);
    std::fs::create_dir_all(files.join("full")).unwrap();
    std::fs::write(files.join("full/x"), b"x").unwrap();
    assert_eq!(code(c.query_drop("BACKUP TO 'full'")), 1210);
    c.query_drop("BACKUP TO 'relative'").unwrap();
    assert!(files.join("relative/backup.manifest").exists());
    c.query_drop("CREATE USER u").unwrap();
    c.query_drop("GRANT ALL ON *.* TO u").unwrap();
    let mut u = server.conn_as("u", None, None).unwrap();
    assert_eq!(code(u.query_drop("BACKUP TO 'by-u'")), 1227);
}
