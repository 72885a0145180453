//! Stored functions and procedures (design.md RTN1-RTN6): the interpreter's control flow and
//! variables, CALL with OUT / INOUT parameters and result sets, stored functions in
//! expressions, MariaDB's errors, the autocommit rule of a failing CALL, and the definitions
//! surviving a restart and DROP DATABASE.

mod sessions;

use betula_sql::{Output, Session};
use sessions::{err_code, exec, open, rows};

fn one(s: &mut Session, sql: &str) -> String {
    rows(s, sql)[0][0].clone()
}

/// The result sets the last CALL produced, as text.
fn call_results(s: &mut Session) -> Vec<Vec<Vec<String>>> {
    std::mem::take(&mut s.cx.routine_results)
        .into_iter()
        .map(|o| match o {
            Output::Rows { rows, .. } => rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|v| {
                            v.to_text(None)
                                .map_or("NULL".into(), |b| String::from_utf8_lossy(&b).into())
                        })
                        .collect()
                })
                .collect(),
            other => panic!("not rows: {other:?}"),
        })
        .collect()
}

const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, x INT)",
    "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
];

#[test]
fn loops_branches_and_variables() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE PROCEDURE p(IN n INT, OUT total INT, INOUT acc VARCHAR(100))
         BEGIN
           DECLARE i INT DEFAULT 0;
           DECLARE s INT DEFAULT 0;
           outer_loop: WHILE i < n DO
             SET i = i + 1;
             IF i = 2 THEN ITERATE outer_loop; ELSEIF i > 4 THEN LEAVE outer_loop; END IF;
             SET s = s + i;
             SET acc = CONCAT(acc, i);
           END WHILE outer_loop;
           REPEAT SET s = s + 100; UNTIL s > 300 END REPEAT;
           l: LOOP
             BEGIN DECLARE i INT DEFAULT 7; SET s = s + i; END;
             LEAVE l;
           END LOOP l;
           CASE WHEN s > 1000 THEN SET acc = 'big'; ELSE SET acc = CONCAT(acc, ':', i); END CASE;
           SET total = s;
         END",
    );
    exec(&mut s, "SET @acc = 'x'");
    exec(&mut s, "CALL p(10, @total, @acc)");
    // 1+3+4 = 8, then +100 x3 = 308, then +7 (the inner i) = 315; the outer i is 5
    assert_eq!(
        rows(&mut s, "SELECT @total, @acc"),
        vec![vec!["315", "x134:5"]]
    );
}

#[test]
fn statements_of_a_body_read_variables_and_send_results() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE PROCEDURE q(k INT)
         BEGIN
           DECLARE v INT;
           SELECT x INTO v FROM t WHERE id = k;
           INSERT INTO t VALUES (k + 10, v * 2);
           UPDATE t SET x = x + v WHERE id = k;
           SELECT id, x FROM t WHERE id IN (k, k + 10) ORDER BY id;
           SELECT v AS the_v;
         END",
    );
    exec(&mut s, "CALL q(2)");
    assert_eq!(
        call_results(&mut s),
        vec![vec![vec!["2", "40"], vec!["12", "40"]], vec![vec!["20"]]]
    );
    // no row: the variable keeps its value (a warning); two rows: 1172
    exec(
        &mut s,
        "CREATE PROCEDURE r() BEGIN DECLARE v INT DEFAULT 5; SELECT x INTO v FROM t WHERE id = 99; SELECT v; END",
    );
    exec(&mut s, "CALL r()");
    assert_eq!(call_results(&mut s), vec![vec![vec!["5"]]]);
    exec(
        &mut s,
        "CREATE PROCEDURE r2() BEGIN DECLARE v INT; SELECT x INTO v FROM t; END",
    );
    assert_eq!(err_code(&mut s, "CALL r2()"), 1172);
    // a single-statement body
    exec(&mut s, "CREATE PROCEDURE one_row() SELECT COUNT(*) FROM t");
    exec(&mut s, "CALL one_row");
    assert_eq!(call_results(&mut s), vec![vec![vec!["4"]]]);
}

