//! What instant ALTER TABLE promises besides the rows (design.md INS4, INS7, INS8): ALGORITHM= and
//! LOCK= refuse a plan they do not allow with MariaDB's errors and change nothing; a REPEATABLE
//! READ snapshot older than an instant ALTER reads its own rows through the new definition; a
//! writing transaction holds an ALTER off; writers running beside instant ALTERs all succeed; and
//! a crash at any sync point of an instant ALTER leaves the table as it was or as it became.

mod sessions;

use std::path::Path;
use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::vfs::SimVfs;
use sessions::{err_code, exec, open, rows};

fn generation(e: &Engine, t: &str) -> u64 {
    e.catalog.get_table("test", t).unwrap().generation
}

#[test]
fn algorithm_and_lock_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY kb (b))",
            "INSERT INTO t VALUES (1, 10, 'x'), (2, NULL, 'y'), (3, 30, NULL)",
        ],
    );
    let ok = |s: &mut Session, sql: &str| {
        exec(s, sql);
    };
    ok(
        &mut s,
        "ALTER TABLE t ADD COLUMN c INT DEFAULT 4 FIRST, ALGORITHM=INSTANT",
    );
    ok(
        &mut s,
        "ALTER TABLE t MODIFY a BIGINT, ALGORITHM=INSTANT, LOCK=NONE",
    );
    ok(
        &mut s,
        "ALTER TABLE t MODIFY b VARCHAR(30), ALGORITHM=INSTANT",
    );
    assert_eq!(generation(&e, "t"), 0);
    let refused = [
        ("ALTER TABLE t MODIFY a INT, ALGORITHM=INSTANT", 1846),
        ("ALTER TABLE t MODIFY a INT, ALGORITHM=INPLACE", 1846),
        ("ALTER TABLE t MODIFY a INT, ALGORITHM=NOCOPY", 1846),
        ("ALTER TABLE t MODIFY a INT, LOCK=NONE", 1846),
        ("ALTER ONLINE TABLE t MODIFY a INT", 1846),
        // a wider integer in a key changes the key bytes
        ("ALTER TABLE t MODIFY id BIGINT, ALGORITHM=INSTANT", 1846),
        ("ALTER TABLE t ADD INDEX ka (a), ALGORITHM=INSTANT", 1845),
        (
            "ALTER TABLE t MODIFY a BIGINT NOT NULL, ALGORITHM=INSTANT",
            1845,
        ),
        ("ALTER TABLE t MODIFY a BIGINT NOT NULL, LOCK=NONE", 1846),
        ("ALTER TABLE t FORCE, LOCK=NONE", 1846),
        (
            "ALTER TABLE t ADD COLUMN x INT, ALGORITHM=COPY, LOCK=NONE",
            1846,
        ),
        (
            "ALTER TABLE t ADD COLUMN n INT AUTO_INCREMENT UNIQUE, ALGORITHM=INSTANT",
            1846,
        ),
        ("ALTER TABLE t ADD COLUMN x INT, ALGORITHM=FAST", 1800),
        ("ALTER TABLE t ADD COLUMN x INT, LOCK=ALL", 1801),
    ];
    let before = rows(&mut s, "SELECT * FROM t ORDER BY id");
    for (sql, code) in refused {
        assert_eq!(err_code(&mut s, sql), code, "{sql}");
        assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), before, "{sql}");
        assert_eq!(generation(&e, "t"), 0, "{sql}");
    }
    // An index build is in place, a NULL -> NOT NULL check is a rebuild INPLACE allows, and
    // COPY always copies.
    ok(&mut s, "ALTER TABLE t ADD INDEX ka (a), ALGORITHM=NOCOPY");
    assert_eq!(generation(&e, "t"), 0);
    exec(&mut s, "UPDATE t SET a = 20 WHERE id = 2");
    ok(
        &mut s,
        "ALTER TABLE t MODIFY a BIGINT NOT NULL, ALGORITHM=INPLACE, LOCK=SHARED",
    );
    assert_eq!(generation(&e, "t"), 1);
    ok(&mut s, "ALTER TABLE t ADD COLUMN x INT, ALGORITHM=COPY");
    assert_eq!(generation(&e, "t"), 2);
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        vec![
            vec!["4", "1", "10", "x", "NULL"],
            vec!["4", "2", "20", "y", "NULL"],
            vec!["4", "3", "30", "NULL", "NULL"],
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t FORCE INDEX (ka) WHERE a >= 20 ORDER BY a"
        ),
        vec![vec!["2"], vec!["3"]]
    );
}

