//! `unique_checks = 0` (design.md SES9): an autocommit INSERT into a table without secondary
//! indexes takes its rows to be new (a row whose key exists is replaced, not 1062); rows repeated
//! within a statement, INSERTs inside a transaction, tables with secondary indexes and
//! `unique_checks = 1` still get 1062.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn table(s: &mut betula_sql::Session, t: &str) -> Vec<Vec<String>> {
    rows(s, &format!("SELECT id, v FROM {t} ORDER BY id"))
}

fn pairs(p: &[(i64, &str)]) -> Vec<Vec<String>> {
    p.iter()
        .map(|(i, v)| vec![i.to_string(), v.to_string()])
        .collect()
}

#[test]
fn unique_checks_off_replaces_existing_rows_only_where_nothing_is_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
    exec(
        &mut s,
        "CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(10), KEY by_v (v))",
    );
    for t in ["t", "u"] {
        exec(
            &mut s,
            &format!("INSERT INTO {t} VALUES (1, 'a'), (5, 'e')"),
        );
    }
    // Checks on: a duplicate is 1062 and nothing of the statement is written.
    assert_eq!(
        err_code(&mut s, "INSERT INTO t VALUES (2, 'b'), (1, 'x')"),
        1062
    );
    assert_eq!(table(&mut s, "t"), pairs(&[(1, "a"), (5, "e")]));

    exec(&mut s, "SET unique_checks = 0");
    // No secondary index: the rows are taken as new; the existing row 1 is replaced.
    exec(&mut s, "INSERT INTO t VALUES (2, 'b'), (1, 'x')");
    assert_eq!(table(&mut s, "t"), pairs(&[(1, "x"), (2, "b"), (5, "e")]));
    // Rows repeated within the statement are still 1062.
    assert_eq!(
        err_code(&mut s, "INSERT INTO t VALUES (7, 'g'), (7, 'h')"),
        1062
    );
    // Inside a transaction the row-at-a-time path checks as usual.
    exec(&mut s, "BEGIN");
    assert_eq!(err_code(&mut s, "INSERT INTO t VALUES (5, 'y')"), 1062);
    exec(&mut s, "COMMIT");
    // A secondary index keeps the check (the replaced row's entry would stay behind).
    assert_eq!(err_code(&mut s, "INSERT INTO u VALUES (1, 'x')"), 1062);
    assert_eq!(
        rows(&mut s, "SELECT id FROM u WHERE v = 'a'"),
        vec![vec!["1".to_string()]]
    );
    assert_eq!(table(&mut s, "t"), pairs(&[(1, "x"), (2, "b"), (5, "e")]));

    exec(&mut s, "SET unique_checks = 1");
    assert_eq!(err_code(&mut s, "INSERT INTO t VALUES (2, 'z')"), 1062);
    assert_eq!(table(&mut s, "t"), pairs(&[(1, "x"), (2, "b"), (5, "e")]));
}
