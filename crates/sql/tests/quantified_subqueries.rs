//! `x op ANY | SOME | ALL (SELECT ...)` with MariaDB's answers (crates/server/tests/regexp_peer.rs
//! compares the same kinds of statements with a running MariaDB), and a model-based test:
//! random tables with NULLs, random operators, uncorrelated and correlated subqueries, in the
//! select list and in WHERE, compared with a naive evaluation of SQL's three-valued logic.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn setup() -> Vec<&'static str> {
    vec![
        "CREATE TABLE t (id INT PRIMARY KEY, x INT, s VARCHAR(10))",
        "CREATE TABLE u (id INT PRIMARY KEY, y INT, s VARCHAR(10))",
        "CREATE TABLE e (y INT)",
        "INSERT INTO t VALUES (1, 0, 'a'), (2, 3, 'B'), (3, 6, 'c'), (4, NULL, NULL)",
        "INSERT INTO u VALUES (1, 1, 'A'), (2, NULL, 'b'), (3, 5, NULL)",
    ]
}

#[test]
fn any_and_all_follow_mariadbs_null_logic() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, x > ALL (SELECT y FROM u), x > ANY (SELECT y FROM u), \
             x >= SOME (SELECT y FROM u), x = ANY (SELECT y FROM u), x <> ALL (SELECT y FROM u), \
             x < ALL (SELECT y FROM e), x < ANY (SELECT y FROM e), x != ANY (SELECT y FROM u) \
             FROM t ORDER BY id"
        ),
        vec![
            vec!["1", "0", "NULL", "NULL", "NULL", "NULL", "1", "0", "1"],
            vec!["2", "0", "1", "1", "NULL", "NULL", "1", "0", "1"],
            vec!["3", "NULL", "1", "1", "NULL", "NULL", "1", "0", "1"],
            vec!["4", "NULL", "NULL", "NULL", "NULL", "NULL", "1", "0", "NULL"],
        ]
    );
    let ids = |s: &mut betula_sql::Session, sql: &str| -> Vec<String> {
        rows(s, sql).into_iter().map(|mut r| r.remove(0)).collect()
    };
    assert_eq!(
        ids(
            &mut s,
            "SELECT id FROM t WHERE x > ANY (SELECT y FROM u) ORDER BY id"
        ),
        ["2", "3"]
    );
    assert_eq!(
        ids(
            &mut s,
            "SELECT id FROM t WHERE x <= ALL (SELECT y FROM u WHERE y IS NOT NULL) ORDER BY id"
        ),
        ["1"]
    );
    // Text compares under the column's collation (case-insensitive).
    assert_eq!(
        ids(
            &mut s,
            "SELECT id FROM t WHERE s = ANY (SELECT s FROM u) ORDER BY id"
        ),
        ["1", "2"]
    );
    // Correlated: the subquery reads the outer row.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, x > ALL (SELECT y FROM u WHERE u.id < t.id), \
             x < ANY (SELECT y FROM u WHERE u.id <> t.id AND u.y IS NOT NULL) FROM t ORDER BY id"
        ),
        vec![
            vec!["1", "1", "1"],
            vec!["2", "1", "1"],
            vec!["3", "NULL", "0"],
            vec!["4", "NULL", "NULL"],
        ]
    );
    assert_eq!(
        ids(
            &mut s,
            "SELECT id FROM t WHERE x >= ALL (SELECT x FROM t t2 WHERE t2.s <= t.s) ORDER BY id"
        ),
        // Row 4's subquery has no row (its s is NULL): ALL of nothing is true.
        ["1", "2", "3", "4"]
    );
}

#[test]
fn errors_are_mariadbs() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(
        err_code(&mut s, "SELECT 1 > ANY (SELECT id, y FROM u)"),
        1241
    );
    assert_eq!(
        err_code(
            &mut s,
            "SELECT id FROM t WHERE x < ALL (SELECT id, y FROM u WHERE u.id = t.id)"
        ),
        1241
    );
    assert_eq!(
        err_code(&mut s, "SELECT (1, 2) > ANY (SELECT id, y FROM u)"),
        1241
    );
    assert_eq!(err_code(&mut s, "SELECT 1 > ANY (1, 2)"), 1064);
    // A row compared with = ANY / <> ALL is IN / NOT IN.
    assert_eq!(
        rows(
            &mut s,
            "SELECT (1, 1) = ANY (SELECT id, y FROM u), (2, 2) <> ALL (SELECT id, y FROM u)"
        ),
        vec![vec!["1", "NULL"]]
    );
}

