//! Crash at every sync point of an online index build (design.md OIX6) while another session
//! changes rows in the middle of it (after the snapshot's rows are in the index, before the
//! catch-up): on what a power loss leaves, the engine must reopen with either no new index or
//! the complete one (the one acknowledged, if the ALTER returned), no change log left, every
//! index giving the table's rows, each new index equal entry by entry to a fresh build over the
//! same rows, and CHECK TABLE clean.

mod sessions;

use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::vfs::SimVfs;
use parking_lot::Mutex;

/// A build with a UNIQUE index (catch-up rounds replay the log) and one without (writers write
/// the entries once the fill is done, OIX8), with the index names each leaves.
const UNIQUE_OP: &str =
    "ALTER TABLE t ADD INDEX ka (a), ADD UNIQUE KEY ku (u), ALGORITHM=INPLACE, LOCK=NONE";
const MAINTAINED_OP: &str =
    "ALTER TABLE t ADD INDEX ka (a), ADD INDEX kv (u), ALGORITHM=INPLACE, LOCK=NONE";

fn setup() -> Vec<String> {
    let values: Vec<String> = (0..120)
        .map(|i| format!("({i}, {}, {}, 'w{i}')", i % 7, i * 10))
        .collect();
    vec![
        "CREATE DATABASE d".into(),
        "USE d".into(),
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, u INT, w VARCHAR(20))".into(),
        format!("INSERT INTO t VALUES {}", values.join(",")),
        "CHECKPOINT".into(),
    ]
}

/// What the other session changes once writers write the new entries (after the fill).
const MAINTAINING: &[&str] = &[
    "UPDATE t SET a = a + 1, u = u + 3 WHERE id % 5 = 0",
    "DELETE FROM t WHERE id % 11 = 3",
    "INSERT INTO t VALUES (502, 4, 5021, 'late')",
    "INSERT INTO t VALUES (12, 5, 77, 'back') ON DUPLICATE KEY UPDATE a = a + 100",
];

/// What the other session changes while the index is built (errors ignored: the machine may
/// die under it).
const MEANWHILE: &[&str] = &[
    "UPDATE t SET a = a + 10, u = u + 1 WHERE id % 4 = 0",
    "DELETE FROM t WHERE id % 9 = 1",
    "INSERT INTO t VALUES (500, 3, 5001, 'new'), (501, NULL, NULL, 'nul')",
    "REPLACE INTO t VALUES (2, 99, 21, 'rep')",
];

fn rows(s: &mut Session, q: &str) -> Vec<String> {
    sessions::rows(s, q)
        .into_iter()
        .map(|r| r.join("|"))
        .collect()
}

fn entries(e: &Engine, tree: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let h = e.store.tree(tree).unwrap();
    h.range(Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect()
}

/// The secondary indexes, after checking every invariant the build must leave.
fn indexes(e: &Engine, s: &mut Session) -> Vec<String> {
    let logs: Vec<String> = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.contains('\0') && !n.starts_with('\0'))
        .collect();
    assert!(logs.is_empty(), "change logs left: {logs:?}");
    let all = rows(s, "SELECT id, a, u, w FROM t ORDER BY id");
    let keys = rows(
        s,
        "SELECT DISTINCT index_name FROM information_schema.statistics \
         WHERE table_schema = 'd' AND table_name = 't' AND index_name <> 'PRIMARY' \
         ORDER BY index_name",
    );
    for k in &keys {
        let mut through = rows(
            s,
            &format!("SELECT id, a, u, w FROM t FORCE INDEX ({k}) WHERE id >= 0"),
        );
        through.sort_by_key(|l| l.split('|').next().unwrap().parse::<i64>().unwrap());
        assert_eq!(through, all, "index {k} differs from the rows");
        let unique = if k == "ku" { "UNIQUE " } else { "" };
        let col = if k == "ka" { "a" } else { "u" };
        sessions::exec(
            s,
            &format!("ALTER TABLE t ADD {unique}KEY fresh ({col}), LOCK=SHARED"),
        );
        assert!(
            entries(e, &format!("d/t/{k}")) == entries(e, "d/t/fresh"),
            "index {k} differs from a fresh build"
        );
        sessions::exec(s, "ALTER TABLE t DROP KEY fresh");
    }
    let check = sessions::rows(s, "CHECK TABLE t");
    assert_eq!(check.last().map(|r| r[3].clone()), Some("OK".to_string()));
    keys
}

/// Runs the setup and the ALTER with the other session's changes in its middle; returns (setup
/// done, ALTER acknowledged).
fn run(op: &str, dir: &Path, vfs: Arc<SimVfs>) -> (bool, bool) {
    let Some((e, mut s)) = sessions::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in setup() {
        if s.execute(&sql, &[]).is_err() {
            return (false, false);
        }
    }
    let other = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    let o = other.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        let changes = match step {
            "filled" => MEANWHILE,
            "maintaining" => MAINTAINING,
            _ => return,
        };
        let mut o = o.lock();
        let _ = o.execute("USE d", &[]);
        for sql in changes {
            let _ = o.execute(sql, &[]);
        }
    }));
    let acked = s.execute(op, &[]).is_ok();
    *e.online_build_hook.lock() = None;
    (true, acked)
}

#[test]
fn an_online_build_with_writes_in_its_middle_is_all_or_nothing() {
    all_or_nothing(UNIQUE_OP, &["ka", "ku"], "new");
}

#[test]
fn a_build_whose_writers_write_the_entries_is_all_or_nothing() {
    all_or_nothing(MAINTAINED_OP, &["ka", "kv"], "late");
}

/// Crashes `op` at every sync point; `names` are the indexes it adds, `kept` the `w` of a row
/// the other session inserted in its middle.
fn all_or_nothing(op: &str, names: &[&str], kept: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut absent_seen = false;
    let scenario = |dir: &Path, vfs: Arc<SimVfs>| run(op, dir, vfs);
    let checked = sessions::crash::at_every_sync(dir.path(), scenario, |mut p| {
        let now = indexes(&p.engine, &mut p.session);
        if p.acked {
            assert_eq!(now, names, "crash at sync {} lost the index", p.at);
            // The other session's changes were made in the middle of the build, and kept.
            assert_eq!(
                rows(
                    &mut p.session,
                    &format!("SELECT w FROM t WHERE w = '{kept}'")
                ),
                vec![kept]
            );
        } else {
            assert!(
                now.is_empty() || now == names,
                "crash at sync {} left {now:?}",
                p.at
            );
        }
        absent_seen |= now.is_empty();
    });
    assert!(
        absent_seen,
        "no crash point left the table without the index"
    );
    eprintln!("{checked} crash points checked");
}
