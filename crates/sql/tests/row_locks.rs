//! Writers lock rows, not tables: sessions changing different rows proceed at once; sessions
//! changing the same row (or inserting the same key, or the same UNIQUE value) wait for each
//! other and decide from the committed result; deadlocks end one transaction with 1213; DDL waits
//! for writing transactions.

mod sessions;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use betula_sql::{Engine, Session};
use sessions::{err_code, exec, open, rows};

fn engine() -> (tempfile::TempDir, Arc<Engine>) {
    let dir = tempfile::tempdir().unwrap();
    let (e, _) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT, u VARCHAR(10), UNIQUE KEY uu (u))",
            "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')",
        ],
    );
    (dir, e)
}

fn session(e: &Arc<Engine>, id: u64, lock_wait_secs: u32) -> Session {
    let mut s = e.session(id, "root", "localhost");
    exec(&mut s, "USE test");
    exec(
        &mut s,
        &format!("SET SESSION innodb_lock_wait_timeout = {lock_wait_secs}"),
    );
    s
}

/// Runs `sql` on session `s` in another thread (it may wait for a lock); join for the session
/// and the statement's outcome (Ok or the MySQL error code).
fn in_thread(mut s: Session, sql: &'static str) -> thread::JoinHandle<(Session, Result<(), u16>)> {
    thread::spawn(move || {
        let r = s.execute(sql, &[]).map(|_| ()).map_err(|e| e.code.number());
        (s, r)
    })
}

#[test]
fn writers_of_different_rows_do_not_wait_for_each_other() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    exec(&mut a, "BEGIN");
    exec(&mut a, "UPDATE t SET v = 11 WHERE id = 1");
    exec(&mut a, "INSERT INTO t VALUES (3, 30, 'c')");
    // B neither waits for A's rows nor sees them.
    exec(&mut b, "BEGIN");
    exec(&mut b, "UPDATE t SET v = 21 WHERE id = 2");
    exec(&mut b, "INSERT INTO t VALUES (4, 40, 'd')");
    exec(&mut b, "COMMIT");
    assert_eq!(
        rows(&mut b, "SELECT v FROM t WHERE id = 1"),
        vec![vec!["10"]]
    );
    exec(&mut a, "COMMIT");
    assert_eq!(
        rows(&mut b, "SELECT id, v FROM t ORDER BY id"),
        vec![
            vec!["1", "11"],
            vec!["2", "21"],
            vec!["3", "30"],
            vec!["4", "40"]
        ]
    );
}

#[test]
fn a_locked_row_times_out_then_updates_from_the_committed_value() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    exec(&mut a, "BEGIN");
    exec(&mut a, "UPDATE t SET v = v + 5 WHERE id = 1");
    assert_eq!(
        err_code(&mut b, "UPDATE t SET v = v + 100 WHERE id = 1"),
        1205
    );
    assert_eq!(err_code(&mut b, "DELETE FROM t WHERE id = 1"), 1205);
    // Another row is free.
    exec(&mut b, "UPDATE t SET v = v + 1 WHERE id = 2");
    // B waits for A, then changes A's committed result (no lost update).
    let waiter = thread::spawn(move || {
        exec(&mut b, "SET SESSION innodb_lock_wait_timeout = 30");
        exec(&mut b, "UPDATE t SET v = v + 100 WHERE id = 1");
        b
    });
    thread::sleep(Duration::from_millis(200));
    exec(&mut a, "COMMIT");
    let mut b = waiter.join().unwrap();
    assert_eq!(
        rows(&mut b, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "115"], vec!["2", "21"]]
    );
}

#[test]
fn an_update_whose_row_stopped_matching_while_it_waited_skips_it() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 30);
    let mut b = session(&e, 11, 30);
    exec(&mut a, "BEGIN");
    exec(&mut a, "UPDATE t SET v = 99 WHERE id = 1");
    let waiter = thread::spawn(move || {
        let out = exec(&mut b, "UPDATE t SET u = 'z' WHERE v = 10");
        (b, out)
    });
    thread::sleep(Duration::from_millis(200));
    exec(&mut a, "COMMIT");
    let (mut b, out) = waiter.join().unwrap();
    match out {
        betula_sql::Output::Done { affected, .. } => assert_eq!(affected, 0),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        rows(&mut b, "SELECT id, v, u FROM t ORDER BY id"),
        vec![vec!["1", "99", "a"], vec!["2", "20", "b"]]
    );
}

