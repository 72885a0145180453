//! Online index builds (design.md OIX1-OIX7): ADD INDEX / CREATE INDEX while writer threads
//! write. The index a build finishes must hold exactly the entries a fresh build over the same
//! final rows holds (compared entry by entry, bytes included), reads through it must return the
//! table's rows, a UNIQUE build must fail with 1062 on duplicates writers make meanwhile and
//! leave nothing behind, KILL QUERY must end it cleanly, progress must show in the process list,
//! and a snapshot older than the index must get 1412.

mod sessions;

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use betula_sql::{Engine, Session};
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use sessions::{config, err_code, exec, rows};

const ROWS: i64 = 3000;

fn open_engine(dir: &std::path::Path) -> (Arc<Engine>, Session) {
    let e = Engine::open(config(dir)).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    exec(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(24), u INT, n INT)",
    );
    let mut values = Vec::new();
    for id in 0..ROWS {
        values.push(format!(
            "({id}, {}, 'b{}', {}, 0)",
            id % 17,
            id % 101,
            id * 100
        ));
        if values.len() == 500 {
            exec(
                &mut s,
                &format!("INSERT INTO t VALUES {}", values.join(",")),
            );
            values.clear();
        }
    }
    (e, s)
}

/// Every entry of a tree, in key order.
fn entries(e: &Engine, tree: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let h = e.store.tree(tree).unwrap();
    h.range(Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect()
}

/// Names of the trees whose name contains `part`.
fn trees_named(e: &Engine, part: &str) -> Vec<String> {
    e.store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.contains(part))
        .collect()
}

/// Asserts that index `k` (built online) holds the entries a fresh build (LOCK=SHARED, over the
/// same rows, named `fresh`) holds, that reads through it give the table's rows, and that CHECK
/// TABLE is clean.
fn assert_like_fresh_build(e: &Engine, s: &mut Session, k: &str, spec: &str) {
    exec(
        s,
        &format!("ALTER TABLE t ADD {spec}, ALGORITHM=INPLACE, LOCK=SHARED"),
    );
    let online = entries(e, &format!("test/t/{k}"));
    let fresh = entries(e, &format!("test/t/{k}_fresh"));
    if online != fresh {
        let a: std::collections::BTreeSet<_> = online.iter().cloned().collect();
        let b: std::collections::BTreeSet<_> = fresh.iter().cloned().collect();
        eprintln!(
            "only online: {:?}",
            a.difference(&b).take(10).collect::<Vec<_>>()
        );
        eprintln!(
            "only fresh: {:?}",
            b.difference(&a).take(10).collect::<Vec<_>>()
        );
    }
    assert_eq!(online.len(), fresh.len(), "{k}: entry counts differ");
    assert!(online == fresh, "{k}: entries differ from a fresh build");
    let all = rows(s, "SELECT id, a, b, u, n FROM t ORDER BY id");
    let mut through = rows(
        s,
        &format!("SELECT id, a, b, u, n FROM t FORCE INDEX ({k}) WHERE id >= 0"),
    );
    through.sort_by_key(|r| r[0].parse::<i64>().unwrap());
    assert_eq!(through, all, "{k}: rows through the index differ");
    assert_eq!(rows(s, "CHECK TABLE t").last().unwrap()[3], "OK");
    exec(s, &format!("ALTER TABLE t DROP INDEX {k}_fresh"));
}

/// Random writes by one thread: inserts, updates (of every indexed column), deletes, REPLACE,
/// upserts, in autocommit statements and multi-statement transactions. UNIQUE values stay
/// unique: `u` is always id * 100 + something below 100.
fn write_randomly(s: &mut Session, rng: &mut rand::rngs::StdRng, thread: i64) {
    let id = rng.gen_range(0..ROWS + 600);
    let a = rng.gen_range(0..40);
    let b = format!("w{}", rng.gen_range(0..300));
    let u = id * 100 + rng.gen_range(0..100);
    let sql = match rng.gen_range(0..8) {
        0 => format!("INSERT IGNORE INTO t VALUES ({id}, {a}, '{b}', {u}, {thread})"),
        1 | 2 => format!("UPDATE t SET a = {a}, b = '{b}', u = {u} WHERE id = {id}"),
        3 => format!("DELETE FROM t WHERE id = {id}"),
        4 => format!("REPLACE INTO t VALUES ({id}, {a}, '{b}', {u}, {thread})"),
        5 => format!(
            "INSERT INTO t VALUES ({id}, {a}, '{b}', {u}, 0) \
             ON DUPLICATE KEY UPDATE n = n + 1, a = {a}"
        ),
        6 => format!(
            "UPDATE t SET n = n + 1, b = NULL WHERE id BETWEEN {id} AND {}",
            id + 3
        ),
        _ => {
            let id2 = (id + 7) % (ROWS + 600);
            exec(s, "BEGIN");
            exec(s, &format!("UPDATE t SET a = a + 1 WHERE id = {id}"));
            exec(s, &format!("DELETE FROM t WHERE id = {id2}"));
            "COMMIT".to_string()
        }
    };
    if let Err(e) = s.execute(&sql, &[]) {
        // Row-lock waits between writers may time out or deadlock; nothing else may fail.
        assert!([1205, 1213].contains(&e.code.number()), "{sql}: {e}");
        let _ = s.execute("ROLLBACK", &[]);
    }
}

