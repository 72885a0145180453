//! Views (design.md VIEW1-VIEW7): CREATE / ALTER / DROP VIEW, reading views in joins, subqueries
//! and views over views, SHOW and information_schema, MariaDB's errors, writes through simple
//! views with their check options (and the refusal of the others), and the definitions
//! surviving a restart and a crash at every sync point.

mod sessions;

use sessions::crash::all_or_nothing;
use sessions::{err_code, exec, open, rows};

fn one(s: &mut betula_sql::Session, sql: &str) -> String {
    rows(s, sql)[0][0].clone()
}

const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, g INT, x INT, name VARCHAR(10))",
    "INSERT INTO t VALUES (1, 1, 10, 'a'), (2, 1, 20, 'b'), (3, 2, 30, 'c')",
    "CREATE TABLE u (g INT PRIMARY KEY, label VARCHAR(10))",
    "INSERT INTO u VALUES (1, 'one'), (2, 'two')",
];

#[test]
fn views_read_like_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE VIEW v AS SELECT id, g, x * 2 AS dx FROM t WHERE x > 10",
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM v ORDER BY id"),
        vec![vec!["2", "1", "40"], vec!["3", "2", "60"]]
    );
    // A column list renames; WHERE, ORDER BY and aggregates over the view.
    exec(
        &mut s,
        "CREATE VIEW w (k, total) AS SELECT g, SUM(x) FROM t GROUP BY g",
    );
    assert_eq!(
        rows(&mut s, "SELECT k, total FROM w WHERE total > 25 ORDER BY k"),
        vec![vec!["1", "30"], vec!["2", "30"]]
    );
    // Joins with tables and with another view, aliases, qualified names.
    assert_eq!(
        rows(
            &mut s,
            "SELECT u.label, vv.dx FROM test.v AS vv JOIN u ON u.g = vv.g ORDER BY vv.dx"
        ),
        vec![vec!["one", "40"], vec!["two", "60"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT v.id, w.total FROM v LEFT JOIN w ON w.k = v.g ORDER BY v.id"
        ),
        vec![vec!["2", "30"], vec!["3", "30"]]
    );
    // Subqueries, derived tables and CTEs over a view.
    assert_eq!(
        one(
            &mut s,
            "SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM v)"
        ),
        "2"
    );
    assert_eq!(
        one(&mut s, "SELECT MAX(d.dx) FROM (SELECT dx FROM v) d"),
        "60"
    );
    assert_eq!(
        one(&mut s, "WITH c AS (SELECT * FROM v) SELECT SUM(dx) FROM c"),
        "100"
    );
    // Columns without an alias are named after their text in the view's SELECT.
    exec(
        &mut s,
        "CREATE VIEW named AS SELECT id,  x + 1, UPPER(name) FROM t WHERE id = 1",
    );
    match exec(&mut s, "SELECT * FROM named") {
        betula_sql::Output::Rows { cols, .. } => assert_eq!(
            cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            vec!["id", "x + 1", "UPPER(name)"]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        rows(&mut s, "SELECT `x + 1`, `UPPER(name)` FROM named"),
        vec![vec!["11", "A"]]
    );
    // A view over a view; rows change with the base table.
    exec(&mut s, "CREATE VIEW vv AS SELECT id, dx + 1 AS e FROM v");
    exec(&mut s, "INSERT INTO t VALUES (4, 2, 50, 'd')");
    assert_eq!(
        rows(&mut s, "SELECT * FROM vv ORDER BY id"),
        vec![vec!["2", "41"], vec!["3", "61"], vec!["4", "101"]]
    );
    // The outer query's CTE of a base table's name does not leak into the view's body.
    assert_eq!(
        one(&mut s, "WITH t AS (SELECT 1 AS id) SELECT COUNT(*) FROM v"),
        "3"
    );
    // INSERT ... SELECT and CREATE TABLE ... SELECT from a view.
    exec(&mut s, "CREATE TABLE copy AS SELECT * FROM vv");
    assert_eq!(one(&mut s, "SELECT SUM(e) FROM copy"), "203");
}

#[test]
fn view_body_names_resolve_in_the_views_database() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE DATABASE other");
    exec(&mut s, "CREATE TABLE other.t (id INT PRIMARY KEY)");
    exec(&mut s, "INSERT INTO other.t VALUES (100)");
    exec(&mut s, "CREATE VIEW other.ov AS SELECT id FROM t");
    // Used from database test, `t` in the body is still other.t.
    assert_eq!(rows(&mut s, "SELECT * FROM other.ov"), vec![vec!["100"]]);
    exec(&mut s, "USE other");
    assert_eq!(rows(&mut s, "SELECT * FROM ov"), vec![vec!["100"]]);
}

