//! Crash at every sync point of the partition operations (design.md PRT4-PRT5): each statement
//! runs on a simulated file system that dies at its n-th sync, for every n; the engine reopened
//! on what a power loss leaves must show the table as it was before the statement or as it is
//! after it, never a mix: the same partitions, each holding the same rows, and no tree of the
//! table that its definition does not name. An acknowledged statement must be there.

mod sessions;

use std::path::Path;
use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::vfs::{SimCrashPlan, SimVfs, Vfs};

const SETUP: &[&str] = &[
    "CREATE DATABASE d",
    "USE d",
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v)) PARTITION BY RANGE (id) \
     (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN (200), \
      PARTITION p2 VALUES LESS THAN (250))",
    "CREATE TABLE nt (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v))",
    "INSERT INTO t VALUES (1, 1), (50, 2), (99, 3), (100, 4), (150, 5), (199, 6), (200, 7), (249, 8)",
    "INSERT INTO nt VALUES (120, 9), (180, 10)",
    "CHECKPOINT",
];

/// What a statement may leave: the partitions of t with the ids each holds, nt's rows.
fn state(s: &mut Session) -> Vec<String> {
    let mut out = Vec::new();
    let parts = sessions::rows(
        s,
        "SELECT partition_name FROM information_schema.partitions WHERE table_name = 't' \
         ORDER BY partition_ordinal_position",
    );
    for p in parts {
        let rows = sessions::rows(
            s,
            &format!("SELECT id, v FROM t PARTITION ({}) ORDER BY id", p[0]),
        );
        let by_index = sessions::rows(
            s,
            &format!(
                "SELECT id, v FROM t PARTITION ({}) FORCE INDEX (kv) WHERE v > 0 ORDER BY id",
                p[0]
            ),
        );
        assert_eq!(
            rows, by_index,
            "index of partition {} differs from its rows",
            p[0]
        );
        out.push(format!("{}: {rows:?}", p[0]));
    }
    out.push(format!(
        "nt: {:?}",
        sessions::rows(s, "SELECT id, v FROM nt ORDER BY id")
    ));
    out
}

/// The trees of `d`.`t` the storage has, against those its definition names.
fn trees_match(e: &Engine) {
    let mut have: Vec<String> = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.starts_with("d/t/"))
        .collect();
    have.sort();
    let mut named = e.catalog.get_table("d", "t").unwrap().all_trees();
    named.sort();
    assert_eq!(have, named, "orphan or missing trees");
}

/// Runs the setup and `op`; returns (setup done, op acknowledged).
fn run(dir: &Path, vfs: Arc<SimVfs>, op: &str) -> (bool, bool) {
    let Some((_e, mut s)) = sessions::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in SETUP {
        if s.execute(sql, &[]).is_err() {
            return (false, false);
        }
    }
    (true, s.execute(op, &[]).is_ok())
}

fn crash_at_every_sync(op: &str) {
    let dir = tempfile::tempdir().unwrap();
    let clean = Arc::new(SimVfs::new());
    assert_eq!(run(dir.path(), clean.clone(), op), (true, true), "{op}");
    let syncs = clean.sync_count();
    let (before, after) = {
        let fresh = Arc::new(SimVfs::new());
        let (_e, mut s) = sessions::open_crash_engine(dir.path(), fresh.clone()).unwrap();
        for sql in SETUP {
            sessions::exec(&mut s, sql);
        }
        let before = state(&mut s);
        sessions::exec(&mut s, op);
        (before, state(&mut s))
    };
    assert_ne!(before, after, "{op} changed nothing");
    let (mut checked, mut acked_seen) = (0, false);
    // syncs + 1: the machine dies after the statement returned, losing only unsynced writes.
    for crash_at in 1..=syncs + 1 {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let (setup, acked) = run(dir.path(), vfs.clone(), op);
        let image: Arc<dyn Vfs> = Arc::new(vfs.crash_image(crash_at));
        let (e, mut s) =
            sessions::open_crash_engine(dir.path(), image).expect("reopens after a crash");
        if !setup {
            continue;
        }
        sessions::exec(&mut s, "USE d");
        let now = state(&mut s);
        trees_match(&e);
        if acked {
            assert_eq!(
                now, after,
                "{op}: crash at sync {crash_at} lost the acknowledged change"
            );
        } else {
            assert!(
                now == before || now == after,
                "{op}: crash at sync {crash_at} left a mix:\n{now:#?}\nbefore {before:#?}\nafter {after:#?}"
            );
        }
        checked += 1;
        acked_seen |= acked;
    }
    // The statement's own syncs were crashed at, and one run (past the last sync) was
    // acknowledged before its power loss.
    assert!(
        checked >= 2 && acked_seen,
        "{op}: {checked} crash points after the setup"
    );
}

#[test]
fn add_partition_is_all_or_nothing() {
    crash_at_every_sync("ALTER TABLE t ADD PARTITION (PARTITION p3 VALUES LESS THAN (300))");
}

#[test]
fn drop_partition_is_all_or_nothing() {
    crash_at_every_sync("ALTER TABLE t DROP PARTITION p1");
}

#[test]
fn truncate_partition_is_all_or_nothing() {
    crash_at_every_sync("ALTER TABLE t TRUNCATE PARTITION p0, p2");
}

#[test]
fn reorganize_partition_is_all_or_nothing() {
    crash_at_every_sync(
        "ALTER TABLE t REORGANIZE PARTITION p1, p2 INTO (PARTITION q1 VALUES LESS THAN (150), \
         PARTITION q2 VALUES LESS THAN (250))",
    );
}

#[test]
fn exchange_partition_is_all_or_nothing() {
    crash_at_every_sync("ALTER TABLE t EXCHANGE PARTITION p1 WITH TABLE nt");
}
