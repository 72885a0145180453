//! Key format 2 through the engine: indexes over case-insensitive text, ENUM and SET cover the
//! queries that need only their columns (results equal a full read of the rows), ORDER BY sorts
//! ENUM by member number and SET by bitmask with and without an index, conditions pushed to the
//! index entries give the same rows, and tables of key format 1 (the layout of earlier versions)
//! keep working, also after a reopen and after a rebuild converts them.

mod sessions;

use sessions::{exec, open, rows};

const TABLE: &str = "CREATE TABLE t (id INT PRIMARY KEY, c CHAR(4), v VARCHAR(20), \
     e ENUM('b','a','C','d'), s SET('x','Y','z'), n INT, \
     KEY c_v (c, v), KEY e (e), KEY s (s), KEY n_v (n, v))";

fn fill(s: &mut betula_sql::Session) {
    let mut values = Vec::new();
    for i in 0..60 {
        let c = ["a", "A", "b", "B ", "", "é"][i % 6];
        let v = format!("{}x{}", ["q", "Q", "r"][i % 3], i % 7);
        let e = ["b", "a", "C", "d", "c", "A"][i % 6];
        let set = ["", "x", "Y,z", "z", "x,Y,z", "y,X"][i % 5];
        let c = if i % 11 == 0 {
            "NULL".to_string()
        } else {
            format!("'{c}'")
        };
        values.push(format!("({i}, {c}, '{v}', '{e}', '{set}', {})", i % 4));
    }
    exec(s, &format!("INSERT INTO t VALUES {}", values.join(",")));
}

fn sorted(mut r: Vec<Vec<String>>) -> Vec<Vec<String>> {
    r.sort();
    r
}

/// The plan's key and Extra for `q`.
fn plan(s: &mut betula_sql::Session, q: &str) -> (String, String) {
    let r = rows(s, &format!("EXPLAIN {q}"));
    (r[0][5].clone(), r[0][9].clone())
}

/// Every query gives through its covering index exactly the rows a full read gives.
fn check_covering(s: &mut betula_sql::Session, covering: bool) {
    let cases = [
        ("c, v", "c_v"),
        ("v, id", "c_v"),
        ("e, id", "e"),
        ("s", "s"),
        ("n, v", "n_v"),
    ];
    for (cols, key) in cases {
        let q = format!("SELECT {cols} FROM t");
        let (k, extra) = plan(s, &q);
        if covering {
            assert_eq!((k.as_str(), extra.as_str()), (key, "Using index"), "{q}");
        } else {
            assert_eq!(k, "NULL", "{q}: format 1 keys do not cover");
        }
        let mut keys: Vec<String> = rows(s, "SHOW INDEX FROM t")
            .into_iter()
            .map(|r| r[2].clone())
            .filter(|k| k != "PRIMARY")
            .collect();
        keys.dedup();
        let full = format!("SELECT {cols} FROM t IGNORE INDEX ({})", keys.join(","));
        assert_eq!(plan(s, &full).0, "NULL");
        assert_eq!(sorted(rows(s, &q)), sorted(rows(s, &full)), "{q}");
    }
}

fn check_order(s: &mut betula_sql::Session) {
    // ENUM by member number ('' = 0 first), SET by bitmask, whatever reads the rows.
    let enum_order = ["b", "a", "C", "d"];
    for q in [
        "SELECT e FROM t ORDER BY e",
        "SELECT e FROM t IGNORE INDEX (e) ORDER BY e",
        "SELECT e, v FROM t ORDER BY e",
    ] {
        let got: Vec<String> = rows(s, q).into_iter().map(|r| r[0].clone()).collect();
        let pos = |x: &String| enum_order.iter().position(|m| m == x).unwrap();
        assert!(
            got.windows(2).all(|w| pos(&w[0]) <= pos(&w[1])),
            "{q}: {got:?}"
        );
        let count = rows(s, "SELECT COUNT(*) FROM t")[0][0]
            .parse::<usize>()
            .unwrap();
        assert_eq!(got.len(), count);
    }
    let bits = |x: &str| -> u32 {
        x.split(',')
            .filter(|p| !p.is_empty())
            .map(|p| 1 << ["x", "Y", "z"].iter().position(|m| *m == p).unwrap())
            .sum()
    };
    for q in [
        "SELECT s FROM t ORDER BY s",
        "SELECT s FROM t IGNORE INDEX (s) ORDER BY s DESC",
        "SELECT s, id FROM t ORDER BY s DESC, id",
    ] {
        let got: Vec<u32> = rows(s, q).into_iter().map(|r| bits(&r[0])).collect();
        let mut want = got.clone();
        want.sort();
        if q.contains("DESC") {
            want.reverse();
        }
        assert_eq!(got, want, "{q}");
    }
    // Comparisons with strings still compare text: 'C' > 'b' although C is member 3 of 4.
    assert_eq!(
        rows(s, "SELECT COUNT(*) FROM t WHERE e > 'b'"),
        rows(s, "SELECT COUNT(*) FROM t IGNORE INDEX (e) WHERE e > 'b'")
    );
    // Equality matches members in any case, through the key and without it.
    let n = rows(s, "SELECT COUNT(*) FROM t IGNORE INDEX (e) WHERE e = 'a'");
    assert_ne!(n, vec![vec!["0"]]);
    assert_eq!(rows(s, "SELECT COUNT(*) FROM t WHERE e = 'A'"), n);
}

