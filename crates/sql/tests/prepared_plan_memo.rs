//! Prepared statements that run again against the same statements run from their text (design.md
//! PLC1-PLC6): two engines start alike; on one, each statement is prepared once and executed
//! again and again (its planning memo kept between runs); on the other, each execution is the
//! statement's text with the parameters written as literals. Random sequences of executions with
//! NULL, out-of-range and wrongly typed parameters are interleaved with DDL (ADD / DROP COLUMN,
//! CREATE / DROP INDEX, DROP / CREATE TABLE with other columns, RENAME), USE, sql_mode changes,
//! GRANT / REVOKE, LOCK TABLES and temporary tables shadowing the base table. Every outcome (rows,
//! affected rows, error code and message, warnings) must be identical.

mod sessions;

use betula_sql::types::value::Value;
use betula_sql::{Engine, Session};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The prepared statements, as sysbench's oltp_read_write sends them (and a few more shapes).
const STATEMENTS: &[&str] = &[
    "SELECT c FROM t1 WHERE id=?",
    "SELECT c FROM t1 WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM t1 WHERE id BETWEEN ? AND ?",
    "SELECT c FROM t1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM t1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT * FROM t1 AS x WHERE x.k = ? ORDER BY id",
    "SELECT a.id, b.c FROM t1 a JOIN t1 b ON b.id = a.k WHERE a.id < ?",
    "UPDATE t1 SET k=k+1 WHERE id=?",
    "UPDATE t1 SET c=? WHERE id=?",
    "DELETE FROM t1 WHERE id=?",
    "INSERT INTO t1 (id, k, c) VALUES (?, ?, ?)",
];

/// One side of the comparison: a root session (GRANT, REVOKE) and the user's session that runs
/// everything else.
struct Side {
    _engine: std::sync::Arc<Engine>,
    root: Session,
    user: Session,
}

fn side(dir: &std::path::Path) -> Side {
    let (engine, mut root) = sessions::open(
        dir,
        &[
            "CREATE DATABASE db2",
            "CREATE USER u",
            "GRANT ALL ON test.* TO u",
            "GRANT ALL ON db2.* TO u",
            "CREATE TABLE t1 (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c VARCHAR(20) NOT NULL DEFAULT '')",
            "CREATE TABLE db2.t1 (id INT PRIMARY KEY, k INT, c CHAR(5))",
        ],
    );
    for i in 1..=20 {
        let sql = format!("INSERT INTO t1 VALUES ({i}, {}, 'c{}')", i % 7, i % 5);
        sessions::exec(&mut root, &sql);
        let sql = format!("INSERT INTO db2.t1 VALUES ({i}, {}, 'd{}')", i % 3, i % 4);
        sessions::exec(&mut root, &sql);
    }
    let mut user = engine.session(2, "u", "localhost");
    sessions::exec(&mut user, "USE test");
    Side {
        _engine: engine,
        root,
        user,
    }
}

/// A parameter value: NULL, in range, out of range, or of another type than the column's.
fn param(r: &mut SmallRng) -> Value {
    match r.gen_range(0..10) {
        0 => Value::Null,
        1 => Value::Int(r.gen_range(-3..3)),
        2 => Value::Int(i64::from(i32::MAX) + r.gen_range(1..5)),
        3 => Value::Text(
            ["abc", "7", "3x", "", "c1", "toolongtext_toolongtext"][r.gen_range(0..6)].into(),
        ),
        4 => Value::Text(format!("{}", r.gen_range(0..25))),
        _ => Value::Int(r.gen_range(0..25)),
    }
}

/// `v` written as a SQL literal.
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Text(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
        other => panic!("no literal for {other:?}"),
    }
}

/// The statement's text with `params` in place of its `?`s.
fn with_literals(sql: &str, params: &[Value]) -> String {
    let mut out = String::new();
    let mut it = params.iter();
    for ch in sql.chars() {
        match ch {
            '?' => out.push_str(&literal(it.next().expect("a value per ?"))),
            c => out.push(c),
        }
    }
    out
}

/// What a client sees of a statement: its outcome and the warnings it left.
fn outcome(s: &mut Session, r: Result<betula_sql::Output, betula_sql::DbError>) -> String {
    let r = match r {
        Ok(o) => format!("{o:?}"),
        Err(e) => format!("error {} {}", e.code.number(), e.message),
    };
    format!("{r}; warnings {:?}", s.warnings)
}

