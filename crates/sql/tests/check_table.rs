//! CHECK TABLE reads the table (ddl/check.rs): a clean table is OK, also after deletes and index
//! changes; an index entry written behind the SQL layer's back (an index that no longer matches its
//! rows) is reported Corrupt, naming the index.

mod common;

use common::engine::{engine, exec, rows};

#[test]
fn check_table_passes_clean_tables_and_finds_an_index_out_of_step() {
    let dir = tempfile::tempdir().unwrap();
    let (e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), KEY by_v (v))",
    );
    let values: Vec<String> = (0..500).map(|i| format!("({i}, 'v{i}')")).collect();
    exec(
        &mut s,
        &format!("INSERT INTO t VALUES {}", values.join(",")),
    );
    exec(&mut s, "DELETE FROM t WHERE id % 7 = 0");
    exec(&mut s, "UPDATE t SET v = CONCAT(v, 'x') WHERE id % 5 = 0");
    assert_eq!(rows(&mut s, "CHECK TABLE t"), vec!["d.t|check|status|OK"]);

    let index = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .find(|n| n.ends_with("/by_v"))
        .expect("the index tree");
    e.store
        .tree(&index)
        .unwrap()
        .put(b"stray entry", b"")
        .unwrap();
    let got = rows(&mut s, "CHECK TABLE t");
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].starts_with("d.t|check|error|index 'by_v' has 429 entries, the table 428 rows"),
        "{got:?}"
    );
    assert_eq!(got[1], "d.t|check|status|Corrupt");
}
