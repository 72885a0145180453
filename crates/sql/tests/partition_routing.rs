//! Partition selection against a model: for every partitioning method, random rows are routed
//! by the table definition (`TableDef::part_of_row`) and by a direct reimplementation of MySQL's
//! rules for that method, and both must agree (design.md PRT1). KEY is checked for determinism
//! and range here (its hash is pinned to MariaDB's placements in a unit test).

mod common;

use betula_sql::catalog::create_table::table_from_create;
use betula_sql::catalog::TableDef;
use betula_sql::parser::parse_create_table;
use betula_sql::types::value::Value;
use betula_sql::ErrorCode;
use rand::rngs::SmallRng;
use rand::Rng;

fn table(sql: &str) -> TableDef {
    let (ct, extras) = parse_create_table(sql).unwrap();
    table_from_create("d", &ct, &extras).unwrap()
}

fn int_or_null(r: &mut SmallRng, lo: i64, hi: i64) -> Value {
    if r.gen_range(0..10) == 0 {
        Value::Null
    } else {
        Value::Int(r.gen_range(lo..hi))
    }
}

/// Routes `n` random rows made by `row` and compares with `model` (`None`: no partition).
fn check(
    t: &TableDef,
    seed: u64,
    row: impl Fn(&mut SmallRng) -> Vec<Value>,
    model: impl Fn(&[Value]) -> Option<usize>,
) {
    let mut r = common::rng(seed);
    for _ in 0..2000 {
        let v = row(&mut r);
        match (t.part_of_row(&v), model(&v)) {
            (Ok(Some(p)), Some(m)) => assert_eq!(p, m, "row {v:?}"),
            (Err(e), None) => assert_eq!(e.code, ErrorCode::NoPartitionForGivenValue, "row {v:?}"),
            (got, want) => panic!("row {v:?}: got {got:?}, model {want:?}"),
        }
    }
}

#[test]
fn range_routes_below_the_first_greater_bound_and_null_first() {
    let t = table(
        "CREATE TABLE t (a INT, b INT) PARTITION BY RANGE (a DIV 10) (PARTITION p0 VALUES LESS THAN (-3), \
         PARTITION p1 VALUES LESS THAN (0), PARTITION p2 VALUES LESS THAN (5), PARTITION p3 VALUES LESS THAN (9))",
    );
    let bounds = [-3i64, 0, 5, 9];
    check(
        &t,
        1,
        |r| vec![int_or_null(r, -100, 120), Value::Null],
        |v| match &v[0] {
            Value::Null => Some(0),
            Value::Int(a) => {
                // MySQL's DIV truncates toward zero.
                let f = a / 10;
                bounds.iter().position(|b| f < *b)
            }
            _ => unreachable!(),
        },
    );
}

#[test]
fn list_routes_to_the_listing_partition() {
    let t = table(
        "CREATE TABLE t (a INT) PARTITION BY LIST (a * 2 + 1) (PARTITION p0 VALUES IN (1, 3, NULL), \
         PARTITION p1 VALUES IN (5, 7, 9), PARTITION p2 VALUES IN (-1, -3))",
    );
    let lists: [&[Option<i64>]; 3] = [
        &[Some(1), Some(3), None],
        &[Some(5), Some(7), Some(9)],
        &[Some(-1), Some(-3)],
    ];
    check(
        &t,
        2,
        |r| vec![int_or_null(r, -4, 7)],
        |v| {
            let f = match &v[0] {
                Value::Null => None,
                Value::Int(a) => Some(a * 2 + 1),
                _ => unreachable!(),
            };
            lists.iter().position(|l| l.contains(&f))
        },
    );
}

/// MySQL's HASH: `|f mod n|`, NULL as the smallest BIGINT; LINEAR: one fold by the next power of two.
fn hash_model(f: Option<i64>, n: u64, linear: bool) -> usize {
    let x = f.unwrap_or(i64::MIN);
    if linear {
        let mut mask = n.next_power_of_two() - 1;
        let mut p = x as u64 & mask;
        if p >= n {
            mask = ((mask + 1) >> 1) - 1;
            p = x as u64 & mask;
        }
        p as usize
    } else {
        (x % n as i64).unsigned_abs() as usize
    }
}