#[test]
fn create_alter_drop_and_their_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE VIEW v AS SELECT id FROM t");
    // Names: a view and a table never share one (1050), IF NOT EXISTS is a note.
    assert_eq!(err_code(&mut s, "CREATE VIEW v AS SELECT 1"), 1050);
    assert_eq!(err_code(&mut s, "CREATE VIEW t AS SELECT 1"), 1050);
    assert_eq!(err_code(&mut s, "CREATE TABLE v (a INT)"), 1050);
    assert_eq!(err_code(&mut s, "RENAME TABLE u TO v"), 1050);
    exec(&mut s, "CREATE VIEW IF NOT EXISTS v AS SELECT 1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), "3");
    assert_eq!(
        err_code(&mut s, "CREATE OR REPLACE VIEW t AS SELECT 1"),
        1347
    );
    // The SELECT is checked at CREATE: missing table, column, column list length, duplicates.
    assert_eq!(
        err_code(&mut s, "CREATE VIEW bad AS SELECT * FROM nope"),
        1146
    );
    assert_eq!(
        err_code(&mut s, "CREATE VIEW bad AS SELECT nope FROM t"),
        1054
    );
    assert_eq!(
        err_code(&mut s, "CREATE VIEW bad (a, b) AS SELECT id FROM t"),
        1353
    );
    assert_eq!(
        err_code(&mut s, "CREATE VIEW bad AS SELECT id, id FROM t"),
        1060
    );
    assert_eq!(err_code(&mut s, "CREATE VIEW nodb.bad AS SELECT 1"), 1049);
    assert_eq!(err_code(&mut s, "SELECT * FROM bad"), 1146);
    // OR REPLACE and ALTER change the definition; ALTER of a missing view is 1146.
    exec(
        &mut s,
        "CREATE OR REPLACE VIEW v AS SELECT id FROM t WHERE id > 1",
    );
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), "2");
    exec(
        &mut s,
        "ALTER VIEW v (n) AS SELECT name FROM t WHERE id = 3",
    );
    assert_eq!(rows(&mut s, "SELECT n FROM v"), vec![vec!["c"]]);
    assert_eq!(err_code(&mut s, "ALTER VIEW nope AS SELECT 1"), 1146);
    assert_eq!(err_code(&mut s, "ALTER VIEW t AS SELECT 1"), 1347);
    // DROP TABLE of a view (1965), DROP VIEW of a table or of nothing (4092).
    assert_eq!(err_code(&mut s, "DROP TABLE v"), 1965);
    assert_eq!(err_code(&mut s, "DROP VIEW t"), 4092);
    assert_eq!(err_code(&mut s, "DROP VIEW nope"), 4092);
    assert_eq!(err_code(&mut s, "DROP VIEW v, nope"), 4092);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), "1");
    exec(&mut s, "DROP VIEW IF EXISTS v, nope");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        vec![vec!["Note", "4092", "Unknown VIEW: 'test.nope'"]]
    );
    assert_eq!(err_code(&mut s, "SELECT * FROM v"), 1146);
    // Statements that need a base table refuse a view (1347).
    exec(&mut s, "CREATE VIEW v AS SELECT id FROM t");
    assert_eq!(err_code(&mut s, "ALTER TABLE v ADD COLUMN z INT"), 1347);
    assert_eq!(err_code(&mut s, "TRUNCATE TABLE v"), 1347);
}