#[test]
fn old_snapshot_reads_its_rows_through_the_new_definition() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s1) = open(
        dir.path(),
        &["CREATE TABLE r (id INT PRIMARY KEY, a INT, b VARCHAR(10))"],
    );
    for i in 1..=50 {
        exec(
            &mut s1,
            &format!("INSERT INTO r VALUES ({i}, {}, 'b{i}')", i * 2),
        );
    }
    let mut s2 = e.session(2, "root", "localhost");
    exec(&mut s2, "USE test");
    exec(&mut s1, "BEGIN");
    assert_eq!(rows(&mut s1, "SELECT COUNT(*) FROM r"), vec![vec!["50"]]);
    exec(
        &mut s2,
        "ALTER TABLE r ADD COLUMN c INT NOT NULL DEFAULT 7 FIRST, DROP COLUMN a, \
         MODIFY b VARCHAR(20), ALGORITHM=INSTANT, LOCK=NONE",
    );
    exec(&mut s2, "INSERT INTO r (id, b) VALUES (1000, 'new')");
    exec(&mut s2, "UPDATE r SET b = 'changed', c = 8 WHERE id = 1");
    // The snapshot's rows, in the new shape: no row it did not see, no value no version wrote.
    let want: Vec<Vec<String>> = (1..=50)
        .map(|i| vec!["7".to_string(), i.to_string(), format!("b{i}")])
        .collect();
    assert_eq!(rows(&mut s1, "SELECT * FROM r ORDER BY id"), want);
    exec(&mut s1, "COMMIT");
    let now = rows(&mut s1, "SELECT * FROM r ORDER BY id");
    assert_eq!(now.len(), 51);
    assert_eq!(now[0], vec!["8", "1", "changed"]);
    assert_eq!(now[50], vec!["7", "1000", "new"]);
    // A writing transaction holds the ALTER off until it ends (SES3); the ALTER then runs.
    exec(&mut s1, "BEGIN");
    exec(&mut s1, "INSERT INTO r (id, b) VALUES (2000, 'w')");
    exec(&mut s2, "SET SESSION innodb_lock_wait_timeout = 1");
    assert_eq!(
        err_code(&mut s2, "ALTER TABLE r DROP COLUMN c, ALGORITHM=INSTANT"),
        1205
    );
    exec(&mut s1, "COMMIT");
    exec(&mut s2, "ALTER TABLE r DROP COLUMN c, ALGORITHM=INSTANT");
    assert_eq!(
        rows(&mut s1, "SELECT * FROM r WHERE id IN (1, 2000) ORDER BY id"),
        vec![vec!["1", "changed"], vec!["2000", "w"]]
    );
}

#[test]
fn writers_run_beside_instant_alters() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open(
        dir.path(),
        &["CREATE TABLE w (id INT PRIMARY KEY, v INT, note VARCHAR(8))"],
    );
    let writer = {
        let e = e.clone();
        std::thread::spawn(move || {
            let mut s = e.session(9, "root", "localhost");
            exec(&mut s, "USE test");
            for i in 0..2000 {
                exec(&mut s, &format!("INSERT INTO w (id, v) VALUES ({i}, {i})"));
            }
        })
    };
    for n in 0..20 {
        exec(
            &mut s,
            &format!("ALTER TABLE w ADD COLUMN x{n} INT DEFAULT {n} AFTER id, ALGORITHM=INSTANT"),
        );
        if n % 2 == 1 {
            exec(
                &mut s,
                &format!("ALTER TABLE w DROP COLUMN x{}, ALGORITHM=INSTANT", n - 1),
            );
        }
    }
    writer.join().unwrap();
    assert_eq!(generation(&e, "w"), 0);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), SUM(v = id), SUM(x19 = 19) FROM w"),
        vec![vec!["2000", "2000", "2000"]]
    );
}

const SETUP: &[&str] = &[
    "CREATE DATABASE d",
    "USE d",
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, w SMALLINT, s VARCHAR(4))",
    "INSERT INTO t VALUES (1, 1, 10, 'a'), (2, 2, 20, 'b'), (3, NULL, 30, NULL)",
    "CHECKPOINT",
];

const OP: &str = "ALTER TABLE t ADD COLUMN c INT DEFAULT 5 FIRST, DROP COLUMN v, MODIFY w BIGINT, \
                  MODIFY s VARCHAR(9), ALGORITHM=INSTANT";

fn state(s: &mut Session) -> Vec<Vec<String>> {
    let mut v = rows(
        s,
        "SELECT column_name FROM information_schema.columns \
         WHERE table_schema = 'd' AND table_name = 't' ORDER BY ordinal_position",
    );
    v.extend(rows(s, "SELECT * FROM t ORDER BY id"));
    v
}

fn run(dir: &Path, vfs: Arc<SimVfs>) -> (bool, bool) {
    let Some((_e, mut s)) = sessions::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in SETUP {
        if s.execute(sql, &[]).is_err() {
            return (false, false);
        }
    }
    (true, s.execute(OP, &[]).is_ok())
}

#[test]
fn crash_at_every_sync_of_an_instant_alter() {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = {
        let (_e, mut s) = sessions::open_crash_engine(dir.path(), Arc::new(SimVfs::new())).unwrap();
        for sql in SETUP {
            exec(&mut s, sql);
        }
        let before = state(&mut s);
        exec(&mut s, OP);
        (before, state(&mut s))
    };
    assert_ne!(before, after);
    sessions::crash::at_every_sync(dir.path(), run, |mut p| {
        let s = &mut p.session;
        let now = state(s);
        if p.acked {
            assert_eq!(
                now, after,
                "crash at sync {} lost the acknowledged ALTER",
                p.at
            );
        } else {
            assert!(
                now == before || now == after,
                "crash at sync {} left {now:?}",
                p.at
            );
        }
        // whichever definition survived reads and writes every row
        exec(s, "INSERT INTO t (id) VALUES (4)");
        exec(s, "UPDATE t SET id = id + 10");
        assert_eq!(
            rows(s, "SELECT COUNT(*) FROM t WHERE id > 10"),
            vec![vec!["4"]]
        );
    });
}
