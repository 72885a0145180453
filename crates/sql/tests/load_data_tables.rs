//! LOAD DATA through the engine (no network), against the table: atomicity on errors and on a
//! client that goes away, loads into empty and non-empty tables with secondary indexes compared
//! with row-by-row INSERTs, reopening, UNIQUE secondary indexes, and writers waiting for a
//! running load. The file and its options: load_data.rs.

mod common;

use std::io::{Cursor, Read};

use betula_sql::Output;
use common::engine::{engine, exec, info, local, rows, warnings};

/// A client stream that fails after `n` bytes (a client that went away mid-load).
struct Broken {
    data: Cursor<Vec<u8>>,
    left: usize,
}
impl Read for Broken {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "client gone",
            ));
        }
        let n = buf.len().min(self.left);
        let got = self.data.read(&mut buf[..n])?;
        self.left -= got;
        Ok(got)
    }
}

fn tsv(lo: u64, hi: u64) -> Vec<u8> {
    let mut v = Vec::new();
    for i in lo..hi {
        v.extend_from_slice(format!("{i}\t{}\tname{}\n", i % 97, i % 13).as_bytes());
    }
    v
}

#[test]
fn failed_or_cancelled_loads_leave_the_table_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id BIGINT PRIMARY KEY, k INT, c VARCHAR(20), KEY k (k))",
    );
    // Empty table (bulk build path) and non-empty table (transaction path).
    for round in 0..2 {
        let before = rows(&mut s, "SELECT * FROM t ORDER BY id");
        let before_k = rows(&mut s, "SELECT k, id FROM t WHERE k = 5 ORDER BY id");
        let data = tsv(1000, 30_000);
        let mut broken = Broken {
            left: data.len() / 2,
            data: Cursor::new(data),
        };
        let err = s
            .execute_with_input(
                "LOAD DATA LOCAL INFILE 'big' INTO TABLE t",
                &[],
                Some(&mut broken),
            )
            .unwrap_err();
        assert_eq!(err.code.number(), 1158, "{err}");
        let mut bad = tsv(1000, 20_000);
        bad.extend_from_slice(b"x\ty\tz\n");
        let err = local(
            &mut s,
            "LOAD DATA LOCAL INFILE 'b' REPLACE INTO TABLE t",
            &bad,
        )
        .unwrap_err();
        assert_eq!(err.code.number(), 1366);
        assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), before);
        assert_eq!(
            rows(&mut s, "SELECT k, id FROM t WHERE k = 5 ORDER BY id"),
            before_k
        );
        if round == 0 {
            local(
                &mut s,
                "LOAD DATA LOCAL INFILE 'ok' INTO TABLE t",
                &tsv(0, 500),
            )
            .unwrap();
            assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), vec!["500"]);
        }
    }
}

