//! Window functions: each function and frame against a reference computed here from the rows
//! (random partitions, ties, NULLs, ROWS and RANGE frames), the defaults MariaDB gives frames,
//! windows over GROUP BY, named windows, and MariaDB's errors for misuse.

mod sessions;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sessions::{err_code, exec, open, rows};

/// One row of the model table `w(id, g, x)`: `g` and `x` may be NULL.
#[derive(Clone, Copy)]
struct Row {
    id: i64,
    g: Option<i64>,
    x: Option<i64>,
}

fn show(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

/// The rows of `part` (ids of one partition) in window order `x` ascending (NULLs first), then id.
fn ordered(rows: &[Row], g: Option<i64>) -> Vec<Row> {
    let mut p: Vec<Row> = rows.iter().copied().filter(|r| r.g == g).collect();
    p.sort_by_key(|r| (r.x.is_some(), r.x, r.id));
    p
}

/// A frame bound of the model: rows (or key distance) before (-) or after (+) the current row;
/// None = unbounded.
#[derive(Clone, Copy, Debug)]
enum Frame {
    Rows(Option<i64>, Option<i64>),
    Range(Option<i64>, Option<i64>),
}

impl Frame {
    fn sql(self) -> String {
        let b = |v: Option<i64>, start: bool| match v {
            None if start => "UNBOUNDED PRECEDING".to_string(),
            None => "UNBOUNDED FOLLOWING".to_string(),
            Some(0) => "CURRENT ROW".to_string(),
            Some(n) if n < 0 => format!("{} PRECEDING", -n),
            Some(n) => format!("{n} FOLLOWING"),
        };
        match self {
            Frame::Rows(s, e) => format!("ROWS BETWEEN {} AND {}", b(s, true), b(e, false)),
            Frame::Range(s, e) => format!("RANGE BETWEEN {} AND {}", b(s, true), b(e, false)),
        }
    }

    /// The rows of the ordered partition `p` in row `k`'s frame.
    fn rows(self, p: &[Row], k: usize) -> Vec<Row> {
        match self {
            Frame::Rows(s, e) => {
                let lo = s.map_or(0, |s| (k as i64 + s).max(0));
                let hi = e.map_or(p.len() as i64 - 1, |e| k as i64 + e);
                p.iter()
                    .enumerate()
                    .filter(|(j, _)| (*j as i64) >= lo && (*j as i64) <= hi)
                    .map(|(_, r)| *r)
                    .collect()
            }
            Frame::Range(s, e) => {
                let cur = p[k].x;
                p.iter()
                    .copied()
                    .filter(|r| match (cur, r.x) {
                        // NULL keys are peers of each other only (for offsets), and are before
                        // every other key.
                        (None, None) => true,
                        (None, Some(_)) => e.is_none(),
                        (Some(_), None) => s.is_none(),
                        (Some(c), Some(v)) => {
                            s.is_none_or(|s| v >= c + s) && e.is_none_or(|e| v <= c + e)
                        }
                    })
                    .collect()
            }
        }
    }
}

fn random_frame(r: &mut SmallRng) -> Frame {
    let off = |r: &mut SmallRng| -> Option<i64> {
        match r.gen_range(0..4) {
            0 => None,
            _ => Some(r.gen_range(-3..=3)),
        }
    };
    loop {
        let (s, e) = (off(r), off(r));
        // Keep MariaDB's allowed combinations with the start not after the end.
        let ok = match (s, e) {
            (Some(a), Some(b)) => a <= b,
            _ => true,
        };
        if ok {
            return if r.gen_bool(0.5) {
                Frame::Rows(s, e)
            } else {
                Frame::Range(s, e)
            };
        }
    }
}

/// The model's answer for `SELECT id, f OVER (PARTITION BY g ORDER BY x, id <frame>)`, by id.
fn model(rows: &[Row], f: &str, frame: Frame) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let groups: std::collections::BTreeSet<Option<i64>> = rows.iter().map(|r| r.g).collect();
    for g in groups {
        let p = ordered(rows, g);
        for k in 0..p.len() {
            let fr = frame.rows(&p, k);
            let xs: Vec<i64> = fr.iter().filter_map(|r| r.x).collect();
            let v = match f {
                "COUNT(x)" => xs.len().to_string(),
                "SUM(x)" => {
                    if xs.is_empty() {
                        "NULL".into()
                    } else {
                        xs.iter().sum::<i64>().to_string()
                    }
                }
                "MIN(x)" => show(xs.iter().min().copied()),
                "MAX(x)" => show(xs.iter().max().copied()),
                "FIRST_VALUE(x)" => fr.first().map_or("NULL".into(), |r| show(r.x)),
                "LAST_VALUE(x)" => fr.last().map_or("NULL".into(), |r| show(r.x)),
                "NTH_VALUE(x, 2)" => fr.get(1).map_or("NULL".into(), |r| show(r.x)),
                other => panic!("no model for {other}"),
            };
            out.push((p[k].id, v));
        }
    }
    out.sort();
    out
}

