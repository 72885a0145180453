//! Generated columns (`AS (expr) VIRTUAL | STORED | PERSISTENT`, design.md GEN1-GEN3): random
//! INSERTs, UPDATEs of the base columns, REPLACE and ON DUPLICATE KEY UPDATE, compared with the
//! expressions computed here; reads through indexes on generated columns; the definition and
//! the values after a restart and after ALTER TABLE; and MariaDB's errors (1901, 1903, 1906,
//! 4029, 1054). crates/server/tests/generated_peer.rs compares the texts with a real MariaDB.

mod sessions;

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use sessions::{err_code, exec, open, rows};

const CREATE: &str = "CREATE TABLE g (id INT PRIMARY KEY, a INT, b VARCHAR(10), \
     s INT AS (a * 3 + 1) STORED, v VARCHAR(30) AS (concat(b, '-', a)) VIRTUAL, \
     w BIGINT GENERATED ALWAYS AS (s * 2) PERSISTENT, t TINYINT AS (a % 100), \
     KEY ks (s), UNIQUE KEY kw (w, id))";

/// One row of the model: the base columns.
type Base = (Option<i64>, Option<String>);

/// The row `id, a, b, s, v, w, t` as the table must show it.
fn expected(id: i64, (a, b): &Base) -> Vec<String> {
    let n = |x: Option<i64>| x.map_or("NULL".to_string(), |x| x.to_string());
    let s = a.map(|a| a * 3 + 1);
    let v = match (a, b) {
        (Some(a), Some(b)) => format!("{b}-{a}"),
        _ => "NULL".into(),
    };
    vec![
        id.to_string(),
        n(*a),
        b.clone().unwrap_or_else(|| "NULL".into()),
        n(s),
        v,
        n(s.map(|s| s * 2)),
        n(a.map(|a| a % 100)),
    ]
}

fn value_sql(b: &Base) -> (String, String) {
    let a = b.0.map_or("NULL".to_string(), |x| x.to_string());
    let s =
        b.1.as_ref()
            .map_or("NULL".to_string(), |x| format!("'{x}'"));
    (a, s)
}

fn random_base(rng: &mut impl Rng) -> Base {
    let a = (rng.gen_range(0..8) > 0).then(|| rng.gen_range(-500..500));
    let b = (rng.gen_range(0..8) > 0).then(|| format!("k{}", rng.gen_range(0..1000)));
    (a, b)
}

fn check(s: &mut betula_sql::Session, model: &BTreeMap<i64, Base>) {
    let got = rows(s, "SELECT id, a, b, s, v, w, t FROM g ORDER BY id");
    let want: Vec<Vec<String>> = model.iter().map(|(id, b)| expected(*id, b)).collect();
    assert_eq!(got, want);
    // The indexes on generated columns hold the computed values.
    for (id, b) in model.iter().take(20) {
        if let Some(a) = b.0 {
            let q = format!(
                "SELECT id FROM g FORCE INDEX (ks) WHERE s = {} ORDER BY id",
                a * 3 + 1
            );
            assert!(rows(s, &q).contains(&vec![id.to_string()]), "{q}");
            let q = format!(
                "SELECT id FROM g FORCE INDEX (kw) WHERE w = {} AND id = {id}",
                (a * 3 + 1) * 2
            );
            assert_eq!(rows(s, &q), vec![vec![id.to_string()]], "{q}");
        }
    }
}

