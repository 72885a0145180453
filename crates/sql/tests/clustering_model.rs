//! Clustering secondary indexes against a model (design.md CIX1-CIX4): random single-row and
//! set-oriented INSERTs, UPDATEs (of non-key columns, of key columns, of the primary key),
//! DELETEs, REPLACEs, ON DUPLICATE KEY UPDATE and transactions that commit or roll back run on a
//! table with a clustering key; after every few steps the table read through the primary key,
//! every range read through the clustering key (EXPLAIN: that key, `Using index`) and the same
//! read without it all equal the model, and CHECK TABLE finds the index equal to the rows.
//! Also after the engine is reopened.

mod common;

use std::collections::BTreeMap;

use common::engine::{engine, exec, rows};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const TABLE: &str = "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(8), c INT, \
     note VARCHAR(20), CLUSTERING KEY ka (a, b), KEY kc (c))";

/// `b` takes these (and NULL); the default collation is case-insensitive, so `x` = `X`.
const BS: [&str; 5] = ["x", "X", "y", "Yz", "q"];

#[derive(Clone, Debug, PartialEq)]
struct Row {
    a: Option<i64>,
    b: Option<String>,
    c: Option<i64>,
    note: String,
}

type Model = BTreeMap<i64, Row>;

fn lit_i(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

fn lit_s(v: &Option<String>) -> String {
    v.as_ref().map_or("NULL".into(), |v| format!("'{v}'"))
}

fn show(id: i64, r: &Row) -> String {
    let b = r.b.clone().unwrap_or_else(|| "NULL".into());
    format!("{id}|{}|{b}|{}|{}", lit_i(r.a), lit_i(r.c), r.note)
}

fn random_row(g: &mut SmallRng, note: String) -> Row {
    Row {
        a: (g.gen_range(0..10) != 0).then(|| g.gen_range(0..12)),
        b: (g.gen_range(0..8) != 0).then(|| BS[g.gen_range(0..BS.len())].to_string()),
        c: (g.gen_range(0..6) != 0).then(|| g.gen_range(0..50)),
        note,
    }
}

fn values(id: i64, r: &Row) -> String {
    format!(
        "({id}, {}, {}, {}, '{}')",
        lit_i(r.a),
        lit_s(&r.b),
        lit_i(r.c),
        r.note
    )
}

/// Runs `sql`, which must succeed (`Ok`) or fail with 1062 (`Err`), as `dup` says.
fn run(s: &mut betula_sql::Session, sql: &str, dup: bool) {
    match s.execute(sql, &[]) {
        Ok(_) if !dup => {}
        Err(e) if dup && e.code.number() == 1062 => {}
        other => panic!(
            "{sql}: expected {}, got {other:?}",
            if dup { "1062" } else { "success" }
        ),
    }
}

/// One random statement, applied to the table and to the model.
fn step(g: &mut SmallRng, s: &mut betula_sql::Session, m: &mut Model, n: usize, in_txn: bool) {
    let id = g.gen_range(0..150);
    let note = format!("n{n}");
    match g.gen_range(0..11) {
        0 => {
            let r = random_row(g, note);
            let dup = m.contains_key(&id);
            run(s, &format!("INSERT INTO t VALUES {}", values(id, &r)), dup);
            if !dup {
                m.insert(id, r);
            }
        }
        1 => {
            // Fresh ids only: the set-oriented path (autocommit, no UNIQUE secondary index).
            let mut rows = Vec::new();
            for _ in 0..g.gen_range(1..20) {
                let id = g.gen_range(0..400);
                if !m.contains_key(&id) && !rows.iter().any(|(i, _)| *i == id) {
                    rows.push((id, random_row(g, note.clone())));
                }
            }
            if rows.is_empty() {
                return;
            }
            let list: Vec<String> = rows.iter().map(|(i, r)| values(*i, r)).collect();
            run(
                s,
                &format!("INSERT INTO t VALUES {}", list.join(",")),
                false,
            );
            m.extend(rows);
        }
        2 => {
            let (lo, k) = (id, g.gen_range(1..5));
            let hi = lo + g.gen_range(0..30);
            run(
                s,
                &format!(
                    "UPDATE t SET c = c + {k}, note = '{note}' WHERE id BETWEEN {lo} AND {hi}"
                ),
                false,
            );
            for (_, r) in m.range_mut(lo..=hi) {
                r.c = r.c.map(|c| c + k);
                r.note = note.clone();
            }
        }
        3 => {
            let r = random_row(g, note);
            run(
                s,
                &format!(
                    "UPDATE t SET a = {}, b = {} WHERE id = {id}",
                    lit_i(r.a),
                    lit_s(&r.b)
                ),
                false,
            );
            if let Some(old) = m.get_mut(&id) {
                old.a = r.a;
                old.b = r.b;
            }
        }
        4 => {
            let to = g.gen_range(0..150);
            let dup = m.contains_key(&id) && m.contains_key(&to) && to != id;
            run(s, &format!("UPDATE t SET id = {to} WHERE id = {id}"), dup);
            if !dup {
                if let Some(r) = m.remove(&id) {
                    m.insert(to, r);
                }
            }
        }
        5 => {
            // Through the clustering key (the rows an UPDATE / DELETE changes are found with it).
            let lo = g.gen_range(0..12);
            let hi = lo + g.gen_range(0..2);
            run(
                s,
                &format!("DELETE FROM t WHERE a BETWEEN {lo} AND {hi}"),
                false,
            );
            m.retain(|_, r| !r.a.is_some_and(|a| (lo..=hi).contains(&a)));
        }
        6 => {
            run(s, &format!("DELETE FROM t WHERE id = {id}"), false);
            m.remove(&id);
        }
        7 => {
            let r = random_row(g, note);
            run(
                s,
                &format!("REPLACE INTO t VALUES {}", values(id, &r)),
                false,
            );
            m.insert(id, r);
        }
        8 => {
            let r = random_row(g, note);
            run(
                s,
                &format!(
                    "INSERT INTO t VALUES {} ON DUPLICATE KEY UPDATE c = c + 1, b = VALUES(b)",
                    values(id, &r)
                ),
                false,
            );
            match m.get_mut(&id) {
                Some(old) => {
                    old.c = old.c.map(|c| c + 1);
                    old.b = r.b;
                }
                None => {
                    m.insert(id, r);
                }
            }
        }
        9 => {
            let a = g.gen_range(0..12);
            run(
                s,
                &format!("UPDATE t SET note = '{note}' WHERE a = {a}"),
                false,
            );
            for r in m.values_mut().filter(|r| r.a == Some(a)) {
                r.note = note.clone();
            }
        }
        _ if !in_txn => {
            let before = m.clone();
            exec(s, "BEGIN");
            for k in 0..g.gen_range(1..5) {
                step(g, s, m, n * 10 + k, true);
            }
            // The transaction reads its own changes through the clustering key too.
            let q = "SELECT id, a, b, c, note FROM t WHERE a BETWEEN 0 AND 11";
            let want: Vec<String> = m
                .iter()
                .filter(|(_, r)| r.a.is_some())
                .map(|(id, r)| show(*id, r))
                .collect();
            assert_eq!(sorted_by_id(rows(s, q)), want, "{q} in a transaction");
            if g.gen() {
                exec(s, "COMMIT");
            } else {
                exec(s, "ROLLBACK");
                *m = before;
            }
        }
        _ => {}
    }
}

fn sorted_by_id(mut r: Vec<String>) -> Vec<String> {
    r.sort_by_key(|l| l.split('|').next().unwrap().parse::<i64>().unwrap());
    r
}

/// The table equals the model through the primary key and through the clustering key.
fn verify(g: &mut SmallRng, s: &mut betula_sql::Session, m: &Model) {
    let all: Vec<String> = m.iter().map(|(id, r)| show(*id, r)).collect();
    assert_eq!(rows(s, "SELECT id, a, b, c, note FROM t ORDER BY id"), all);
    for _ in 0..4 {
        let lo = g.gen_range(0..12);
        let hi = lo + g.gen_range(0..4);
        let q = format!("SELECT id, a, b, c, note FROM t WHERE a BETWEEN {lo} AND {hi}");
        let plan = rows(s, &format!("EXPLAIN {q}"));
        let cols: Vec<&str> = plan[0].split('|').collect();
        assert_eq!(cols[5], "ka", "{plan:?}");
        assert!(cols[9].contains("Using index"), "{plan:?}");
        let want: Vec<String> = m
            .iter()
            .filter(|(_, r)| r.a.is_some_and(|a| (lo..=hi).contains(&a)))
            .map(|(id, r)| show(*id, r))
            .collect();
        assert_eq!(sorted_by_id(rows(s, &q)), want, "{q}");
        let ignored = format!(
            "SELECT id, a, b, c, note FROM t IGNORE INDEX (ka) WHERE a BETWEEN {lo} AND {hi}"
        );
        assert_eq!(sorted_by_id(rows(s, &ignored)), want, "{ignored}");
        // Both key columns, `b` compared under its case-insensitive collation.
        let b = BS[g.gen_range(0..BS.len())];
        let q = format!("SELECT id, a, b, c, note FROM t WHERE a = {lo} AND b = '{b}'");
        let want: Vec<String> = m
            .iter()
            .filter(|(_, r)| {
                r.a == Some(lo) && r.b.as_ref().is_some_and(|x| x.eq_ignore_ascii_case(b))
            })
            .map(|(id, r)| show(*id, r))
            .collect();
        assert_eq!(sorted_by_id(rows(s, &q)), want, "{q}");
    }
    assert_eq!(rows(s, "CHECK TABLE t"), vec!["d.t|check|status|OK"]);
}

#[test]
fn random_changes_keep_the_clustering_key_equal_to_the_table() {
    for seed in [1u64, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let (e, mut s) = engine(dir.path());
        exec(&mut s, TABLE);
        let mut g = SmallRng::seed_from_u64(seed);
        let mut m = Model::new();
        for n in 0..400 {
            step(&mut g, &mut s, &mut m, n, false);
            if n % 25 == 24 {
                verify(&mut g, &mut s, &m);
            }
        }
        verify(&mut g, &mut s, &m);
        drop(s);
        drop(e);
        let (_e, mut s) = engine(dir.path());
        verify(&mut g, &mut s, &m);
    }
}