#[test]
fn a_view_whose_base_is_gone_is_invalid_and_recursion_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE VIEW v AS SELECT id, x FROM t");
    exec(&mut s, "CREATE VIEW vv AS SELECT id FROM v");
    exec(&mut s, "ALTER TABLE t DROP COLUMN x");
    assert_eq!(err_code(&mut s, "SELECT * FROM v"), 1356);
    exec(&mut s, "DROP TABLE t");
    assert_eq!(err_code(&mut s, "SELECT * FROM v"), 1356);
    assert_eq!(err_code(&mut s, "SELECT * FROM vv"), 1356);
    assert_eq!(err_code(&mut s, "DESCRIBE v"), 1356);
    // SHOW CREATE VIEW still shows an invalid view; it can be dropped.
    assert_eq!(rows(&mut s, "SHOW CREATE VIEW v")[0][0], "v");
    exec(&mut s, "DROP VIEW v, vv");
    // A body naming the view being defined (directly or through others) does not see it: 1146.
    exec(&mut s, "CREATE VIEW a AS SELECT g FROM u");
    exec(&mut s, "CREATE VIEW b AS SELECT g FROM a");
    assert_eq!(
        err_code(&mut s, "CREATE OR REPLACE VIEW a AS SELECT g FROM b"),
        1146
    );
    assert_eq!(err_code(&mut s, "ALTER VIEW a AS SELECT g FROM a"), 1146);
    // A cycle made by renames is 1462 when read.
    exec(&mut s, "CREATE VIEW x AS SELECT g FROM u");
    exec(&mut s, "CREATE VIEW y AS SELECT g FROM x");
    exec(&mut s, "RENAME TABLE x TO x_old, y TO x");
    assert_eq!(err_code(&mut s, "SELECT * FROM x"), 1462);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM b"), "2");
    // A temporary table in the body is refused (1352).
    exec(&mut s, "CREATE TEMPORARY TABLE tmp (a INT)");
    assert_eq!(
        err_code(&mut s, "CREATE VIEW vt AS SELECT a FROM tmp"),
        1352
    );
}

#[test]
fn writes_through_a_simple_view_change_its_base_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE VIEW v AS SELECT id, x FROM t WHERE x > 10 WITH CHECK OPTION",
    );
    exec(&mut s, "INSERT INTO v VALUES (9, 90)");
    assert_eq!(
        rows(&mut s, "SELECT id, g, x, name FROM t WHERE id = 9"),
        vec![vec!["9", "NULL", "90", "NULL"]]
    );
    // The check option: a row the view would not show is refused (1369), or skipped with IGNORE.
    assert_eq!(err_code(&mut s, "INSERT INTO v VALUES (8, 5)"), 1369);
    exec(&mut s, "INSERT IGNORE INTO v VALUES (8, 5)");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1369");
    assert_eq!(err_code(&mut s, "UPDATE v SET x = 0 WHERE id = 2"), 1369);
    // UPDATE and DELETE touch only the rows the view shows.
    exec(&mut s, "UPDATE v SET x = x + 1");
    assert_eq!(
        rows(&mut s, "SELECT id, x FROM t ORDER BY id"),
        vec![
            vec!["1", "10"],
            vec!["2", "21"],
            vec!["3", "31"],
            vec!["9", "91"]
        ]
    );
    exec(&mut s, "DELETE FROM v WHERE id = 1");
    exec(&mut s, "DELETE FROM v WHERE id = 9");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "3");
    // Only the view's columns can be named.
    assert_eq!(err_code(&mut s, "UPDATE v SET name = 'z'"), 1054);
    assert_eq!(
        err_code(&mut s, "INSERT INTO v (id, name) VALUES (5, 'e')"),
        1054
    );
    // A column list renames; columns the view does not show take their defaults.
    exec(&mut s, "CREATE VIEW r (k, val) AS SELECT id, x FROM t");
    exec(&mut s, "UPDATE r SET val = 7 WHERE k = 1");
    exec(&mut s, "INSERT INTO r (k) VALUES (20)");
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, x FROM t WHERE id IN (1, 20) ORDER BY id"
        ),
        vec![vec!["1", "7"], vec!["20", "NULL"]]
    );
    exec(&mut s, "REPLACE INTO r VALUES (20, 200)");
    assert_eq!(one(&mut s, "SELECT x FROM t WHERE id = 20"), "200");
}

#[test]
fn check_options_of_views_over_views() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE VIEW pos AS SELECT id, x FROM t WHERE x > 0");
    exec(
        &mut s,
        "CREATE VIEW lo AS SELECT * FROM pos WHERE x < 100 WITH LOCAL CHECK OPTION",
    );
    exec(
        &mut s,
        "CREATE VIEW ca AS SELECT * FROM pos WHERE x < 100 WITH CASCADED CHECK OPTION",
    );
    // LOCAL checks only its own WHERE (pos has no check option); CASCADED checks pos's too.
    exec(&mut s, "INSERT INTO lo VALUES (30, -5)");
    assert_eq!(err_code(&mut s, "INSERT INTO ca VALUES (31, -5)"), 1369);
    assert_eq!(err_code(&mut s, "INSERT INTO lo VALUES (32, 500)"), 1369);
    exec(&mut s, "INSERT INTO ca VALUES (33, 50)");
    // Rows outside pos are not updated through ca, whatever its WHERE says.
    exec(&mut s, "UPDATE ca SET x = 99");
    assert_eq!(
        rows(&mut s, "SELECT id, x FROM t ORDER BY id"),
        vec![
            vec!["1", "99"],
            vec!["2", "99"],
            vec!["3", "99"],
            vec!["30", "-5"],
            vec!["33", "99"]
        ]
    );
}