fn random_rows(r: &mut SmallRng) -> Vec<Row> {
    let n = r.gen_range(0..25);
    (1..=n)
        .map(|id| Row {
            id,
            g: (!r.gen_bool(0.15)).then(|| r.gen_range(0..3)),
            x: (!r.gen_bool(0.2)).then(|| r.gen_range(-4..6)),
        })
        .collect()
}

#[test]
fn frames_agree_with_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE w (id INT PRIMARY KEY, g INT, x INT)"],
    );
    let mut r = SmallRng::seed_from_u64(27);
    let funcs = [
        "COUNT(x)",
        "SUM(x)",
        "MIN(x)",
        "MAX(x)",
        "FIRST_VALUE(x)",
        "LAST_VALUE(x)",
        "NTH_VALUE(x, 2)",
    ];
    for round in 0..40 {
        let data = random_rows(&mut r);
        exec(&mut s, "DELETE FROM w");
        for row in &data {
            exec(
                &mut s,
                &format!(
                    "INSERT INTO w VALUES ({}, {}, {})",
                    row.id,
                    show(row.g),
                    show(row.x)
                ),
            );
        }
        for f in funcs {
            let frame = random_frame(&mut r);
            // RANGE offsets need a single ORDER BY key; ties on x are then peers.
            let order = match frame {
                Frame::Rows(..) => "x, id",
                Frame::Range(..) => "x",
            };
            let sql = format!(
                "SELECT id, {f} OVER (PARTITION BY g ORDER BY {order} {}) FROM w ORDER BY id",
                frame.sql()
            );
            let got: Vec<(i64, String)> = rows(&mut s, &sql)
                .into_iter()
                .map(|r| (r[0].parse().unwrap(), r[1].clone()))
                .collect();
            let want = match frame {
                Frame::Rows(..) => model(&data, f, frame),
                // FIRST/LAST/NTH_VALUE over peers depend on the peers' order: only aggregates.
                Frame::Range(..) if f.contains("VALUE") => continue,
                Frame::Range(..) => model(&data, f, frame),
            };
            assert_eq!(got, want, "round {round}: {sql}");
        }
    }
}

