//! Correlated subqueries (scalar, EXISTS, IN, in WHERE, the select list, HAVING and ORDER BY,
//! nested, with CTEs) with MariaDB's results and errors, and a model-based test: random tables
//! with NULLs and random correlated EXISTS / IN / NOT IN / scalar queries compared with a naive
//! evaluation written here.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn setup() -> Vec<&'static str> {
    vec![
        "CREATE TABLE t1 (id INT PRIMARY KEY, g INT, v INT)",
        "CREATE TABLE t2 (id INT PRIMARY KEY, g INT, w INT)",
        "INSERT INTO t1 VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30), (4, NULL, 40), (5, 3, NULL)",
        "INSERT INTO t2 VALUES (1, 1, 10), (2, 1, 11), (3, 2, 30), (4, NULL, 50), (5, 4, NULL)",
    ]
}

fn col(r: Vec<Vec<String>>) -> Vec<String> {
    r.into_iter().map(|mut x| x.remove(0)).collect()
}

#[test]
fn exists_in_and_scalar_read_the_outer_row() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    let q = |s: &mut betula_sql::Session, sql: &str| col(rows(s, sql));
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g) ORDER BY id"
        ),
        ["1", "2", "3"]
    );
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE NOT EXISTS (SELECT * FROM t2 WHERE t2.g = t1.g) ORDER BY id"
        ),
        ["4", "5"]
    );
    // Unqualified: `w` is t2's, `v` is t1's (innermost scope first, then outward).
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE v IN (SELECT w FROM t2 WHERE t2.g = t1.g) ORDER BY id"
        ),
        ["1", "3"]
    );
    // A column of both: the inner one wins.
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE id = 5) ORDER BY id"
        ),
        ["1", "2", "3", "4", "5"]
    );
    // NOT IN with NULLs: the lists all hold t2.id 5's NULL w.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, v NOT IN (SELECT w FROM t2 WHERE t2.g = t1.g OR t2.g = 4) FROM t1 ORDER BY id"
        ),
        vec![
            vec!["1", "0"],
            vec!["2", "NULL"],
            vec!["3", "0"],
            vec!["4", "NULL"],
            vec!["5", "NULL"],
        ]
    );
    // An empty subquery: IN is 0 and NOT IN 1 even for a NULL left side.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, v IN (SELECT w FROM t2 WHERE t2.g = t1.g + 100), \
             v NOT IN (SELECT w FROM t2 WHERE t2.g = t1.g + 100) FROM t1 WHERE id = 5"
        ),
        vec![vec!["5", "0", "1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, (SELECT MAX(w) FROM t2 WHERE t2.g = t1.g) m FROM t1 ORDER BY m DESC, id"
        ),
        vec![
            vec!["3", "30"],
            vec!["1", "11"],
            vec!["2", "11"],
            vec!["4", "NULL"],
            vec!["5", "NULL"],
        ]
    );
    // HAVING and grouping.
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, SUM(v) FROM t1 GROUP BY g \
             HAVING EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g AND t2.w > 10) ORDER BY g"
        ),
        vec![vec!["1", "30"], vec!["2", "30"]]
    );
    // Row IN.
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE (g, v) IN (SELECT g, w FROM t2 WHERE t2.id = t1.id) ORDER BY id"
        ),
        ["1", "3"]
    );
    // Two levels: the innermost reads the outermost row.
    assert_eq!(
        q(
            &mut s,
            "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g AND \
             EXISTS (SELECT 1 FROM t2 x WHERE x.id = t1.id AND x.w = t2.w AND x.w = t1.v)) ORDER BY id"
        ),
        ["1", "3"]
    );
    // A CTE read by a correlated subquery.
    assert_eq!(
        q(
            &mut s,
            "WITH c AS (SELECT g, w FROM t2) SELECT id FROM t1 \
             WHERE EXISTS (SELECT 1 FROM c WHERE c.g = t1.g AND c.w > 10) ORDER BY id"
        ),
        ["1", "2", "3"]
    );
    // In a join, in a derived table and in INSERT ... SELECT.
    assert_eq!(
        q(
            &mut s,
            "SELECT a.id FROM t1 a JOIN t2 b ON a.id = b.id \
             WHERE b.w = (SELECT MAX(w) FROM t2 WHERE t2.g = a.g) ORDER BY a.id"
        ),
        ["2", "3"]
    );
    assert_eq!(
        q(
            &mut s,
            "SELECT COUNT(*) FROM (SELECT id FROM t1 WHERE EXISTS \
             (SELECT 1 FROM t2 WHERE t2.g = t1.g)) d"
        ),
        ["3"]
    );
    exec(&mut s, "CREATE TABLE t3 (id INT, c INT)");
    exec(
        &mut s,
        "INSERT INTO t3 SELECT id, (SELECT COUNT(*) FROM t2 WHERE t2.g = t1.g) FROM t1",
    );
    assert_eq!(
        q(&mut s, "SELECT GROUP_CONCAT(c ORDER BY id) FROM t3"),
        ["2,2,1,0,0"]
    );
}