#[test]
fn writes_through_views_that_are_not_simple_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE VIEW agg AS SELECT g, SUM(x) AS s FROM t GROUP BY g",
    );
    exec(
        &mut s,
        "CREATE VIEW j AS SELECT t.id, u.label FROM t JOIN u ON u.g = t.g",
    );
    exec(&mut s, "CREATE VIEW d AS SELECT DISTINCT g FROM t");
    exec(&mut s, "CREATE VIEW e AS SELECT id, x + 1 AS y FROM t");
    exec(&mut s, "CREATE VIEW l AS SELECT id FROM t LIMIT 2");
    exec(
        &mut s,
        "CREATE VIEW sq AS SELECT id FROM t WHERE g IN (SELECT g FROM u)",
    );
    for v in ["agg", "j", "d", "e", "l", "sq"] {
        assert_eq!(
            err_code(&mut s, &format!("INSERT INTO {v} VALUES (9, 9)")),
            1471,
            "{v}"
        );
        assert_eq!(
            err_code(&mut s, &format!("UPDATE {v} SET id = 0")),
            1288,
            "{v}"
        );
        assert_eq!(err_code(&mut s, &format!("DELETE FROM {v}")), 1288, "{v}");
    }
    exec(&mut s, "CREATE VIEW v AS SELECT id, x FROM t");
    assert_eq!(
        err_code(&mut s, "UPDATE v JOIN u ON u.g = v.id SET v.x = 0"),
        1288
    );
    assert_eq!(
        err_code(&mut s, "DELETE v FROM v JOIN u ON u.g = v.id"),
        1288
    );
    assert_eq!(
        err_code(
            &mut s,
            "INSERT INTO v VALUES (1, 1) ON DUPLICATE KEY UPDATE x = 2"
        ),
        1235
    );
    assert_eq!(one(&mut s, "SELECT SUM(x) FROM t"), "60");
}

#[test]
fn show_and_information_schema_list_views() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(
        &mut s,
        "CREATE ALGORITHM=MERGE SQL SECURITY INVOKER VIEW v (a, b) AS SELECT id, name FROM t \
         WITH LOCAL CHECK OPTION",
    );
    let create = rows(&mut s, "SHOW CREATE VIEW v");
    assert_eq!(
        create,
        vec![vec![
            "v",
            "CREATE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `v` \
             AS select `t`.`id` AS `a`,`t`.`name` AS `b` from `t` WITH LOCAL CHECK OPTION",
            "utf8mb4",
            "utf8mb4_general_ci",
        ]]
    );
    assert_eq!(rows(&mut s, "SHOW CREATE TABLE v"), create);
    assert_eq!(err_code(&mut s, "SHOW CREATE VIEW t"), 1347);
    assert_eq!(err_code(&mut s, "SHOW CREATE VIEW nope"), 1146);
    assert_eq!(
        rows(&mut s, "SHOW FULL TABLES"),
        vec![
            vec!["t", "BASE TABLE"],
            vec!["u", "BASE TABLE"],
            vec!["v", "VIEW"]
        ]
    );
    assert_eq!(
        rows(&mut s, "SHOW TABLES"),
        vec![vec!["t"], vec!["u"], vec!["v"]]
    );
    let status = rows(&mut s, "SHOW TABLE STATUS LIKE 'v'");
    assert_eq!(status[0][0], "v");
    assert_eq!(status[0][1], "NULL");
    assert_eq!(status[0][17], "VIEW");
    assert_eq!(
        rows(
            &mut s,
            "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'test' ORDER BY TABLE_NAME"
        ),
        vec![
            vec!["t", "BASE TABLE"],
            vec!["u", "BASE TABLE"],
            vec!["v", "VIEW"]
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TABLE_NAME, VIEW_DEFINITION, CHECK_OPTION, IS_UPDATABLE, DEFINER, SECURITY_TYPE, \
             ALGORITHM FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'test'"
        ),
        vec![vec![
            "v",
            "select `test`.`t`.`id` AS `a`,`test`.`t`.`name` AS `b` from `test`.`t`",
            "LOCAL",
            "YES",
            "root@localhost",
            "INVOKER",
            "MERGE"
        ]]
    );
    assert_eq!(
        rows(&mut s, "DESCRIBE v"),
        vec![
            vec!["a", "int(11)", "NO", "", "NULL", ""],
            vec!["b", "varchar(10)", "YES", "", "NULL", ""],
        ]
    );
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM v LIKE 'b'").len(), 1);
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE \
             FROM information_schema.COLUMNS WHERE TABLE_NAME = 'v' ORDER BY ORDINAL_POSITION"
        ),
        vec![
            vec!["a", "1", "NO", "int", "int(11)"],
            vec!["b", "2", "YES", "varchar", "varchar(10)"],
        ]
    );
}

