//! FOREIGN KEY constraints (design.md FKC1-FKC8): the definition as SHOW CREATE TABLE and
//! information_schema show it, kept across a restart; the index made for a constraint; ALTER
//! TABLE ADD / DROP FOREIGN KEY; RENAME TABLE; MariaDB's errors (1452, 1451, 1005, 1239, 1091, 1553, 1701,
//! 1506); `foreign_key_checks = 0`; and random INSERT / UPDATE / DELETE sequences on a parent
//! with three children (CASCADE, SET NULL, RESTRICT) compared with a model.
//! crates/server/tests/foreign_keys_peer.rs compares the texts and errors with a real MariaDB.

mod sessions;

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use sessions::{err_code, exec, open, rows};

/// The lines of SHOW CREATE TABLE between the first line and the table options.
fn body(s: &mut betula_sql::Session, t: &str) -> String {
    let text = rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone();
    let start = text.find('\n').unwrap() + 1;
    let end = text.rfind("\n)").unwrap();
    text[start..end].to_string()
}

const PARENT: &str = "CREATE TABLE p (id INT PRIMARY KEY, b INT, UNIQUE KEY (b))";

#[test]
fn show_create_table_as_innodb_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[PARENT]);
    exec(
        &mut s,
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, \
         FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE)",
    );
    assert_eq!(
        body(&mut s, "c"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  \
         KEY `pid` (`pid`),\n  \
         CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE"
    );
    exec(
        &mut s,
        "CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, pb INT, \
         CONSTRAINT fkx FOREIGN KEY (pid) REFERENCES p(id) ON UPDATE SET NULL, \
         FOREIGN KEY idxn (pb) REFERENCES p(b), CHECK (id > 0))",
    );
    assert_eq!(
        body(&mut s, "c2"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  `pb` int(11) DEFAULT NULL,\n  \
         PRIMARY KEY (`id`),\n  KEY `fkx` (`pid`),\n  KEY `idxn` (`pb`),\n  \
         CONSTRAINT `fkx` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON UPDATE SET NULL,\n  \
         CONSTRAINT `idxn` FOREIGN KEY (`pb`) REFERENCES `p` (`b`),\n  \
         CONSTRAINT `CONSTRAINT_1` CHECK (`id` > 0)"
    );
    // An existing index over the columns is used; RESTRICT is not printed, NO ACTION is.
    exec(
        &mut s,
        "CREATE TABLE c3 (id INT PRIMARY KEY, pid INT, KEY (pid), FOREIGN KEY (pid) \
         REFERENCES p(id) ON DELETE RESTRICT ON UPDATE NO ACTION)",
    );
    assert_eq!(
        body(&mut s, "c3"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  \
         KEY `pid` (`pid`),\n  \
         CONSTRAINT `c3_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON UPDATE NO ACTION"
    );
    // A column's REFERENCES is a constraint too (MariaDB 10.5+); ALTER adds and drops.
    exec(
        &mut s,
        "CREATE TABLE c4 (id INT PRIMARY KEY, pid INT REFERENCES p(id))",
    );
    assert_eq!(
        body(&mut s, "c4"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  \
         KEY `pid` (`pid`),\n  \
         CONSTRAINT `c4_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)"
    );
    exec(
        &mut s,
        "ALTER TABLE c4 ADD FOREIGN KEY (pid) REFERENCES p(id)",
    );
    exec(
        &mut s,
        "ALTER TABLE c4 ADD CONSTRAINT zz FOREIGN KEY (id) REFERENCES p(id)",
    );
    assert_eq!(
        err_code(&mut s, "ALTER TABLE c4 DROP FOREIGN KEY nope"),
        1091
    );
    exec(&mut s, "ALTER TABLE c4 DROP FOREIGN KEY c4_ibfk_1");
    assert_eq!(
        body(&mut s, "c4"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  \
         KEY `pid` (`pid`),\n  \
         CONSTRAINT `c4_ibfk_2` FOREIGN KEY (`pid`) REFERENCES `p` (`id`),\n  \
         CONSTRAINT `zz` FOREIGN KEY (`id`) REFERENCES `p` (`id`)"
    );
    // RENAME TABLE: generated names follow the table, and children follow their parent.
    exec(&mut s, "RENAME TABLE c4 TO c5, p TO p2");
    assert_eq!(
        body(&mut s, "c5"),
        "  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  \
         KEY `pid` (`pid`),\n  \
         CONSTRAINT `c5_ibfk_2` FOREIGN KEY (`pid`) REFERENCES `p2` (`id`),\n  \
         CONSTRAINT `zz` FOREIGN KEY (`id`) REFERENCES `p2` (`id`)"
    );
    exec(&mut s, "RENAME TABLE c5 TO c4, p2 TO p");
    exec(&mut s, "ALTER TABLE c4 DROP FOREIGN KEY c4_ibfk_2");
    // Reflection reads these.
    let rc = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE, TABLE_NAME, \
         REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS \
         ORDER BY CONSTRAINT_NAME",
    );
    let want: Vec<Vec<&str>> = vec![
        vec!["c3_ibfk_1", "PRIMARY", "NO ACTION", "RESTRICT", "c3", "p"],
        vec!["c_ibfk_1", "PRIMARY", "RESTRICT", "CASCADE", "c", "p"],
        vec!["fkx", "PRIMARY", "SET NULL", "RESTRICT", "c2", "p"],
        vec!["idxn", "b", "RESTRICT", "RESTRICT", "c2", "p"],
        vec!["zz", "PRIMARY", "RESTRICT", "RESTRICT", "c4", "p"],
    ];
    assert_eq!(rc, want);
    let kcu = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, COLUMN_NAME, POSITION_IN_UNIQUE_CONSTRAINT, \
         REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME \
         FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = 'c2'",
    );
    assert_eq!(
        kcu,
        vec![
            vec!["PRIMARY", "id", "NULL", "NULL", "NULL", "NULL"],
            vec!["fkx", "pid", "1", "test", "p", "id"],
            vec!["idxn", "pb", "1", "test", "p", "b"],
        ]
    );
    let tc = rows(
        &mut s,
        "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS \
         WHERE TABLE_NAME = 'c2'",
    );
    assert_eq!(
        tc,
        vec![
            vec!["PRIMARY", "PRIMARY KEY"],
            vec!["CONSTRAINT_1", "CHECK"],
            vec!["fkx", "FOREIGN KEY"],
            vec!["idxn", "FOREIGN KEY"],
        ]
    );
}