#[test]
fn ranking_functions_agree_with_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE w (id INT PRIMARY KEY, g INT, x INT)"],
    );
    let mut r = SmallRng::seed_from_u64(4015);
    for round in 0..30 {
        let data = random_rows(&mut r);
        exec(&mut s, "DELETE FROM w");
        for row in &data {
            let sql = format!(
                "INSERT INTO w VALUES ({}, {}, {})",
                row.id,
                show(row.g),
                show(row.x)
            );
            exec(&mut s, &sql);
        }
        let sql = "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x, id), \
                   RANK() OVER (PARTITION BY g ORDER BY x), \
                   DENSE_RANK() OVER (PARTITION BY g ORDER BY x), \
                   NTILE(3) OVER (PARTITION BY g ORDER BY x, id), \
                   LAG(x, 2) OVER (PARTITION BY g ORDER BY x, id), \
                   LEAD(x) OVER (PARTITION BY g ORDER BY x, id), \
                   CUME_DIST() OVER (PARTITION BY g ORDER BY x) FROM w ORDER BY id";
        let got = rows(&mut s, sql);
        let mut want = Vec::new();
        let groups: std::collections::BTreeSet<Option<i64>> = data.iter().map(|r| r.g).collect();
        for g in groups {
            let p = ordered(&data, g);
            let n = p.len();
            for (k, row) in p.iter().enumerate() {
                let first_peer = p.iter().position(|o| o.x == row.x).unwrap();
                let last_peer = p.iter().rposition(|o| o.x == row.x).unwrap();
                let mut distinct: Vec<Option<i64>> = p[..=k].iter().map(|o| o.x).collect();
                distinct.dedup();
                let (small, extra) = (n / 3, n % 3);
                let ntile = if k < extra * (small + 1) {
                    k / (small + 1) + 1
                } else {
                    extra + (k - extra * (small + 1)) / small.max(1) + 1
                };
                want.push(vec![
                    row.id.to_string(),
                    (k + 1).to_string(),
                    (first_peer + 1).to_string(),
                    distinct.len().to_string(),
                    ntile.to_string(),
                    if k >= 2 {
                        show(p[k - 2].x)
                    } else {
                        "NULL".into()
                    },
                    p.get(k + 1).map_or("NULL".into(), |o| show(o.x)),
                    format!("{:.10}", (last_peer + 1) as f64 / n as f64),
                ]);
            }
        }
        want.sort_by_key(|r| r[0].parse::<i64>().unwrap());
        assert_eq!(got, want, "round {round}");
    }
}

#[test]
fn default_frames_types_and_grouping_follow_mariadb() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, g INT, x INT, d DECIMAL(6,2))",
            "INSERT INTO t VALUES (1,1,10,1.50),(2,1,20,2.50),(3,2,30,NULL),(4,2,NULL,3.00),(5,2,30,4.00)",
        ],
    );
    // With ORDER BY the default frame ends at the current row's last peer; without, it is the
    // whole partition. SUM over INT is DECIMAL; AVG has 4 more decimals.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, SUM(x) OVER (ORDER BY x), SUM(x) OVER (PARTITION BY g), \
             AVG(d) OVER (PARTITION BY g) FROM t ORDER BY id"
        ),
        vec![
            vec!["1", "10", "30", "2.000000"],
            vec!["2", "30", "30", "2.000000"],
            vec!["3", "90", "60", "3.500000"],
            vec!["4", "NULL", "60", "3.500000"],
            vec!["5", "90", "60", "3.500000"],
        ]
    );
    // Windows over groups, ORDER BY and LIMIT after them, named windows, a derived table.
    assert_eq!(
        rows(
            &mut s,
            "SELECT g, SUM(x), SUM(SUM(x)) OVER (ORDER BY g), RANK() OVER w FROM t GROUP BY g \
             WINDOW w AS (ORDER BY SUM(x) DESC) ORDER BY g DESC LIMIT 1"
        ),
        vec![vec!["2", "60", "90", "1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY id DESC) rn \
             FROM t) q WHERE rn = 1 ORDER BY id"
        ),
        vec![vec!["2"], vec!["5"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, x, PERCENT_RANK() OVER (ORDER BY x) FROM t WHERE g = 2 ORDER BY id"
        ),
        vec![
            vec!["3", "30", "0.5000000000"],
            vec!["4", "NULL", "0.0000000000"],
            vec!["5", "30", "0.5000000000"],
        ]
    );
    // A window call in ORDER BY, and a RANGE frame over a DECIMAL key.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) c \
             FROM t ORDER BY ROW_NUMBER() OVER (ORDER BY id DESC)"
        ),
        vec![
            vec!["5", "2"],
            vec!["4", "3"],
            vec!["3", "1"],
            vec!["2", "3"],
            vec!["1", "2"],
        ]
    );
    // No ORDER BY: the rows come in the order of the window's sort, as MariaDB leaves them.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) FROM t"
        ),
        vec![
            vec!["5", "1"],
            vec!["4", "2"],
            vec!["3", "3"],
            vec!["2", "4"],
            vec!["1", "5"],
        ]
    );
}