/// Runs `alter` while `threads` writers write; returns the commits that completed while it ran.
fn alter_under_writers(e: &Arc<Engine>, s: &mut Session, alter: &str, seed: u64) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let altering = Arc::new(AtomicBool::new(false));
    let during = Arc::new(AtomicU64::new(0));
    let writers: Vec<_> = (0..3i64)
        .map(|w| {
            let (e, stop, altering, during) =
                (e.clone(), stop.clone(), altering.clone(), during.clone());
            std::thread::spawn(move || {
                let mut s = e.session(10 + w as u64, "root", "localhost");
                exec(&mut s, "USE test");
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed * 31 + w as u64);
                while !stop.load(Ordering::SeqCst) {
                    let was = altering.load(Ordering::SeqCst);
                    write_randomly(&mut s, &mut rng, w);
                    if was && altering.load(Ordering::SeqCst) {
                        during.fetch_add(1, Ordering::SeqCst);
                    }
                }
            })
        })
        .collect();
    // The build pauses at its steps, so writes land in every phase of it.
    *e.online_build_hook.lock() = Some(Arc::new(|_step: &str| {
        std::thread::sleep(Duration::from_millis(40));
    }));
    std::thread::sleep(Duration::from_millis(20));
    altering.store(true, Ordering::SeqCst);
    exec(s, alter);
    altering.store(false, Ordering::SeqCst);
    *e.online_build_hook.lock() = None;
    std::thread::sleep(Duration::from_millis(20));
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        w.join().unwrap();
    }
    during.load(Ordering::SeqCst)
}

#[test]
fn indexes_built_under_writers_equal_fresh_builds() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "ALTER TABLE t ADD INDEX ka (a), ALGORITHM=INPLACE, LOCK=NONE",
            &[("ka", "INDEX ka_fresh (a)")],
        ),
        (
            "CREATE UNIQUE INDEX ku ON t (u)",
            &[("ku", "UNIQUE INDEX ku_fresh (u)")],
        ),
        // Without a UNIQUE index writers write the entries once the fill is done (OIX8).
        (
            "ALTER TABLE t ADD CLUSTERING KEY kc (a, b), ADD INDEX kp (b(3)), ADD INDEX kb (b, a)",
            &[
                ("kc", "CLUSTERING KEY kc_fresh (a, b)"),
                ("kp", "INDEX kp_fresh (b(3))"),
                ("kb", "INDEX kb_fresh (b, a)"),
            ],
        ),
        (
            "ALTER TABLE t ADD CLUSTERING KEY kc (a, b), ADD INDEX kp (b(3)), \
             ADD UNIQUE KEY kau (a, u), ADD INDEX kb (b, a)",
            &[
                ("kc", "CLUSTERING KEY kc_fresh (a, b)"),
                ("kp", "INDEX kp_fresh (b(3))"),
                ("kau", "UNIQUE KEY kau_fresh (a, u)"),
                ("kb", "INDEX kb_fresh (b, a)"),
            ],
        ),
    ];
    for (seed, (alter, checks)) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let (e, mut s) = open_engine(dir.path());
        let during = alter_under_writers(&e, &mut s, alter, seed as u64);
        assert!(
            during > 0,
            "{alter}: no writer committed while the index was built"
        );
        for (k, spec) in checks.iter() {
            assert_like_fresh_build(&e, &mut s, k, spec);
        }
        assert!(
            trees_named(&e, "\0online").is_empty(),
            "a change log is left"
        );
    }
}