#[test]
fn definitions_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let (_e, mut s) = open(
            dir.path(),
            &[
                PARENT,
                "CREATE TABLE c (id INT PRIMARY KEY, pid INT, pb INT, \
                 CONSTRAINT f1 FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE, \
                 FOREIGN KEY (pb) REFERENCES p(b) ON DELETE SET NULL)",
                "INSERT INTO p VALUES (1, 10), (2, 20)",
                "INSERT INTO c VALUES (1, 1, 10), (2, 2, 20)",
            ],
        );
        body(&mut s, "c")
    };
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(body(&mut s, "c"), before);
    // Still enforced after the restart.
    assert_eq!(err_code(&mut s, "INSERT INTO c VALUES (3, 9, NULL)"), 1452);
    exec(&mut s, "DELETE FROM p WHERE id = 1");
    exec(&mut s, "UPDATE p SET id = 5 WHERE id = 2");
    assert_eq!(rows(&mut s, "SELECT * FROM c"), vec![vec!["2", "5", "20"]]);
    exec(&mut s, "DELETE FROM p WHERE b = 20");
    assert!(rows(&mut s, "SELECT * FROM c").is_empty());
}

#[test]
fn mariadb_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            PARENT,
            "CREATE TABLE c (id INT PRIMARY KEY, pid INT, \
             CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p(id))",
            "INSERT INTO p VALUES (1, 1), (2, 2)",
            "INSERT INTO c VALUES (1, 1), (2, NULL)",
        ],
    );
    let e = s.execute("INSERT INTO c VALUES (3, 3)", &[]).unwrap_err();
    assert_eq!(e.code.number(), 1452);
    assert_eq!(
        e.message,
        "Cannot add or update a child row: a foreign key constraint fails (`test`.`c`, \
         CONSTRAINT `fk` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"
    );
    assert_eq!(err_code(&mut s, "UPDATE c SET pid = 7 WHERE id = 1"), 1452);
    let e = s.execute("DELETE FROM p WHERE id = 1", &[]).unwrap_err();
    assert_eq!(e.code.number(), 1451);
    assert_eq!(
        e.message,
        "Cannot delete or update a parent row: a foreign key constraint fails (`test`.`c`, \
         CONSTRAINT `fk` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"
    );
    assert_eq!(err_code(&mut s, "UPDATE p SET id = 9 WHERE id = 1"), 1451);
    // A statement that fails part way is undone whole.
    assert_eq!(
        err_code(&mut s, "INSERT INTO c VALUES (5, 2), (6, 8)"),
        1452
    );
    assert_eq!(rows(&mut s, "SELECT count(*) FROM c")[0][0], "2");
    assert_eq!(err_code(&mut s, "DROP TABLE p"), 1451);
    assert_eq!(err_code(&mut s, "TRUNCATE TABLE p"), 1701);
    // Referenced columns that exist, with an index, of the same type; SET NULL on NULL-able.
    for bad in [
        "CREATE TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(nope))",
        "CREATE TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES nope(id))",
        "CREATE TABLE x (id INT, pid BIGINT, FOREIGN KEY (pid) REFERENCES p(id))",
        "CREATE TABLE x (id INT, a INT, b INT, FOREIGN KEY (b) REFERENCES p(id, b))",
        "CREATE TABLE x (id INT, pid INT NOT NULL, FOREIGN KEY (pid) REFERENCES p(id) \
         ON DELETE SET NULL)",
        "CREATE TEMPORARY TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(id))",
    ] {
        let code = err_code(&mut s, bad);
        assert!(code == 1005 || code == 1239, "{bad}: {code}");
    }
    exec(&mut s, "CREATE TABLE np (id INT, v INT)");
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES np(v))"
        ),
        1005
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(id)) \
             PARTITION BY HASH(id) PARTITIONS 2"
        ),
        1506
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE x (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(id) \
             ON DELETE SET DEFAULT)"
        ),
        1235
    );
    // The constraint's index and columns stay while it does.
    assert_eq!(err_code(&mut s, "ALTER TABLE c DROP INDEX fk"), 1553);
    assert_eq!(err_code(&mut s, "ALTER TABLE c DROP COLUMN pid"), 1553);
    // ADD FOREIGN KEY checks the rows already there.
    exec(&mut s, "CREATE TABLE d (id INT PRIMARY KEY, pid INT)");
    exec(&mut s, "INSERT INTO d VALUES (1, 5)");
    assert_eq!(
        err_code(
            &mut s,
            "ALTER TABLE d ADD FOREIGN KEY (pid) REFERENCES p(id)"
        ),
        1452
    );
    exec(&mut s, "UPDATE d SET pid = 2");
    exec(
        &mut s,
        "ALTER TABLE d ADD FOREIGN KEY (pid) REFERENCES p(id)",
    );
    assert_eq!(
        err_code(
            &mut s,
            "ALTER TABLE d ADD CONSTRAINT d_ibfk_1 FOREIGN KEY (pid) REFERENCES p(id)"
        ),
        1005
    );
}