#[test]
fn stored_functions_in_expressions() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE FUNCTION plus(a INT, b INT) RETURNS INT DETERMINISTIC RETURN a + b",
    );
    exec(
        &mut s,
        "CREATE FUNCTION biggest() RETURNS INT BEGIN RETURN (SELECT MAX(x) FROM t); END",
    );
    exec(
        &mut s,
        "CREATE FUNCTION half(a DECIMAL(10,2)) RETURNS DECIMAL(10,1) RETURN a / 2",
    );
    assert_eq!(one(&mut s, "SELECT plus(1, 2)"), "3");
    assert_eq!(
        one(&mut s, "SELECT test.plus(x, id) FROM t WHERE id = 3"),
        "33"
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE plus(x, 5) > 20 ORDER BY id"),
        vec![vec!["2"], vec!["3"]]
    );
    assert_eq!(one(&mut s, "SELECT biggest()"), "30");
    // the argument converts to DECIMAL(10,2), the result to DECIMAL(10,1)
    assert_eq!(one(&mut s, "SELECT half(2.555)"), "1.3");
    // a function calling itself, and bodies the expansion cannot express
    exec(
        &mut s,
        "CREATE FUNCTION self_call(n INT) RETURNS INT RETURN IF(n = 0, 0, self_call(n - 1))",
    );
    assert_eq!(err_code(&mut s, "SELECT self_call(3)"), 1424);
    exec(
        &mut s,
        "CREATE FUNCTION looping(n INT) RETURNS INT BEGIN DECLARE i INT DEFAULT 0; RETURN i; END",
    );
    assert_eq!(err_code(&mut s, "SELECT looping(1)"), 1235);
    // an argument naming a column the body's own table has would be read from the body's row
    // (MariaDB reads the caller's): refused, while a constant argument is answered
    exec(
        &mut s,
        "CREATE FUNCTION x_of(p INT) RETURNS INT RETURN (SELECT MAX(x) FROM t WHERE t.id = p)",
    );
    assert_eq!(err_code(&mut s, "SELECT x_of(id) FROM t"), 1235);
    assert_eq!(one(&mut s, "SELECT x_of(3)"), "30");
    assert_eq!(err_code(&mut s, "SELECT plus(1)"), 1318);
    assert_eq!(err_code(&mut s, "SELECT nothing_here(1)"), 1305);
}

#[test]
fn mariadbs_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE PROCEDURE p() SELECT 1");
    assert_eq!(err_code(&mut s, "CREATE PROCEDURE p() SELECT 2"), 1304);
    exec(&mut s, "CREATE PROCEDURE IF NOT EXISTS p() SELECT 2");
    exec(&mut s, "CREATE OR REPLACE PROCEDURE p() SELECT 3");
    exec(&mut s, "CALL p()");
    assert_eq!(call_results(&mut s), vec![vec![vec!["3"]]]);
    assert_eq!(err_code(&mut s, "CALL nope()"), 1305);
    assert_eq!(err_code(&mut s, "DROP FUNCTION nope"), 1305);
    exec(&mut s, "DROP FUNCTION IF EXISTS nope");
    assert_eq!(
        err_code(&mut s, "CREATE PROCEDURE b() BEGIN LEAVE x; END"),
        1308
    );
    assert_eq!(
        err_code(&mut s, "CREATE PROCEDURE b() x: BEGIN ITERATE x; END"),
        1308
    );
    assert_eq!(err_code(&mut s, "CREATE PROCEDURE b() RETURN 1"), 1313);
    assert_eq!(
        err_code(&mut s, "CREATE FUNCTION f() RETURNS INT BEGIN END"),
        1320
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE FUNCTION f() RETURNS INT BEGIN SELECT 1; RETURN 1; END"
        ),
        1415
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE PROCEDURE b() BEGIN DECLARE a INT; DECLARE a INT; END"
        ),
        1331
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE PROCEDURE b() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @x = 1; END"
        ),
        1235
    );
    assert_eq!(
        err_code(&mut s, "CREATE PROCEDURE b() BEGIN SELEC 1; END"),
        1064
    );
    exec(&mut s, "CREATE PROCEDURE o(OUT a INT) SET a = 1");
    assert_eq!(err_code(&mut s, "CALL o(1)"), 1414);
    assert_eq!(err_code(&mut s, "CALL o()"), 1318);
    exec(
        &mut s,
        "CREATE PROCEDURE rec(n INT) IF n > 0 THEN CALL rec(n - 1); END IF",
    );
    assert_eq!(err_code(&mut s, "CALL rec(2)"), 1456);
    exec(&mut s, "SET max_sp_recursion_depth = 5");
    exec(&mut s, "CALL rec(2)");
    exec(
        &mut s,
        "CREATE PROCEDURE c(k INT) CASE k WHEN 1 THEN SELECT 'one'; END CASE",
    );
    assert_eq!(err_code(&mut s, "CALL c(2)"), 1339);
}

