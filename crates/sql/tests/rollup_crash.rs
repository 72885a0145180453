//! Crash at every sync point of statements that change a roll-up (design.md RUP5, RUP6): each
//! runs on a simulated file system that dies at its n-th sync, for every n; the engine reopened
//! on what a power loss leaves must show the base table and its roll-up as they were before the
//! statement or as they are after it, the roll-up equal to the GROUP BY of the base table. An
//! acknowledged statement must be there.

mod sessions;

use std::path::Path;
use std::sync::Arc;

use betula_sql::Session;
use betula_storage::vfs::SimVfs;

const ROLLUP: &str = "CREATE ROLLUP r ON t GROUP BY g, TIME_BUCKET('10 second', ts) AS b \
                      AGGREGATE COUNT(*), SUM(v), MIN(v), MAX(v)";

fn setup(with_rollup: bool) -> Vec<String> {
    let values: Vec<String> = (0..80)
        .map(|i| {
            let v = if i % 9 == 0 {
                "NULL".into()
            } else {
                (i * 7 % 50).to_string()
            };
            format!("({i}, {}, '2026-01-01 00:00:{:02}', {v})", i % 5, i % 60)
        })
        .collect();
    let mut out = vec![
        "CREATE DATABASE d".into(),
        "USE d".into(),
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, g INT NOT NULL, ts DATETIME NOT NULL, v INT)"
            .into(),
        format!("INSERT INTO t VALUES {}", values.join(",")),
    ];
    if with_rollup {
        out.push(ROLLUP.into());
    }
    out.push("CHECKPOINT".into());
    out
}

/// The base rows and the roll-up's rows (none if it does not exist), after checking that the
/// roll-up equals the GROUP BY of the base table.
fn state(s: &mut Session) -> Vec<String> {
    let rows = |s: &mut Session, q: &str| -> Vec<String> {
        sessions::rows(s, q)
            .into_iter()
            .map(|r| r.join("|"))
            .collect()
    };
    let mut out = rows(s, "SELECT * FROM t ORDER BY id");
    let exists = rows(s, "SHOW TABLES LIKE 'r'");
    if !exists.is_empty() {
        let rollup = rows(s, "SELECT * FROM r ORDER BY g, b");
        let group_by = rows(
            s,
            "SELECT g, TIME_BUCKET('10 second', ts) AS b, COUNT(*), SUM(v), MIN(v), MAX(v), \
             COUNT(v) FROM t GROUP BY g, b ORDER BY g, b",
        );
        assert_eq!(rollup, group_by, "the roll-up differs from its GROUP BY");
        out.push("roll-up".into());
        out.extend(rollup);
    }
    out
}

/// Runs the setup and `op`; returns (setup done, op acknowledged).
fn run(dir: &Path, vfs: Arc<SimVfs>, with_rollup: bool, op: &str) -> (bool, bool) {
    let Some((_e, mut s)) = sessions::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in setup(with_rollup) {
        if s.execute(&sql, &[]).is_err() {
            return (false, false);
        }
    }
    (true, s.execute(op, &[]).is_ok())
}

fn crash_at_every_sync(with_rollup: bool, op: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = {
        let fresh = Arc::new(SimVfs::new());
        let (_e, mut s) = sessions::open_crash_engine(dir.path(), fresh).unwrap();
        for sql in setup(with_rollup) {
            sessions::exec(&mut s, &sql);
        }
        let before = state(&mut s);
        sessions::exec(&mut s, op);
        (before, state(&mut s))
    };
    assert_ne!(before, after, "{op} changed nothing");
    let scenario = |d: &Path, vfs: Arc<SimVfs>| run(d, vfs, with_rollup, op);
    sessions::crash::at_every_sync(dir.path(), scenario, |mut p| {
        let now = state(&mut p.session);
        if p.acked {
            assert_eq!(
                now, after,
                "{op}: crash at sync {} lost the acknowledged change",
                p.at
            );
        } else {
            assert!(
                now == before || now == after,
                "{op}: crash at sync {} left a mix:\n{now:#?}",
                p.at
            );
        }
    });
}

#[test]
fn creating_a_rollup_is_all_or_nothing() {
    crash_at_every_sync(false, ROLLUP);
}

#[test]
fn a_set_oriented_insert_and_its_rollup_messages_are_all_or_nothing() {
    let values: Vec<String> = (100..160)
        .map(|i| format!("({i}, {}, '2026-01-01 00:01:{:02}', {i})", i % 4, i % 60))
        .collect();
    crash_at_every_sync(true, &format!("INSERT INTO t VALUES {}", values.join(",")));
}

#[test]
fn updates_and_deletes_and_their_rollup_rows_are_all_or_nothing() {
    crash_at_every_sync(
        true,
        "UPDATE t SET v = v + 100, g = (g + 1) % 5 WHERE id % 3 = 0",
    );
    crash_at_every_sync(true, "DELETE FROM t WHERE id % 4 = 1 OR v > 40");
}