/// A change of the schema, the session or the grants, run on both sides alike.
fn change(r: &mut SmallRng) -> (&'static str, bool) {
    const USER: &[&str] = &[
        "ALTER TABLE t1 ADD COLUMN extra INT DEFAULT 5",
        "ALTER TABLE t1 DROP COLUMN extra",
        "CREATE INDEX kc ON t1 (k, c)",
        "DROP INDEX kc ON t1",
        "CREATE INDEX ck ON t1 (c)",
        "DROP INDEX ck ON t1",
        "DROP TABLE t1",
        "CREATE TABLE t1 (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c VARCHAR(20) NOT NULL DEFAULT '')",
        "CREATE TABLE t1 (c INT, id BIGINT PRIMARY KEY, k VARCHAR(3))",
        "INSERT INTO t1 (id, k, c) VALUES (3, 1, 2), (4, 2, 1)",
        "RENAME TABLE t1 TO t9",
        "RENAME TABLE t9 TO t1",
        "CREATE TABLE t2 (id INT PRIMARY KEY, k INT, c TEXT)",
        "RENAME TABLE t1 TO t3, t2 TO t1",
        "DROP TABLE IF EXISTS t3",
        "USE db2",
        "USE test",
        "SET sql_mode = 'STRICT_TRANS_TABLES'",
        "SET sql_mode = ''",
        "CREATE TEMPORARY TABLE t1 (id INT PRIMARY KEY, k INT, c VARCHAR(2))",
        "INSERT INTO t1 VALUES (1, 1, 'tt')",
        "DROP TEMPORARY TABLE t1",
        "LOCK TABLES t1 READ",
        "LOCK TABLES db2.t1 READ",
        "UNLOCK TABLES",
    ];
    const ROOT: &[&str] = &[
        "REVOKE ALL ON test.* FROM u",
        "GRANT ALL ON test.* TO u",
        "REVOKE ALL ON db2.* FROM u",
        "GRANT ALL ON db2.* TO u",
    ];
    if r.gen_range(0..5) == 0 {
        (ROOT[r.gen_range(0..ROOT.len())], true)
    } else {
        (USER[r.gen_range(0..USER.len())], false)
    }
}

fn run_seed(seed: u64, steps: usize) {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut prepared, mut text) = (side(da.path()), side(db.path()));
    let mut counts = Vec::new();
    for (i, sql) in STATEMENTS.iter().enumerate() {
        let (n, _) = prepared.user.prepare(i as u32, sql).unwrap();
        counts.push(n);
    }
    let mut r = SmallRng::seed_from_u64(seed);
    let mut log = Vec::new();
    for step in 0..steps {
        if r.gen_range(0..6) == 0 {
            let (sql, as_root) = change(&mut r);
            log.push(sql.to_string());
            let (a, b) = if as_root {
                (prepared.root.execute(sql, &[]), text.root.execute(sql, &[]))
            } else {
                (prepared.user.execute(sql, &[]), text.user.execute(sql, &[]))
            };
            let (a, b) = (outcome(&mut prepared.user, a), outcome(&mut text.user, b));
            assert_eq!(a, b, "seed {seed} step {step}: {sql}\nafter {log:#?}");
            continue;
        }
        let i = r.gen_range(0..STATEMENTS.len());
        let params: Vec<Value> = (0..counts[i]).map(|_| param(&mut r)).collect();
        let sql = with_literals(STATEMENTS[i], &params);
        log.push(sql.clone());
        let a = prepared.user.execute_prepared(i as u32, &params);
        let a = outcome(&mut prepared.user, a);
        let b = text.user.execute(&sql, &[]);
        let b = outcome(&mut text.user, b);
        assert_eq!(a, b, "seed {seed} step {step}: {sql}\nafter {log:#?}");
    }
}

#[test]
fn prepared_runs_answer_as_their_text_through_ddl_grants_and_session_changes() {
    for seed in 0..24 {
        run_seed(seed, 250);
    }
}

/// Each kind of change, alone, between two runs of the point SELECT: the run after it must see
/// the change (a memo that outlived it would answer from the old table, database or grants).
#[test]
fn every_kind_of_change_is_seen_by_the_next_run() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["DROP TABLE t1"], &[]),
        (
            &[
                "ALTER TABLE t1 ADD COLUMN z INT",
                "ALTER TABLE t1 DROP COLUMN c",
                "ALTER TABLE t1 CHANGE z c INT",
            ],
            &[],
        ),
        (&["RENAME TABLE t1 TO t9", "RENAME TABLE db2.t1 TO t1"], &[]),
        (&["USE db2"], &[]),
        (
            &[
                "CREATE TEMPORARY TABLE t1 (id INT, c INT)",
                "INSERT INTO t1 VALUES (5, 55)",
            ],
            &[],
        ),
        (&[], &["REVOKE ALL ON test.* FROM u"]),
        (
            &[
                "CREATE VIEW v AS SELECT 1",
                "DROP TABLE t1",
                "CREATE VIEW t1 AS SELECT 5 AS id, 'view' AS c",
            ],
            &[],
        ),
        (&["LOCK TABLES db2.t1 READ"], &[]),
    ];
    for (user_sql, root_sql) in cases {
        let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (mut prepared, mut text) = (side(da.path()), side(db.path()));
        prepared
            .user
            .prepare(1, "SELECT c FROM t1 WHERE id=?")
            .unwrap();
        let p = [Value::Int(5)];
        for _ in 0..2 {
            let a = prepared.user.execute_prepared(1, &p);
            outcome(&mut prepared.user, a);
        }
        for sql in *user_sql {
            prepared.user.execute(sql, &[]).unwrap();
            text.user.execute(sql, &[]).unwrap();
        }
        for sql in *root_sql {
            prepared.root.execute(sql, &[]).unwrap();
            text.root.execute(sql, &[]).unwrap();
        }
        let a = prepared.user.execute_prepared(1, &p);
        let a = outcome(&mut prepared.user, a);
        let b = text.user.execute("SELECT c FROM t1 WHERE id=5", &[]);
        let b = outcome(&mut text.user, b);
        assert_eq!(a, b, "after {user_sql:?} {root_sql:?}");
    }
}
