//! Grouping that spills to disk (design.md GSP1-GSP5): over random data with NULLs, a
//! case-insensitive collation and floating-point values whose sum depends on the order, every
//! grouped query answers with a group table of no budget (`tmp_table_size = 0`, every group but
//! the first spilled, run files forced by a tiny `sort_buffer_size`) exactly as with an ample one;
//! `Created_tmp_tables` / `Created_tmp_disk_tables` count as MariaDB counts them; no temporary
//! directory outlives its statement, even a failing one; the budget's variables are MariaDB's.

mod sessions;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sessions::{err_code, exec, open, rows, sort_dirs};

fn status(s: &mut betula_sql::Session, name: &str) -> u64 {
    let r = rows(s, &format!("SHOW SESSION STATUS LIKE '{name}'"));
    r[0][1].parse().unwrap()
}

const QUERIES: &[&str] = &[
    "SELECT g, COUNT(*), COUNT(x), SUM(x), AVG(x), MIN(s), MAX(s), SUM(d), AVG(d), MIN(x) \
     FROM t GROUP BY g",
    "SELECT s, COUNT(*), GROUP_CONCAT(id), GROUP_CONCAT(DISTINCT g ORDER BY g DESC SEPARATOR '|'), \
     COUNT(DISTINCT g), COUNT(DISTINCT s, g), GROUP_CONCAT(x) FROM t GROUP BY s",
    "SELECT g, s, BIT_AND(b), BIT_OR(b), BIT_XOR(b), STD(x), VARIANCE(d), STDDEV_SAMP(x), \
     VAR_SAMP(b), SUM(b) FROM t GROUP BY g, s",
    "SELECT s, g, SUM(x) FROM t GROUP BY s, g HAVING COUNT(*) > 2 AND SUM(x) IS NOT NULL",
    "SELECT g % 7, SUM(x), COUNT(*) FROM t GROUP BY g % 7 HAVING SUM(d) > 0 ORDER BY 3 DESC, 1",
    "SELECT s, id, x, d FROM t GROUP BY s",
    "SELECT id, SUM(x) FROM t GROUP BY id LIMIT 7 OFFSET 11",
    "SELECT COUNT(*), SUM(n) FROM (SELECT g, s, COUNT(*) AS n FROM t GROUP BY g, s) dt",
    "SELECT g, SUM(x), RANK() OVER (ORDER BY COUNT(*), g) FROM t GROUP BY g",
    "SELECT DISTINCT COUNT(*) FROM t GROUP BY g, s",
    "SELECT g, COUNT(*) FROM t WHERE s IS NULL OR d > 3 GROUP BY g ORDER BY g DESC",
    "SELECT UPPER(s), g, MAX(d) FROM t GROUP BY 1, 2",
    "SELECT COUNT(*), SUM(x), GROUP_CONCAT(DISTINCT s ORDER BY s) FROM t",
];

fn random_setup(rng: &mut StdRng, n: usize) -> Vec<String> {
    let strings = [
        "'a'", "'A'", "'b'", "'B '", "'ä'", "'c'", "'Ab'", "'aB'", "NULL",
    ];
    let doubles = ["1e16", "-1e16", "1.5", "0.1", "-3.25", "NULL", "1e-3"];
    let mut setup = vec![
        "CREATE TABLE t (id INT PRIMARY KEY, g INT, s VARCHAR(10), x DOUBLE, d DECIMAL(8,2), \
         b BIGINT)"
            .to_string(),
    ];
    let mut values = Vec::new();
    for id in 0..n {
        let g = if rng.gen_ratio(1, 10) {
            "NULL".to_string()
        } else {
            rng.gen_range(0..40).to_string()
        };
        let s = strings[rng.gen_range(0..strings.len())];
        let x = doubles[rng.gen_range(0..doubles.len())];
        let d = if rng.gen_ratio(1, 12) {
            "NULL".to_string()
        } else {
            format!("{}.{:02}", rng.gen_range(-50..50), rng.gen_range(0..100))
        };
        let b = rng.gen_range(0..1u64 << 20);
        values.push(format!("({id}, {g}, {s}, {x}, {d}, {b})"));
    }
    setup.push(format!("INSERT INTO t VALUES {}", values.join(", ")));
    setup
}