#[test]
fn hash_and_linear_hash_route_as_mysql_computes_them() {
    for (linear, n) in [(false, 5), (true, 5), (true, 8), (false, 1)] {
        let kw = if linear { "LINEAR " } else { "" };
        let t = table(&format!(
            "CREATE TABLE t (a BIGINT, b INT) PARTITION BY {kw}HASH (a - b) PARTITIONS {n}"
        ));
        check(
            &t,
            3 + n,
            |r| {
                vec![
                    int_or_null(r, -1_000_000, 1_000_000),
                    Value::Int(r.gen_range(-50..50)),
                ]
            },
            |v| {
                let f = match (&v[0], &v[1]) {
                    (Value::Int(a), Value::Int(b)) => Some(a - b),
                    _ => None,
                };
                Some(hash_model(f, n, linear))
            },
        );
    }
}

#[test]
fn range_and_list_columns_compare_tuples() {
    let t = table(
        "CREATE TABLE t (a INT, b VARCHAR(5)) PARTITION BY RANGE COLUMNS (a, b) \
         (PARTITION p0 VALUES LESS THAN (0, 'm'), PARTITION p1 VALUES LESS THAN (10, 'c'), \
          PARTITION p2 VALUES LESS THAN (10, MAXVALUE), PARTITION p3 VALUES LESS THAN (20, 'a'))",
    );
    let letters = ["a", "b", "c", "m", "n", "z"];
    let row = |r: &mut SmallRng| {
        vec![
            Value::Int(r.gen_range(-5..25)),
            Value::Text(letters[r.gen_range(0..letters.len())].to_string()),
        ]
    };
    // (a, b) < (x, y) as MySQL compares tuples; None is MAXVALUE.
    let less =
        |a: i64, b: &str, x: i64, y: Option<&str>| a < x || (a == x && y.is_none_or(|y| b < y));
    let bounds: [(i64, Option<&str>); 4] =
        [(0, Some("m")), (10, Some("c")), (10, None), (20, Some("a"))];
    check(&t, 10, row, |v| {
        let (Value::Int(a), Value::Text(b)) = (&v[0], &v[1]) else {
            unreachable!()
        };
        bounds.iter().position(|(x, y)| less(*a, b, *x, *y))
    });
    let t = table(
        "CREATE TABLE t (a INT, b VARCHAR(5)) PARTITION BY LIST COLUMNS (a, b) \
         (PARTITION p0 VALUES IN ((1, 'a'), (2, 'b')), PARTITION p1 VALUES IN ((1, 'b'), (3, 'c')))",
    );
    let lists: [&[(i64, &str)]; 2] = [&[(1, "a"), (2, "b")], &[(1, "b"), (3, "c")]];
    check(
        &t,
        11,
        |r| {
            vec![
                Value::Int(r.gen_range(0..4)),
                Value::Text(letters[r.gen_range(0..3)].to_string()),
            ]
        },
        |v| {
            let (Value::Int(a), Value::Text(b)) = (&v[0], &v[1]) else {
                unreachable!()
            };
            lists.iter().position(|l| l.contains(&(*a, b.as_str())))
        },
    );
}

#[test]
fn key_partitions_are_a_function_of_the_key_within_range() {
    let t = table(
        "CREATE TABLE t (a INT NOT NULL, b VARCHAR(10) NOT NULL, c INT, PRIMARY KEY (a, b)) \
         PARTITION BY KEY () PARTITIONS 7",
    );
    let mut r = common::rng(12);
    let mut seen = [0usize; 7];
    for _ in 0..2000 {
        let a = r.gen_range(0..1000);
        let b = format!("k{}", r.gen_range(0..50));
        let p = t
            .part_of_row(&[Value::Int(a), Value::Text(b.clone()), Value::Int(r.gen())])
            .unwrap()
            .unwrap();
        // Another value of the non-key column, and the key in another case (the collation's
        // sort key is what is hashed): the same partition.
        let q = t
            .part_of_row(&[Value::Int(a), Value::Text(b.to_uppercase()), Value::Null])
            .unwrap()
            .unwrap();
        assert_eq!(p, q);
        seen[p] += 1;
    }
    assert!(seen.iter().all(|&n| n > 150), "skewed: {seen:?}");
}