/// The model: tables `a` and `b` (id, x) of small values and NULLs.
mod model {
    pub type V = Option<i64>;

    pub fn sql(v: V) -> String {
        v.map_or("NULL".into(), |i| i.to_string())
    }

    pub const OPS: [&str; 7] = ["=", "<>", "!=", "<", "<=", ">", ">="];

    pub fn cmp(op: &str, a: V, b: V) -> Option<bool> {
        let (a, b) = (a?, b?);
        Some(match op {
            "=" => a == b,
            "<>" | "!=" => a != b,
            "<" => a < b,
            "<=" => a <= b,
            ">" => a > b,
            _ => a >= b,
        })
    }

    /// `x op ANY|ALL (vals)` by definition: OR (ANY) or AND (ALL) of the comparisons.
    pub fn quantified(x: V, op: &str, all: bool, vals: &[V]) -> Option<bool> {
        let mut acc = Some(all);
        for v in vals {
            acc = match (acc, cmp(op, x, *v)) {
                (Some(b), _) if b != all => Some(b),
                (_, Some(c)) if c != all => Some(c),
                (Some(_), Some(_)) => acc,
                _ => None,
            };
        }
        acc
    }

    pub fn truth(b: Option<bool>) -> String {
        b.map_or("NULL".into(), |b| (b as i64).to_string())
    }
}

#[test]
fn random_quantified_comparisons_match_a_naive_evaluation() {
    use model::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let mut rng = SmallRng::seed_from_u64(0xa11a);
    let mut checked = 0;
    for round in 0..30 {
        let v = |rng: &mut SmallRng| (!rng.gen_bool(0.2)).then(|| rng.gen_range(0..5));
        let a: Vec<V> = (0..rng.gen_range(0..8)).map(|_| v(&mut rng)).collect();
        let b: Vec<V> = (0..rng.gen_range(0..6)).map(|_| v(&mut rng)).collect();
        exec(&mut s, "DROP TABLE IF EXISTS a, b");
        exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, x INT)");
        let key = if round % 2 == 0 { ", KEY (x)" } else { "" };
        exec(
            &mut s,
            &format!("CREATE TABLE b (id INT PRIMARY KEY, x INT{key})"),
        );
        for (name, t) in [("a", &a), ("b", &b)] {
            for (i, x) in t.iter().enumerate() {
                exec(
                    &mut s,
                    &format!("INSERT INTO {name} VALUES ({}, {})", i + 1, sql(*x)),
                );
            }
        }
        for _ in 0..20 {
            let op = OPS[rng.gen_range(0..OPS.len())];
            let all = rng.gen_bool(0.5);
            let word = if all {
                "ALL"
            } else {
                ["ANY", "SOME"][rng.gen_range(0..2)]
            };
            // Correlated: only b's rows with a smaller id than the outer row's.
            let correlated = rng.gen_bool(0.5);
            let filter = if correlated { " WHERE b.id < a.id" } else { "" };
            let vals = |id: usize| -> Vec<V> {
                b.iter()
                    .enumerate()
                    .filter(|(j, _)| !correlated || j + 1 < id)
                    .map(|(_, x)| *x)
                    .collect()
            };
            let sub = format!("a.x {op} {word} (SELECT b.x FROM b{filter})");
            let (query, want): (String, Vec<Vec<String>>) = if rng.gen_bool(0.5) {
                (
                    format!("SELECT a.id, {sub} FROM a ORDER BY a.id"),
                    a.iter()
                        .enumerate()
                        .map(|(i, x)| {
                            vec![
                                (i + 1).to_string(),
                                truth(quantified(*x, op, all, &vals(i + 1))),
                            ]
                        })
                        .collect(),
                )
            } else {
                let not = rng.gen_bool(0.3);
                let cond = if not { format!("NOT ({sub})") } else { sub };
                (
                    format!("SELECT a.id FROM a WHERE {cond} ORDER BY a.id"),
                    a.iter()
                        .enumerate()
                        .filter(|(i, x)| {
                            let r = quantified(**x, op, all, &vals(i + 1));
                            r.map(|b| b != not) == Some(true)
                        })
                        .map(|(i, _)| vec![(i + 1).to_string()])
                        .collect(),
                )
            };
            assert_eq!(rows(&mut s, &query), want, "round {round}: {query}");
            checked += 1;
        }
    }
    assert_eq!(checked, 30 * 20);
}
