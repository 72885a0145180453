//! LOAD DATA through the engine (no network), the file and its options: the options matrix on
//! small files with known contents, server-side files and secure_file_priv, and malformed input
//! (errors in strict mode, warnings otherwise). Tables and atomicity: load_data_tables.rs.

mod common;

use common::engine::{engine, exec, info, local, rows, warnings};

#[test]
fn options_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(8,2), d DATE)",
    );
    // Defaults: tab-separated, backslash escapes, \N is NULL.
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'a.tsv' INTO TABLE t",
        b"1\tone\t1.50\t2024-01-02\n2\ttab\\there\t\\N\t\\N\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0");
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        vec!["1|one|1.50|2024-01-02", "2|tab\there|NULL|NULL"]
    );
    // CSV with quotes, CRLF, a header line, a column list, a variable and SET.
    exec(&mut s, "DELETE FROM t");
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'b.csv' INTO TABLE t FIELDS TERMINATED BY ',' \
         OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES \
         (id, @n, d) SET name = UPPER(@n), amount = id * 10",
        b"id,name,d\r\n10,\"a, b\",2020-05-06\r\n11,\"say \"\"x\"\"\",NULL\r\n12,\"two\r\nlines\",\"NULL\"\r\n",
    )
    .unwrap();
    assert!(info(&o).starts_with("Records: 3"), "{}", info(&o));
    assert_eq!(
        rows(&mut s, "SELECT id, name, amount, d FROM t ORDER BY id"),
        vec![
            "10|A, B|100.00|2020-05-06",
            "11|SAY \"X\"|110.00|NULL",
            "12|TWO\r\nLINES|120.00|0000-00-00"
        ]
    );
    assert_eq!(rows(&mut s, "SELECT @n"), vec!["two\r\nlines"]);
    // LINES STARTING BY, a two-byte field terminator, no escapes, latin1.
    exec(&mut s, "DELETE FROM t");
    local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'c' INTO TABLE t CHARACTER SET latin1 \
         FIELDS TERMINATED BY '::' ESCAPED BY '' LINES STARTING BY '>' (id, name)",
        b"skip me\n>1::caf\xe9\\N\nxx>2::b\n",
    )
    .unwrap();
    assert_eq!(
        rows(&mut s, "SELECT id, name FROM t ORDER BY id"),
        vec!["1|caf\u{e9}\\N", "2|b"]
    );
    // REPLACE and IGNORE on duplicates, in the file and against the table.
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'r' REPLACE INTO TABLE t (id, name)",
        b"1\tnew1\n3\tthree\n3\tthree-again\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 3  Deleted: 2  Skipped: 0  Warnings: 0");
    assert_eq!(
        rows(&mut s, "SELECT id, name FROM t ORDER BY id"),
        vec!["1|new1", "2|b", "3|three-again"]
    );
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'i' IGNORE INTO TABLE t (id, name)",
        b"2\tnot-me\n4\tfour\n4\tnot-me\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 3  Deleted: 0  Skipped: 2  Warnings: 2");
    let w = warnings(&mut s);
    assert_eq!(w.len(), 2);
    assert!(w[0].starts_with("Warning|1062|Duplicate entry"), "{w:?}");
    assert_eq!(
        rows(&mut s, "SELECT id, name FROM t ORDER BY id"),
        vec!["1|new1", "2|b", "3|three-again", "4|four"]
    );
}

