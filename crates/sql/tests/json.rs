//! The JSON type and functions through whole statements, with MariaDB 10.11's answers
//! (crates/server/tests/json_peer.rs compares the same kinds of statements with a running
//! MariaDB): the column's alias and constraint, the text results, NULL and warnings for bad
//! documents and paths, JSON arguments embedded as JSON, and the refusals.

mod sessions;

use sessions::{err_code, open, rows};

fn setup() -> Vec<&'static str> {
    vec![
        "CREATE TABLE j (id INT PRIMARY KEY, doc JSON, t TEXT)",
        "INSERT INTO j VALUES (1, '{\"a\": 1, \"b\": [1, 2]}', '[1]'), (2, NULL, 'x')",
    ]
}

fn one(s: &mut betula_sql::Session, sql: &str) -> String {
    rows(s, sql).remove(0).remove(0)
}

#[test]
fn a_json_column_is_longtext_with_a_json_valid_check() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let ddl = rows(&mut s, "SHOW CREATE TABLE j")[0][1].clone();
    assert!(
        ddl.contains(
            "`doc` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL \
             CHECK (json_valid(`doc`))"
        ),
        "{ddl}"
    );
    assert_eq!(
        err_code(&mut s, "INSERT INTO j VALUES (3, '{', NULL)"),
        4025
    );
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        [[
            "Note",
            "4037",
            "Unexpected end of JSON text in argument 1 to function 'json_valid'"
        ]]
    );
    assert_eq!(err_code(&mut s, "SELECT doc->'$.a' FROM j"), 1064);
}

#[test]
fn functions_give_mariadbs_text() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let mut q = |sql: &str| one(&mut s, sql);
    assert_eq!(
        q("SELECT json_extract(doc, '$.b') FROM j WHERE id = 1"),
        "[1, 2]"
    );
    assert_eq!(
        q("SELECT json_object('d', doc, 't', t) FROM j WHERE id = 1"),
        "{\"d\": {\"a\": 1, \"b\": [1, 2]}, \"t\": \"[1]\"}"
    );
    assert_eq!(
        q("SELECT json_array(1, 'x', NULL, TRUE, 1.5, json_object())"),
        "[1, \"x\", null, true, 1.5, {}]"
    );
    assert_eq!(
        q("SELECT json_set('{\"a\" :1}', '$.b', 2)"),
        "{\"a\": 1, \"b\": 2}"
    );
    assert_eq!(
        q("SELECT json_unquote(json_extract('[\"a\\\\tb\"]', '$[0]'))"),
        "a\tb"
    );
    assert_eq!(q("SELECT json_length(doc) FROM j WHERE id = 1"), "2");
    assert_eq!(
        q("SELECT json_contains(doc, '{\"b\": [2]}') FROM j WHERE id = 1"),
        "1"
    );
}

#[test]
fn bad_documents_and_paths_give_null_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(one(&mut s, "SELECT json_extract('[1]', '$[a]')"), "NULL");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        [[
            "Warning",
            "4042",
            "Syntax error in JSON path in argument 2 to function 'json_extract' at position 3"
        ]]
    );
    assert_eq!(one(&mut s, "SELECT json_valid('bad')"), "0");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][..2], ["Note", "4038"]);
    assert_eq!(one(&mut s, "SELECT json_remove('[1]', '$')"), "NULL");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "4051");
    assert_eq!(one(&mut s, "SELECT 1"), "1");
    assert!(rows(&mut s, "SHOW WARNINGS").is_empty());
}

#[test]
fn wrong_counts_and_unbuilt_functions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(err_code(&mut s, "SELECT json_object('a')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_set('[1]', '$')"), 1582);
    assert_eq!(
        err_code(&mut s, "SELECT json_search('[\"a\"]', 'one', 'a')"),
        1235
    );
    assert_eq!(err_code(&mut s, "SELECT json_arrayagg(id) FROM j"), 1235);
}
