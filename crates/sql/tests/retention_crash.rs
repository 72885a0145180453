//! Crash at every sync point of a retention's expiry (design.md RET5): the engine reopened on
//! what a power loss leaves shows the table, read by its primary key and by its secondary index,
//! as before the expiry or as after it, never a mix of trees; an acknowledged expiry is there.

mod sessions;

use std::path::Path;
use std::sync::Arc;

use betula_sql::ddl::retention::run_round;
use betula_sql::types::temporal::DateTime;
use betula_sql::Session;
use betula_storage::vfs::SimVfs;

fn setup() -> Vec<String> {
    let values: Vec<String> = (0..200)
        .map(|i| {
            format!(
                "('2026-01-{:02} {:02}:00:00', {i}, {})",
                1 + i % 6,
                i % 24,
                i * 7 % 50
            )
        })
        .collect();
    vec![
        "CREATE DATABASE d".into(),
        "USE d".into(),
        "CREATE TABLE t (ts DATETIME NOT NULL, id INT NOT NULL, v INT NOT NULL, \
         PRIMARY KEY (ts, id), KEY k (ts, v)) RETENTION = 2 DAY"
            .into(),
        format!("INSERT INTO t VALUES {}", values.join(",")),
        "CHECKPOINT".into(),
    ]
}

fn now() -> DateTime {
    DateTime::parse("2026-01-06 00:00:00").unwrap()
}

/// The rows by the primary key and through the index (which must agree).
fn state(s: &mut Session) -> Vec<Vec<String>> {
    let by_pk = sessions::rows(s, "SELECT ts, id, v FROM t ORDER BY ts, id");
    let mut by_index = sessions::rows(
        s,
        "SELECT ts, id, v FROM t FORCE INDEX (k) WHERE ts >= '2000-01-01' ORDER BY ts, v, id",
    );
    by_index.sort();
    let mut sorted = by_pk.clone();
    sorted.sort();
    assert_eq!(sorted, by_index, "the index and the rows disagree");
    by_pk
}

/// Runs the setup, then a retention round; (setup done, expiry acknowledged).
fn scenario(dir: &Path, vfs: Arc<SimVfs>) -> (bool, bool) {
    let Some((e, mut s)) = sessions::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in setup() {
        if s.execute(&sql, &[]).is_err() {
            return (false, false);
        }
    }
    let log = run_round(&e, now());
    (true, log.iter().any(|l| l.contains("deleted the rows")))
}

#[test]
fn an_expiry_is_all_or_nothing_at_every_sync() {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = {
        let (e, mut s) = sessions::open_crash_engine(dir.path(), Arc::new(SimVfs::new())).unwrap();
        for sql in setup() {
            sessions::exec(&mut s, &sql);
        }
        let before = state(&mut s);
        run_round(&e, now());
        (before, state(&mut s))
    };
    assert_eq!(before.len(), 200);
    assert!(!after.is_empty() && after.len() < before.len());
    sessions::crash::at_every_sync(dir.path(), scenario, |mut p| {
        let now = state(&mut p.session);
        assert!(
            now == before || now == after,
            "crash at sync {}: a mix",
            p.at
        );
        if p.acked {
            assert_eq!(
                now, after,
                "crash at sync {}: acknowledged, then lost",
                p.at
            );
        }
    });
}
