//! Conditions a key range applies are not checked again on the rows it reads (plan/implied.rs):
//! random conjunctions over integer, DATE and DATETIME key columns (primary, secondary, nullable,
//! with literals of every kind: exact, out of range, fractional, text, dates against datetimes)
//! give through the keys exactly the rows a table without keys gives, and the columns a query does
//! not use are not needed to answer it (aggregates and projections over the same ranges agree).

mod sessions;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sessions::{exec, open, rows};

const COLS: &str = "a INT NOT NULL, b DATETIME NOT NULL, c INT NOT NULL, d INT NULL, \
                    e DATE NOT NULL, v INT, w VARCHAR(10)";

fn fill(s: &mut betula_sql::Session, rng: &mut StdRng) {
    let mut vals = Vec::new();
    for i in 0..400 {
        let d = if rng.gen_bool(0.2) {
            "NULL".to_string()
        } else {
            rng.gen_range(-3..4).to_string()
        };
        vals.push(format!(
            "({}, '2024-01-01 {:02}:{:02}:{:02}', {}, {d}, '2024-01-{:02}', {}, 'x{}')",
            i % 7,
            rng.gen_range(0..3),
            rng.gen_range(0..60),
            rng.gen_range(0..60),
            rng.gen_range(-2..3),
            rng.gen_range(1..4),
            rng.gen_range(-100..100),
            i
        ));
    }
    let vals = vals.join(",");
    exec(s, &format!("INSERT IGNORE INTO k VALUES {vals}"));
    exec(s, "INSERT INTO r SELECT * FROM k");
}

fn int_lit(rng: &mut StdRng) -> String {
    let n: i32 = rng.gen_range(-3..8);
    match rng.gen_range(0..8) {
        0 => format!("'{n}'"),
        1 => format!("'0{}'", n.abs()),
        2 => format!("{n}.5"),
        3 => "3000000000".into(),
        4 => "-9223372036854775808".into(),
        _ => n.to_string(),
    }
}

fn time_lit(rng: &mut StdRng) -> String {
    let (h, m, s) = (
        rng.gen_range(0..3),
        rng.gen_range(0..60),
        rng.gen_range(0..60),
    );
    match rng.gen_range(0..7) {
        0 => format!("'2024-01-01 {h:02}:{m:02}:{s:02}.5'"),
        1 => format!("'2024-01-0{}'", rng.gen_range(1..4)),
        2 => format!(
            "'2024-01-01 {h:02}:{m:02}:{s:02}' - INTERVAL {} MINUTE",
            rng.gen_range(0..90)
        ),
        3 => format!("DATE '2024-01-0{}'", rng.gen_range(1..4)),
        4 => format!("TIMESTAMP '2024-01-01 {h:02}:{m:02}:{s:02}'"),
        _ => format!("'2024-01-01 {h:02}:{m:02}:{s:02}'"),
    }
}

fn conjunct(rng: &mut StdRng) -> String {
    let op = ["=", "<", "<=", ">", ">=", "=", "="][rng.gen_range(0..7)];
    let (col, lit) = match rng.gen_range(0..5) {
        0 => ("a", int_lit(rng)),
        1 => ("b", time_lit(rng)),
        2 => ("c", int_lit(rng)),
        3 => ("d", int_lit(rng)),
        _ => ("e", time_lit(rng)),
    };
    if rng.gen_bool(0.2) {
        let flipped = match op {
            "<" => ">",
            "<=" => ">=",
            ">" => "<",
            ">=" => "<=",
            o => o,
        };
        format!("{lit} {flipped} {col}")
    } else {
        format!("{col} {op} {lit}")
    }
}

fn sorted(mut r: Vec<Vec<String>>) -> Vec<Vec<String>> {
    r.sort();
    r
}

#[test]
fn key_ranges_give_the_rows_a_full_check_gives() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            &format!(
                "CREATE TABLE k ({COLS}, PRIMARY KEY (a, b), KEY c_d (c, d), KEY e (e), KEY d (d))"
            ),
            &format!("CREATE TABLE r ({COLS})"),
        ],
    );
    let mut rng = StdRng::seed_from_u64(11);
    fill(&mut s, &mut rng);
    assert!(
        rows(&mut s, "SELECT COUNT(*) FROM k")[0][0]
            .parse::<u32>()
            .unwrap()
            > 300
    );
    for _ in 0..600 {
        let n = rng.gen_range(1..4);
        let w: Vec<String> = (0..n).map(|_| conjunct(&mut rng)).collect();
        let w = w.join(" AND ");
        for select in [
            "a, b, c, d, e, v, w",
            "COUNT(*), SUM(v), MAX(b), MIN(d)",
            "w",
        ] {
            let got = sorted(rows(&mut s, &format!("SELECT {select} FROM k WHERE {w}")));
            let want = sorted(rows(&mut s, &format!("SELECT {select} FROM r WHERE {w}")));
            assert_eq!(got, want, "WHERE {w}");
        }
    }
}

#[test]
fn ranges_with_an_exact_datetime_bound_read_what_the_condition_selects() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE s (ts DATETIME NOT NULL, id INT NOT NULL, x DOUBLE, PRIMARY KEY (id, ts))"],
    );
    let mut vals = Vec::new();
    for id in 1..=3 {
        for sec in 0..120 {
            vals.push(format!(
                "('2024-01-01 00:{:02}:{:02}', {id}, {sec})",
                sec / 60,
                sec % 60
            ));
        }
    }
    exec(&mut s, &format!("INSERT INTO s VALUES {}", vals.join(",")));
    let q = |s: &mut betula_sql::Session, w: &str| {
        rows(
            s,
            &format!("SELECT COUNT(*), SUM(x), MAX(x) FROM s WHERE {w}"),
        )[0]
        .clone()
    };
    assert_eq!(
        q(
            &mut s,
            "id = 2 AND ts >= '2024-01-01 00:01:59' - INTERVAL 1 MINUTE"
        ),
        ["61", "5429", "119"]
    );
    assert_eq!(
        q(&mut s, "id = 2 AND ts > '2024-01-01 00:01:00'"),
        ["59", "5310", "119"]
    );
    assert_eq!(
        q(&mut s, "id = 2 AND ts > '2024-01-01 00:00:59.5'"),
        ["60", "5370", "119"]
    );
    assert_eq!(
        q(&mut s, "id = 2 AND '2024-01-01 00:00:01' >= ts"),
        ["2", "1", "1"]
    );
    assert_eq!(
        q(&mut s, "id = '2' AND ts < '2024-01-01'"),
        ["0", "NULL", "NULL"]
    );
    assert_eq!(
        q(&mut s, "id = 2.5 AND ts < '2024-01-02'"),
        ["0", "NULL", "NULL"]
    );
}
