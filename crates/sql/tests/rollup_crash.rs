//! Crash at every sync point of statements that change a roll-up (design.md RUP5, RUP6): each
//! runs on a simulated file system that dies at its n-th sync, for every n; the engine reopened
//! on what a power loss leaves must show the base table and its roll-up as they were before the
//! statement or as they are after it, the roll-up equal to the GROUP BY of the base table. An
//! acknowledged statement must be there.

mod sessions;

use betula_sql::Session;

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

fn crash_at_every_sync(with_rollup: bool, op: &str) {
    sessions::crash::all_or_nothing(&setup(with_rollup), op, state, |_| {});
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
