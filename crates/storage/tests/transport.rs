//! Moving a tree between environments (design.md EXP1-EXP4): an export holds exactly the committed rows
//! (not a transaction's uncommitted ones), an import into another environment replaces the target's rows
//! with them at once and survives a reopen; a damaged export is refused and leaves the target as it was.

mod common;

use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions, TxnOptions};
use common::registry;
use std::ops::Bound;

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 1 << 20,
        background: false,
        durability: Durability::NoSync,
        default_tree: TreeOptions {
            node_size_bytes: 16 << 10,
            basement_size_bytes: 4 << 10,
            fanout: 8,
            codec: Codec::Lz4,
            level: 0,
        },
        ..EnvOptions::default()
    }
}

fn rows(env: &Env, name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    env.open_tree(name)
        .unwrap()
        .range(Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect()
}

#[test]
fn an_export_moves_the_committed_rows_into_another_environment() {
    let (a_dir, b_dir, out) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let a = Env::open(a_dir.path(), opts(), registry()).unwrap();
    let t = a.create_tree("t", None).unwrap();
    for i in 0..20_000u32 {
        t.put(&i.to_be_bytes(), format!("value {i}").as_bytes())
            .unwrap();
    }
    for i in (0..20_000u32).step_by(3) {
        t.delete(&i.to_be_bytes()).unwrap();
    }
    // A transaction in progress: its rows are not exported.
    let mut txn = a.begin(TxnOptions::default()).unwrap();
    txn.put(&t, b"\xff uncommitted", b"x").unwrap();
    let committed = rows(&a, "t");
    let file = out.path().join("t.bt");
    let stats = a.export_tree("t", &file).unwrap();
    assert_eq!(stats.rows, committed.len() as u64);
    drop(txn);
    assert!(
        a.export_tree("t", &file).is_err(),
        "an export never overwrites"
    );

    let b = Env::open(b_dir.path(), opts(), registry()).unwrap();
    let target = b.create_tree("u", None).unwrap();
    target.put(b"old row", b"goes").unwrap();
    let blocks = b.import_trees(vec![("u".into(), file.clone())]).unwrap();
    assert!(blocks[0] > 8, "{} blocks: no internal level", blocks[0]);
    assert_eq!(rows(&b, "u"), committed);
    b.open_tree("u").unwrap().check_invariants().unwrap();
    // Writes go on in the imported tree, and everything survives a reopen by recovery.
    b.open_tree("u").unwrap().put(b"\xfe new", b"y").unwrap();
    drop(target);
    drop(b);
    let b = Env::open(b_dir.path(), opts(), registry()).unwrap();
    let got = rows(&b, "u");
    assert_eq!(got.len(), committed.len() + 1);
    assert_eq!(&got[..committed.len()], &committed[..]);
    b.open_tree("u").unwrap().check_invariants().unwrap();

    // A damaged export is refused; the target keeps its rows.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    let bad = out.path().join("bad.bt");
    std::fs::write(&bad, bytes).unwrap();
    assert!(b.import_trees(vec![("u".into(), bad)]).is_err());
    assert_eq!(rows(&b, "u"), got);
    assert!(
        !b.tree_names().iter().any(|n| n.starts_with('\0')),
        "a staging tree was left"
    );
}
