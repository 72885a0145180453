//! Pruning never drops a matching row (design.md PRT6): tables partitioned by every method hold
//! the same rows as a table that is not partitioned, and random predicates on the partitioning
//! columns (equalities, IN lists, ranges, BETWEEN, IS NULL, negations, OR, mixed with other
//! columns) must select the same rows from both, through the primary key, a secondary index or a
//! full scan. Also: a `PARTITION (...)` selection returns exactly the rows the partition function
//! puts there, and UPDATE and DELETE through pruned plans change the same rows.

mod sessions;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sessions::{exec, open, rows};

const SCHEMES: &[&str] = &[
    "PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (-20), PARTITION p1 VALUES LESS THAN (0), \
     PARTITION p2 VALUES LESS THAN (15), PARTITION p3 VALUES LESS THAN (40), PARTITION p4 VALUES LESS THAN MAXVALUE)",
    "PARTITION BY RANGE (to_days(d)) (PARTITION p0 VALUES LESS THAN (to_days('2024-01-05')), \
     PARTITION p1 VALUES LESS THAN (to_days('2024-01-12')), PARTITION p2 VALUES LESS THAN MAXVALUE)",
    "PARTITION BY LIST (a) (PARTITION p0 VALUES IN (NULL, -50, -49, -48), PARTITION p1 VALUES IN (0, 1, 2, 3, 4, 5), \
     PARTITION p2 VALUES IN (6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25))",
    "PARTITION BY HASH (a) PARTITIONS 5",
    "PARTITION BY LINEAR HASH (a + 3) PARTITIONS 6",
    "PARTITION BY KEY (a) PARTITIONS 4",
    "PARTITION BY RANGE COLUMNS (a, d) (PARTITION p0 VALUES LESS THAN (0, '2024-01-01'), \
     PARTITION p1 VALUES LESS THAN (10, '2024-01-10'), PARTITION p2 VALUES LESS THAN (30, MAXVALUE), \
     PARTITION p3 VALUES LESS THAN (MAXVALUE, MAXVALUE))",
    "PARTITION BY LIST COLUMNS (d) (PARTITION p0 VALUES IN ('2024-01-01', '2024-01-02', '2024-01-03', \
     '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'), PARTITION p1 VALUES IN ('2024-01-08', \
     '2024-01-09', '2024-01-10', '2024-01-11', '2024-01-12', '2024-01-13', '2024-01-14', '2024-01-15'))",
];

/// A value of column `a` (some NULL, some outside every list) or `d` (January 2024).
fn a_value(r: &mut SmallRng, list: bool) -> String {
    match r.gen_range(0..12) {
        0 if !list => "NULL".into(),
        _ if list => r.gen_range(0..26).to_string(),
        _ => r.gen_range(-60..70).to_string(),
    }
}
fn d_value(r: &mut SmallRng) -> String {
    format!("'2024-01-{:02}'", r.gen_range(1..=15))
}

/// A random predicate over a, d and the unpartitioned column v.
fn predicate(r: &mut SmallRng, depth: u32) -> String {
    let atom = |r: &mut SmallRng| -> String {
        let a = r.gen_range(-70..80);
        let b = a + r.gen_range(0..30);
        let d = d_value(r);
        match r.gen_range(0..13) {
            0 => format!("a = {a}"),
            1 => format!("a IN ({a}, {b}, {})", r.gen_range(-60..70)),
            2 => format!("a BETWEEN {a} AND {b}"),
            3 => format!("a < {a}"),
            4 => format!("a >= {a}"),
            5 => "a IS NULL".into(),
            6 => format!("d = {d}"),
            7 => format!("d < {d}"),
            8 => format!("d BETWEEN {d} AND {}", d_value(r)),
            9 => format!("v > {}", r.gen_range(0..100)),
            10 => format!("NOT (a = {a})"),
            11 => format!("a > {a}.5"),
            _ => format!("a = '{a}'"),
        }
    };
    if depth == 0 || r.gen_range(0..3) == 0 {
        return atom(r);
    }
    let op = if r.gen_range(0..3) == 0 { "OR" } else { "AND" };
    format!(
        "({} {op} {})",
        predicate(r, depth - 1),
        predicate(r, depth - 1)
    )
}

#[test]
fn pruned_reads_find_every_matching_row() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let mut r = SmallRng::seed_from_u64(7);
    for (n, scheme) in SCHEMES.iter().enumerate() {
        let list = scheme.contains("LIST (a)");
        let cols = "id INT NOT NULL, a INT, d DATE NOT NULL, v INT, KEY kv (v), KEY ka (a)";
        exec(&mut s, &format!("CREATE TABLE t{n} ({cols}) {scheme}"));
        exec(&mut s, &format!("CREATE TABLE u{n} ({cols})"));
        let mut values = Vec::new();
        for id in 0..300 {
            values.push(format!(
                "({id}, {}, {}, {})",
                a_value(&mut r, list),
                d_value(&mut r),
                r.gen_range(0..100)
            ));
        }
        let values = values.join(",");
        exec(&mut s, &format!("INSERT INTO t{n} VALUES {values}"));
        exec(&mut s, &format!("INSERT INTO u{n} VALUES {values}"));
        for _ in 0..150 {
            let p = predicate(&mut r, 2);
            for hint in ["", " FORCE INDEX (ka)", " IGNORE INDEX (ka, kv)"] {
                let q = |t: &str| format!("SELECT id FROM {t}{n}{hint} WHERE {p} ORDER BY id");
                assert_eq!(
                    rows(&mut s, &q("t")),
                    rows(&mut s, &q("u")),
                    "scheme {n}, WHERE {p}{hint}"
                );
            }
        }
        // Every row is in the partition the function gives it: the selections add up.
        let names = rows(
            &mut s,
            &format!(
                "SELECT partition_name FROM information_schema.partitions \
                 WHERE table_name = 't{n}' ORDER BY partition_ordinal_position"
            ),
        );
        let mut total = 0;
        for name in names {
            let ids = rows(
                &mut s,
                &format!("SELECT id FROM t{n} PARTITION ({}) ORDER BY id", name[0]),
            );
            total += ids.len();
        }
        assert_eq!(total, 300, "scheme {n}");
        // Changes through pruned plans hit the same rows.
        for _ in 0..10 {
            let p = predicate(&mut r, 1);
            for t in ["t", "u"] {
                exec(&mut s, &format!("UPDATE {t}{n} SET v = v + 1 WHERE {p}"));
            }
            let p = predicate(&mut r, 1);
            for t in ["t", "u"] {
                exec(&mut s, &format!("DELETE FROM {t}{n} WHERE {p} AND v < 20"));
            }
        }
        assert_eq!(
            rows(&mut s, &format!("SELECT * FROM t{n} ORDER BY id")),
            rows(&mut s, &format!("SELECT * FROM u{n} ORDER BY id")),
            "scheme {n} after changes"
        );
    }
}