#[test]
fn foreign_key_checks_off_checks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &["SET foreign_key_checks = 0"]);
    // A dump creates and fills the child before its parent.
    exec(
        &mut s,
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, \
         FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE)",
    );
    exec(&mut s, "INSERT INTO c VALUES (1, 1), (2, 7)");
    exec(&mut s, PARENT);
    exec(&mut s, "INSERT INTO p VALUES (1, 1)");
    exec(&mut s, "DELETE FROM p");
    assert_eq!(rows(&mut s, "SELECT count(*) FROM c")[0][0], "2");
    exec(&mut s, "SET foreign_key_checks = 1");
    assert_eq!(err_code(&mut s, "INSERT INTO c VALUES (3, 7)"), 1452);
    exec(&mut s, "INSERT INTO p VALUES (7, 7)");
    exec(&mut s, "INSERT INTO c VALUES (3, 7)");
    exec(&mut s, "DELETE FROM p WHERE id = 7");
    assert_eq!(rows(&mut s, "SELECT id FROM c"), vec![vec!["1"]]);
    exec(&mut s, "SET foreign_key_checks = 0");
    exec(&mut s, "DROP TABLE p");
    exec(&mut s, "DROP TABLE c");
}

#[test]
fn self_reference_cascades() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE t (id INT PRIMARY KEY, pid INT, \
           FOREIGN KEY (pid) REFERENCES t(id) ON DELETE CASCADE)"],
    );
    exec(
        &mut s,
        "INSERT INTO t VALUES (1, 1), (2, 1), (3, 2), (4, NULL)",
    );
    assert_eq!(
        err_code(&mut s, "INSERT INTO t VALUES (5, 6), (6, 5)"),
        1452
    );
    exec(&mut s, "DELETE FROM t WHERE id = 1");
    assert_eq!(rows(&mut s, "SELECT id FROM t"), vec![vec!["4"]]);
    // Deeper than 15 cascades is refused, and the statement undone.
    for i in 10..40 {
        let p = if i == 10 {
            "NULL".to_string()
        } else {
            (i - 1).to_string()
        };
        exec(&mut s, &format!("INSERT INTO t VALUES ({i}, {p})"));
    }
    assert_eq!(err_code(&mut s, "DELETE FROM t WHERE id = 10"), 1451);
    assert_eq!(rows(&mut s, "SELECT count(*) FROM t")[0][0], "31");
}