#[test]
fn spilled_grouping_answers_as_in_memory_grouping_and_leaves_no_files() {
    let mut rng = StdRng::seed_from_u64(0x9e0u64);
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let setup = random_setup(&mut rng, 300 + round * 400);
        let setup: Vec<&str> = setup.iter().map(String::as_str).collect();
        let (_e, mut s) = open(dir.path(), &setup);
        for q in QUERIES {
            exec(
                &mut s,
                "SET tmp_table_size = DEFAULT, sort_buffer_size = DEFAULT",
            );
            exec(&mut s, "FLUSH STATUS");
            let ample = rows(&mut s, q);
            assert_eq!(status(&mut s, "Created_tmp_disk_tables"), 0, "{q}");
            exec(&mut s, "SET tmp_table_size = 0, sort_buffer_size = 1024");
            exec(&mut s, "FLUSH STATUS");
            let tiny = rows(&mut s, q);
            assert_eq!(ample, tiny, "{q}");
            assert!(!tiny.is_empty(), "{q}");
            let grouped = q.contains("GROUP BY");
            assert_eq!(status(&mut s, "Created_tmp_tables") > 0, grouped, "{q}");
            assert_eq!(
                status(&mut s, "Created_tmp_disk_tables") > 0,
                grouped,
                "{q}"
            );
            assert!(sort_dirs(dir.path()).is_empty(), "{q}");
        }
    }
}

#[test]
fn case_insensitive_keys_group_together_when_spilled() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE c (id INT PRIMARY KEY, s VARCHAR(5))",
            "INSERT INTO c VALUES (1, 'b'), (2, 'a'), (3, 'B'), (4, 'A'), (5, 'a '), (6, NULL), \
             (7, 'c'), (8, NULL)",
            "SET tmp_table_size = 0, sort_buffer_size = 1024",
        ],
    );
    let got = rows(
        &mut s,
        "SELECT s, COUNT(*), GROUP_CONCAT(id) FROM c GROUP BY s",
    );
    // Sorted by the group key, as MariaDB sorts a GROUP BY without ORDER BY.
    let want = [
        ["NULL", "2", "6,8"],
        ["a", "3", "2,4,5"],
        ["b", "2", "1,3"],
        ["c", "1", "7"],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from)).to_vec());
    // ORDER BY NULL: the order of the groups' first rows, spilled or not (design.md GSP3).
    let got = rows(
        &mut s,
        "SELECT s, COUNT(*), GROUP_CONCAT(id) FROM c GROUP BY s ORDER BY NULL",
    );
    let want = [
        ["b", "2", "1,3"],
        ["a", "3", "2,4,5"],
        ["NULL", "2", "6,8"],
        ["c", "1", "7"],
    ];
    assert_eq!(got, want.map(|r| r.map(String::from)).to_vec());
    assert_eq!(
        err_code(&mut s, "SELECT s, COUNT(*) FROM c GROUP BY s WITH ROLLUP"),
        1235
    );
}

#[test]
fn a_statement_failing_after_its_grouping_spilled_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE f (id INT PRIMARY KEY, z BIGINT)",
            "INSERT INTO f SELECT seq, IF(seq = 3000, 2, 0) FROM seq_1_to_3000",
            "SET tmp_table_size = 0, sort_buffer_size = 1024",
        ],
    );
    let q = "SELECT id, SUM(z * 9223372036854775807) FROM f GROUP BY id";
    assert_eq!(err_code(&mut s, q), 1690);
    assert!(sort_dirs(dir.path()).is_empty());
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM (SELECT id FROM f GROUP BY id) dt"
        )[0][0],
        "3000"
    );
    assert!(sort_dirs(dir.path()).is_empty());
}

#[test]
fn the_budget_variables_are_bounded_and_aliased_as_mariadb_does() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let get =
        |s: &mut betula_sql::Session, v: &str| rows(s, &format!("SELECT @@{v}"))[0][0].clone();
    assert_eq!(get(&mut s, "tmp_memory_table_size"), "16777216");
    exec(&mut s, "SET tmp_memory_table_size = 40000");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1292");
    assert_eq!(get(&mut s, "tmp_table_size"), "32768");
    assert_eq!(get(&mut s, "tmp_memory_table_size"), "32768");
    exec(&mut s, "SET tmp_table_size = 1500");
    assert_eq!(get(&mut s, "tmp_memory_table_size"), "0");
    exec(&mut s, "SET max_heap_table_size = 20000");
    assert_eq!(get(&mut s, "max_heap_table_size"), "19456");
    exec(&mut s, "SET max_heap_table_size = 1");
    assert_eq!(get(&mut s, "max_heap_table_size"), "16384");
    exec(&mut s, "SET tmp_table_size = 16384");
    assert!(rows(&mut s, "SHOW WARNINGS").is_empty());
}