#[test]
fn update_and_delete_where_reads_each_row() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    exec(
        &mut s,
        "UPDATE t1 SET v = -v WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.g AND t2.w > 10)",
    );
    assert_eq!(
        col(rows(&mut s, "SELECT v FROM t1 ORDER BY id")),
        ["-10", "-20", "-30", "40", "NULL"]
    );
    // The subquery reads the table the statement changes: every row is judged first.
    exec(
        &mut s,
        "DELETE FROM t1 WHERE id NOT IN (SELECT MIN(id) FROM t1 x WHERE x.g = t1.g) \
         ORDER BY id LIMIT 5",
    );
    assert_eq!(
        col(rows(&mut s, "SELECT id FROM t1 ORDER BY id")),
        ["1", "3", "4", "5"]
    );
}

#[test]
fn errors_are_mariadbs() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &setup());
    assert_eq!(
        err_code(
            &mut s,
            "SELECT id, (SELECT w FROM t2 WHERE t2.g = t1.g) FROM t1"
        ),
        1242
    );
    // Only the rows that reach it: id 3 has one match.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, (SELECT w FROM t2 WHERE t2.g = t1.g) FROM t1 WHERE id = 3"
        ),
        vec![vec!["3", "30"]]
    );
    assert_eq!(
        err_code(
            &mut s,
            "SELECT id FROM t1 WHERE (SELECT id, w FROM t2 WHERE t2.g = t1.g LIMIT 1) = 1"
        ),
        1241
    );
    assert_eq!(
        err_code(
            &mut s,
            "SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.g = t1.nope)"
        ),
        1054
    );
    // An aggregate of only outer columns belongs to the outer query in MariaDB: refused.
    assert_eq!(
        err_code(&mut s, "SELECT (SELECT SUM(t1.v) FROM t2 LIMIT 1) FROM t1"),
        1235
    );
    // Where the executor does not run them yet: refused, never a wrong answer.
    assert_eq!(
        err_code(
            &mut s,
            "UPDATE t1 SET v = (SELECT MAX(w) FROM t2 WHERE t2.g = t1.g)"
        ),
        1235
    );
    assert_eq!(
        err_code(
            &mut s,
            "UPDATE t1, t2 SET t1.v = 0 WHERE t1.id = t2.id AND EXISTS (SELECT 1 FROM t2 x WHERE x.g = t1.g)"
        ),
        1235
    );
    assert_eq!(
        err_code(
            &mut s,
            "SELECT a.id FROM t1 a LEFT JOIN t2 b ON b.id = (SELECT MIN(id) FROM t2 WHERE t2.g = a.g)"
        ),
        1235
    );
}

/// The model: tables `a` and `b` (id, x, y) of small values and NULLs, and a naive evaluation
/// of each query shape with SQL's three-valued logic.
mod model {
    use rand::rngs::SmallRng;
    use rand::Rng;

    pub type V = Option<i64>;

