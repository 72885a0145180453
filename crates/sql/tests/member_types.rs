//! ENUM, SET and BIT columns through the engine: values as MySQL stores them, indexes over them,
//! the definition kept across a reopen (the catalog stores SHOW CREATE TABLE text), blind upserts
//! carrying the members, and a changed member list re-encoding the rows.

mod sessions;

use sessions::{err_code, exec, open, rows};

#[test]
fn enum_set_and_bit_values_round_trip_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(
            dir.path(),
            &[
                "CREATE TABLE t (id INT PRIMARY KEY, \
                 e ENUM('small','medium','large') NOT NULL, \
                 s SET('red','green','blue'), b BIT(12), KEY ke (e))",
                "INSERT INTO t VALUES (1, 'LARGE', 'blue,red', b'101'), \
                 (2, 2, 5, 0xFF), (3, 'small', '', 4095)",
            ],
        );
        // strict mode: values outside the members are errors
        assert_eq!(
            err_code(&mut s, "INSERT INTO t VALUES (4, 'huge', '', 0)"),
            1265
        );
        assert_eq!(
            err_code(&mut s, "INSERT INTO t VALUES (4, 'small', 'pink', 0)"),
            1265
        );
        assert_eq!(
            err_code(&mut s, "INSERT INTO t VALUES (4, 'small', '', 4096)"),
            1264
        );
        assert_eq!(
            rows(&mut s, "SELECT id, e, s, b + 0 FROM t ORDER BY id"),
            vec![
                vec!["1", "large", "red,blue", "5"],
                vec!["2", "medium", "red,blue", "255"],
                vec!["3", "small", "", "4095"],
            ]
        );
    }
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM t")
            .into_iter()
            .map(|r| r[1].clone())
            .collect::<Vec<_>>(),
        vec![
            "int(11)",
            "enum('small','medium','large')",
            "set('red','green','blue')",
            "bit(12)"
        ]
    );
    // the index on the ENUM finds rows by member text (any case)
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t FORCE INDEX (ke) WHERE e = 'MEDIUM'"
        ),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, FIND_IN_SET('blue', s), BIN(b) FROM t WHERE id = 1"
        ),
        vec![vec!["1", "2", "101"]]
    );
    // a blind upsert's argument carries the members: the SET survives it
    exec(
        &mut s,
        "INSERT INTO t VALUES (3, 'small', 'green', 1) ON DUPLICATE KEY UPDATE b = b - 1",
    );
    assert_eq!(
        rows(&mut s, "SELECT e, s, b + 0 FROM t WHERE id = 3"),
        vec![vec!["small", "", "4094"]]
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES (5, 'large', 'green', 1) ON DUPLICATE KEY UPDATE b = 0",
    );
    assert_eq!(
        rows(&mut s, "SELECT e, s, b + 0 FROM t WHERE id = 5"),
        vec![vec!["large", "green", "1"]]
    );
    // new members renumber: the rows are rewritten under the new list
    exec(
        &mut s,
        "ALTER TABLE t MODIFY e ENUM('tiny','small','medium','large') NOT NULL",
    );
    assert_eq!(
        rows(&mut s, "SELECT id, e FROM t ORDER BY id"),
        vec![
            vec!["1", "large"],
            vec!["2", "medium"],
            vec!["3", "small"],
            vec!["5", "large"],
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE e = 'tiny'"),
        Vec::<Vec<String>>::new()
    );
}

#[test]
fn member_lists_are_checked_when_the_table_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let many: Vec<String> = (0..65).map(|i| format!("'m{i}'")).collect();
    assert_eq!(
        err_code(
            &mut s,
            &format!("CREATE TABLE t (s SET({}))", many.join(","))
        ),
        1097
    );
    assert_eq!(err_code(&mut s, "CREATE TABLE t (s SET('a,b'))"), 1367);
    assert_eq!(err_code(&mut s, "CREATE TABLE t (b BIT(65))"), 1439);
    // a NOT NULL ENUM without DEFAULT: strict mode wants a value (1364), otherwise the first
    // member is its implicit default
    exec(&mut s, "CREATE TABLE u (id INT, e ENUM('x','y') NOT NULL)");
    assert_eq!(err_code(&mut s, "INSERT INTO u (id) VALUES (1)"), 1364);
    exec(&mut s, "SET sql_mode = ''");
    exec(&mut s, "INSERT INTO u (id) VALUES (1)");
    assert_eq!(rows(&mut s, "SELECT e FROM u"), vec![vec!["x"]]);
}