#[test]
fn a_unique_build_fails_on_a_duplicate_written_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    let writer = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    exec(&mut writer.lock(), "USE test");
    let w = writer.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        if step == "filled" {
            // Not in the snapshot: only the catch-up can see it.
            exec(
                &mut w.lock(),
                "INSERT INTO t VALUES (100000, 1, 'dup', 500, 0)",
            );
        }
    }));
    let before = rows(&mut s, "SELECT COUNT(*) FROM t");
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t ADD UNIQUE KEY ku (u), LOCK=NONE"),
        1062
    );
    *e.online_build_hook.lock() = None;
    // No trace: no index, no tree, no log; the writer's row stays; writers go on.
    assert!(rows(&mut s, "SHOW INDEX FROM t")
        .iter()
        .all(|r| r[2] != "ku"));
    assert!(trees_named(&e, "/ku").is_empty());
    assert!(trees_named(&e, "\0online").is_empty());
    let after: i64 = rows(&mut s, "SELECT COUNT(*) FROM t")[0][0]
        .parse()
        .unwrap();
    assert_eq!(after, before[0][0].parse::<i64>().unwrap() + 1);
    exec(&mut writer.lock(), "DELETE FROM t WHERE id = 100000");
    exec(&mut s, "ALTER TABLE t ADD UNIQUE KEY ku (u), LOCK=NONE");
    assert_like_fresh_build(&e, &mut s, "ku", "UNIQUE KEY ku_fresh (u)");
}

#[test]
fn a_unique_build_fails_on_committed_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    exec(&mut s, "UPDATE t SET u = 7 WHERE id IN (3, 9)");
    assert_eq!(err_code(&mut s, "CREATE UNIQUE INDEX ku ON t (u)"), 1062);
    assert!(trees_named(&e, "/ku").is_empty());
    // NULLs are no duplicates.
    exec(&mut s, "UPDATE t SET u = NULL WHERE id IN (3, 9)");
    exec(&mut s, "CREATE UNIQUE INDEX ku ON t (u)");
    assert_like_fresh_build(&e, &mut s, "ku", "UNIQUE KEY ku_fresh (u)");
}

#[test]
fn an_update_moving_a_duplicate_away_meanwhile_lets_the_build_finish() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    exec(&mut s, "UPDATE t SET u = 7 WHERE id IN (3, 9)");
    // The snapshot holds the duplicate: the bulk build already fails, as InnoDB's does.
    let w = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    exec(&mut w.lock(), "USE test");
    exec(&mut w.lock(), "UPDATE t SET u = 900 WHERE id = 9");
    let w2 = w.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        if step == "filled" {
            // Swap two values through a third: no committed state has a duplicate.
            let mut w = w2.lock();
            exec(&mut w, "BEGIN");
            exec(&mut w, "UPDATE t SET u = -1 WHERE id = 3");
            exec(&mut w, "UPDATE t SET u = 7 WHERE id = 9");
            exec(&mut w, "UPDATE t SET u = 900 WHERE id = 3");
            exec(&mut w, "COMMIT");
        }
    }));
    exec(&mut s, "ALTER TABLE t ADD UNIQUE KEY ku (u)");
    *e.online_build_hook.lock() = None;
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t FORCE INDEX (ku) WHERE u IN (7, 900) ORDER BY u"
        ),
        vec![vec!["9"], vec!["3"]]
    );
    assert_like_fresh_build(&e, &mut s, "ku", "UNIQUE KEY ku_fresh (u)");
}

#[test]
fn loads_during_the_fill_and_after_it_reach_the_new_index() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    e.set_secure_file_priv(Some(files.path().to_path_buf()));
    // REPLACE over existing rows (their entries move) and new rows, once logged (during the
    // fill) and once with the entries written by the load (OIX8).
    for (step, base) in [("filled", 0), ("maintaining", 1)] {
        let lines: String = (0..400)
            .map(|i| {
                let id = base * 150 + i * 7;
                format!("{id}\t{}\tload{step}\t{}\t{base}\n", i % 13, id * 100 + 1)
            })
            .collect();
        std::fs::write(files.path().join(format!("{step}.txt")), lines).unwrap();
    }
    let loader = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    exec(&mut loader.lock(), "USE test");
    let l = loader.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        let sql = format!("LOAD DATA INFILE '{step}.txt' REPLACE INTO TABLE t");
        exec(&mut l.lock(), &sql);
    }));
    exec(&mut s, "ALTER TABLE t ADD INDEX kb (b, a), LOCK=NONE");
    *e.online_build_hook.lock() = None;
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t WHERE b = 'loadmaintaining'"),
        vec![vec!["400"]]
    );
    assert_like_fresh_build(&e, &mut s, "kb", "INDEX kb_fresh (b, a)");
}

