//! Crash at every sync point of statements that write a clustering index (design.md CIX1): each
//! runs on a simulated file system that dies at its n-th sync, for every n; the engine reopened
//! on what a power loss leaves must show the table as it was before the statement or as it is
//! after it, its rows read through every clustering index equal to its rows read from the
//! primary tree, and CHECK TABLE clean. An acknowledged statement must be there.

mod sessions;

use betula_sql::Session;

fn setup() -> Vec<String> {
    let values: Vec<String> = (0..80)
        .map(|i| format!("({i}, {}, {}, 'w{i}')", i % 6, i * 3))
        .collect();
    vec![
        "CREATE DATABASE d".into(),
        "USE d".into(),
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, v INT, w VARCHAR(20), \
         CLUSTERING KEY ka (a))"
            .into(),
        format!("INSERT INTO t VALUES {}", values.join(",")),
        "CHECKPOINT".into(),
    ]
}

/// The table's rows, after checking that each clustering index gives the same and CHECK TABLE
/// is clean.
fn state(s: &mut Session) -> Vec<String> {
    let rows = |s: &mut Session, q: &str| -> Vec<String> {
        sessions::rows(s, q)
            .into_iter()
            .map(|r| r.join("|"))
            .collect()
    };
    let all = rows(s, "SELECT id, a, v, w FROM t ORDER BY id");
    let keys = rows(
        s,
        "SELECT DISTINCT index_name FROM information_schema.statistics \
         WHERE table_schema = 'd' AND table_name = 't' AND index_name <> 'PRIMARY'",
    );
    for k in &keys {
        let mut through = rows(
            s,
            &format!("SELECT id, a, v, w FROM t FORCE INDEX ({k}) WHERE id >= 0"),
        );
        through.sort_by_key(|l| l.split('|').next().unwrap().parse::<i64>().unwrap());
        assert_eq!(through, all, "index {k} differs from the rows");
    }
    assert_eq!(
        sessions::rows(s, "CHECK TABLE t")
            .last()
            .map(|r| r[3].clone()),
        Some("OK".to_string())
    );
    let mut out = vec![format!("indexes {keys:?}")];
    out.extend(all);
    out
}

fn crash_at_every_sync(op: &str) {
    sessions::crash::all_or_nothing(&setup(), op, state, |_| {});
}

#[test]
fn adding_a_clustering_index_is_all_or_nothing() {
    crash_at_every_sync("ALTER TABLE t ADD CLUSTERING KEY kv (v)");
}

#[test]
fn an_update_of_clustered_rows_is_all_or_nothing() {
    crash_at_every_sync("UPDATE t SET a = a + 1, w = CONCAT(w, 'x') WHERE id % 3 = 0");
}

#[test]
fn a_set_oriented_insert_is_all_or_nothing() {
    let values: Vec<String> = (100..160)
        .map(|i| format!("({i}, {}, {i}, 'n{i}')", i % 4))
        .collect();
    crash_at_every_sync(&format!("INSERT INTO t VALUES {}", values.join(",")));
}
