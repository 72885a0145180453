//! Sorts that spill to disk (design.md XSR1-XSR4): ORDER BY and window functions over more rows
//! than a tiny `sort_buffer_size` give the answer of an ample one, `Sort_merge_passes` counts the
//! merges, no temporary file is left; and `sort_buffer_size` is bounded as MariaDB bounds it.

mod sessions;

use sessions::{err_code, exec, open, rows, sort_dirs};

fn status(s: &mut betula_sql::Session, scope: &str, name: &str) -> u64 {
    let r = rows(s, &format!("SHOW {scope} STATUS LIKE '{name}'"));
    r[0][1].parse().unwrap()
}

const QUERIES: &[&str] = &[
    "SELECT id, x, s FROM t ORDER BY x, s DESC",
    "SELECT id, g, x, d FROM t ORDER BY d DESC, g",
    "SELECT id, s FROM t ORDER BY s, x LIMIT 10 OFFSET 5",
    "SELECT id, s FROM t ORDER BY s LIMIT 2500",
    "SELECT id, x, AVG(x) OVER (ORDER BY x) FROM t",
    "SELECT id, g, x, SUM(x) OVER (PARTITION BY g ORDER BY x RANGE CURRENT ROW), \
     ROW_NUMBER() OVER (ORDER BY s DESC, x) FROM t ORDER BY id",
    "SELECT id, RANK() OVER (PARTITION BY s ORDER BY d) FROM t",
    "(SELECT x, s FROM t WHERE g = 1) UNION ALL (SELECT x, s FROM t WHERE g = 2) ORDER BY s, x",
];

#[test]
fn spilled_sorts_answer_as_in_memory_ones_and_leave_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, g INT, x DOUBLE, s VARCHAR(40), d DECIMAL(10,2))",
            "INSERT INTO t SELECT seq, seq % 7, (seq * 7919) % 211 / 4, \
             IF(seq % 13 = 0, NULL, CONCAT('k', (seq * 31) % 97)), (seq * 17) % 501 / 100 \
             FROM seq_1_to_4000",
        ],
    );
    for q in QUERIES {
        exec(&mut s, "SET sort_buffer_size = 1073741824");
        exec(&mut s, "FLUSH STATUS");
        let ample = rows(&mut s, q);
        assert_eq!(status(&mut s, "SESSION", "Sort_merge_passes"), 0, "{q}");
        assert!(status(&mut s, "SESSION", "Sort_scan") >= 1, "{q}");
        exec(&mut s, "SET sort_buffer_size = 1024");
        exec(&mut s, "FLUSH STATUS");
        let tiny = rows(&mut s, q);
        assert_eq!(ample, tiny, "{q}");
        assert!(!tiny.is_empty(), "{q}");
        let passes = status(&mut s, "SESSION", "Sort_merge_passes");
        if !q.contains("LIMIT 10 ") {
            assert!(passes > 0, "{q}: no merge pass");
        }
        assert!(
            sort_dirs(dir.path()).is_empty(),
            "{q}: {:?}",
            sort_dirs(dir.path())
        );
    }
    assert!(status(&mut s, "GLOBAL", "Sort_merge_passes") > 0);
    assert!(status(&mut s, "GLOBAL", "Sort_rows") > 4000);
}

#[test]
fn sort_rows_and_the_priority_queue_are_counted_as_mariadb_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE o (a INT, b DOUBLE)",
            "INSERT INTO o SELECT seq, seq % 7 FROM seq_1_to_200",
        ],
    );
    exec(&mut s, "FLUSH STATUS");
    rows(&mut s, "SELECT b, AVG(b) OVER (ORDER BY b) FROM o");
    let counters = rows(&mut s, "SHOW STATUS LIKE 'Sort%'");
    let want = [
        ["Sort_merge_passes", "0"],
        ["Sort_priority_queue_sorts", "0"],
        ["Sort_range", "0"],
        ["Sort_rows", "200"],
        ["Sort_scan", "1"],
    ];
    assert_eq!(counters, want.map(|r| r.map(String::from)).to_vec());
    exec(&mut s, "FLUSH STATUS");
    rows(&mut s, "SELECT b FROM o ORDER BY b LIMIT 3");
    assert_eq!(status(&mut s, "SESSION", "Sort_rows"), 3);
    assert_eq!(status(&mut s, "SESSION", "Sort_priority_queue_sorts"), 1);
    assert_eq!(status(&mut s, "SESSION", "Sort_scan"), 1);
    let view = rows(
        &mut s,
        "SELECT variable_name, variable_value FROM information_schema.session_status \
         WHERE variable_name LIKE 'Sort_merge_passes'",
    );
    assert_eq!(
        view,
        vec![vec!["SORT_MERGE_PASSES".to_string(), "0".into()]]
    );
}

#[test]
fn sort_buffer_size_is_bounded_as_mariadb_bounds_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let value = |s: &mut betula_sql::Session| rows(s, "SELECT @@sort_buffer_size")[0][0].clone();
    assert_eq!(value(&mut s), "2097152");
    exec(&mut s, "SET sort_buffer_size = 1024");
    assert!(rows(&mut s, "SHOW WARNINGS").is_empty());
    assert_eq!(value(&mut s), "1024");
    exec(&mut s, "SET sort_buffer_size = 1000");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        vec![vec![
            "Warning".to_string(),
            "1292".into(),
            "Truncated incorrect sort_buffer_size value: '1000'".into()
        ]]
    );
    assert_eq!(value(&mut s), "1024");
    exec(&mut s, "SET sort_buffer_size = -1");
    assert_eq!(value(&mut s), "1024");
    exec(&mut s, "SET sort_buffer_size = 16385");
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'sort_buffer_size'"),
        vec![vec!["sort_buffer_size".to_string(), "16385".into()]]
    );
    exec(&mut s, "SET sort_buffer_size = DEFAULT");
    assert_eq!(value(&mut s), "2097152");
    assert_eq!(err_code(&mut s, "SET sort_buffer_size = 'abc'"), 1232);
    assert_eq!(err_code(&mut s, "SET sort_buffer_size = 1.5"), 1232);
    assert_eq!(err_code(&mut s, "SET sort_buffer_size = NULL"), 1232);
    exec(&mut s, "SET GLOBAL sort_buffer_size = 5000");
    assert_eq!(
        rows(&mut s, "SELECT @@global.sort_buffer_size")[0][0],
        "5000"
    );
    assert_eq!(value(&mut s), "2097152");
}