#[test]
fn a_transaction_holding_a_logged_row_ends_the_build_after_the_lock_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    exec(&mut s, "SET innodb_lock_wait_timeout = 1");
    let writer = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    let holder = Arc::new(Mutex::new(e.session(3, "root", "localhost")));
    exec(&mut writer.lock(), "USE test");
    exec(&mut holder.lock(), "USE test");
    let (w, h) = (writer.clone(), holder.clone());
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        if step == "filled" {
            // Logged during the fill, then held by an open transaction.
            exec(&mut w.lock(), "UPDATE t SET a = a + 1 WHERE id = 5");
            exec(&mut h.lock(), "BEGIN");
            exec(&mut h.lock(), "UPDATE t SET n = 7 WHERE id = 5");
        }
    }));
    assert_eq!(err_code(&mut s, "ALTER TABLE t ADD INDEX ka (a)"), 1205);
    *e.online_build_hook.lock() = None;
    assert!(trees_named(&e, "/ka").is_empty() && trees_named(&e, "\0online").is_empty());
    exec(&mut holder.lock(), "COMMIT");
    assert_eq!(
        rows(&mut s, "SELECT n FROM t WHERE id = 5"),
        vec![vec!["7"]]
    );
    exec(&mut s, "ALTER TABLE t ADD INDEX ka (a)");
    assert_like_fresh_build(&e, &mut s, "ka", "INDEX ka_fresh (a)");
}

#[test]
fn kill_query_ends_the_build_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    let killer = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    let builds = [
        ("ALTER TABLE t ADD INDEX ka (a), ADD INDEX kb (b)", "filled"),
        (
            "ALTER TABLE t ADD INDEX ka (a), ADD INDEX kb (b)",
            "maintaining",
        ),
        (
            "ALTER TABLE t ADD INDEX ka (a), ADD UNIQUE INDEX kb (u)",
            "round",
        ),
    ];
    for (alter, step) in builds {
        let k = killer.clone();
        let w = Arc::new(Mutex::new(e.session(3, "root", "localhost")));
        exec(&mut w.lock(), "USE test");
        let want = step.to_string();
        *e.online_build_hook.lock() = Some(Arc::new(move |at: &str| {
            // Enough changes for a round without the lock to follow.
            exec(&mut w.lock(), "UPDATE t SET a = a + 1 WHERE id < 1500");
            if at == want {
                exec(&mut k.lock(), "KILL QUERY 1");
            }
        }));
        assert_eq!(err_code(&mut s, alter), 1317, "{alter}: killed at {step}");
        *e.online_build_hook.lock() = None;
        assert!(trees_named(&e, "/ka").is_empty() && trees_named(&e, "/kb").is_empty());
        assert!(trees_named(&e, "\0online").is_empty());
        // Writers and DDL go on.
        exec(&mut s, "UPDATE t SET n = n + 1 WHERE id = 1");
    }
    exec(&mut s, "ALTER TABLE t ADD INDEX ka (a)");
    assert_like_fresh_build(&e, &mut s, "ka", "INDEX ka_fresh (a)");
}

#[test]
fn progress_shows_in_the_process_list() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let watcher = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    let w = Arc::new(Mutex::new(e.session(3, "root", "localhost")));
    exec(&mut w.lock(), "USE test");
    let (seen2, watcher2) = (seen.clone(), watcher.clone());
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        exec(&mut w.lock(), "UPDATE t SET a = a + 1 WHERE id < 1200");
        let mut v = watcher2.lock();
        let is = rows(
            &mut v,
            "SELECT STATE, STAGE, MAX_STAGE, PROGRESS FROM information_schema.PROCESSLIST \
             WHERE ID = 1",
        );
        let shown = rows(&mut v, "SHOW PROCESSLIST");
        let total = shown.iter().find(|r| r[0] == "1").unwrap()[8].clone();
        seen2.lock().push((step.to_string(), is[0].clone(), total));
    }));
    exec(
        &mut s,
        "ALTER TABLE t ADD INDEX ka (a), ALGORITHM=INPLACE, LOCK=NONE",
    );
    *e.online_build_hook.lock() = None;
    let seen = seen.lock().clone();
    assert_eq!(seen[0].0, "filled");
    assert_eq!(seen[0].1, vec!["altering table", "2", "3", "100.000"]);
    assert_eq!(seen[0].2, "66.667");
    assert_eq!(seen[1].0, "maintaining");
    assert_eq!(seen[1].1[..3], ["altering table", "3", "3"]);
    // After the statement: nothing reported.
    let mut v = watcher.lock();
    let idle = rows(
        &mut v,
        "SELECT STAGE, MAX_STAGE, PROGRESS FROM information_schema.PROCESSLIST WHERE ID = 1",
    );
    assert_eq!(idle[0], vec!["0", "0", "0.000"]);
}