#[test]
fn server_side_files_need_secure_file_priv() {
    let dir = tempfile::tempdir().unwrap();
    let top = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir_in(top.path()).unwrap();
    let (e, mut s) = engine(dir.path());
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    std::fs::write(files.path().join("ok.txt"), "1\t10\n2\t20\n").unwrap();
    let sql = format!(
        "LOAD DATA INFILE '{}' INTO TABLE t",
        files.path().join("ok.txt").display()
    );
    assert_eq!(s.execute(&sql, &[]).unwrap_err().code.number(), 1290);
    e.set_secure_file_priv(Some(files.path().to_path_buf()));
    exec(&mut s, &sql);
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), vec!["2"]);
    // Relative names resolve in the directory; escaping it is refused; missing files are 29.
    exec(&mut s, "LOAD DATA INFILE 'ok.txt' REPLACE INTO TABLE t");
    let outside = top.path().join("x.txt");
    std::fs::write(&outside, "9\t9\n").unwrap();
    let err = s
        .execute(
            &format!("LOAD DATA INFILE '{}' INTO TABLE t", outside.display()),
            &[],
        )
        .unwrap_err();
    assert_eq!(err.code.number(), 1290);
    let err = s
        .execute("LOAD DATA INFILE '../x.txt' INTO TABLE t", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1290);
    let err = s
        .execute("LOAD DATA INFILE 'nope.txt' INTO TABLE t", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 29);
    // Server-side duplicates are errors (no LOCAL): nothing of the file is kept.
    std::fs::write(files.path().join("dup.txt"), "5\t5\n1\t1\n").unwrap();
    let err = s
        .execute("LOAD DATA INFILE 'dup.txt' INTO TABLE t", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1062);
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), vec!["2"]);
    // LOCAL without a client stream (client did not opt in) or with local_infile OFF.
    assert_eq!(
        s.execute("LOAD DATA LOCAL INFILE 'x' INTO TABLE t", &[])
            .unwrap_err()
            .code
            .number(),
        3948
    );
    exec(&mut s, "SET local_infile = 0");
    assert_eq!(
        local(&mut s, "LOAD DATA LOCAL INFILE 'x' INTO TABLE t", b"7\t7\n")
            .unwrap_err()
            .code
            .number(),
        3948
    );
}

#[test]
fn malformed_input_errors_in_strict_mode_and_warns_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, n INT, d DATE, c VARCHAR(10))",
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES (100, 1, '2000-01-01', 'keep')",
    );
    let cases: &[(&[u8], u16, &str)] = &[
        (
            b"1\t1\t2024-01-01\tok\n2\tabc\t2024-01-01\tx\n",
            1366,
            "line 2",
        ),
        (b"1\t1\t2024-02-30\tok\n", 1292, "line 1"),
        (b"1\t1\t2024-01-01\n", 1261, "line 1"),
        (b"1\t1\t2024-01-01\tok\textra\n", 1262, "line 1"),
        (b"1\t1\t2024-01-01\tbad\xff\xfe\n", 1366, "line 1"),
        (b"1\t99999999999\t2024-01-01\tok\n", 1264, "line 1"),
    ];
    for (data, code, line) in cases {
        // Server-side semantics (strict): through LOAD DATA ... REPLACE so that LOCAL's implied
        // IGNORE does not apply.
        let err = local(
            &mut s,
            "LOAD DATA LOCAL INFILE 'bad.tsv' REPLACE INTO TABLE t",
            data,
        )
        .unwrap_err();
        assert_eq!(err.code.number(), *code, "{err}");
        assert!(
            err.message.contains("file 'bad.tsv'") && err.message.contains(line),
            "{err}"
        );
        assert_eq!(rows(&mut s, "SELECT id, c FROM t"), vec!["100|keep"]);
    }
    // Bad quoting: the open quote runs to the end, the row lacks columns.
    let ok = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'q.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"'",
        b"1,2,2024-01-01,\"op\n2,\n",
    );
    assert!(
        ok.is_ok(),
        "an unterminated quote at the end is data, as MySQL reads it"
    );
    assert_eq!(
        rows(&mut s, "SELECT c FROM t WHERE id = 1"),
        vec!["op\n2,\n"]
    );
    exec(&mut s, "DELETE FROM t WHERE id = 1");
    let err = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'q.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"'",
        b"1,2,\"2024-01-01\n",
    )
    .unwrap_err();
    assert_eq!(err.code.number(), 1261);
    // Non-strict (LOCAL implies IGNORE): the same rows load with MySQL's warnings.
    let o = local(
        &mut s,
        "LOAD DATA LOCAL INFILE 'w.tsv' INTO TABLE t",
        b"1\tabc\t2024-01-01\tok\n2\t1\t2024-02-30\tx\n3\t1\n4\t1\t2024-01-01\tok\textra\n5\t1\t2024-01-01\tbad\xff\n",
    )
    .unwrap();
    assert_eq!(info(&o), "Records: 5  Deleted: 0  Skipped: 0  Warnings: 5");
    let codes: Vec<String> = warnings(&mut s)
        .iter()
        .map(|w| w.split('|').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(codes, ["1366", "1265", "1261", "1262", "1366"]);
    assert_eq!(
        rows(&mut s, "SELECT id, n, d, c FROM t ORDER BY id"),
        vec![
            "1|0|2024-01-01|ok",
            "2|1|0000-00-00|x",
            "3|1|NULL|NULL",
            "4|1|2024-01-01|ok",
            "5|1|2024-01-01|bad",
            "100|1|2000-01-01|keep"
        ]
    );
}
