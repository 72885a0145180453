//! LOAD DATA against the real server with real clients: `mariadb --local-infile=1`,
//! `mysqlimport` (LOCAL and server-side), a client cancelled mid-load and a server killed
//! mid-load (the table is unchanged after both), and `betula import` on a stopped server's data
//! directory. The mid-load cases feed the client's file through a FIFO, so the kill happens
//! while the statement is provably running (no timing assumptions).

mod betula;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use betula::BetulaServer;
use mysql::prelude::*;

fn mariadb(port: u16, db: &str, sql: &str) -> Output {
    Command::new("mariadb")
        .args(["--local-infile=1", "-h127.0.0.1", "-uroot", "--batch"])
        .arg(format!("-P{port}"))
        .arg(db)
        .arg("-e")
        .arg(sql)
        .output()
        .expect("mariadb client (Debian package mariadb-client) is needed")
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn lines(from: u64, to: u64) -> String {
    (from..to)
        .map(|i| format!("{i},s{},{}.5\n", i % 7, i))
        .collect()
}

fn setup(server: &BetulaServer) {
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("CREATE TABLE d.t (id BIGINT PRIMARY KEY, s VARCHAR(10), v DOUBLE, KEY ks (s))")
        .unwrap();
}

fn count(server: &BetulaServer) -> u64 {
    let mut c = server.conn(Some("d"));
    c.query_first("SELECT COUNT(*) FROM t").unwrap().unwrap()
}

#[test]
fn mariadb_local_infile_and_mysqlimport() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let secure = files.path().to_str().unwrap().to_string();
    let server = BetulaServer::start_with(dir.path(), &["--secure-file-priv", &secure]).unwrap();
    setup(&server);
    let csv = files.path().join("t.csv");
    std::fs::write(&csv, format!("id,s,v\n{}", lines(0, 1000))).unwrap();
    let out = ok(mariadb(
        server.port,
        "d",
        &format!(
            "LOAD DATA LOCAL INFILE '{}' INTO TABLE t FIELDS TERMINATED BY ',' \
             IGNORE 1 LINES; SELECT COUNT(*), SUM(v) FROM t; SELECT id FROM t WHERE s = 's3' \
             ORDER BY id LIMIT 2",
            csv.display()
        ),
    ));
    assert!(out.contains("1000\t500000"), "{out}");
    assert!(out.contains("id\n3\n10\n"), "{out}");
    // mysqlimport --local: table name from the file name, LOCAL implies IGNORE for duplicates.
    let tsv = files.path().join("t.txt");
    std::fs::write(&tsv, "999\tdup\t0\n5000\tnew\t1.25\n").unwrap();
    let o = Command::new("mysqlimport")
        .args(["--local", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{}", server.port))
        .arg("d")
        .arg(&tsv)
        .output()
        .expect("mysqlimport (Debian package mariadb-client)");
    let text = ok(o);
    assert!(
        text.contains("Records: 2  Deleted: 0  Skipped: 1  Warnings: 1"),
        "{text}"
    );
    assert_eq!(count(&server), 1001);
    // Server-side (no --local) reads under --secure-file-priv; --replace overwrites.
    let o = Command::new("mysqlimport")
        .args(["--replace", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{}", server.port))
        .arg("d")
        .arg(&tsv)
        .output()
        .unwrap();
    assert!(ok(o).contains("Deleted: 2"));
    let mut c = server.conn(Some("d"));
    let s: Option<String> = c.query_first("SELECT s FROM t WHERE id = 999").unwrap();
    assert_eq!(s.as_deref(), Some("dup"));
    // Outside the directory: refused.
    let outside = dir.path().join("x.txt");
    std::fs::write(&outside, "1\t1\t1\n").unwrap();
    let r = c.query_drop(format!(
        "LOAD DATA INFILE '{}' INTO TABLE t",
        outside.display()
    ));
    assert_eq!(betula::code(r), 1290);
    // Without the client's opt-in.
    let o = Command::new("mariadb")
        .args(["--local-infile=0", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{}", server.port))
        .args(["d", "-e"])
        .arg(format!(
            "LOAD DATA LOCAL INFILE '{}' INTO TABLE t",
            tsv.display()
        ))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("3948"));
    // A failed LOCAL load (strict: REPLACE does not imply IGNORE) drains the client's file: the
    // same connection runs the next statement.
    std::fs::write(
        &tsv,
        format!("{}1\t2\tnot-a-number\n", "7\tx\t1\n".repeat(5000)),
    )
    .unwrap();
    let mut child = Command::new("mariadb")
        .args([
            "--local-infile=1",
            "--force",
            "--batch",
            "-h127.0.0.1",
            "-uroot",
        ])
        .arg(format!("-P{}", server.port))
        .arg("d")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    write!(
        child.stdin.take().unwrap(),
        "LOAD DATA LOCAL INFILE '{}' REPLACE INTO TABLE t;\nSELECT 40 + 2 AS answer;\n",
        tsv.display()
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1265") && err.contains("line 5001"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("answer\n42"));
    assert_eq!(count(&server), 1001);
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success());
}

/// Starts a LOCAL load of `fifo` in the mariadb client, feeds it `chunk` and waits until the
/// server shows the statement running. Returns the client and the still-open FIFO writer.
fn start_load(
    server: &BetulaServer,
    fifo: &Path,
    sql_prefix: &str,
    chunk: &str,
) -> (Child, std::fs::File) {
    let child = Command::new("mariadb")
        .args(["--local-infile=1", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{}", server.port))
        .args(["d", "-e"])
        .arg(format!(
            "{sql_prefix} LOAD DATA LOCAL INFILE '{}' INTO TABLE t FIELDS TERMINATED BY ','",
            fifo.display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadb");
    let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
    w.write_all(chunk.as_bytes()).unwrap();
    w.flush().unwrap();
    let mut c = server.conn(None);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let infos: Vec<Option<String>> = c
            .query_map("SHOW PROCESSLIST", |row: mysql::Row| {
                row.get::<Option<String>, _>(7).flatten()
            })
            .unwrap();
        if infos.iter().flatten().any(|i| i.contains("LOAD DATA")) {
            break;
        }
        assert!(Instant::now() < deadline, "the load never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, w)
}

#[test]
fn cancelled_client_and_killed_server_leave_the_table_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let fifos = tempfile::tempdir().unwrap();
    let mut server = Some(BetulaServer::start(dir.path()));
    setup(server.as_ref().unwrap());
    // Non-empty table: the transaction path (small batches so some are written before the kill).
    ok(mariadb(
        server.as_ref().unwrap().port,
        "d",
        "INSERT INTO t VALUES (-1, 'keep', 1), (-2, 'keep', 2)",
    ));
    let fifo = fifos.path().join("a");
    mkfifo(&fifo);
    let (mut client, w) = start_load(
        server.as_ref().unwrap(),
        &fifo,
        "SET betula_load_memory = 1048576;",
        &lines(0, 150_000),
    );
    // Cancel: the client dies mid-transfer.
    client.kill().unwrap();
    client.wait().unwrap();
    drop(w);
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(server.as_ref().unwrap()) != 2 {
        assert!(
            Instant::now() < deadline,
            "rows of a cancelled load are visible"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Crash: the server is killed mid-load, on the non-empty path and then on the empty one.
    for round in 0..2 {
        let s = server.take().unwrap();
        if round == 1 {
            s.conn(Some("d")).query_drop("DELETE FROM t").unwrap();
        }
        let before = count(&s);
        let fifo = fifos.path().join(format!("crash{round}"));
        mkfifo(&fifo);
        let prefix = if round == 0 {
            "SET betula_load_memory = 1048576;"
        } else {
            ""
        };
        let (_client, _w) = start_load(&s, &fifo, prefix, &lines(0, 150_000));
        let datadir = s.datadir.clone();
        drop(s); // SIGKILL mid-load
        let restarted = BetulaServer::start(&datadir);
        assert_eq!(count(&restarted), before, "round {round}");
        let mut c = restarted.conn(Some("d"));
        let keep: Vec<i64> = c
            .query("SELECT id FROM t WHERE s = 'keep' ORDER BY id")
            .unwrap();
        assert_eq!(keep, if round == 0 { vec![-2, -1] } else { vec![] });
        assert!(std::fs::read_dir(&datadir)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with("#load-tmp")));
        // A complete load works after the crash.
        let f = fifos.path().join(format!("ok{round}.csv"));
        std::fs::write(&f, lines(1_000_000, 1_000_010)).unwrap();
        ok(mariadb(
            restarted.port,
            "d",
            &format!(
                "LOAD DATA LOCAL INFILE '{}' INTO TABLE t FIELDS TERMINATED BY ','",
                f.display()
            ),
        ));
        assert_eq!(count(&restarted), before + 10);
        server = Some(restarted);
    }
}

#[test]
fn betula_import_loads_a_stopped_servers_table() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    setup(&server);
    server.stop();
    let a = files.path().join("a.csv");
    let b = files.path().join("b.csv");
    std::fs::write(&a, format!("id,s,v\n{}", lines(0, 2000))).unwrap();
    std::fs::write(&b, format!("id,s,v\n{}", lines(2000, 3000))).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_betula"))
        .args([
            "import",
            "--quiet",
            "--ignore-lines",
            "1",
            "--table",
            "d.t",
            "--datadir",
        ])
        .arg(dir.path())
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let text = ok(o);
    assert!(text.contains("loaded 3000 rows from 2 file(s)"), "{text}");
    // A bad file stops the import with the file, line and reason, and changes nothing.
    let bad = files.path().join("bad.csv");
    std::fs::write(&bad, "id,s,v\n9000,x,1\n9001,y,oops\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_betula"))
        .args([
            "import",
            "--quiet",
            "--ignore-lines",
            "1",
            "--table",
            "d.t",
            "--datadir",
        ])
        .arg(dir.path())
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.csv") && err.contains("line 3") && err.contains("1265"),
        "{err}"
    );
    let server = BetulaServer::start(dir.path());
    assert_eq!(count(&server), 3000);
    let mut c = server.conn(Some("d"));
    let n: Option<u64> = c
        .query_first("SELECT COUNT(*) FROM t WHERE s = 's3'")
        .unwrap();
    assert_eq!(n, Some((0..3000).filter(|i| i % 7 == 3).count() as u64));
}

/// The Rust `mysql` crate's local-infile handler (the benchmark suite's sensor-load client).
#[test]
fn rust_client_local_infile_handler() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    setup(&server);
    let handler = mysql::LocalInfileHandler::new(|name, writer| {
        assert_eq!(name, b"whatever.csv");
        writer.write_all(lines(0, 20_000).as_bytes())?;
        Ok(())
    });
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(server.port)
        .user(Some("root"))
        .db_name(Some("d"))
        .prefer_socket(false)
        .local_infile_handler(Some(handler));
    let mut c = mysql::Conn::new(opts).unwrap();
    c.query_drop("LOAD DATA LOCAL INFILE 'whatever.csv' INTO TABLE t FIELDS TERMINATED BY ','")
        .unwrap();
    assert_eq!(c.affected_rows(), 20_000);
    let n: Option<u64> = c
        .query_first("SELECT COUNT(*) FROM t WHERE s = 's0'")
        .unwrap();
    assert_eq!(n, Some((0..20_000).filter(|i| i % 7 == 0).count() as u64));
}