#[test]
fn rename_and_drop_database_take_views_along() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE VIEW v AS SELECT id FROM t");
    exec(&mut s, "RENAME TABLE v TO v2");
    assert_eq!(err_code(&mut s, "SELECT * FROM v"), 1146);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v2"), "3");
    exec(&mut s, "CREATE DATABASE d2");
    assert_eq!(err_code(&mut s, "RENAME TABLE v2 TO d2.v"), 1450);
    exec(&mut s, "CREATE VIEW d2.dv AS SELECT 1 AS one");
    exec(&mut s, "DROP DATABASE d2");
    exec(&mut s, "CREATE DATABASE d2");
    exec(&mut s, "CREATE TABLE d2.dv (a INT)");
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'd2'"
        ),
        vec![vec!["0"]]
    );
}

#[test]
fn views_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(dir.path(), SETUP);
        exec(
            &mut s,
            "CREATE DEFINER=`app`@`%` SQL SECURITY INVOKER VIEW v (k, n) AS \
             SELECT g, COUNT(*) FROM t GROUP BY g WITH CASCADED CHECK OPTION",
        );
        exec(&mut s, "CREATE VIEW vv AS SELECT k FROM v WHERE n > 1");
    }
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(rows(&mut s, "SELECT * FROM vv"), vec![vec!["1"]]);
    assert_eq!(
        rows(&mut s, "SHOW CREATE VIEW v")[0][1],
        "CREATE ALGORITHM=UNDEFINED DEFINER=`app`@`%` SQL SECURITY INVOKER VIEW `v` AS \
         select `t`.`g` AS `k`,count(0) AS `n` from `t` group by `t`.`g` WITH CASCADED CHECK OPTION"
    );
}

/// The view's names as SHOW FULL TABLES lists them, with their definitions.
fn view_state(s: &mut betula_sql::Session) -> Vec<Vec<String>> {
    rows(
        s,
        "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS ORDER BY TABLE_NAME",
    )
}

fn crash_setup() -> Vec<String> {
    [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY)",
        "CREATE VIEW v AS SELECT id FROM t",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn view_ddl_is_all_or_nothing_at_every_sync() {
    for op in [
        "RENAME TABLE v TO w",
        "CREATE OR REPLACE VIEW v AS SELECT id + 1 AS id FROM t",
        "DROP VIEW v",
        "CREATE VIEW w AS SELECT 1 AS one",
    ] {
        all_or_nothing(&crash_setup(), op, view_state, |_e: &betula_sql::Engine| {});
    }
}

#[test]
fn correlated_subqueries_in_a_view_read_the_views_database() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), SETUP);
    exec(&mut s, "CREATE DATABASE o");
    exec(&mut s, "CREATE TABLE o.t (id INT PRIMARY KEY)");
    exec(&mut s, "CREATE TABLE o.u (g INT PRIMARY KEY)");
    exec(&mut s, "INSERT INTO o.t VALUES (1), (2), (7)");
    exec(&mut s, "INSERT INTO o.u VALUES (7)");
    exec(
        &mut s,
        "CREATE VIEW o.cv AS SELECT id, (SELECT COUNT(*) FROM u WHERE u.g = t.id) AS n FROM t \
         WHERE EXISTS (SELECT 1 FROM u WHERE u.g >= t.id)",
    );
    // From database test, whose own t and u hold other rows, the view reads o.t and o.u.
    assert_eq!(
        rows(&mut s, "SELECT * FROM o.cv ORDER BY id"),
        vec![vec!["1", "0"], vec!["2", "0"], vec!["7", "1"]]
    );
}
