//! Multi-table UPDATE and DELETE: results equal a reference computed here from the same data,
//! each row changes once however many joined rows it matches, ORDER BY/LIMIT are refused (1221),
//! and the rows found through the join are locked before they change (a concurrent writer's
//! row makes the statement wait, and it re-checks the row's committed version).

mod sessions;

use std::sync::Arc;
use std::thread;

use betula_sql::{Engine, Output, Session};
use sessions::{err_code, exec, open, rows};

type Rows = Vec<(i64, i64, i64)>;

/// t1(id, a, b) and t2(id, c, d) with several t2 rows per join value.
fn data() -> (Rows, Rows) {
    let t1 = (1..=40).map(|i| (i, i % 7, i * 10)).collect();
    let t2 = (1..=30).map(|i| (i, (i * 3) % 11, i)).collect();
    (t1, t2)
}

fn engine(secondary: bool) -> (tempfile::TempDir, Arc<Engine>, Session) {
    let dir = tempfile::tempdir().unwrap();
    let key = if secondary { ", KEY (c)" } else { "" };
    let (e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b INT)",
            &format!("CREATE TABLE t2 (id INT PRIMARY KEY, c INT, d INT{key})"),
        ],
    );
    let (t1, t2) = data();
    for (id, a, b) in t1 {
        exec(&mut s, &format!("INSERT INTO t1 VALUES ({id}, {a}, {b})"));
    }
    for (id, c, d) in t2 {
        exec(&mut s, &format!("INSERT INTO t2 VALUES ({id}, {c}, {d})"));
    }
    (dir, e, s)
}

fn table(s: &mut Session, t: &str) -> Rows {
    rows(s, &format!("SELECT * FROM {t} ORDER BY id"))
        .into_iter()
        .map(|r| {
            let n: Vec<i64> = r.iter().map(|v| v.parse().unwrap()).collect();
            (n[0], n[1], n[2])
        })
        .collect()
}