#[test]
fn generated_values_follow_their_base_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6e6e);
    let mut model: BTreeMap<i64, Base> = BTreeMap::new();
    {
        let (_e, mut s) = open(dir.path(), &[CREATE]);
        for step in 0..400 {
            let id = rng.gen_range(0..120);
            let base = random_base(&mut rng);
            let (a, b) = value_sql(&base);
            match rng.gen_range(0..5) {
                0 | 1 if !model.contains_key(&id) => {
                    exec(
                        &mut s,
                        &format!("INSERT INTO g (id, a, b) VALUES ({id}, {a}, {b})"),
                    );
                    model.insert(id, base);
                }
                0 | 1 => {
                    let sql = format!("UPDATE g SET a = {a}, b = {b} WHERE id = {id}");
                    exec(&mut s, &sql);
                    model.insert(id, base);
                }
                2 => {
                    let sql = format!(
                        "REPLACE INTO g VALUES ({id}, {a}, {b}, DEFAULT, DEFAULT, DEFAULT, DEFAULT)"
                    );
                    exec(&mut s, &sql);
                    model.insert(id, base);
                }
                3 => {
                    let sql = format!(
                        "INSERT INTO g (id, a, b) VALUES ({id}, {a}, {b}) \
                         ON DUPLICATE KEY UPDATE a = a + 1"
                    );
                    exec(&mut s, &sql);
                    match model.get_mut(&id) {
                        Some(old) => old.0 = old.0.map(|x| x + 1),
                        None => {
                            model.insert(id, base);
                        }
                    }
                }
                _ => {
                    // Base column changed by an expression over many rows.
                    let lo = rng.gen_range(0..120);
                    exec(&mut s, &format!("UPDATE g SET a = a - 7 WHERE id >= {lo}"));
                    for (_, b) in model.range_mut(lo..) {
                        b.0 = b.0.map(|x| x - 7);
                    }
                }
            }
            if step % 100 == 99 {
                check(&mut s, &model);
            }
        }
        check(&mut s, &model);
    }
    // The definition and the values survive a restart.
    let (_e, mut s) = open(dir.path(), &[]);
    let shown = rows(&mut s, "SHOW CREATE TABLE g");
    assert!(
        shown[0][1].contains(
            "`s` int(11) GENERATED ALWAYS AS (`a` * 3 + 1) STORED,\n  \
             `v` varchar(30) GENERATED ALWAYS AS (concat(`b`,'-',`a`)) VIRTUAL,\n  \
             `w` bigint(20) GENERATED ALWAYS AS (`s` * 2) STORED,\n  \
             `t` tinyint(4) GENERATED ALWAYS AS (`a` MOD 100) VIRTUAL,"
        ),
        "{}",
        shown[0][1]
    );
    check(&mut s, &model);
    exec(&mut s, "UPDATE g SET b = concat(b, 'x')");
    for b in model.values_mut() {
        b.1 = b.1.as_ref().map(|x| format!("{x}x"));
    }
    check(&mut s, &model);
}

#[test]
fn alter_table_computes_generated_columns_again() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT AS (a + 1) VIRTUAL)",
            "INSERT INTO t (id, a) VALUES (1, 10), (2, 20), (3, NULL)",
        ],
    );
    let q = |s: &mut betula_sql::Session| rows(s, "SELECT * FROM t ORDER BY id");
    exec(
        &mut s,
        "ALTER TABLE t ADD COLUMN c INT AS (a * b) STORED, ADD KEY (c)",
    );
    let want = |v: &[&str]| -> Vec<Vec<String>> {
        v.iter()
            .map(|r| r.split(',').map(str::to_string).collect())
            .collect()
    };
    assert_eq!(
        q(&mut s),
        want(&["1,10,11,110", "2,20,21,420", "3,NULL,NULL,NULL"])
    );
    exec(&mut s, "ALTER TABLE t MODIFY b INT AS (a - 1) VIRTUAL");
    // A VIRTUAL column becomes no other kind, nor another kind VIRTUAL (1907, as MariaDB).
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t MODIFY b INT AS (a - 1) STORED"),
        1907
    );
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t MODIFY a INT AS (id) VIRTUAL"),
        1907
    );
    assert_eq!(
        q(&mut s),
        want(&["1,10,9,90", "2,20,19,380", "3,NULL,NULL,NULL"])
    );
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE c = 380"), want(&["2"]));
    exec(&mut s, "ALTER TABLE t MODIFY a BIGINT");
    exec(&mut s, "UPDATE t SET a = 5 WHERE id = 3");
    assert_eq!(q(&mut s), want(&["1,10,9,90", "2,20,19,380", "3,5,4,20"]));
    exec(&mut s, "ALTER TABLE t DROP COLUMN c");
    assert_eq!(q(&mut s), want(&["1,10,9", "2,20,19", "3,5,4"]));
    // A STORED column made a plain one keeps its values.
    exec(&mut s, "ALTER TABLE t ADD COLUMN c INT AS (a + b) STORED");
    exec(&mut s, "ALTER TABLE t MODIFY c INT");
    exec(&mut s, "UPDATE t SET a = 0");
    assert_eq!(q(&mut s), want(&["1,0,-1,19", "2,0,-1,39", "3,0,-1,9"]));
}