#[test]
fn concurrent_inserts_of_one_key_admit_exactly_one() {
    for a_commits in [true, false] {
        let (_d, e) = engine();
        let mut a = session(&e, 10, 30);
        let b = session(&e, 11, 30);
        exec(&mut a, "BEGIN");
        exec(&mut a, "INSERT INTO t VALUES (5, 50, 'e')");
        let waiter = in_thread(b, "INSERT INTO t VALUES (5, 51, 'f')");
        thread::sleep(Duration::from_millis(200));
        if a_commits {
            exec(&mut a, "COMMIT");
        } else {
            exec(&mut a, "ROLLBACK");
        }
        let (mut b, r) = waiter.join().unwrap();
        if a_commits {
            assert_eq!(r, Err(1062));
            assert_eq!(
                rows(&mut b, "SELECT v FROM t WHERE id = 5"),
                vec![vec!["50"]]
            );
        } else {
            assert_eq!(r, Ok(()));
            assert_eq!(
                rows(&mut b, "SELECT v FROM t WHERE id = 5"),
                vec![vec!["51"]]
            );
        }
    }
}

#[test]
fn concurrent_inserts_of_one_unique_value_admit_exactly_one() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 30);
    let b = session(&e, 11, 30);
    exec(&mut a, "BEGIN");
    exec(&mut a, "INSERT INTO t VALUES (5, 50, 'same')");
    let waiter = in_thread(b, "INSERT INTO t VALUES (6, 60, 'same')");
    thread::sleep(Duration::from_millis(200));
    exec(&mut a, "COMMIT");
    let (mut b, r) = waiter.join().unwrap();
    assert_eq!(r, Err(1062));
    assert_eq!(
        rows(&mut b, "SELECT id FROM t WHERE u = 'same'"),
        vec![vec!["5"]]
    );
}

#[test]
fn a_deadlock_rolls_back_one_transaction_and_lets_the_other_finish() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 30);
    let mut b = session(&e, 11, 30);
    exec(&mut a, "BEGIN");
    exec(&mut b, "BEGIN");
    exec(&mut a, "UPDATE t SET v = 100 WHERE id = 1");
    exec(&mut b, "UPDATE t SET v = 200 WHERE id = 2");
    let waiter = in_thread(a, "UPDATE t SET v = 101 WHERE id = 2");
    thread::sleep(Duration::from_millis(200));
    let rb = b
        .execute("UPDATE t SET v = 201 WHERE id = 1", &[])
        .map(|_| ())
        .map_err(|e| e.code.number());
    // B closes the cycle, so B is the victim: its whole transaction is rolled back.
    assert_eq!(rb, Err(1213));
    let (mut a, ra) = waiter.join().unwrap();
    assert_eq!(ra, Ok(()));
    exec(&mut a, "COMMIT");
    assert_eq!(
        rows(&mut b, "SELECT id, v FROM t ORDER BY id"),
        vec![vec!["1", "100"], vec!["2", "101"]]
    );
}

#[test]
fn ddl_waits_for_writing_transactions() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    exec(&mut a, "BEGIN");
    exec(&mut a, "INSERT INTO t VALUES (7, 70, 'g')");
    assert_eq!(err_code(&mut b, "ALTER TABLE t ADD COLUMN w INT"), 1205);
    exec(&mut a, "COMMIT");
    exec(&mut b, "ALTER TABLE t ADD COLUMN w INT");
    assert_eq!(
        rows(&mut b, "SELECT id, w FROM t WHERE id = 7"),
        vec![vec!["7", "NULL"]]
    );
}

