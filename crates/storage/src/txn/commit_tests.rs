//! A commit whose record is logged before a checkpoint begins, while the transaction still waits for the
//! record's durability (so it is still active), must not be named open by that checkpoint (TXN1): recovery
//! replays only the log after the checkpoint, never sees the commit record, and would roll the transaction
//! back. Found by the server's crash loop (a transfer's INSERT lost, its balance updates kept, as later
//! transactions had built on them).

use crate::env::{Durability, Env, EnvOptions};
use crate::tree::in_memory::message::UpdateRegistry;
use crate::vfs::SimVfs;
use crate::TxnOptions;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        durability: Durability::Sync,
        background: false,
        ..EnvOptions::default()
    }
}

#[test]
fn a_commit_logged_before_a_checkpoint_survives_recovery_from_it() {
    let vfs = Arc::new(SimVfs::new());
    let env =
        Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), UpdateRegistry::new()).unwrap();
    let a = env.create_tree("a", None).unwrap();
    let b = env.create_tree("b", None).unwrap();
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    txn.put(&a, b"row", b"in a").unwrap();
    txn.put(&b, b"row", b"in b").unwrap();
    // The commit record is appended; the transaction is still active while it waits for the fsync ...
    let lsn = txn.log_commit().unwrap();
    assert!(txn.env.mvcc.is_active(txn.id()));
    // ... when a checkpoint begins: its replay starts after the commit record.
    env.checkpoint().unwrap();
    let waited = txn.env.commit_with(lsn, None);
    txn.finish_commit(waited, Some((lsn, true))).unwrap();
    assert_eq!(a.get(b"row").unwrap(), Some(b"in a".to_vec()));

    // The process dies; everything above was acknowledged.
    let image = Arc::new(vfs.crash_image(7));
    std::mem::forget((a, b, env));
    let env = Env::open_with_vfs(image, Path::new("/db"), opts(), UpdateRegistry::new()).unwrap();
    let a = env.open_tree("a").unwrap();
    let b = env.open_tree("b").unwrap();
    assert_eq!(a.get(b"row").unwrap(), Some(b"in a".to_vec()), "tree a");
    assert_eq!(b.get(b"row").unwrap(), Some(b"in b".to_vec()), "tree b");
}

#[test]
fn a_transaction_open_at_a_checkpoint_is_still_rolled_back_without_its_commit() {
    let vfs = Arc::new(SimVfs::new());
    let env =
        Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), UpdateRegistry::new()).unwrap();
    let a = env.create_tree("a", None).unwrap();
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    txn.put(&a, b"row", b"never committed").unwrap();
    env.checkpoint().unwrap();
    let image = Arc::new(vfs.crash_image(3));
    std::mem::forget((txn, a, env));
    let env = Env::open_with_vfs(image, Path::new("/db"), opts(), UpdateRegistry::new()).unwrap();
    let a = env.open_tree("a").unwrap();
    assert_eq!(a.get(b"row").unwrap(), None);
}
