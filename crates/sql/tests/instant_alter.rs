//! Instant ALTER TABLE through the engine (design.md INS1-INS8): random sequences of instant
//! ALTERs (columns added at any position, dropped, renamed, widened, defaults and NULL-ability
//! changed, several in one statement, each with ALGORITHM=INSTANT, LOCK=NONE) interleaved with
//! inserts, upserts, updates, deletes, checkpoints and reopens must give the table an in-memory
//! model gives, without a new tree generation, and the same table again after a rebuild
//! (ALTER TABLE ... FORCE) converts every row version.

mod sessions;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::{EnvOptions, TreeOptions};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sessions::{exec, rows};

/// An engine whose trees have small nodes, so checkpoints write many leaves (columnar frames).
fn open(dir: &Path) -> (Arc<Engine>, Session) {
    let mut config = sessions::config(dir);
    config.env = EnvOptions {
        default_tree: TreeOptions {
            node_size_bytes: 8192,
            basement_size_bytes: 1024,
            ..TreeOptions::default()
        },
        ..config.env
    };
    let e = Engine::open(config).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    (e, s)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Small,
    Int,
    Big,
    Var(u32),
}

impl Ty {
    fn sql(self) -> String {
        match self {
            Ty::Small => "SMALLINT".into(),
            Ty::Int => "INT".into(),
            Ty::Big => "BIGINT".into(),
            Ty::Var(n) => format!("VARCHAR({n})"),
        }
    }
    fn wider(self, r: &mut SmallRng) -> Ty {
        match self {
            Ty::Small => Ty::Int,
            Ty::Int | Ty::Big => Ty::Big,
            Ty::Var(n) => Ty::Var(n + r.gen_range(1..20)),
        }
    }
    fn value(self, r: &mut SmallRng) -> V {
        match self {
            Ty::Small => V::Int(r.gen_range(-32768..=32767)),
            Ty::Int => V::Int(r.gen_range(-2_000_000_000..=2_000_000_000)),
            Ty::Big => V::Int(r.gen_range(-(1i64 << 60)..(1i64 << 60))),
            Ty::Var(n) => {
                let len = r.gen_range(0..=n.min(12));
                V::Text((0..len).map(|_| r.gen_range(b'a'..=b'z') as char).collect())
            }
        }
    }
    fn implicit(self) -> V {
        match self {
            Ty::Var(_) => V::Text(String::new()),
            _ => V::Int(0),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    Null,
    Int(i64),
    Text(String),
}

impl V {
    fn sql(&self) -> String {
        match self {
            V::Null => "NULL".into(),
            V::Int(i) => i.to_string(),
            V::Text(t) => format!("'{t}'"),
        }
    }
    fn shown(&self) -> String {
        match self {
            V::Null => "NULL".into(),
            V::Int(i) => i.to_string(),
            V::Text(t) => t.clone(),
        }
    }
}

#[derive(Clone, Debug)]
struct Col {
    name: String,
    ty: Ty,
    nullable: bool,
    default: Option<V>,
}

impl Col {
    /// The value an INSERT that omits the column gives it (and rows read when it is added).
    fn omitted(&self) -> V {
        match (&self.default, self.nullable) {
            (Some(d), _) => d.clone(),
            (None, true) => V::Null,
            (None, false) => self.ty.implicit(),
        }
    }
    fn definition(&self) -> String {
        let mut d = format!("`{}` {}", self.name, self.ty.sql());
        d.push_str(if self.nullable { " NULL" } else { " NOT NULL" });
        if let Some(v) = &self.default {
            d.push_str(&format!(" DEFAULT {}", v.sql()));
        }
        d
    }
}

/// The table as it must read: its columns in order and its rows by id.
struct Model {
    cols: Vec<Col>,
    rows: BTreeMap<i64, Vec<V>>,
    next_name: u32,
}

impl Model {
    fn pos(&self, name: &str) -> usize {
        self.cols.iter().position(|c| c.name == name).unwrap()
    }
    /// Columns an ALTER may touch (not `id` and `k`, which the checks read).
    fn free(&self) -> Vec<String> {
        self.cols
            .iter()
            .map(|c| c.name.clone())
            .filter(|n| n != "id" && n != "k")
            .collect()
    }
    fn new_col(&mut self, r: &mut SmallRng) -> Col {
        self.next_name += 1;
        let ty = *[Ty::Small, Ty::Int, Ty::Big, Ty::Var(r.gen_range(1..10))]
            .choose(r)
            .unwrap();
        let nullable = r.gen_bool(0.6);
        // a NOT NULL column always has a DEFAULT: strict mode refuses an INSERT omitting one
        // without (1364)
        let default = match r.gen_range(0..3) {
            0 if nullable => None,
            1 if nullable => Some(V::Null),
            _ => Some(ty.value(r)),
        };
        Col {
            name: format!("c{}", self.next_name),
            ty,
            nullable,
            default,
        }
    }
}

/// One random ALTER of one to three operations on distinct columns, applied to the model; the
/// statement's text.
fn random_alter(m: &mut Model, r: &mut SmallRng) -> String {
    let mut touched: Vec<String> = Vec::new();
    let mut ops = Vec::new();
    for _ in 0..r.gen_range(1..=3) {
        let free: Vec<String> = m
            .free()
            .into_iter()
            .filter(|n| !touched.contains(n))
            .collect();
        let pick = if free.is_empty() {
            0
        } else {
            r.gen_range(0..6)
        };
        match pick {
            0 => {
                let c = m.new_col(r);
                let at = r.gen_range(0..=m.cols.len());
                let place = if at == 0 {
                    " FIRST".to_string()
                } else if at == m.cols.len() {
                    String::new()
                } else {
                    format!(" AFTER `{}`", m.cols[at - 1].name)
                };
                ops.push(format!("ADD COLUMN {}{place}", c.definition()));
                for row in m.rows.values_mut() {
                    row.insert(at, c.omitted());
                }
                touched.push(c.name.clone());
                m.cols.insert(at, c);
            }
            1 => {
                let name = free.choose(r).unwrap().clone();
                let at = m.pos(&name);
                ops.push(format!("DROP COLUMN `{name}`"));
                m.cols.remove(at);
                for row in m.rows.values_mut() {
                    row.remove(at);
                }
            }
            2 => {
                let name = free.choose(r).unwrap().clone();
                m.next_name += 1;
                let to = format!("r{}", m.next_name);
                ops.push(format!("RENAME COLUMN `{name}` TO `{to}`"));
                let at = m.pos(&name);
                m.cols[at].name = to.clone();
                touched.push(to);
            }
            3 => {
                let name = free.choose(r).unwrap().clone();
                let at = m.pos(&name);
                let c = &mut m.cols[at];
                c.ty = c.ty.wider(r);
                ops.push(format!("MODIFY {}", c.definition()));
                touched.push(name);
            }
            4 => {
                let name = free.choose(r).unwrap().clone();
                let at = m.pos(&name);
                let c = &mut m.cols[at];
                let v = if c.nullable && r.gen_bool(0.3) {
                    V::Null
                } else {
                    c.ty.value(r)
                };
                ops.push(format!("ALTER COLUMN `{name}` SET DEFAULT {}", v.sql()));
                c.default = Some(v);
                touched.push(name);
            }
            _ => {
                let name = free.choose(r).unwrap().clone();
                let at = m.pos(&name);
                let c = &mut m.cols[at];
                c.nullable = true;
                ops.push(format!("MODIFY {}", c.definition()));
                touched.push(name);
            }
        }
    }
    format!(
        "ALTER TABLE t {}, ALGORITHM=INSTANT, LOCK=NONE",
        ops.join(", ")
    )
}

/// A random row change applied to the model; the statement's text.
fn random_write(m: &mut Model, r: &mut SmallRng, next_id: &mut i64) -> String {
    let ids: Vec<i64> = m.rows.keys().copied().collect();
    match r.gen_range(0..10) {
        0..=3 => {
            *next_id += r.gen_range(1..4);
            let id = *next_id;
            let mut names = vec!["id".to_string()];
            let mut vals = vec!["0".to_string()];
            let mut row: Vec<V> = m.cols.iter().map(Col::omitted).collect();
            for (i, c) in m.cols.iter().enumerate() {
                let v = if c.name == "id" {
                    V::Int(id)
                } else if r.gen_bool(0.7) {
                    let v = if c.nullable && r.gen_bool(0.1) {
                        V::Null
                    } else {
                        c.ty.value(r)
                    };
                    names.push(format!("`{}`", c.name));
                    vals.push(v.sql());
                    v
                } else {
                    continue;
                };
                row[i] = v;
            }
            vals[0] = id.to_string();
            m.rows.insert(id, row);
            format!(
                "INSERT INTO t ({}) VALUES ({})",
                names.join(", "),
                vals.join(", ")
            )
        }
        4 | 5 if !ids.is_empty() => {
            let free = m.free();
            let name = if free.is_empty() || r.gen_bool(0.3) {
                "k".to_string()
            } else {
                free.choose(r).unwrap().clone()
            };
            let at = m.pos(&name);
            let c = m.cols[at].clone();
            let v = if c.nullable && r.gen_bool(0.2) {
                V::Null
            } else {
                c.ty.value(r)
            };
            let modulo = r.gen_range(1..5);
            for (id, row) in m.rows.iter_mut() {
                if id % modulo == 0 {
                    row[at] = v.clone();
                }
            }
            format!(
                "UPDATE t SET `{name}` = {} WHERE id % {modulo} = 0",
                v.sql()
            )
        }
        6 if !ids.is_empty() => {
            let id = *ids.choose(r).unwrap();
            m.rows.remove(&id);
            format!("DELETE FROM t WHERE id = {id}")
        }
        _ => {
            // an upsert on an existing or a new id: k + 1, or a new row with k = 1
            let id = if ids.is_empty() || r.gen_bool(0.3) {
                *next_id += 1;
                *next_id
            } else {
                *ids.choose(r).unwrap()
            };
            let k = m.pos("k");
            // a new row takes k = 1 from VALUES, an existing one k + 1
            let fresh: Vec<V> = m
                .cols
                .iter()
                .map(|c| match c.name.as_str() {
                    "id" => V::Int(id),
                    "k" => V::Int(0),
                    _ => c.omitted(),
                })
                .collect();
            let row = m.rows.entry(id).or_insert(fresh);
            if let V::Int(n) = &mut row[k] {
                *n += 1;
            }
            format!("INSERT INTO t (id, k) VALUES ({id}, 1) ON DUPLICATE KEY UPDATE k = k + 1")
        }
    }
}

/// The table, its column names and (with the index) its index read against the model.
fn check(s: &mut Session, m: &Model, indexed: bool, what: &str) {
    let names: Vec<String> = rows(
        s,
        "SELECT column_name FROM information_schema.columns \
         WHERE table_schema = 'test' AND table_name = 't' ORDER BY ordinal_position",
    )
    .into_iter()
    .map(|r| r[0].clone())
    .collect();
    let want: Vec<String> = m.cols.iter().map(|c| c.name.clone()).collect();
    assert_eq!(names, want, "columns after {what}");
    let got = rows(s, "SELECT * FROM t ORDER BY id");
    let want: Vec<Vec<String>> = m
        .rows
        .values()
        .map(|r| r.iter().map(V::shown).collect())
        .collect();
    assert_eq!(got, want, "rows after {what}");
    if indexed {
        let k = m.pos("k");
        let mut want: Vec<Vec<String>> = m
            .rows
            .iter()
            .map(|(id, r)| vec![r[k].shown(), id.to_string()])
            .collect();
        want.sort_by_key(|r| (r[0].parse::<i64>().unwrap(), r[1].parse::<i64>().unwrap()));
        let got = rows(
            s,
            "SELECT k, id FROM t FORCE INDEX (kk) WHERE k > -9223372036854775807 ORDER BY k, id",
        );
        assert_eq!(got, want, "index after {what}");
    }
}

fn generation(e: &Engine) -> u64 {
    e.catalog.get_table("test", "t").unwrap().generation
}

fn model_run(seed: u64, indexed: bool, steps: usize) {
    let mut r = SmallRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let (mut e, mut s) = open(dir.path());
    let index = if indexed { ", KEY kk (k)" } else { "" };
    exec(
        &mut s,
        &format!(
            "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, k BIGINT NOT NULL DEFAULT 0, \
             a INT DEFAULT 3, b VARCHAR(5){index})"
        ),
    );
    let mut m = Model {
        cols: vec![
            Col {
                name: "id".into(),
                ty: Ty::Big,
                nullable: false,
                default: None,
            },
            Col {
                name: "k".into(),
                ty: Ty::Big,
                nullable: false,
                default: Some(V::Int(0)),
            },
            Col {
                name: "a".into(),
                ty: Ty::Int,
                nullable: true,
                default: Some(V::Int(3)),
            },
            Col {
                name: "b".into(),
                ty: Ty::Var(5),
                nullable: true,
                default: None,
            },
        ],
        rows: BTreeMap::new(),
        next_name: 0,
    };
    let mut next_id = 0;
    for step in 0..steps {
        let sql = match r.gen_range(0..20) {
            0..=4 => random_alter(&mut m, &mut r),
            5 => {
                e.checkpoint().unwrap();
                "CHECKPOINT".into()
            }
            6 => {
                drop(s);
                drop(e);
                (e, s) = open(dir.path());
                "reopen".into()
            }
            _ => random_write(&mut m, &mut r, &mut next_id),
        };
        if sql != "CHECKPOINT" && sql != "reopen" {
            s.execute(&sql, &[])
                .unwrap_or_else(|err| panic!("seed {seed} step {step}: {sql}: {err}"));
        }
        check(
            &mut s,
            &m,
            indexed,
            &format!("seed {seed} step {step}: {sql}"),
        );
        assert_eq!(
            generation(&e),
            0,
            "seed {seed} step {step}: {sql} copied rows"
        );
    }
    // The reference: a rebuild converts every row version into the new generation's version 1.
    exec(&mut s, "ALTER TABLE t FORCE");
    assert_eq!(generation(&e), 1);
    check(&mut s, &m, indexed, &format!("seed {seed}: FORCE"));
    drop(s);
    drop(e);
    let (_e, mut s) = open(dir.path());
    check(
        &mut s,
        &m,
        indexed,
        &format!("seed {seed}: reopen after FORCE"),
    );
}

#[test]
fn random_instant_alters_match_the_model() {
    for seed in 0..6 {
        model_run(seed, seed % 2 == 0, 120);
    }
}
