//! Early lock release (design.md TXN5): a committing transaction's row locks become fences once its commit
//! record is appended, before its fsync. A writer takes a fenced row over at once; a reader of the latest
//! committed state under the lock first waits for the fence's durability, so it never reads a row a crash
//! could still take away; and a transaction built on a fenced one never becomes visible without it.

use crate::env::{Durability, Env, EnvOptions, TreeHandle};
use crate::tree::in_memory::message::UpdateRegistry;
use crate::vfs::SimVfs;
use crate::{Txn, TxnOptions};
use std::path::Path;
use std::sync::Arc;

fn open(vfs: Arc<SimVfs>) -> Env {
    let opts = EnvOptions {
        durability: Durability::Sync,
        background: false,
        ..EnvOptions::default()
    };
    Env::open_with_vfs(vfs, Path::new("/db"), opts, UpdateRegistry::new()).unwrap()
}

/// Does what `Txn::commit` does before its durability wait: appends the commit record and fences the
/// locks. Returns the transaction (to finish later) and the record's LSN.
fn commit_until_the_fsync(txn: Txn) -> (Txn, u64) {
    let lsn = txn.log_commit().unwrap();
    txn.env.locks.fence_points(txn.id, &txn.locked, lsn);
    (txn, lsn)
}

fn durable(txn: &Txn) -> u64 {
    txn.env.wal.durable_lsn()
}

fn put_and_fence(env: &Env, t: &TreeHandle, value: &[u8]) -> (Txn, u64) {
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    txn.put(t, b"k", value).unwrap();
    commit_until_the_fsync(txn)
}

#[test]
fn a_writer_takes_a_fenced_row_without_waiting_and_both_vanish_in_a_crash_before_the_fsync() {
    let vfs = Arc::new(SimVfs::new());
    let env = open(vfs.clone());
    let t = env.create_tree("t", None).unwrap();
    env.checkpoint().unwrap();
    let (first, lsn) = put_and_fence(&env, &t, b"first");
    // A blind writer of the same row: the lock is free at once (no thread, no fsync in between).
    let mut second = env.begin(TxnOptions::default()).unwrap();
    second.put(&t, b"k", b"second").unwrap();
    assert_eq!(
        second.read_fence.load(std::sync::atomic::Ordering::Relaxed),
        lsn
    );
    assert!(durable(&first) < lsn, "nothing was made durable");
    assert!(
        first.env.mvcc.is_active(first.id),
        "not visible before durable"
    );
    // The machine dies before any fsync: neither transaction was acknowledged, neither survives.
    let image = Arc::new(vfs.crash_image(1));
    std::mem::forget((first, second, t, env));
    let env = open(image);
    assert_eq!(env.open_tree("t").unwrap().get(b"k").unwrap(), None);
}

#[test]
fn a_reader_under_a_taken_over_lock_sees_the_fenced_row_only_once_it_is_durable() {
    let vfs = Arc::new(SimVfs::new());
    let env = open(vfs.clone());
    let t = env.create_tree("t", None).unwrap();
    let (first, lsn) = put_and_fence(&env, &t, b"first");
    let mut reader = env.begin(TxnOptions::default()).unwrap();
    let seen = reader.get_for_update(&t, b"k").unwrap();
    // The read waited for the fence: the row it saw is durable, and visible to everyone.
    assert_eq!(seen, Some(b"first".to_vec()));
    assert!(durable(&first) >= lsn);
    assert!(!first.env.mvcc.is_active(first.id));
    assert_eq!(t.get(b"k").unwrap(), Some(b"first".to_vec()));
    // The committer's own wait returns at once; it releases nothing the reader holds.
    let waited = first.env.commit_with(lsn, None);
    first.finish_commit(waited, Some((lsn, true))).unwrap();
    assert!(reader.env.locks.holds(reader.id, t.tree().id(), b"k"));
    // A crash now keeps what the reader saw.
    let image = Arc::new(vfs.crash_image(2));
    std::mem::forget((reader, t, env));
    let env = open(image);
    assert_eq!(
        env.open_tree("t").unwrap().get(b"k").unwrap(),
        Some(b"first".to_vec())
    );
}

#[test]
fn a_transaction_built_on_a_fenced_one_makes_it_visible_when_it_becomes_visible() {
    let env = open(Arc::new(SimVfs::new()));
    let t = env.create_tree("t", None).unwrap();
    let u = env.create_tree("u", None).unwrap();
    // The first writes k and another row; the second takes k over and commits first.
    let mut first = env.begin(TxnOptions::default()).unwrap();
    first.put(&t, b"k", b"first").unwrap();
    first.put(&u, b"other", b"first").unwrap();
    let (first, lsn) = commit_until_the_fsync(first);
    let mut second = env.begin(TxnOptions::default()).unwrap();
    second.put(&t, b"k", b"second").unwrap();
    second.commit().unwrap();
    // Whoever sees the second sees the first (its fsync covered the first's record).
    assert_eq!(t.get(b"k").unwrap(), Some(b"second".to_vec()));
    assert_eq!(u.get(b"other").unwrap(), Some(b"first".to_vec()));
    assert!(!first.env.mvcc.is_active(first.id));
    let waited = first.env.commit_with(lsn, None);
    first.finish_commit(waited, Some((lsn, true))).unwrap();
}
