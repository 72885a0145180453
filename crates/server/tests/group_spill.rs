//! Grouping that spills to disk through the real `betula` binary (design.md GSP1-GSP5): grouped
//! queries sent to the client as their groups are read out answer with `tmp_table_size = 0` (every
//! group but the first spilled) exactly as with the default; a LIMIT that stops reading early,
//! and a grouping killed while it spills, leave no `#sort-tmp-` directory behind.

mod betula;

use std::thread;
use std::time::Duration;

use betula::{code, rows, BetulaServer};
use mysql::prelude::*;

fn sort_dirs(datadir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(datadir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("#sort-tmp-"))
        .collect()
}

const QUERIES: &[&str] = &[
    "SELECT k, COUNT(*), SUM(v), AVG(x), MIN(s), GROUP_CONCAT(id) FROM t GROUP BY k",
    "SELECT s, COUNT(DISTINCT k), SUM(x), STD(v), BIT_XOR(v) FROM t GROUP BY s HAVING COUNT(*) > 1",
    "SELECT k % 13, s, MAX(x) FROM t GROUP BY 1, 2 LIMIT 20 OFFSET 3",
    "SELECT k, SUM(x) FROM t GROUP BY k ORDER BY SUM(x) DESC, k LIMIT 15",
];

#[test]
fn spilled_grouping_over_the_wire_answers_as_the_default_and_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE g").unwrap();
    c.query_drop("USE g").unwrap();
    c.query_drop(
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, v INT, x DOUBLE, s VARCHAR(8)) \
         DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    )
    .unwrap();
    c.query_drop(
        "INSERT INTO t SELECT seq, IF(seq % 17 = 0, NULL, (seq * 7919) % 1009), seq % 97, \
         IF(seq % 5 = 0, 1e16, IF(seq % 5 = 1, -1e16, seq / 7)), \
         CASE seq % 5 WHEN 0 THEN 'a' WHEN 1 THEN 'A' WHEN 2 THEN 'b' WHEN 3 THEN 'B' END \
         FROM seq_1_to_5000",
    )
    .unwrap();
    for q in QUERIES {
        c.query_drop("SET tmp_table_size = DEFAULT, sort_buffer_size = DEFAULT")
            .unwrap();
        let ample = rows(&mut c, q);
        c.query_drop("SET tmp_memory_table_size = 0, sort_buffer_size = 1024")
            .unwrap();
        c.query_drop("FLUSH STATUS").unwrap();
        let tiny = rows(&mut c, q);
        assert_eq!(ample, tiny, "{q}");
        assert!(!tiny.is_empty(), "{q}");
        let disk = rows(&mut c, "SHOW STATUS LIKE 'Created_tmp_disk_tables'");
        assert_eq!(disk[0][1], "1", "{q}");
        assert!(sort_dirs(&server.datadir).is_empty(), "{q}");
    }
    // A grouping killed while it spills removes its files.
    let mut runner = server.conn(Some("g"));
    let id = runner.connection_id();
    runner
        .query_drop("SET tmp_table_size = 0, sort_buffer_size = 1024")
        .unwrap();
    let worker = thread::spawn(move || {
        let q = "SELECT a.id, b.id, COUNT(*) FROM t a, t b, t c GROUP BY a.id, b.id";
        let r = runner.query::<mysql::Row, _>(q);
        code(r)
    });
    let mut spilled = false;
    for _ in 0..2000 {
        if !sort_dirs(&server.datadir).is_empty() {
            spilled = true;
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert!(spilled, "the grouping never spilled");
    c.query_drop(format!("KILL QUERY {id}")).unwrap();
    assert_eq!(worker.join().unwrap(), 1317);
    assert!(sort_dirs(&server.datadir).is_empty());
    server.stop();
}