#[test]
fn many_sessions_insert_distinct_rows_at_once() {
    let (_d, e) = engine();
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let e = e.clone();
            thread::spawn(move || {
                let mut s = session(&e, 20 + t, 30);
                for b in 0..25u64 {
                    exec(&mut s, "BEGIN");
                    let vals: Vec<String> = (0..20u64)
                        .map(|i| {
                            let id = 1000 + t * 10_000 + b * 100 + i;
                            format!("({id}, {t}, 'k{id}')")
                        })
                        .collect();
                    exec(&mut s, &format!("INSERT INTO t VALUES {}", vals.join(",")));
                    exec(&mut s, "COMMIT");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut s = session(&e, 2, 1);
    assert_eq!(
        rows(
            &mut s,
            "SELECT v, COUNT(*) FROM t WHERE id >= 1000 GROUP BY v ORDER BY v"
        ),
        vec![
            vec!["0", "500"],
            vec!["1", "500"],
            vec!["2", "500"],
            vec!["3", "500"]
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t WHERE u >= 'k'"),
        vec![vec!["2000"]]
    );
}

#[test]
fn select_for_update_by_primary_key_locks_its_rows_and_range_only() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    exec(&mut a, "BEGIN");
    assert_eq!(
        rows(&mut a, "SELECT v FROM t WHERE id = 1 FOR UPDATE"),
        vec![vec!["10"]]
    );
    assert_eq!(
        rows(
            &mut a,
            "SELECT id FROM t WHERE id BETWEEN 5 AND 9 FOR UPDATE"
        ),
        Vec::<Vec<String>>::new()
    );
    // Rows and keys outside what A read are free.
    exec(&mut b, "UPDATE t SET v = 21 WHERE id = 2");
    exec(&mut b, "INSERT INTO t VALUES (4, 40, 'd'), (10, 100, 'j')");
    // The row A read is locked, and so is every key of the range it read (no phantoms).
    assert_eq!(err_code(&mut b, "UPDATE t SET v = 12 WHERE id = 1"), 1205);
    assert_eq!(err_code(&mut b, "INSERT INTO t VALUES (7, 70, 'g')"), 1205);
    assert_eq!(
        rows(
            &mut a,
            "SELECT id FROM t WHERE id BETWEEN 5 AND 9 FOR UPDATE"
        ),
        Vec::<Vec<String>>::new()
    );
    exec(&mut a, "COMMIT");
    exec(&mut b, "INSERT INTO t VALUES (7, 70, 'g')");
    exec(&mut b, "UPDATE t SET v = 12 WHERE id = 1");
    assert_eq!(
        rows(&mut b, "SELECT id, v FROM t ORDER BY id"),
        vec![
            vec!["1", "12"],
            vec!["2", "21"],
            vec!["4", "40"],
            vec!["7", "70"],
            vec!["10", "100"]
        ]
    );
}

#[test]
fn select_for_update_without_a_primary_key_range_locks_the_table_and_autocommit_locks_nothing() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    // In autocommit mode the statement's locks end with it.
    assert_eq!(
        rows(&mut a, "SELECT v FROM t WHERE id = 1 FOR UPDATE"),
        vec![vec!["10"]]
    );
    exec(&mut b, "UPDATE t SET v = 11 WHERE id = 1");
    // Read through a secondary index: the whole table is locked.
    exec(&mut a, "BEGIN");
    assert_eq!(
        rows(&mut a, "SELECT id FROM t WHERE u = 'b' FOR UPDATE"),
        vec![vec!["2"]]
    );
    assert_eq!(err_code(&mut b, "INSERT INTO t VALUES (9, 90, 'i')"), 1205);
    exec(&mut a, "ROLLBACK");
    exec(&mut b, "INSERT INTO t VALUES (9, 90, 'i')");
}

#[test]
fn an_update_of_a_primary_key_range_in_a_transaction_keeps_others_out_of_the_range() {
    let (_d, e) = engine();
    let mut a = session(&e, 10, 1);
    let mut b = session(&e, 11, 1);
    exec(&mut a, "BEGIN");
    exec(&mut a, "UPDATE t SET v = v + 1 WHERE id BETWEEN 5 AND 9");
    exec(&mut a, "DELETE FROM t WHERE id > 20 AND id < 30");
    // Inserting into either range waits for A (no phantoms); outside them B goes on.
    assert_eq!(err_code(&mut b, "INSERT INTO t VALUES (7, 70, 'g')"), 1205);
    assert_eq!(
        err_code(&mut b, "INSERT INTO t VALUES (25, 250, 'y')"),
        1205
    );
    exec(
        &mut b,
        "INSERT INTO t VALUES (10, 100, 'j'), (30, 300, 'z')",
    );
    exec(&mut a, "COMMIT");
    exec(&mut b, "INSERT INTO t VALUES (7, 70, 'g'), (25, 250, 'y')");
    // Outside a transaction the statement locks no range.
    exec(&mut a, "UPDATE t SET v = v + 1 WHERE id BETWEEN 5 AND 9");
    exec(&mut b, "BEGIN");
    exec(&mut b, "INSERT INTO t VALUES (8, 80, 'h')");
    exec(&mut b, "COMMIT");
    assert_eq!(
        rows(
            &mut b,
            "SELECT id, v FROM t WHERE id BETWEEN 5 AND 30 ORDER BY id"
        ),
        vec![
            vec!["7", "71"],
            vec!["8", "80"],
            vec!["10", "100"],
            vec!["25", "250"],
            vec!["30", "300"]
        ]
    );
}