    #[derive(Clone, Copy)]
    pub struct Row {
        pub id: i64,
        pub x: V,
        pub y: V,
    }

    pub fn table(rng: &mut SmallRng) -> Vec<Row> {
        let n = rng.gen_range(0..9);
        let v = |rng: &mut SmallRng| (!rng.gen_bool(0.2)).then(|| rng.gen_range(0..4));
        (1..=n)
            .map(|id| Row {
                id,
                x: v(rng),
                y: v(rng),
            })
            .collect()
    }

    pub fn sql(v: V) -> String {
        v.map_or("NULL".into(), |i| i.to_string())
    }

    pub const OPS: [&str; 6] = ["=", "<", ">", "<>", "<=", "<=>"];

    pub fn cmp(op: &str, a: V, b: V) -> Option<bool> {
        if op == "<=>" {
            return Some(a == b);
        }
        let (a, b) = (a?, b?);
        Some(match op {
            "=" => a == b,
            "<" => a < b,
            ">" => a > b,
            "<>" => a != b,
            _ => a <= b,
        })
    }

    pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
        match (a, b) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }
    }

    pub fn in_list(x: V, list: &[V], negated: bool) -> Option<bool> {
        if list.is_empty() {
            return Some(negated);
        }
        let x = x?;
        if list.contains(&Some(x)) {
            Some(!negated)
        } else if list.contains(&None) {
            None
        } else {
            Some(negated)
        }
    }

    pub fn truth(b: Option<bool>) -> String {
        b.map_or("NULL".into(), |b| (b as i64).to_string())
    }
}