/// The model: parent rows id → b; children id → referenced value.
#[derive(Default)]
struct Model {
    p: BTreeMap<i64, i64>,
    /// ON DELETE CASCADE ON UPDATE CASCADE, references p(id).
    cascade: BTreeMap<i64, Option<i64>>,
    /// ON DELETE SET NULL (ON UPDATE RESTRICT), references p(b).
    set_null: BTreeMap<i64, Option<i64>>,
    /// RESTRICT, references p(id).
    restrict: BTreeMap<i64, Option<i64>>,
}

fn show(m: &BTreeMap<i64, Option<i64>>) -> Vec<Vec<String>> {
    m.iter()
        .map(|(k, v)| vec![k.to_string(), v.map_or("NULL".into(), |v| v.to_string())])
        .collect()
}

fn check(s: &mut betula_sql::Session, m: &Model) {
    let p: Vec<Vec<String>> =
        m.p.iter()
            .map(|(k, v)| vec![k.to_string(), v.to_string()])
            .collect();
    assert_eq!(rows(s, "SELECT * FROM p ORDER BY id"), p);
    assert_eq!(rows(s, "SELECT * FROM cc ORDER BY id"), show(&m.cascade));
    assert_eq!(rows(s, "SELECT * FROM cn ORDER BY id"), show(&m.set_null));
    assert_eq!(rows(s, "SELECT * FROM cr ORDER BY id"), show(&m.restrict));
}

/// Runs `sql`; it must fail with `code` when `Some`, succeed otherwise.
fn expect(s: &mut betula_sql::Session, sql: &str, code: Option<u16>) -> bool {
    match (s.execute(sql, &[]), code) {
        (Ok(_), None) => true,
        (Err(e), Some(c)) if e.code.number() == c => false,
        (r, c) => panic!("{sql}: expected {c:?}, got {r:?}"),
    }
}

