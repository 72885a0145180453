//! The set-oriented INSERT path (exec/dml/insert_batch.rs: an autocommit INSERT that is its own
//! transaction) against the row-at-a-time path (the same statement inside BEGIN ... COMMIT): random
//! multi-row INSERTs, with keys from a small domain (duplicates within a statement and against the
//! table), bad values, NULLs into NOT NULL columns, out-of-range numbers, explicit and generated
//! AUTO_INCREMENT values, in strict and non-strict mode, run into twin tables. Each statement's
//! outcome (result or error, warnings, LAST_INSERT_ID, the next AUTO_INCREMENT value) and the tables'
//! rows must be identical.

mod sessions;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sessions::{exec, open, rows};

/// A table shape: its columns after the name, and a row of literals for it.
struct Shape {
    columns: &'static str,
    row: fn(&mut SmallRng) -> String,
    /// After the VALUES list.
    tail: &'static str,
}

fn int_literal(r: &mut SmallRng, domain: i64) -> String {
    match r.gen_range(0..60) {
        0 => "NULL".into(),
        1 => "'x'".into(),
        2 => "99999999999".into(),
        3 => "-5".into(),
        4 => "DEFAULT".into(),
        _ => r.gen_range(0..domain).to_string(),
    }
}

fn double_literal(r: &mut SmallRng) -> String {
    match r.gen_range(0..40) {
        0 => "NULL".into(),
        1 => "'abc'".into(),
        2 => "1e400".into(),
        3 => "-0.000".into(),
        _ => format!("{}.{:02}", r.gen_range(-100..100), r.gen_range(0..100)),
    }
}

fn datetime_literal(r: &mut SmallRng) -> String {
    match r.gen_range(0..40) {
        0 => "NULL".into(),
        1 => "'2024-13-45 00:00:00'".into(),
        2 => "DEFAULT".into(),
        _ => format!(
            "'2024-01-{:02} 00:00:{:02}'",
            r.gen_range(1..29),
            r.gen_range(0..60)
        ),
    }
}

fn text_literal(r: &mut SmallRng) -> String {
    match r.gen_range(0..30) {
        0 => "NULL".into(),
        1 => "'a string longer than eight'".into(),
        _ => format!("'s{}'", r.gen_range(0..5)),
    }
}

const SHAPES: [Shape; 4] = [
    // sensor-like: a composite key, NOT NULL columns, a non-unique secondary index
    Shape {
        columns: "(sensor INT NOT NULL, ts DATETIME NOT NULL, v DOUBLE, tag VARCHAR(8) NOT NULL \
                  DEFAULT 'none', PRIMARY KEY (sensor, ts), KEY tag_ix (tag))",
        row: |r| {
            format!(
                "({}, {}, {}, {})",
                int_literal(r, 4),
                datetime_literal(r),
                double_literal(r),
                text_literal(r)
            )
        },
        tail: "",
    },
    // an AUTO_INCREMENT key, explicit ids from a small domain or generated
    Shape {
        columns: "(id INT AUTO_INCREMENT PRIMARY KEY, a TINYINT NOT NULL, b DOUBLE)",
        row: |r| {
            let id = if r.gen_bool(0.5) {
                "NULL".into()
            } else {
                int_literal(r, 40)
            };
            format!("({id}, {}, {})", int_literal(r, 300), double_literal(r))
        },
        tail: "",
    },
    // no primary key: rows under a hidden row id
    Shape {
        columns: "(a INT NOT NULL, b VARCHAR(8))",
        row: |r| format!("({}, {})", int_literal(r, 5), text_literal(r)),
        tail: "",
    },
    // a roll-up: blind upserts (no read), keys repeated within and across statements
    Shape {
        columns: "(k INT NOT NULL PRIMARY KEY, cnt BIGINT NOT NULL, s DOUBLE)",
        row: |r| {
            format!(
                "({}, {}, {})",
                int_literal(r, 8),
                int_literal(r, 3),
                double_literal(r)
            )
        },
        tail: " ON DUPLICATE KEY UPDATE cnt = cnt + VALUES(cnt), s = s + VALUES(s)",
    },
];

/// The statement's outcome as the client sees it.
fn outcome(s: &mut betula_sql::Session, sql: &str, table: &str) -> Vec<String> {
    let anon = |m: &str| m.replace(&format!("`{table}`"), "`T`");
    let res = match s.execute(sql, &[]) {
        Ok(o) => format!("{o:?}"),
        Err(e) => format!("error {} {}", e.code.number(), anon(&e.message)),
    };
    let mut out = vec![res];
    out.extend(
        rows(s, "SHOW WARNINGS")
            .into_iter()
            .map(|w| anon(&w.join(" "))),
    );
    out.extend(rows(s, "SELECT LAST_INSERT_ID()").into_iter().flatten());
    let next_id = format!(
        "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' \
         AND TABLE_NAME = '{table}'"
    );
    out.extend(rows(s, &next_id).into_iter().flatten());
    out
}

#[test]
fn batched_and_row_at_a_time_inserts_have_the_same_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let mut r = SmallRng::seed_from_u64(11);
    for (n, shape) in SHAPES.iter().enumerate() {
        let (batch, general) = (format!("b{n}"), format!("g{n}"));
        for t in [&batch, &general] {
            exec(&mut s, &format!("CREATE TABLE {t} {}", shape.columns));
        }
        let mut failures = 0;
        for round in 0..300 {
            let mode = if round % 3 == 0 {
                ""
            } else {
                "STRICT_TRANS_TABLES"
            };
            exec(&mut s, &format!("SET sql_mode = '{mode}'"));
            let values: Vec<String> = (0..r.gen_range(1..7))
                .map(|_| (shape.row)(&mut r))
                .collect();
            let values = values.join(", ");
            let b = outcome(
                &mut s,
                &format!("INSERT INTO {batch} VALUES {values}{}", shape.tail),
                &batch,
            );
            exec(&mut s, "BEGIN");
            let g = outcome(
                &mut s,
                &format!("INSERT INTO {general} VALUES {values}{}", shape.tail),
                &general,
            );
            exec(&mut s, "COMMIT");
            assert_eq!(b, g, "shape {n}, round {round}: VALUES {values}");
            failures += b[0].starts_with("error") as usize;
        }
        assert!(
            failures > 20 && failures < 280,
            "shape {n}: {failures} failed statements"
        );
        let mut a = rows(&mut s, &format!("SELECT * FROM {batch}"));
        let mut b = rows(&mut s, &format!("SELECT * FROM {general}"));
        a.sort();
        b.sort();
        assert!(a.len() > 5, "shape {n}: only {} rows stored", a.len());
        assert_eq!(a, b, "shape {n}");
    }
}
