//! The JSON type and functions through whole statements, with MariaDB 10.11's answers
//! (crates/server/tests/json_peer.rs compares the same kinds of statements with a running
//! MariaDB): the column's alias and constraint, the text results, NULL and warnings for bad
//! documents and paths, JSON arguments embedded as JSON, the aggregates, and the refusals.

mod sessions;

use sessions::{err_code, exec, open, rows};

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
        err_code(&mut s, "SELECT json_array_insert('[1]', '$[0]')"),
        1582
    );
    assert_eq!(err_code(&mut s, "SELECT json_search('[1]', 'one')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_merge('[1]')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_detailed('1', 2, 3)"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_equals('1')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_arrayagg(id, t) FROM j"), 1582);
    assert_eq!(err_code(&mut s, "SELECT json_arrayagg() FROM j"), 1064);
    assert_eq!(err_code(&mut s, "SELECT json_objectagg(id) FROM j"), 1064);
    assert_eq!(
        err_code(&mut s, "SELECT json_objectagg(DISTINCT id, t) FROM j"),
        1064
    );
    assert_eq!(
        err_code(&mut s, "SELECT json_objectagg(id, t ORDER BY id) FROM j"),
        1064
    );
    assert_eq!(
        err_code(&mut s, "SELECT json_search('[1]', 'one', 'x', 'ab')"),
        1210
    );
    assert_eq!(
        err_code(&mut s, "SELECT json_search('[1]', 'one', 'x', t) FROM j"),
        1210
    );
    assert_eq!(
        err_code(
            &mut s,
            "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) t"
        ),
        1235
    );
    assert_eq!(err_code(&mut s, "SELECT json_table('[1]')"), 1235);
}

#[test]
fn aggregates_build_arrays_and_objects() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let mut q = |sql: &str| one(&mut s, sql);
    assert_eq!(
        q("SELECT json_arrayagg(doc ORDER BY id DESC) FROM j"),
        "[null,{\"a\": 1, \"b\": [1, 2]}]"
    );
    assert_eq!(q("SELECT json_arrayagg(t) FROM j"), "[\"[1]\",\"x\"]");
    assert_eq!(
        q("SELECT json_objectagg(t, doc) FROM j"),
        "{\"[1]\":{\"a\": 1, \"b\": [1, 2]}, \"x\":null}"
    );
    assert_eq!(q("SELECT json_arrayagg(id) FROM j WHERE id > 5"), "NULL");
    assert_eq!(
        q("SELECT json_array(json_arrayagg(id LIMIT 1), json_objectagg(id, id = 1)) FROM j"),
        "[[1], {\"1\":true, \"2\":false}]"
    );
    assert_eq!(
        q("SELECT group_concat(id ORDER BY id DESC LIMIT 1, 1) FROM j"),
        "1"
    );
}

#[test]
fn group_concat_max_len_cuts_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(one(&mut s, "SELECT @@group_concat_max_len"), "1048576");
    exec(&mut s, "SET SESSION group_concat_max_len = 6");
    // The second value passes the limit: cut, a cut string keeps its closing quote (as MariaDB,
    // even where the cut leaves nothing of it).
    assert_eq!(one(&mut s, "SELECT json_arrayagg(t) FROM j"), "[\"[1]\"\"]");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        [["Warning", "1260", "Row 2 was cut by JSON_ARRAYAGG()"]]
    );
    // MariaDB's least value is 4.
    exec(&mut s, "SET SESSION group_concat_max_len = 2");
    assert_eq!(one(&mut s, "SELECT @@group_concat_max_len"), "4");
    assert_eq!(one(&mut s, "SELECT json_arrayagg(t) FROM j"), "[\"[1\"]");
    assert_eq!(one(&mut s, "SELECT group_concat(t, t) FROM j"), "[1][");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        [["Warning", "1260", "Row 1 was cut by GROUP_CONCAT()"]]
    );
}

#[test]
fn search_format_and_compare_functions() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let mut q = |sql: &str| one(&mut s, sql);
    assert_eq!(
        q("SELECT json_search('{\"a\":[\"xy\",\"z\"],\"b\":\"XQ\"}', 'all', 'x_')"),
        "[\"$.a[0]\", \"$.b\"]"
    );
    assert_eq!(
        q("SELECT json_search(doc, 'one', '2') FROM j WHERE id = 1"),
        "\"$.b[1]\""
    );
    assert_eq!(
        q("SELECT json_array_insert('[1, 2]', '$[1]', 'x', '$[last]', 9)"),
        "[1, \"x\", 2, 9]"
    );
    assert_eq!(
        q("SELECT json_merge_preserve('{\"a\":1}', '{\"a\":[2],\"b\":3}', '4')"),
        "[{\"a\": [1, 2], \"b\": 3}, 4]"
    );
    assert_eq!(
        q("SELECT json_compact(doc) FROM j WHERE id = 1"),
        "{\"a\":1,\"b\":[1,2]}"
    );
    assert_eq!(
        q("SELECT json_detailed(doc, 2) FROM j WHERE id = 1"),
        "{\n  \"a\": 1,\n  \"b\": \n  [\n    1,\n    2\n  ]\n}"
    );
    assert_eq!(
        q("SELECT json_normalize('{\"b\":10,\"a\":[0.5]}')"),
        "{\"a\":[5.0E-1],\"b\":1.0E1}"
    );
    assert_eq!(q("SELECT json_equals('[1.0]', '[1]')"), "1");
    assert_eq!(q("SELECT json_overlaps('[1, 3]', '[3]')"), "1");
    assert_eq!(q("SELECT json_overlaps('[1', '1')"), "0");
    assert_eq!(q("SELECT 'a' REGEXP NULL"), "NULL");
}