#[test]
fn random_changes_match_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE p (id INT PRIMARY KEY, b INT NOT NULL, UNIQUE KEY (b))",
            "CREATE TABLE cc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id) \
             ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE cn (id INT PRIMARY KEY, pb INT, FOREIGN KEY (pb) REFERENCES p(b) \
             ON DELETE SET NULL)",
            "CREATE TABLE cr (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id))",
        ],
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut m = Model::default();
    let mut next_id = 1;
    for step in 0..1500 {
        let key = |r: &mut rand::rngs::StdRng| (r.gen_range(0..6) > 0).then(|| r.gen_range(0..30));
        let v = |x: Option<i64>| x.map_or("NULL".to_string(), |x| x.to_string());
        match rng.gen_range(0..9) {
            0 | 1 => {
                let (id, b) = (rng.gen_range(0..30), rng.gen_range(0..30));
                let dup = m.p.contains_key(&id) || m.p.values().any(|&x| x == b);
                let sql = format!("INSERT INTO p VALUES ({id}, {b})");
                if expect(&mut s, &sql, dup.then_some(1062)) {
                    m.p.insert(id, b);
                }
            }
            2 | 3 => {
                let (table, k) = match rng.gen_range(0..3) {
                    0 => ("cc", key(&mut rng)),
                    1 => ("cn", key(&mut rng)),
                    _ => ("cr", key(&mut rng)),
                };
                let ok = match (table, k) {
                    (_, None) => true,
                    ("cn", Some(k)) => m.p.values().any(|&b| b == k),
                    (_, Some(k)) => m.p.contains_key(&k),
                };
                let sql = format!("INSERT INTO {table} VALUES ({next_id}, {})", v(k));
                if expect(&mut s, &sql, (!ok).then_some(1452)) {
                    let map = match table {
                        "cc" => &mut m.cascade,
                        "cn" => &mut m.set_null,
                        _ => &mut m.restrict,
                    };
                    map.insert(next_id, k);
                    next_id += 1;
                }
            }
            4 => {
                // UPDATE a child's key.
                let k = key(&mut rng);
                let Some(&id) = m
                    .restrict
                    .keys()
                    .nth(rng.gen_range(0..m.restrict.len().max(1)))
                else {
                    continue;
                };
                let ok = k.is_none_or(|k| m.p.contains_key(&k));
                let sql = format!("UPDATE cr SET pid = {} WHERE id = {id}", v(k));
                if expect(&mut s, &sql, (!ok).then_some(1452)) {
                    m.restrict.insert(id, k);
                }
            }
            5 | 6 => {
                // DELETE a parent: RESTRICT children refuse; else cascade and set NULL.
                let id = rng.gen_range(0..30);
                let Some(&b) = m.p.get(&id) else {
                    expect(&mut s, &format!("DELETE FROM p WHERE id = {id}"), None);
                    continue;
                };
                let refused = m.restrict.values().any(|&x| x == Some(id));
                let sql = format!("DELETE FROM p WHERE id = {id}");
                if expect(&mut s, &sql, refused.then_some(1451)) {
                    m.p.remove(&id);
                    m.cascade.retain(|_, x| *x != Some(id));
                    for x in m.set_null.values_mut() {
                        if *x == Some(b) {
                            *x = None;
                        }
                    }
                }
            }
            7 => {
                // UPDATE a parent's id: RESTRICT children refuse; CASCADE children follow.
                let (id, to) = (rng.gen_range(0..30), rng.gen_range(0..30));
                if !m.p.contains_key(&id) {
                    continue;
                }
                let code = if id != to && m.p.contains_key(&to) {
                    Some(1062)
                } else if id != to && m.restrict.values().any(|&x| x == Some(id)) {
                    Some(1451)
                } else {
                    None
                };
                let sql = format!("UPDATE p SET id = {to} WHERE id = {id}");
                if expect(&mut s, &sql, code) {
                    let b = m.p.remove(&id).unwrap();
                    m.p.insert(to, b);
                    for x in m.cascade.values_mut() {
                        if *x == Some(id) {
                            *x = Some(to);
                        }
                    }
                }
            }
            _ => {
                // UPDATE a parent's b: SET NULL children are ON UPDATE RESTRICT.
                let (id, to) = (rng.gen_range(0..30), rng.gen_range(0..30));
                let Some(&b) = m.p.get(&id) else {
                    continue;
                };
                let code = if b != to && m.p.values().any(|&x| x == to) {
                    Some(1062)
                } else if b != to && m.set_null.values().any(|&x| x == Some(b)) {
                    Some(1451)
                } else {
                    None
                };
                let sql = format!("UPDATE p SET b = {to} WHERE id = {id}");
                if expect(&mut s, &sql, code) {
                    m.p.insert(id, to);
                }
            }
        }
        if step % 50 == 49 {
            check(&mut s, &m);
        }
    }
    check(&mut s, &m);
}