#[test]
fn update_join_changes_each_matching_row_once() {
    for secondary in [false, true] {
        let (_d, _e, mut s) = engine(secondary);
        let out = exec(
            &mut s,
            "UPDATE t1 JOIN t2 ON t1.a = t2.c SET t1.b = t1.b + 1, t2.d = t2.d + 100 WHERE t2.id < 25",
        );
        let (t1, t2) = data();
        let joined = |a: i64| t2.iter().any(|r| r.1 == a && r.0 < 25);
        let want1: Vec<_> = t1
            .iter()
            .map(|&(id, a, b)| (id, a, if joined(a) { b + 1 } else { b }))
            .collect();
        let want2: Vec<_> = t2
            .iter()
            .map(|&(id, c, d)| {
                let hit = id < 25 && t1.iter().any(|r| r.1 == c);
                (id, c, if hit { d + 100 } else { d })
            })
            .collect();
        assert_eq!(table(&mut s, "t1"), want1);
        assert_eq!(table(&mut s, "t2"), want2);
        let changed = want1.iter().zip(&t1).filter(|(a, b)| a != b).count()
            + want2.iter().zip(&t2).filter(|(a, b)| a != b).count();
        match out {
            Output::Done { affected, info, .. } => {
                assert_eq!(affected, changed as u64);
                assert!(
                    info.starts_with(&format!("Rows matched: {changed}")),
                    "{info}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn update_sees_the_first_matching_row_of_the_other_table() {
    let (_d, _e, mut s) = engine(false);
    // Comma join: t1.b takes d from the first t2 row (in t2's key order) that matches.
    exec(&mut s, "UPDATE t1, t2 SET t1.b = t2.d WHERE t1.a = t2.c");
    let (t1, t2) = data();
    let want: Vec<_> = t1
        .iter()
        .map(|&(id, a, b)| match t2.iter().find(|r| r.1 == a) {
            Some(r) => (id, a, r.2),
            None => (id, a, b),
        })
        .collect();
    assert_eq!(table(&mut s, "t1"), want);
}

#[test]
fn delete_forms_match_the_reference() {
    let (t1, t2) = data();
    // DELETE t1, t2 FROM ...: both sides of every matching pair.
    let (_d, _e, mut s) = engine(true);
    exec(
        &mut s,
        "DELETE t1, t2 FROM t1 JOIN t2 ON t1.a = t2.c WHERE t2.d > 10",
    );
    let hit1 = |a: i64| t2.iter().any(|r| r.1 == a && r.2 > 10);
    let hit2 = |c: i64, d: i64| d > 10 && t1.iter().any(|r| r.1 == c);
    let want1: Vec<_> = t1.iter().copied().filter(|r| !hit1(r.1)).collect();
    let want2: Vec<_> = t2.iter().copied().filter(|r| !hit2(r.1, r.2)).collect();
    assert_eq!(table(&mut s, "t1"), want1);
    assert_eq!(table(&mut s, "t2"), want2);

    // DELETE FROM t2.* USING ...: only the listed table.
    let (_d, _e, mut s) = engine(false);
    let out = exec(
        &mut s,
        "DELETE QUICK FROM t2.* USING t1, t2 WHERE t1.a = t2.c AND t1.id <= 5",
    );
    let gone = |c: i64| t1.iter().any(|r| r.1 == c && r.0 <= 5);
    let want2: Vec<_> = t2.iter().copied().filter(|r| !gone(r.1)).collect();
    assert_eq!(table(&mut s, "t1"), t1);
    assert_eq!(table(&mut s, "t2"), want2);
    assert!(
        matches!(out, Output::Done { affected, .. } if affected == (t2.len() - want2.len()) as u64)
    );
}

#[test]
fn order_by_limit_and_unknown_targets_are_errors() {
    let (_d, _e, mut s) = engine(false);
    let bad = [
        ("UPDATE t1, t2 SET b = 1 WHERE a = c ORDER BY a", 1221),
        ("UPDATE t1, t2 SET b = 1 WHERE a = c LIMIT 1", 1221),
        ("DELETE t1 FROM t1, t2 WHERE a = c LIMIT 1", 1221),
        ("DELETE t3 FROM t1, t2 WHERE a = c", 1109),
        ("UPDATE t1, t2 SET nope = 1", 1054),
        ("DELETE t1 FROM t1, missing WHERE a = 1", 1146),
    ];
    for (sql, code) in bad {
        assert_eq!(err_code(&mut s, sql), code, "{sql}");
    }
    let (t1, t2) = data();
    assert_eq!(table(&mut s, "t1"), t1);
    assert_eq!(table(&mut s, "t2"), t2);
}

#[test]
fn ignore_keeps_rows_that_would_duplicate_a_key() {
    let (_d, _e, mut s) = engine(false);
    // Every t1 row matching t2.id = 1 would get id 1000: the first succeeds, the rest warn.
    exec(
        &mut s,
        "UPDATE IGNORE t1, t2 SET t1.id = 1000 WHERE t2.id = 1 AND t1.id <= 3",
    );
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")
            .iter()
            .filter(|w| w[1] == "1062")
            .count(),
        2
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t1 WHERE id <= 3 OR id = 1000 ORDER BY id"
        ),
        vec![vec!["2"], vec!["3"], vec!["1000"]]
    );
    assert_eq!(
        err_code(
            &mut s,
            "UPDATE t1, t2 SET t1.id = 2 WHERE t2.id = 1 AND t1.id = 3"
        ),
        1062
    );
}

fn session(e: &Arc<Engine>, id: u64) -> Session {
    let mut s = e.session(id, "root", "localhost");
    exec(&mut s, "USE test");
    exec(&mut s, "SET SESSION innodb_lock_wait_timeout = 1");
    s
}

#[test]
fn joined_rows_are_locked_and_rechecked() {
    let (_d, e, _s) = engine(false);
    let mut a = session(&e, 10);
    // A holds t2 row 1 (c = 3): B's multi-table change of that row times out.
    exec(&mut a, "BEGIN");
    exec(&mut a, "UPDATE t2 SET c = 99 WHERE id = 1");
    let mut b = session(&e, 11);
    assert_eq!(
        err_code(
            &mut b,
            "DELETE t2 FROM t1, t2 WHERE t1.a = t2.c AND t2.id = 1"
        ),
        1205
    );
    // Rows of t1 are not held by A: changing them through the join does not wait.
    exec(
        &mut b,
        "UPDATE t1, t2 SET t1.b = 0 WHERE t1.a = t2.c AND t2.id = 2",
    );
    // B waits for A; A commits c = 99, which no longer joins: B re-checks and deletes nothing.
    let h = thread::spawn(move || {
        let mut b = b;
        exec(&mut b, "SET SESSION innodb_lock_wait_timeout = 30");
        let r = b.execute("DELETE t2 FROM t1, t2 WHERE t1.a = t2.c AND t2.id = 1", &[]);
        (
            b,
            r.map(|o| match o {
                Output::Done { affected, .. } => affected,
                _ => u64::MAX,
            }),
        )
    });
    thread::sleep(std::time::Duration::from_millis(200));
    exec(&mut a, "COMMIT");
    let (_b, r) = h.join().unwrap();
    assert_eq!(r.map_err(|e| e.code.number()), Ok(0));
    assert_eq!(
        rows(&mut a, "SELECT c FROM t2 WHERE id = 1"),
        vec![vec!["99"]]
    );
}

#[test]
fn prepared_multi_table_statements_take_parameters() {
    let (_d, _e, mut s) = engine(false);
    let (n, _) = s
        .prepare(
            1,
            "UPDATE IGNORE t1, t2 SET t1.b = ? WHERE t1.a = t2.c AND t2.id = ?",
        )
        .unwrap();
    assert_eq!(n, 2);
    s.execute_prepared(
        1,
        &[
            betula_sql::types::value::Value::Int(-1),
            betula_sql::types::value::Value::Int(1),
        ],
    )
    .unwrap();
    // t2 row 1 has c = 3: the t1 rows with a = 3 changed.
    let (t1, _) = data();
    let want: Vec<_> = t1
        .iter()
        .map(|&(id, a, b)| (id, a, if a == 3 { -1 } else { b }))
        .collect();
    assert_eq!(table(&mut s, "t1"), want);
}