#[test]
fn misuse_gets_mariadbs_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, g INT, x INT, d DATE)",
            "INSERT INTO t VALUES (1, 1, 1, '2020-01-01')",
        ],
    );
    let cases: &[(&str, u16)] = &[
        ("SELECT id FROM t WHERE ROW_NUMBER() OVER () > 1", 4015),
        ("SELECT g FROM t GROUP BY ROW_NUMBER() OVER ()", 4015),
        ("SELECT g FROM t GROUP BY g HAVING RANK() OVER (ORDER BY g) > 0", 4015),
        ("SELECT id, ROW_NUMBER() OVER () r FROM t GROUP BY 2", 4015),
        ("SELECT SUM(ROW_NUMBER() OVER ()) FROM t", 4074),
        ("SELECT ROW_NUMBER() OVER (ORDER BY RANK() OVER ()) FROM t", 4016),
        ("SELECT SUM(x) OVER w FROM t", 4009),
        ("SELECT SUM(x) OVER (w2) FROM t WINDOW w AS (), w AS ()", 4010),
        ("SELECT SUM(x) OVER (w PARTITION BY g) FROM t WINDOW w AS ()", 4011),
        ("SELECT SUM(x) OVER (w ORDER BY g) FROM t WINDOW w AS (ORDER BY x)", 4012),
        ("SELECT SUM(x) OVER (w) FROM t WINDOW w AS (ORDER BY x ROWS UNBOUNDED PRECEDING)", 4013),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t", 4014),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t", 4014),
        ("SELECT RANK() OVER (ORDER BY x ROWS UNBOUNDED PRECEDING) FROM t", 4017),
        ("SELECT RANK() OVER () FROM t", 4018),
        ("SELECT LAG(x) OVER (PARTITION BY g) FROM t", 4018),
        ("SELECT SUM(x) OVER (ORDER BY x, id RANGE 1 PRECEDING) FROM t", 4019),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS 1.5 PRECEDING) FROM t", 4020),
        ("SELECT SUM(x) OVER (ORDER BY d RANGE 1 PRECEDING) FROM t", 4021),
        ("SELECT NTILE(0) OVER (ORDER BY x) FROM t", 4024),
        ("SELECT LAG(x, 1, 0) OVER (ORDER BY x) FROM t", 1064),
        ("SELECT COUNT(DISTINCT x) OVER () FROM t", 1235),
        ("SELECT GROUP_CONCAT(x) OVER () FROM t", 1235),
        ("SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x, id) OVER () FROM t", 1064),
        ("SELECT MEDIAN(x) OVER (ORDER BY x) FROM t", 1064),
        ("SELECT PERCENTILE_DISC(d) WITHIN GROUP (ORDER BY x) OVER () FROM t", 4104),
        ("SELECT PERCENTILE_CONT(1.5) WITHIN GROUP (ORDER BY x) OVER () FROM t", 4103),
        ("SELECT PERCENTILE_DISC(x * 2) WITHIN GROUP (ORDER BY x) OVER () FROM t", 4103),
        ("UPDATE t SET x = ROW_NUMBER() OVER ()", 4015),
        // window-only functions are calls only with OVER (MariaDB's grammar)
        ("SELECT ROW_NUMBER() FROM t", 1064),
        ("SELECT LEAD(x) FROM t", 1064),
        ("SELECT NTH_VALUE(x) OVER () FROM t", 1064),
        // a string offset: 4020 / 4021 after the bounds' order (4014) and RANGE's key (4019)
        ("SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN 'a' PRECEDING AND CURRENT ROW) FROM t", 4020),
        ("SELECT SUM(x) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND 'a' FOLLOWING) FROM t", 4021),
        ("SELECT SUM(x) OVER (ORDER BY x, id RANGE 'a' PRECEDING) FROM t", 4019),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN 'a' FOLLOWING AND CURRENT ROW) FROM t", 4014),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM t", 4022),
        ("SELECT SUM(x) OVER (ORDER BY x ROWS UNBOUNDED PRECEDING EXCLUDE CURRENT ROW) FROM t", 4022),
        // a select alias in a window's PARTITION BY / ORDER BY is its item: a window call there is 4016
        ("SELECT RANK() OVER (ORDER BY x) r, SUM(x) OVER (PARTITION BY r + 1) FROM t", 4016),
        ("SELECT RANK() OVER w r, SUM(x) OVER (ORDER BY r) FROM t WINDOW w AS (ORDER BY x)", 4016),
        ("SELECT g, MAX(x) m, RANK() OVER w r FROM t GROUP BY g + r WINDOW w AS (ORDER BY m)", 4015),
        ("SELECT g, MAX(x) AS m FROM t GROUP BY g + m", 1247),
    ];
    for (sql, code) in cases {
        assert_eq!(err_code(&mut s, sql), *code, "{sql}");
    }
}