#[test]
fn lock_shared_builds_without_the_online_steps() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    let steps = Arc::new(AtomicU64::new(0));
    let st = steps.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |_: &str| {
        st.fetch_add(1, Ordering::SeqCst);
    }));
    exec(&mut s, "ALTER TABLE t ADD INDEX ka (a), LOCK=SHARED");
    exec(&mut s, "ALTER TABLE t ADD INDEX kb (b), LOCK=EXCLUSIVE");
    assert_eq!(steps.load(Ordering::SeqCst), 0);
    exec(
        &mut s,
        "ALTER TABLE t ADD INDEX kn (n), ALGORITHM=INPLACE, LOCK=NONE",
    );
    assert!(steps.load(Ordering::SeqCst) > 0);
    // Other DDL waits for the build (its lock wait ends at the timeout).
    let other = Arc::new(Mutex::new(e.session(2, "root", "localhost")));
    exec(&mut other.lock(), "USE test");
    exec(&mut other.lock(), "SET innodb_lock_wait_timeout = 1");
    let o = other.clone();
    let codes = Arc::new(Mutex::new(Vec::new()));
    let c = codes.clone();
    *e.online_build_hook.lock() = Some(Arc::new(move |step: &str| {
        if step == "filled" {
            let r = o
                .lock()
                .execute("CREATE TABLE t2 (id INT PRIMARY KEY)", &[]);
            c.lock().push(r.err().map(|e| e.code.number()));
            // Writers do not wait.
            exec(&mut o.lock(), "UPDATE t SET n = 5 WHERE id = 2");
        }
    }));
    exec(&mut s, "ALTER TABLE t ADD INDEX ku (u)");
    assert_eq!(*codes.lock(), vec![Some(1205)]);
    assert_eq!(
        rows(&mut s, "SELECT n FROM t WHERE id = 2"),
        vec![vec!["5"]]
    );
}

#[test]
fn snapshots_older_than_an_index_or_a_rebuild_get_1412() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open_engine(dir.path());
    let mut old = e.session(2, "root", "localhost");
    exec(&mut old, "USE test");
    exec(
        &mut old,
        "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
    );
    exec(&mut old, "BEGIN");
    assert_eq!(rows(&mut old, "SELECT COUNT(*) FROM t"), vec![vec!["3000"]]);
    exec(&mut s, "DELETE FROM t WHERE id < 100");
    exec(&mut s, "ALTER TABLE t ADD INDEX ka (a)");
    // The index holds only rows its build saw: the old snapshot may not use it...
    assert_eq!(
        err_code(
            &mut old,
            "SELECT COUNT(*) FROM t FORCE INDEX (ka) WHERE a >= 0"
        ),
        1412
    );
    // ...while the primary tree still has its versions.
    assert_eq!(rows(&mut old, "SELECT COUNT(n) FROM t"), vec![vec!["3000"]]);
    exec(&mut old, "COMMIT");
    exec(&mut old, "BEGIN");
    assert_eq!(
        rows(
            &mut old,
            "SELECT COUNT(*) FROM t FORCE INDEX (ka) WHERE a >= 0"
        ),
        vec![vec!["2900"]]
    );
    // A rebuild: every tree is new.
    exec(&mut s, "ALTER TABLE t FORCE");
    assert_eq!(err_code(&mut old, "SELECT COUNT(*) FROM t"), 1412);
    exec(&mut old, "ROLLBACK");
    assert_eq!(rows(&mut old, "SELECT COUNT(*) FROM t"), vec![vec!["2900"]]);
    // READ COMMITTED reads the latest rows: no error.
    exec(
        &mut old,
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    );
    exec(&mut old, "BEGIN");
    exec(&mut s, "ALTER TABLE t ADD INDEX kb (b)");
    assert_eq!(
        rows(
            &mut old,
            "SELECT COUNT(*) FROM t FORCE INDEX (kb) WHERE b >= ''"
        ),
        vec![vec!["2900"]]
    );
    exec(&mut old, "COMMIT");
}