/// Every way of loading gives the rows and index entries that INSERTs give.
#[test]
fn loads_match_row_by_row_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    let ddl = |name: &str| {
        format!(
            "CREATE TABLE {name} (id INT NOT NULL, ts DATETIME NOT NULL, v DOUBLE, tag VARCHAR(8), \
             PRIMARY KEY (id, ts), KEY by_tag (tag, v), KEY by_v (v))"
        )
    };
    for t in ["ins", "bulk", "txn", "spill"] {
        exec(&mut s, &ddl(t));
    }
    let mut day1 = Vec::new();
    let mut day2 = Vec::new();
    let mut inserts = Vec::new();
    for i in 0..6000u32 {
        let id = i % 50;
        let line = format!(
            "{id}\t2024-01-{:02} {:02}:{:02}:{:02}\t{}\t{}\n",
            1 + i / 3000,
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60,
            (i * 7 % 1000) as f64 / 8.0,
            if i % 5 == 0 {
                "\\N".to_string()
            } else {
                format!("t{}", i % 11)
            }
        );
        let f: Vec<&str> = line.trim_end().split('\t').collect();
        let q = |x: &str| {
            if x == "\\N" {
                "NULL".to_string()
            } else {
                format!("'{x}'")
            }
        };
        inserts.push(format!(
            "INSERT INTO ins VALUES ({}, {}, {}, {})",
            f[0],
            q(f[1]),
            q(f[2]),
            q(f[3])
        ));
        if i < 3000 {
            day1.extend_from_slice(line.as_bytes());
        } else {
            day2.extend_from_slice(line.as_bytes());
        }
    }
    // Shuffle day 2 so the non-empty merge sees unsorted input.
    let mut lines: Vec<&[u8]> = day2.split_inclusive(|b| *b == b'\n').collect();
    lines.reverse();
    let day2: Vec<u8> = lines.concat();
    exec(&mut s, "BEGIN");
    for q in &inserts {
        exec(&mut s, q);
    }
    exec(&mut s, "COMMIT");
    for t in ["bulk", "spill"] {
        if t == "spill" {
            exec(&mut s, "SET betula_load_memory = 1");
        }
        local(
            &mut s,
            &format!("LOAD DATA LOCAL INFILE 'd1' INTO TABLE {t}"),
            &day1,
        )
        .unwrap();
        local(
            &mut s,
            &format!("LOAD DATA LOCAL INFILE 'd2' INTO TABLE {t}"),
            &day2,
        )
        .unwrap();
    }
    // Inside a transaction: through the write set.
    exec(&mut s, "BEGIN");
    local(&mut s, "LOAD DATA LOCAL INFILE 'd1' INTO TABLE txn", &day1).unwrap();
    local(&mut s, "LOAD DATA LOCAL INFILE 'd2' INTO TABLE txn", &day2).unwrap();
    exec(&mut s, "COMMIT");
    let queries = [
        "SELECT * FROM {} ORDER BY id, ts",
        "SELECT tag, v, id, ts FROM {} WHERE tag = 't3' ORDER BY tag, v, id, ts",
        "SELECT v, id FROM {} WHERE v BETWEEN 10 AND 20 ORDER BY v, id, ts",
        "SELECT COUNT(*), SUM(v) FROM {} WHERE tag IS NULL",
    ];
    for q in queries {
        let want = rows(&mut s, &q.replace("{}", "ins"));
        assert!(!want.is_empty());
        for t in ["bulk", "txn", "spill"] {
            assert_eq!(rows(&mut s, &q.replace("{}", t)), want, "{t}: {q}");
        }
    }
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM bulk"), vec!["6000"]);
}

#[test]
fn reopen_after_load_keeps_rows_and_counters() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = engine(dir.path());
        exec(
            &mut s,
            "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))",
        );
        exec(&mut s, "CREATE TABLE h (v INT, KEY kv (v))");
        let o = local(
            &mut s,
            "LOAD DATA LOCAL INFILE 'x' INTO TABLE a (v)",
            b"a\nb\nc\n",
        )
        .unwrap();
        match o {
            Output::Done {
                affected,
                last_insert_id,
                ..
            } => assert_eq!((affected, last_insert_id), (3, 1)),
            _ => unreachable!(),
        }
        local(
            &mut s,
            "LOAD DATA LOCAL INFILE 'y' INTO TABLE h",
            b"3\n1\n2\n1\n",
        )
        .unwrap();
    }
    let (_e, mut s) = engine(dir.path());
    exec(&mut s, "INSERT INTO a (v) VALUES ('d')");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM a ORDER BY id"),
        vec!["1|a", "2|b", "3|c", "4|d"]
    );
    exec(&mut s, "INSERT INTO h VALUES (0)");
    assert_eq!(
        rows(&mut s, "SELECT v FROM h WHERE v >= 0 ORDER BY v"),
        vec!["0", "1", "1", "2", "3"]
    );
    assert!(std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .all(|e| !e.file_name().to_string_lossy().starts_with("#load-tmp")));
}

