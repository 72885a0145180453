//! Crash at every sync point of the partition operations (design.md PRT4-PRT5): each statement
//! runs on a simulated file system that dies at its n-th sync, for every n; the engine reopened
//! on what a power loss leaves must show the table as it was before the statement or as it is
//! after it, never a mix: the same partitions, each holding the same rows, and no tree of the
//! table that its definition does not name. An acknowledged statement must be there.

mod sessions;

use betula_sql::{Engine, Session};

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

fn crash_at_every_sync(op: &str) {
    let setup: Vec<String> = SETUP.iter().map(|s| s.to_string()).collect();
    sessions::crash::all_or_nothing(&setup, op, state, trees_match);
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