#[test]
fn values_for_generated_columns_are_refused_or_ignored_as_mariadb() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE t (a INT, b INT AS (a + 1) STORED, c TINYINT AS (a * 100) VIRTUAL)"],
    );
    // Strict: 1906 for a value, DEFAULT is fine; a VIRTUAL value out of the column's range is
    // converted as MariaDB reads it (127), a STORED one is an error (1264).
    assert_eq!(
        err_code(&mut s, "INSERT INTO t VALUES (1, 2, DEFAULT)"),
        1906
    );
    assert_eq!(err_code(&mut s, "INSERT INTO t SET a = 1, c = 5"), 1906);
    exec(&mut s, "INSERT INTO t VALUES (1, DEFAULT, DEFAULT)");
    assert_eq!(err_code(&mut s, "UPDATE t SET b = 7"), 1906);
    exec(
        &mut s,
        "CREATE TABLE st (a INT, c TINYINT AS (a * 100) STORED)",
    );
    assert_eq!(err_code(&mut s, "INSERT INTO st (a) VALUES (2)"), 1264);
    exec(&mut s, "UPDATE t SET b = DEFAULT, a = a + 0");
    // IGNORE and non-strict mode: a warning, and the value is ignored.
    exec(&mut s, "INSERT IGNORE INTO t VALUES (1, 9, 9)");
    assert_eq!(rows(&mut s, "SHOW WARNINGS").len(), 2);
    exec(&mut s, "SET sql_mode = ''");
    exec(&mut s, "INSERT INTO t (a, b) VALUES (0, 99)");
    exec(&mut s, "INSERT INTO t (a) VALUES (3)");
    exec(&mut s, "INSERT INTO st (a) VALUES (2)");
    assert_eq!(
        rows(&mut s, "SELECT c FROM st"),
        vec![vec!["127".to_string()]]
    );
    let got = rows(&mut s, "SELECT a, b, c FROM t ORDER BY a");
    let want: Vec<Vec<&str>> = vec![
        vec!["0", "1", "0"],
        vec!["1", "2", "100"],
        vec!["1", "2", "100"],
        vec!["3", "4", "127"],
    ];
    assert_eq!(got, want);
}

#[test]
fn expressions_a_generated_column_may_not_use_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    for (sql, code) in [
        ("CREATE TABLE e (a INT, b INT AS (rand()) STORED)", 1901),
        ("CREATE TABLE e (a INT, b DATETIME AS (now()))", 1901),
        ("CREATE TABLE e (a INT, b INT AS (@x))", 1901),
        (
            "CREATE TABLE e (a INT, b VARCHAR(20) AS (@@sql_mode))",
            1901,
        ),
        ("CREATE TABLE e (a INT, b INT AS ((SELECT 1)))", 1901),
        ("CREATE TABLE e (a INT, b INT AS (sum(a)))", 1901),
        (
            "CREATE TABLE e (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a + 1) STORED)",
            1901,
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (c + 1), c INT AS (a))",
            4029,
        ),
        ("CREATE TABLE e (a INT, b INT AS (b + 1))", 4029),
        ("CREATE TABLE e (a INT, b INT AS (zz + 1))", 1054),
        (
            "CREATE TABLE e (a INT, b INT AS (a + 1) STORED, PRIMARY KEY (b))",
            1903,
        ),
        ("CREATE TABLE e (a INT, b INT AS (a + 1) NOT NULL)", 1064),
        ("CREATE TABLE e (a INT, b INT AS (a + 1) DEFAULT 3)", 1064),
    ] {
        assert_eq!(err_code(&mut s, sql), code, "{sql}");
    }
    exec(&mut s, "CREATE TABLE ok (a INT, b INT AS (c + 1), c INT)");
    exec(&mut s, "INSERT INTO ok (a, c) VALUES (1, 2)");
    assert_eq!(
        rows(&mut s, "SELECT b FROM ok"),
        vec![vec!["3".to_string()]]
    );
    assert_eq!(
        err_code(&mut s, "ALTER TABLE ok ADD COLUMN d INT AS (uuid_short())"),
        1901
    );
}