#[test]
fn a_failing_call_keeps_the_statements_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE PROCEDURE ins() BEGIN INSERT INTO t VALUES (7, 70); INSERT INTO t VALUES (1, 0); END",
    );
    assert_eq!(err_code(&mut s, "CALL ins()"), 1062);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE id = 7"), "1");
    exec(&mut s, "BEGIN");
    exec(&mut s, "DELETE FROM t WHERE id = 7");
    assert_eq!(err_code(&mut s, "CALL ins()"), 1062);
    exec(&mut s, "ROLLBACK");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE id = 7"), "1");
}

#[test]
fn routines_survive_a_restart_and_go_with_their_database() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(dir.path(), SETUP);
        exec(
            &mut s,
            "CREATE DEFINER=`app`@`%` FUNCTION Twice(a INT) RETURNS int DETERMINISTIC COMMENT 'x2' RETURN a * 2",
        );
        exec(
            &mut s,
            "CREATE PROCEDURE pp(OUT c INT) SELECT COUNT(*) INTO c FROM t",
        );
        exec(&mut s, "CREATE DATABASE other");
        exec(&mut s, "CREATE PROCEDURE other.gone() SELECT 1");
    }
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(one(&mut s, "SELECT twice(21)"), "42");
    exec(&mut s, "CALL pp(@c)");
    assert_eq!(one(&mut s, "SELECT @c"), "3");
    assert_eq!(
        rows(&mut s, "SHOW CREATE FUNCTION twice")[0][2],
        "CREATE DEFINER=`app`@`%` FUNCTION `Twice`(a INT) RETURNS int(11)\n    DETERMINISTIC\n    COMMENT 'x2'\nRETURN a * 2"
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, DTD_IDENTIFIER, IS_DETERMINISTIC \
             FROM information_schema.ROUTINES ORDER BY ROUTINE_SCHEMA, ROUTINE_NAME"
        ),
        vec![
            vec!["other", "gone", "PROCEDURE", "", "NULL", "NO"],
            vec!["test", "pp", "PROCEDURE", "", "NULL", "NO"],
            vec!["test", "Twice", "FUNCTION", "int", "int(11)", "YES"],
        ]
    );
    exec(&mut s, "DROP DATABASE other");
    assert_eq!(
        rows(&mut s, "SHOW PROCEDURE STATUS").len(),
        1,
        "other.gone went with its database"
    );
    drop(s);
    drop(_e);
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(
        rows(
            &mut s,
            "SELECT ROUTINE_NAME FROM information_schema.ROUTINES ORDER BY 1"
        ),
        vec![vec!["pp"], vec!["Twice"]]
    );
}
