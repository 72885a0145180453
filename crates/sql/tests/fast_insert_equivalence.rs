//! The fast INSERT parser (engine/fast_insert.rs) against the general parser: random
//! literal-only INSERTs run once as sent (fast path) and once with a trailing comment (which the
//! fast parser declines, so sqlparser reads it) into twin tables; the outcomes (rows stored,
//! error codes and messages, warnings) must be identical.

mod sessions;

use betula_sql::parser::fast_insert;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sessions::{exec, open, rows};

fn literal(r: &mut SmallRng) -> String {
    match r.gen_range(0..14) {
        0 => "NULL".into(),
        1 => "DEFAULT".into(),
        2 => ["TRUE", "false"][r.gen_range(0..2)].into(),
        3 => r.gen::<i64>().to_string(),
        4 => r.gen::<u64>().to_string(),
        5 => format!("{}{}", r.gen::<u64>(), r.gen_range(0..1000u32)),
        6 => format!("-{}", r.gen_range(0..100_000u32)),
        7 => format!(
            "{}{}.{}",
            ["", "-"][r.gen_range(0..2)],
            r.gen_range(0..100_000u32),
            r.gen_range(0..10_000_000u32)
        ),
        8 => format!(
            "{}{}e{}",
            ["", "-"][r.gen_range(0..2)],
            r.gen_range(0..1000u32),
            r.gen_range(-20..20i32)
        ),
        9 => "-9223372036854775808".into(),
        _ => {
            let pieces = [
                "a",
                "Z",
                "é",
                "日本",
                " ",
                "''",
                "\\'",
                "\\\\",
                "\\n",
                "\\t",
                "\\0",
                "\\Z",
                "\\b",
                "\\\"",
                "%",
                "_",
                "2024-01-01 00:00:00",
                "12.5",
                "x",
            ];
            let n = r.gen_range(0..6);
            let s: String = (0..n)
                .map(|_| pieces[r.gen_range(0..pieces.len())])
                .collect();
            format!("'{s}'")
        }
    }
}

#[test]
fn fast_and_general_parsers_store_the_same_rows_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    for t in ["fast", "general"] {
        exec(
            &mut s,
            &format!(
                "CREATE TABLE {t} (id INT PRIMARY KEY, a BIGINT, b DECIMAL(30,10) DEFAULT 1.5, \
                 c DOUBLE, d VARCHAR(40), e TEXT, f DATETIME)"
            ),
        );
    }
    let mut r = SmallRng::seed_from_u64(7);
    let mut id = 0;
    for round in 0..400 {
        let strict = round % 2 == 0;
        exec(
            &mut s,
            if strict {
                "SET sql_mode = 'STRICT_TRANS_TABLES'"
            } else {
                "SET sql_mode = ''"
            },
        );
        let nrows = r.gen_range(1..4);
        let mut vals = Vec::new();
        for _ in 0..nrows {
            id += 1;
            let lits: Vec<String> = (0..6).map(|_| literal(&mut r)).collect();
            vals.push(format!("({id}, {})", lits.join(", ")));
        }
        let ignore = if r.gen_range(0..4) == 0 {
            "IGNORE "
        } else {
            ""
        };
        let mut outcome = Vec::new();
        for (t, tail) in [("fast", ""), ("general", " /* general */")] {
            let sql = format!("INSERT {ignore}INTO {t} VALUES {}{tail}", vals.join(", "));
            assert_eq!(fast_insert::parse(&sql).is_some(), tail.is_empty(), "{sql}");
            let res = s.execute(&sql, &[]);
            // messages name the column `db`.`table`.`col`: compare them without the table name
            let anon = |m: &str| m.replace(&format!("`{t}`"), "`T`");
            let warns: Vec<String> = rows(&mut s, "SHOW WARNINGS")
                .into_iter()
                .map(|w| anon(&w.join(" ")))
                .collect();
            outcome.push((
                res.map(|o| format!("{o:?}"))
                    .map_err(|e| format!("{} {}", e.code.number(), anon(&e.message))),
                warns,
            ));
        }
        assert_eq!(outcome[0], outcome[1], "statement: {}", vals.join(", "));
    }
    let a = rows(&mut s, "SELECT * FROM fast ORDER BY id");
    let b = rows(&mut s, "SELECT * FROM general ORDER BY id");
    assert!(a.len() > 100, "too few rows stored: {}", a.len());
    assert_eq!(a, b);
}
