//! Online index builds through the real server (design.md OIX1-OIX6): several clients insert
//! and update while `ALTER TABLE ... ADD INDEX, ALGORITHM=INPLACE, LOCK=NONE` runs. Writers are
//! not blocked by the build (commits complete while the ALTER runs: counted, no timing
//! assumed), every write succeeds, the index answers like the table, CHECK TABLE passes, and
//! the result survives a restart.

mod betula;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use betula::BetulaServer;
use mysql::prelude::*;

const ROWS: u64 = 60_000;

#[test]
fn writers_commit_while_an_index_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop(
        "CREATE TABLE d.s (id BIGINT NOT NULL PRIMARY KEY, dev INT, v INT, note VARCHAR(40))",
    )
    .unwrap();
    for lo in (0..ROWS).step_by(2000) {
        let values: Vec<String> = (lo..lo + 2000)
            .map(|i| format!("({i}, {}, {}, 'n{}')", i % 97, i % 1013, i % 13))
            .collect();
        c.query_drop(format!("INSERT INTO d.s VALUES {}", values.join(",")))
            .unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let altering = Arc::new(AtomicBool::new(false));
    let during = Arc::new(AtomicU64::new(0));
    let next_id = Arc::new(AtomicU64::new(ROWS));
    let writers: Vec<_> = (0..4u64)
        .map(|w| {
            let mut conn = server.conn(Some("d"));
            let (stop, altering, during, next_id) = (
                stop.clone(),
                altering.clone(),
                during.clone(),
                next_id.clone(),
            );
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let was = altering.load(Ordering::SeqCst);
                    if n.is_multiple_of(2) {
                        let id = next_id.fetch_add(1, Ordering::SeqCst);
                        conn.query_drop(format!(
                            "INSERT INTO s VALUES ({id}, {}, {w}, 'w')",
                            id % 97
                        ))
                        .expect("an insert failed during the build");
                    } else {
                        let id = (n * 7919 + w * 104_729) % ROWS;
                        conn.query_drop(format!(
                            "UPDATE s SET dev = dev + 1, v = {n} WHERE id = {id}"
                        ))
                        .expect("an update failed during the build");
                    }
                    n += 1;
                    if was && altering.load(Ordering::SeqCst) {
                        during.fetch_add(1, Ordering::SeqCst);
                    }
                }
                n
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    altering.store(true, Ordering::SeqCst);
    c.query_drop(
        "ALTER TABLE d.s ADD INDEX kdev (dev, v), ADD INDEX knote (note(2)), \
         ALGORITHM=INPLACE, LOCK=NONE",
    )
    .unwrap();
    altering.store(false, Ordering::SeqCst);
    std::thread::sleep(std::time::Duration::from_millis(100));
    stop.store(true, Ordering::SeqCst);
    let total: u64 = writers.into_iter().map(|w| w.join().unwrap()).sum();
    let during = during.load(Ordering::SeqCst);
    assert!(during > 0, "no commit completed while the index was built");
    eprintln!("{during} of {total} writes committed while the ALTER ran");
    let check = |c: &mut mysql::Conn| {
        let rows: Option<u64> = c.query_first("SELECT COUNT(*) FROM d.s").unwrap();
        assert_eq!(rows, Some(next_id.load(Ordering::SeqCst)));
        for k in ["kdev", "knote"] {
            let through: Option<u64> = c
                .query_first(format!(
                    "SELECT COUNT(*) FROM d.s FORCE INDEX ({k}) WHERE dev >= 0 OR dev IS NULL"
                ))
                .unwrap();
            assert_eq!(through, rows, "{k}");
        }
        let sum_all: Option<i64> = c.query_first("SELECT SUM(dev * 7 + v) FROM d.s").unwrap();
        let sum_ix: Option<i64> = c
            .query_first("SELECT SUM(dev * 7 + v) FROM d.s FORCE INDEX (kdev) WHERE dev >= 0")
            .unwrap();
        assert_eq!(sum_ix, sum_all);
        let check: Vec<(String, String, String, String)> = c.query("CHECK TABLE d.s").unwrap();
        assert_eq!(check.last().unwrap().3, "OK", "{check:?}");
    };
    check(&mut c);
    drop(c);
    server.stop();
    let server = BetulaServer::start(dir.path());
    check(&mut server.conn(None));
}