#[test]
fn unique_secondary_indexes_replace_ignore_and_fail() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    e.set_secure_file_priv(Some(files.path().to_path_buf()));
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(5), v INT, UNIQUE KEY uu (u), KEY kv (v))",
    );
    exec(&mut s, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)");
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'r' REPLACE INTO TABLE t",
        b"3\ta\t30\n4\tc\t40\n2\tz\t21\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 3  Deleted: 2  Skipped: 0  Warnings: 0");
    assert_eq!(
        rows(&mut s, "SELECT id, u, v FROM t ORDER BY id"),
        vec!["2|z|21", "3|a|30", "4|c|40"]
    );
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'i' INTO TABLE t",
        b"5\tz\t50\n6\td\t60\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 2  Deleted: 0  Skipped: 1  Warnings: 1");
    assert!(warnings(&mut s)[0].contains("for key 'uu'"));
    std::fs::write(files.path().join("e.tsv"), "7\tq\t70\n8\td\t80\n").unwrap();
    let err = s
        .execute("LOAD DATA INFILE 'e.tsv' INTO TABLE t", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1062);
    let want = vec!["2|z|21", "3|a|30", "4|c|40", "6|d|60"];
    assert_eq!(rows(&mut s, "SELECT id, u, v FROM t ORDER BY id"), want);
    assert_eq!(
        rows(&mut s, "SELECT id, u, v FROM t WHERE u >= 'a' ORDER BY u"),
        vec!["3|a|30", "4|c|40", "6|d|60", "2|z|21"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE v BETWEEN 0 AND 100 ORDER BY v"
        ),
        vec!["2", "3", "4", "6"]
    );
}

/// A client file that arrives in chunks; tells when the loader first asks for bytes (by then the
/// load holds its locks).
struct Chunks {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    started: Option<std::sync::mpsc::Sender<()>>,
    buf: Vec<u8>,
    pos: usize,
}
impl Read for Chunks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if let Some(s) = self.started.take() {
            let _ = s.send(());
        }
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn writers_of_the_table_wait_for_a_running_load() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))",
    );
    exec(&mut s, "CREATE TABLE other (id INT PRIMARY KEY)");
    exec(&mut s, "SET innodb_lock_wait_timeout = 1");
    // Round 0: empty table (bulk build); round 1: non-empty (merge).
    for round in 0..2u32 {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let e2 = e.clone();
        let loader = std::thread::spawn(move || {
            let mut s1 = e2.session(2, "root", "localhost");
            s1.execute("USE d", &[]).unwrap();
            let mut input = Chunks {
                rx,
                started: Some(started_tx),
                buf: Vec::new(),
                pos: 0,
            };
            s1.execute_with_input(
                "LOAD DATA LOCAL INFILE 'chunks' INTO TABLE t",
                &[],
                Some(&mut input),
            )
            .map(|o| info(&o))
        });
        started_rx.recv().unwrap();
        let base = round * 1000;
        tx.send(tsv_rows(base, base + 500)).unwrap();
        // Another writer of the table waits (and times out); other tables are not blocked;
        // readers see the table as it was.
        let err = s
            .execute(&format!("INSERT INTO t VALUES ({}, 1)", base + 999), &[])
            .unwrap_err();
        assert_eq!(err.code.number(), 1205, "{err}");
        exec(&mut s, &format!("INSERT INTO other VALUES ({round})"));
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM t"),
            vec![(round * 901).to_string()]
        );
        tx.send(tsv_rows(base + 500, base + 900)).unwrap();
        drop(tx);
        let done = loader.join().unwrap().unwrap();
        assert!(done.starts_with("Records: 900"), "{done}");
        exec(&mut s, &format!("INSERT INTO t VALUES ({}, 1)", base + 999));
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM t"),
            vec![(round * 901 + 901).to_string()]
        );
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM t WHERE v >= 0"),
            vec![(round * 901 + 901).to_string()]
        );
    }
}

fn tsv_rows(lo: u32, hi: u32) -> Vec<u8> {
    (lo..hi)
        .map(|i| format!("{i}\t{}\n", i % 10))
        .collect::<String>()
        .into_bytes()
}
