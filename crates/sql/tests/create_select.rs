//! CREATE TABLE ... [AS] SELECT: columns from the query (typed as their source columns, or from the values),
//! defined columns first, rows inserted; a failure leaves no table behind.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn create_text(s: &mut betula_sql::Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

#[test]
fn a_table_made_from_a_query_has_its_columns_and_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE src (id INT NOT NULL PRIMARY KEY, v VARCHAR(10), price DECIMAL(6,2))",
            "INSERT INTO src VALUES (1, 'a', 1.50), (2, 'b', 20.25), (3, NULL, NULL)",
        ],
    );
    exec(
        &mut s,
        "CREATE TABLE t AS SELECT id, v, price, id * 2 AS twice, 'x' AS lit FROM src WHERE id < 3",
    );
    let ddl = create_text(&mut s, "t");
    assert!(ddl.contains("`id` int(11) NOT NULL"), "{ddl}");
    assert!(ddl.contains("`v` varchar(10) DEFAULT NULL"), "{ddl}");
    assert!(ddl.contains("`price` decimal(6,2) DEFAULT NULL"), "{ddl}");
    assert!(ddl.contains("`twice` bigint(20) DEFAULT NULL"), "{ddl}");
    assert!(ddl.contains("`lit` varchar(1) DEFAULT NULL"), "{ddl}");
    assert_eq!(
        rows(&mut s, "SELECT id, v, price, twice, lit FROM t ORDER BY id"),
        vec![
            vec!["1", "a", "1.50", "2", "x"],
            vec!["2", "b", "20.25", "4", "x"]
        ]
    );
    // Defined columns come first; a select column of the same name fills it.
    exec(
        &mut s,
        "CREATE TABLE k (id INT PRIMARY KEY, note VARCHAR(5) DEFAULT 'n') SELECT v, id FROM src",
    );
    assert_eq!(
        rows(&mut s, "SELECT id, note, v FROM k ORDER BY id"),
        vec![
            vec!["1", "n", "a"],
            vec!["2", "n", "b"],
            vec!["3", "n", "NULL"]
        ]
    );
    let ddl = create_text(&mut s, "k");
    assert!(ddl.contains("PRIMARY KEY (`id`)"), "{ddl}");
}

#[test]
fn a_failing_create_select_leaves_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE src (id INT, g INT)",
            "INSERT INTO src VALUES (1, 7), (2, 7)",
        ],
    );
    // The rows break the defined primary key.
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE t (g INT PRIMARY KEY) SELECT g FROM src"
        ),
        1062
    );
    assert_eq!(err_code(&mut s, "SELECT * FROM t"), 1146);
    // Two columns of one name; an existing table; an unknown source.
    assert_eq!(
        err_code(&mut s, "CREATE TABLE t SELECT id, g AS id FROM src"),
        1060
    );
    assert_eq!(err_code(&mut s, "CREATE TABLE src SELECT 1 AS a"), 1050);
    assert_eq!(err_code(&mut s, "CREATE TABLE t SELECT * FROM nope"), 1146);
    assert_eq!(err_code(&mut s, "SELECT * FROM t"), 1146);
    // IF NOT EXISTS on an existing table adds nothing.
    exec(
        &mut s,
        "CREATE TABLE IF NOT EXISTS src SELECT 9 AS id, 9 AS g",
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM src"), vec![vec!["2"]]);
}
