//! PREPARE / EXECUTE / DEALLOCATE PREPARE in SQL, as MariaDB 10.11 has them: named per session,
//! texts from a string, a variable or an expression, `?` filled by USING (variables or
//! expressions), re-PREPARE replacing, and MariaDB's errors (1243, 1210, 1295, 1064).

mod sessions;

use betula_sql::Output;
use sessions::{err_code, exec, open, rows};

#[test]
fn prepared_statements_run_with_their_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = open(
        dir.path(),
        &["CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"],
    );
    match exec(&mut s, "PREPARE sum2 FROM 'SELECT ? + ?'") {
        Output::Done { info, .. } => assert_eq!(info, "Statement prepared"),
        other => panic!("{other:?}"),
    }
    exec(&mut s, "SET @a = 1");
    assert_eq!(
        rows(&mut s, "EXECUTE sum2 USING @a, 2 * 3"),
        vec![vec!["7"]]
    );
    // Names are case-insensitive.
    assert_eq!(rows(&mut s, "EXECUTE SUM2 USING 10, @a"), vec![vec!["11"]]);
    exec(&mut s, "SET @q = 'INSERT INTO t VALUES (?, ?)'");
    exec(&mut s, "PREPARE ins FROM @q");
    for (id, v) in [(1, "'one'"), (2, "CONCAT('tw', 'o')")] {
        exec(&mut s, &format!("EXECUTE ins USING {id}, {v}"));
    }
    exec(
        &mut s,
        "PREPARE ins FROM \"INSERT INTO t VALUES (3, 'three')\"",
    );
    exec(&mut s, "EXECUTE ins");
    assert_eq!(
        rows(&mut s, "SELECT GROUP_CONCAT(v ORDER BY id) FROM t"),
        vec![vec!["one,two,three"]]
    );
    // An expression as the text; a statement without parameters runs again.
    exec(
        &mut s,
        "PREPARE c FROM CONCAT('SELECT COUNT(*) FROM ', 't', ' WHERE id > ?')",
    );
    assert_eq!(rows(&mut s, "EXECUTE c USING 1"), vec![vec!["2"]]);
    assert_eq!(
        rows(&mut s, "EXECUTE IMMEDIATE 'SELECT ? * 2' USING 21"),
        vec![vec!["42"]]
    );
    // Per session.
    let mut other = e.session(2, "root", "localhost");
    assert_eq!(
        other
            .execute("EXECUTE c USING 1", &[])
            .unwrap_err()
            .code
            .number(),
        1243
    );
    exec(&mut s, "DEALLOCATE PREPARE c");
    assert_eq!(err_code(&mut s, "EXECUTE c USING 1"), 1243);
    exec(&mut s, "DROP PREPARE sum2");
    assert_eq!(err_code(&mut s, "DROP PREPARE sum2"), 1243);
}

#[test]
fn errors_are_mariadbs() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    exec(&mut s, "PREPARE p FROM 'SELECT ?'");
    assert_eq!(err_code(&mut s, "EXECUTE p"), 1210);
    assert_eq!(err_code(&mut s, "EXECUTE p USING 1, 2"), 1210);
    assert_eq!(err_code(&mut s, "EXECUTE nope"), 1243);
    assert_eq!(err_code(&mut s, "DEALLOCATE PREPARE nope"), 1243);
    // A PREPARE that fails drops the statement it replaces.
    assert_eq!(err_code(&mut s, "PREPARE p FROM 'SELEC 1'"), 1064);
    assert_eq!(err_code(&mut s, "EXECUTE p USING 1"), 1243);
    assert_eq!(
        err_code(&mut s, "PREPARE p FROM 'PREPARE q FROM ''SELECT 1'''"),
        1295
    );
    assert_eq!(err_code(&mut s, "PREPARE p FROM 'EXECUTE q'"), 1295);
    assert_eq!(
        err_code(&mut s, "PREPARE p FROM 'DEALLOCATE PREPARE q'"),
        1295
    );
    assert_eq!(err_code(&mut s, "PREPARE p FROM @unset"), 1064);
    assert_eq!(err_code(&mut s, "PREPARE p"), 1064);
    assert_eq!(err_code(&mut s, "EXECUTE p USING"), 1064);
}
