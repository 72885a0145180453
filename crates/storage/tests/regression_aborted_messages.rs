//! Regression: a rolled-back transaction's message that still sat in a buffer must stay invisible when a
//! flush later carries it to its leaf, even once no reader or active transaction is older than it (found
//! by the deterministic simulation, seed 4: the flush's fast path for messages "every reader sees" applied
//! it as a committed plain value).

mod common;

use betula_storage::vfs::SimVfs;
use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions, TxnOptions};
use common::{registry, F_ADD};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        durability: Durability::Sync,
        background: false,
        // Small: leaves are evicted, so messages wait in the buffers above them.
        cache_bytes: 24 << 10,
        default_tree: TreeOptions {
            node_size_bytes: 2048,
            basement_size_bytes: 512,
            fanout: 4,
            codec: Codec::None,
            level: 0,
        },
        ..EnvOptions::default()
    }
}

fn rows(t: &betula_storage::TreeHandle) -> Vec<(Vec<u8>, Vec<u8>)> {
    t.range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Enough committed rows that the tree has internal nodes, so later messages wait in buffers.
fn fill(t: &betula_storage::TreeHandle) {
    for i in 0..400u32 {
        t.put(format!("k{i:04}").as_bytes(), &[b'v'; 20]).unwrap();
    }
    t.flush_now().unwrap();
    assert!(t.stats().height >= 1, "the tree must have a buffer level");
    // Messages in the buffers above every leaf, so the transaction's messages queue behind them.
    for i in (0..400u32).step_by(3) {
        t.put(format!("k{i:04}").as_bytes(), &[b'v'; 20]).unwrap();
    }
}

#[test]
fn a_rolled_back_write_stays_invisible_after_its_buffer_is_flushed() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    fill(&t);
    let before = rows(&t);
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    txn.put(&t, b"k0007", b"rolled back").unwrap();
    txn.put(&t, b"new key", b"rolled back").unwrap();
    txn.upsert(&t, b"counter", F_ADD, &7u64.to_le_bytes())
        .unwrap();
    txn.delete(&t, b"k0100").unwrap();
    txn.rollback().unwrap();
    assert_eq!(rows(&t), before, "right after the rollback");
    // Push the buffers down: more writes, then the flusher's work, with no transaction or view open.
    for i in 400..1200u32 {
        t.put(format!("k{i:04}").as_bytes(), &[b'w'; 20]).unwrap();
    }
    t.flush_now().unwrap();
    env.checkpoint().unwrap();
    t.flush_now().unwrap();
    assert_eq!(t.get(b"k0007").unwrap(), Some(vec![b'v'; 20]));
    assert_eq!(t.get(b"new key").unwrap(), None);
    assert_eq!(t.get(b"counter").unwrap(), None);
    assert_eq!(t.get(b"k0100").unwrap(), Some(vec![b'v'; 20]));
    t.check_invariants().unwrap();
}

#[test]
fn a_transaction_recovery_rolled_back_stays_invisible_after_flushes() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    fill(&t);
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    txn.put(&t, b"k0007", b"never committed").unwrap();
    txn.put(&t, b"new key", b"never committed").unwrap();
    env.sync().unwrap();
    // The process dies with the transaction open: recovery replays its messages and rolls it back.
    let image = Arc::new(vfs.crash_image(1));
    std::mem::forget(txn);
    std::mem::forget(t);
    std::mem::forget(env);
    let env = Env::open_with_vfs(image, Path::new("/db"), opts(), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    for i in 400..1200u32 {
        t.put(format!("k{i:04}").as_bytes(), &[b'w'; 20]).unwrap();
    }
    t.flush_now().unwrap();
    env.checkpoint().unwrap();
    t.flush_now().unwrap();
    assert_eq!(t.get(b"k0007").unwrap(), Some(vec![b'v'; 20]));
    assert_eq!(t.get(b"new key").unwrap(), None);
}

/// An upsert builds on the newest version that was not rolled back, also when a transaction reads its own
/// upsert through a view made before the other transaction's rollback (simulation seed 1457).
#[test]
fn an_upsert_read_back_ignores_a_version_rolled_back_after_the_view() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    fill(&t);
    let mut reader = env.begin(TxnOptions::default()).unwrap();
    let mut other = env.begin(TxnOptions::default()).unwrap();
    other
        .upsert(&t, b"counter", F_ADD, &8u64.to_le_bytes())
        .unwrap();
    other.rollback().unwrap();
    reader
        .upsert(&t, b"counter", F_ADD, &5u64.to_le_bytes())
        .unwrap();
    let five = Some(5u64.to_le_bytes().to_vec());
    assert_eq!(
        reader.get(&t, b"counter").unwrap(),
        five,
        "own upsert read back"
    );
    let scanned: Vec<_> = reader
        .range(
            &t,
            Bound::Included(&b"counter"[..]),
            Bound::Unbounded,
            false,
        )
        .take(1)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(scanned, vec![(b"counter".to_vec(), five.clone().unwrap())]);
    reader.commit().unwrap();
    assert_eq!(t.get(b"counter").unwrap(), five, "what was committed");
    t.flush_now().unwrap();
    assert_eq!(t.get(b"counter").unwrap(), five, "after the flush");
}