#[test]
fn format_2_indexes_cover_and_order_members_by_number() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(dir.path(), &[TABLE]);
        fill(&mut s);
        check_covering(&mut s, true);
        check_order(&mut s);
        // An update that changes only the case keeps the key and rewrites the carried text.
        exec(
            &mut s,
            "UPDATE t SET c = UPPER(c), v = LOWER(v) WHERE id < 30",
        );
        check_covering(&mut s, true);
        assert!(rows(&mut s, "SELECT c FROM t WHERE id < 30")
            .iter()
            .all(|r| r[0] == r[0].to_uppercase()));
        exec(&mut s, "DELETE FROM t WHERE id % 3 = 0");
        check_covering(&mut s, true);
    }
    let (_e, mut s) = open(dir.path(), &[]);
    check_covering(&mut s, true);
    check_order(&mut s);
    // Rebuilding and adding an index write entries in bulk (rebuild.rs, with UNIQUE checks).
    exec(&mut s, "ALTER TABLE t FORCE");
    exec(&mut s, "CREATE UNIQUE INDEX u ON t (v, id)");
    exec(&mut s, "CREATE INDEX c2 ON t (c)");
    check_covering(&mut s, true);
    let q = "SELECT c, id FROM t FORCE INDEX (c2)";
    assert_eq!(plan(&mut s, q), ("c2".into(), "Using index".into()));
    assert_eq!(
        sorted(rows(&mut s, q)),
        sorted(rows(&mut s, "SELECT c, id FROM t IGNORE INDEX (c2, c_v)"))
    );
}

#[test]
fn pushed_index_conditions_give_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[TABLE]);
    fill(&mut s);
    for (q, extra) in [
        ("SELECT * FROM t WHERE c > 'a'", "Using index condition"),
        (
            "SELECT * FROM t WHERE c = 'a' AND v LIKE '%3'",
            "Using index condition",
        ),
        (
            "SELECT * FROM t WHERE c > 'a' AND e = 'd'",
            "Using index condition; Using where",
        ),
        ("SELECT * FROM t WHERE n = 2", ""),
        (
            "SELECT * FROM t WHERE n = 2 AND v > 'q'",
            "Using index condition",
        ),
    ] {
        let (_, got) = plan(&mut s, q);
        assert_eq!(got, extra, "{q}");
        let full = q.replace("FROM t", "FROM t IGNORE INDEX (c_v, n_v)");
        assert_eq!(sorted(rows(&mut s, q)), sorted(rows(&mut s, &full)), "{q}");
    }
    exec(
        &mut s,
        "SET optimizer_switch = 'index_condition_pushdown=off'",
    );
    assert_eq!(plan(&mut s, "SELECT * FROM t WHERE c > 'a'").1, "");
}

#[test]
fn format_1_tables_keep_working_and_a_rebuild_converts_them() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = open(dir.path(), &["SET SESSION betula_key_format = 1", TABLE]);
        fill(&mut s);
        check_covering(&mut s, false);
        check_order(&mut s);
        // Indexes added to a format-1 table are written in its format.
        exec(&mut s, "CREATE INDEX c2 ON t (c)");
        exec(&mut s, "UPDATE t SET e = 'd' WHERE id = 1");
    }
    let (_e, mut s) = open(dir.path(), &[]);
    check_covering(&mut s, false);
    check_order(&mut s);
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE e = 'd' AND id < 5 ORDER BY id"
        ),
        vec![vec!["1"], vec!["3"]]
    );
    exec(&mut s, "ALTER TABLE t FORCE");
    check_covering(&mut s, true);
    check_order(&mut s);
    drop(s);
    drop(_e);
    let (_e, mut s) = open(dir.path(), &[]);
    check_covering(&mut s, true);
}

#[test]
fn loaded_rows_give_the_same_covering_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[TABLE]);
    let load = |s: &mut betula_sql::Session, from: usize| {
        let data: String = (from..from + 30)
            .map(|i| {
                let c = ["a", "A", "b", "\\N"][i % 4];
                format!("{i}\t{c}\tQx{i}\t{}\tY,x\t{}\n", ["a", "C"][i % 2], i % 3)
            })
            .collect();
        let mut input = std::io::Cursor::new(data.into_bytes());
        let sql = "LOAD DATA LOCAL INFILE 'a.tsv' INTO TABLE t";
        s.execute_with_input(sql, &[], Some(&mut input)).unwrap();
    };
    load(&mut s, 0); // into an empty table: the trees are built in bulk (load/build.rs)
    check_covering(&mut s, true);
    load(&mut s, 30); // into a table with rows: merged (load/merge.rs)
    check_covering(&mut s, true);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t WHERE c IS NULL"),
        vec![vec!["15"]]
    );
}