#[test]
fn random_correlated_queries_match_a_naive_evaluation() {
    use model::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    let mut rng = SmallRng::seed_from_u64(0x5eb9);
    let mut checked = 0;
    for round in 0..40 {
        let (a, b) = (table(&mut rng), table(&mut rng));
        exec(&mut s, "DROP TABLE IF EXISTS a, b");
        exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, x INT, y INT)");
        let key = if round % 2 == 0 { ", KEY (x)" } else { "" };
        exec(
            &mut s,
            &format!("CREATE TABLE b (id INT PRIMARY KEY, x INT, y INT{key})"),
        );
        for (name, t) in [("a", &a), ("b", &b)] {
            for r in t.iter() {
                exec(
                    &mut s,
                    &format!(
                        "INSERT INTO {name} VALUES ({}, {}, {})",
                        r.id,
                        sql(r.x),
                        sql(r.y)
                    ),
                );
            }
        }
        for _ in 0..25 {
            let op1 = OPS[rng.gen_range(0..OPS.len())];
            let op2 = OPS[rng.gen_range(0..OPS.len())];
            let two = rng.gen_bool(0.5);
            let cond_sql = if two {
                format!("b.x {op1} a.x AND b.y {op2} a.y")
            } else {
                format!("b.x {op1} a.x")
            };
            let cond = |ar: &Row, br: &Row| {
                let c = cmp(op1, br.x, ar.x);
                if two {
                    and(c, cmp(op2, br.y, ar.y))
                } else {
                    c
                }
            };
            let matching = |ar: &Row| -> Vec<Row> {
                b.iter()
                    .filter(|br| cond(ar, br) == Some(true))
                    .copied()
                    .collect()
            };
            let negated = rng.gen_bool(0.5);
            let not = if negated { "NOT " } else { "" };
            let kind = rng.gen_range(0..7);
            let (query, want): (String, Result<Vec<Vec<String>>, u16>) = match kind {
                0 => (
                    format!("SELECT a.id FROM a WHERE {not}EXISTS (SELECT 1 FROM b WHERE {cond_sql}) ORDER BY a.id"),
                    Ok(a.iter()
                        .filter(|ar| matching(ar).is_empty() == negated)
                        .map(|ar| vec![ar.id.to_string()])
                        .collect()),
                ),
                1 => (
                    format!("SELECT a.id, a.y {not}IN (SELECT b.y FROM b WHERE {cond_sql}) FROM a ORDER BY a.id"),
                    Ok(a.iter()
                        .map(|ar| {
                            let l: Vec<V> = matching(ar).iter().map(|br| br.y).collect();
                            vec![ar.id.to_string(), truth(in_list(ar.y, &l, negated))]
                        })
                        .collect()),
                ),
                2 => {
                    let agg = ["MAX(b.y)", "MIN(b.y)", "COUNT(*)", "SUM(b.y)", "COUNT(b.y)"]
                        [rng.gen_range(0..5)];
                    let f = |ar: &Row| -> String {
                        let ys: Vec<i64> = matching(ar).iter().filter_map(|br| br.y).collect();
                        let n = matching(ar).len();
                        match agg {
                            "MAX(b.y)" => sql(ys.iter().copied().max()),
                            "MIN(b.y)" => sql(ys.iter().copied().min()),
                            "COUNT(*)" => n.to_string(),
                            "COUNT(b.y)" => ys.len().to_string(),
                            _ => sql((!ys.is_empty()).then(|| ys.iter().sum())),
                        }
                    };
                    (
                        format!("SELECT a.id, (SELECT {agg} FROM b WHERE {cond_sql}) FROM a ORDER BY a.id"),
                        Ok(a.iter().map(|ar| vec![ar.id.to_string(), f(ar)]).collect()),
                    )
                }
                3 => (
                    format!("SELECT a.id FROM a WHERE a.y {not}IN (SELECT b.y FROM b WHERE {cond_sql}) ORDER BY a.id"),
                    Ok(a.iter()
                        .filter(|ar| {
                            let l: Vec<V> = matching(ar).iter().map(|br| br.y).collect();
                            in_list(ar.y, &l, negated) == Some(true)
                        })
                        .map(|ar| vec![ar.id.to_string()])
                        .collect()),
                ),
                4 => {
                    let want = if a.iter().any(|ar| matching(ar).len() > 1) {
                        Err(1242)
                    } else {
                        Ok(a.iter()
                            .map(|ar| {
                                let m = matching(ar);
                                vec![ar.id.to_string(), sql(m.first().and_then(|br| br.y))]
                            })
                            .collect())
                    };
                    (
                        format!("SELECT a.id, (SELECT b.y FROM b WHERE {cond_sql}) FROM a ORDER BY a.id"),
                        want,
                    )
                }
                5 => (
                    // Two levels: the innermost subquery reads the outermost row.
                    format!("SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE {cond_sql} AND \
                             b.y {not}IN (SELECT c.y FROM a c WHERE c.id <> a.id)) ORDER BY a.id"),
                    Ok(a.iter()
                        .filter(|ar| {
                            let l: Vec<V> = a.iter().filter(|c| c.id != ar.id).map(|c| c.y).collect();
                            matching(ar).iter().any(|br| in_list(br.y, &l, negated) == Some(true))
                        })
                        .map(|ar| vec![ar.id.to_string()])
                        .collect()),
                ),
                _ => {
                    // HAVING: the group's x.
                    let mut xs: Vec<V> = a.iter().map(|ar| ar.x).collect();
                    xs.sort();
                    xs.dedup();
                    let want = xs
                        .iter()
                        .filter(|x| {
                            let any = b.iter().any(|br| cmp(op1, br.x, **x) == Some(true));
                            any != negated
                        })
                        .map(|x| {
                            let n = a.iter().filter(|ar| ar.x == *x).count();
                            vec![sql(*x), n.to_string()]
                        })
                        .collect();
                    (
                        format!("SELECT a.x, COUNT(*) FROM a GROUP BY a.x HAVING {not}EXISTS \
                                 (SELECT 1 FROM b WHERE b.x {op1} a.x) ORDER BY a.x"),
                        Ok(want),
                    )
                }
            };
            let got = match s.execute(&query, &[]) {
                Ok(_) => Ok(rows(&mut s, &query)),
                Err(e) => Err(e.code.number()),
            };
            assert_eq!(got, want, "round {round}: {query}");
            checked += 1;
        }
    }
    assert_eq!(checked, 40 * 25);
}