#[test]
fn select_aliases_name_items_in_window_specifications() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (pk INT, c INT)",
            "INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)",
        ],
    );
    // an aggregate's alias in a window over GROUP BY
    assert_eq!(
        rows(
            &mut s,
            "SELECT c, MAX(pk) AS m, RANK() OVER (ORDER BY m DESC) FROM t GROUP BY c ORDER BY c"
        ),
        vec![vec!["1", "2", "2"], vec!["2", "3", "1"]]
    );
    // ORDER BY: the alias before the column of the same name; PARTITION BY: the column first
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk, -pk AS c, ROW_NUMBER() OVER (ORDER BY c) FROM t ORDER BY pk"
        ),
        vec![
            vec!["1", "-1", "3"],
            vec!["2", "-2", "2"],
            vec!["3", "-3", "1"]
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk AS c, ROW_NUMBER() OVER (PARTITION BY c ORDER BY pk) FROM t ORDER BY pk"
        ),
        vec![vec!["1", "1"], vec!["2", "2"], vec!["3", "1"]]
    );
    // GROUP BY looks a name no column has up in the select list
    assert_eq!(
        rows(
            &mut s,
            "SELECT pk AS x, COUNT(*) FROM t GROUP BY x + 1 ORDER BY x"
        ),
        vec![vec!["1", "1"], vec!["2", "1"], vec!["3", "1"]]
    );
    // a number that is no integer is no position: a constant, one group
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t GROUP BY 1.5"),
        vec![vec!["3"]]
    );
    // an alias written after the window, and one in an expression
    assert_eq!(
        rows(
            &mut s,
            "SELECT SUM(pk) OVER (ORDER BY x), pk * 2 AS x, COUNT(*) OVER (PARTITION BY x + 1) FROM t ORDER BY pk"
        ),
        vec![vec!["1", "2", "1"], vec!["3", "4", "1"], vec!["6", "6", "1"]]
    );
}

#[test]
fn what_mariadb_does_not_compute_as_a_window_is_refused_in_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (x INT)",
            "INSERT INTO t VALUES (1), (1), (2)",
        ],
    );
    for (sql, what) in [
        ("SELECT COUNT(DISTINCT x) OVER () FROM t", "COUNT(DISTINCT)"),
        ("SELECT AVG(DISTINCT x) OVER () FROM t", "AVG(DISTINCT)"),
        (
            "SELECT GROUP_CONCAT(DISTINCT x) OVER () FROM t",
            "GROUP_CONCAT()",
        ),
        ("SELECT JSON_ARRAYAGG(x) OVER () FROM t", "JSON_ARRAYAGG()"),
    ] {
        let e = s.execute(sql, &[]).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "This version of MariaDB doesn't yet support '{what} aggregate as window function'"
            ),
            "{sql}"
        );
    }
    // MIN and MAX of the distinct values are MIN and MAX
    assert_eq!(
        rows(
            &mut s,
            "SELECT MIN(DISTINCT x) OVER (), MAX(DISTINCT x) OVER () FROM t LIMIT 1"
        ),
        vec![vec!["1", "2"]]
    );
}
