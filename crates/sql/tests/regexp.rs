//! REGEXP / RLIKE / NOT REGEXP and REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_REPLACE through whole
//! statements, with MariaDB 10.11's answers (crates/server/tests/regexp_peer.rs compares the
//! same kinds of statements with a running MariaDB): collations decide case, NULLs, per-row
//! patterns, character positions, and the errors (1139 for a pattern that is invalid or that
//! Betula cannot match as PCRE2 does, 1582, 1305 for REGEXP_LIKE).

mod sessions;

use sessions::{err_code, exec, open, rows};

fn setup() -> Vec<&'static str> {
    vec![
        "CREATE TABLE w (id INT PRIMARY KEY, s VARCHAR(40), b VARCHAR(40) COLLATE utf8mb4_bin, \
         v VARBINARY(40), p VARCHAR(20))",
        "INSERT INTO w VALUES (1, 'Apple pie', 'Apple pie', 'Apple pie', '^a'), \
         (2, 'banana split', 'banana split', 'banana split', '(an){2}'), \
         (3, 'Cherry 42', 'Cherry 42', 'Cherry 42', '[[:digit:]]+$'), \
         (4, NULL, NULL, NULL, 'x'), (5, 'été', 'été', 'été', NULL), \
         (6, 'line1\nline2', 'line1\nline2', 'line1\nline2', '^line2')",
    ]
}

fn col(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|mut x| x.remove(0)).collect()
}

#[test]
fn regexp_filters_rows_under_the_columns_collation() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let mut q = |sql: &str| col(rows(&mut s, sql));
    // utf8mb4_general_ci: case-insensitive; utf8mb4_bin and VARBINARY: case-sensitive.
    assert_eq!(q("SELECT id FROM w WHERE s REGEXP '^a' ORDER BY id"), ["1"]);
    assert_eq!(
        q("SELECT id FROM w WHERE b REGEXP '^a' ORDER BY id"),
        Vec::<String>::new()
    );
    assert_eq!(q("SELECT id FROM w WHERE v RLIKE '^A' ORDER BY id"), ["1"]);
    assert_eq!(
        q("SELECT id FROM w WHERE s NOT REGEXP 'a' ORDER BY id"),
        ["3", "5", "6"]
    );
    assert_eq!(
        q("SELECT id FROM w WHERE s REGEXP p ORDER BY id"),
        ["1", "2", "3"]
    );
    assert_eq!(
        q("SELECT id FROM w WHERE s REGEXP '[[:digit:]]{2}$|^ét' ORDER BY id"),
        ["3", "5"]
    );
    assert_eq!(
        q("SELECT id FROM w WHERE s REGEXP '\\\\bpie\\\\b' ORDER BY id"),
        ["1"]
    );
    assert_eq!(
        q("SELECT id FROM w WHERE s REGEXP '^[[:alpha:] ]+$' ORDER BY id"),
        ["1", "2", "5"]
    );
    assert_eq!(
        q("SELECT id FROM w WHERE s REGEXP 'E' COLLATE utf8mb4_bin ORDER BY id"),
        Vec::<String>::new()
    );
    assert_eq!(
        rows(&mut s, "SELECT s REGEXP 'x', 'a' REGEXP (NULL), NULL NOT REGEXP 'a', 12.5 REGEXP '\\\\.5$' FROM w WHERE id = 4"),
        vec![vec!["NULL", "NULL", "NULL", "1"]]
    );
    // The pattern of a column is compiled for each text it brings; a NULL one gives NULL.
    assert_eq!(
        col(rows(&mut s, "SELECT s REGEXP p FROM w ORDER BY id")),
        ["1", "1", "1", "NULL", "NULL", "0"]
    );
}

#[test]
fn functions_give_positions_matches_and_replacements() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, REGEXP_INSTR(s, 't'), REGEXP_SUBSTR(s, '[0-9]+|é.'), \
             REGEXP_REPLACE(s, '([aeiou])', '<\\\\1>') FROM w WHERE id IN (2, 3, 4, 5) ORDER BY id"
        ),
        vec![
            vec!["2", "12", "", "b<a>n<a>n<a> spl<i>t"],
            vec!["3", "0", "42", "Ch<e>rry 42"],
            vec!["4", "NULL", "NULL", "NULL"],
            // Positions count characters.
            vec!["5", "2", "ét", "été"],
        ]
    );
    // Bytes for a binary string.
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_INSTR(v, 't'), HEX(REGEXP_SUBSTR(v, '^.')) FROM w WHERE id = 5"
        ),
        vec![vec!["3", "C3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT REGEXP_REPLACE('abc', 'x*', '-'), REGEXP_REPLACE('aaa', 'a', '\\\\'), \
             REGEXP_REPLACE('abc', '(x)?b', '[\\\\1\\\\9]'), REGEXP_INSTR('abc', ''), \
             REGEXP_REPLACE('ab\\n', 'b$', 'X') = 'aX\\n'"
        ),
        vec![vec!["abc", "", "a[]c", "1", "1"]]
    );
    exec(
        &mut s,
        "UPDATE w SET s = REGEXP_REPLACE(s, '\\\\s+', '_') WHERE s REGEXP ' '",
    );
    assert_eq!(
        col(rows(&mut s, "SELECT s FROM w WHERE id <= 3 ORDER BY id")),
        ["Apple_pie", "banana_split", "Cherry_42"]
    );
}

#[test]
fn errors_are_mariadbs_and_unexpressible_patterns_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    // Invalid patterns; a constant one fails even where no row is read.
    assert_eq!(err_code(&mut s, "SELECT 'abc' REGEXP '('"), 1139);
    assert_eq!(
        err_code(&mut s, "SELECT id FROM w WHERE 1 = 0 AND s REGEXP 'a(2'"),
        1139
    );
    assert_eq!(err_code(&mut s, "SELECT REGEXP_SUBSTR('a', '[a')"), 1139);
    // PCRE2 features the regex crate lacks: refused, never answered differently.
    for p in [
        "(a)\\\\1",
        "a(?=b)",
        "(?<!a)b",
        "(?>a)",
        "a++",
        "(?m)a$",
        "(?x) a",
        "[[:punct:]]",
    ] {
        assert_eq!(
            err_code(&mut s, &format!("SELECT 'abc' REGEXP '{p}'")),
            1139,
            "{p}"
        );
    }
    // `$` against a subject with inner and final newlines: only that row fails.
    assert_eq!(err_code(&mut s, "SELECT 'a\\nb\\n' REGEXP 'b$'"), 1139);
    assert_eq!(
        rows(&mut s, "SELECT 'a\\nb\\n' REGEXP 'b'"),
        vec![vec!["1"]]
    );
    assert_eq!(err_code(&mut s, "SELECT REGEXP_INSTR('a')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT REGEXP_REPLACE('a', 'b')"), 1582);
    assert_eq!(err_code(&mut s, "SELECT REGEXP_LIKE('a', 'a')"), 1305);
}
