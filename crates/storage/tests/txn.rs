//! Transactions: commit and rollback across trees, read-your-writes, row locks (timeout, deadlock),
//! no lost updates under concurrency, and all-or-nothing after a crash at any sync point.

mod common;

use betula_storage::vfs::{SimCrashPlan, SimVfs};
use betula_storage::{Durability, Env, EnvOptions, Error, TxnOptions};
use common::{registry, F_ADD};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn env_on(vfs: &Arc<SimVfs>) -> Env {
    let opts = EnvOptions {
        durability: Durability::Sync,
        background: false,
        cache_bytes: 1 << 20,
        ..EnvOptions::default()
    };
    Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts, registry()).unwrap()
}

fn quick() -> TxnOptions {
    TxnOptions {
        lock_timeout: Duration::from_millis(200),
        ..TxnOptions::default()
    }
}

#[test]
fn commit_rollback_and_read_your_writes_across_trees() {
    let vfs = Arc::new(SimVfs::new());
    let env = env_on(&vfs);
    let a = env.create_tree("a", None).unwrap();
    let b = env.create_tree("b", None).unwrap();
    a.put(b"k1", b"old").unwrap();

    let mut t = env.begin(quick()).unwrap();
    t.put(&a, b"k1", b"new").unwrap();
    t.put(&a, b"k2", b"two").unwrap();
    t.delete(&a, b"k2").unwrap();
    t.put(&b, b"x", b"y").unwrap();
    t.upsert(&b, b"n", F_ADD, &5u64.to_le_bytes()).unwrap();
    assert_eq!(t.get(&a, b"k1").unwrap(), Some(b"new".to_vec()));
    assert_eq!(t.get(&a, b"k2").unwrap(), None);
    assert_eq!(
        a.get(b"k1").unwrap(),
        Some(b"old".to_vec()),
        "uncommitted change leaked"
    );
    let rows: Vec<_> = t
        .range(&a, Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, vec![(b"k1".to_vec(), b"new".to_vec())]);
    let rev: Vec<_> = t
        .range(&b, Bound::Unbounded, Bound::Unbounded, true)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rev[0].0, b"x".to_vec());
    assert_eq!(rev[1], (b"n".to_vec(), 5u64.to_le_bytes().to_vec()));
    t.commit().unwrap();
    assert_eq!(a.get(b"k1").unwrap(), Some(b"new".to_vec()));
    assert_eq!(b.get(b"n").unwrap(), Some(5u64.to_le_bytes().to_vec()));

    let mut t = env.begin(quick()).unwrap();
    t.put(&a, b"k1", b"discarded").unwrap();
    t.upsert(&b, b"n", F_ADD, &100u64.to_le_bytes()).unwrap();
    t.rollback().unwrap();
    assert_eq!(a.get(b"k1").unwrap(), Some(b"new".to_vec()));
    assert_eq!(b.get(b"n").unwrap(), Some(5u64.to_le_bytes().to_vec()));

    // Dropping an open transaction rolls it back and frees its locks.
    {
        let mut t = env.begin(quick()).unwrap();
        t.put(&a, b"k1", b"dropped").unwrap();
    }
    let mut t = env.begin(quick()).unwrap();
    t.put(&a, b"k1", b"after").unwrap();
    t.commit().unwrap();
    assert_eq!(a.get(b"k1").unwrap(), Some(b"after".to_vec()));
}

#[test]
fn lock_timeout_and_deadlock_are_distinct_errors() {
    let vfs = Arc::new(SimVfs::new());
    let env = Arc::new(env_on(&vfs));
    let t = env.create_tree("t", None).unwrap();
    let mut t1 = env.begin(quick()).unwrap();
    t1.put(&t, b"a", b"1").unwrap();
    let mut t2 = env.begin(quick()).unwrap();
    assert!(matches!(t2.put(&t, b"a", b"2"), Err(Error::LockTimeout)));
    t2.rollback().unwrap();
    let mut t2 = env
        .begin(TxnOptions {
            lock_timeout: Duration::from_secs(10),
            ..TxnOptions::default()
        })
        .unwrap();
    t2.put(&t, b"b", b"2").unwrap();
    let (env2, tt) = (env.clone(), t.clone());
    let h = std::thread::spawn(move || {
        let _keep = env2;
        // t2 now waits for a (held by t1) with a long timeout.
        let r = t2.get_for_update(&tt, b"a");
        (r.is_ok(), t2)
    });
    while env.stats().lock_waiters == 0 {
        std::thread::yield_now();
    }
    // t1 asks for b, held by t2, which waits for t1: deadlock, reported to t1.
    let r = t1.get_for_update(&t, b"b");
    assert!(matches!(r, Err(Error::Deadlock)), "{r:?}");
    t1.rollback().unwrap();
    let (granted, t2) = h.join().unwrap();
    assert!(
        granted,
        "t2 gets the lock once the deadlock victim rolled back"
    );
    t2.commit().unwrap();
    assert_eq!(t.get(b"b").unwrap(), Some(b"2".to_vec()));
}

#[test]
fn concurrent_increments_never_lose_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let opts = EnvOptions {
        background: false,
        ..EnvOptions::default()
    };
    let env = Arc::new(Env::open(dir.path(), opts, registry()).unwrap());
    let t = env.create_tree("acct", None).unwrap();
    for i in 0..4u8 {
        t.put(&[i], &1000u64.to_le_bytes()).unwrap();
    }
    let threads: Vec<_> = (0..4u64)
        .map(|w| {
            let env = env.clone();
            let t = t.clone();
            std::thread::spawn(move || {
                let mut done = 0;
                let mut n = w;
                while done < 150 {
                    n = n
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let from = (n >> 33) as u8 % 4;
                    let to = (from + 1 + ((n >> 40) as u8 % 3)) % 4;
                    let opts = TxnOptions {
                        lock_timeout: Duration::from_secs(5),
                        ..TxnOptions::default()
                    };
                    let mut txn = env.begin(opts).unwrap();
                    let r = (|| -> Result<(), Error> {
                        let get =
                            |v: Option<Vec<u8>>| u64::from_le_bytes(v.unwrap().try_into().unwrap());
                        let a = get(txn.get_for_update(&t, &[from])?);
                        let b = get(txn.get_for_update(&t, &[to])?);
                        txn.put(&t, &[from], &(a - 1).to_le_bytes())?;
                        txn.put(&t, &[to], &(b + 1).to_le_bytes())?;
                        Ok(())
                    })();
                    match r {
                        Ok(()) => {
                            txn.commit().unwrap();
                            done += 1;
                        }
                        Err(Error::Deadlock) | Err(Error::LockTimeout) => txn.rollback().unwrap(),
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let total: u64 = (0..4u8)
        .map(|i| u64::from_le_bytes(t.get(&[i]).unwrap().unwrap().try_into().unwrap()))
        .sum();
    assert_eq!(total, 4000, "money was created or destroyed");
}

#[test]
fn crash_during_multi_tree_transactions_is_all_or_nothing() {
    let run = |vfs: &Arc<SimVfs>| -> usize {
        let Ok(env) = Env::open_with_vfs(
            vfs.clone(),
            Path::new("/db"),
            EnvOptions {
                background: false,
                cache_bytes: 64 << 10,
                ..EnvOptions::default()
            },
            registry(),
        ) else {
            return 0;
        };
        let (Ok(a), Ok(b)) = (env.create_tree("a", None), env.create_tree("b", None)) else {
            return 0;
        };
        let mut committed = 0;
        for i in 0..60u32 {
            let Ok(mut t) = env.begin(quick()) else { break };
            let ok = t.put(&a, &i.to_be_bytes(), b"A").is_ok()
                && t.put(&b, &i.to_be_bytes(), b"B").is_ok()
                && t.upsert(&b, b"count", F_ADD, &1u64.to_le_bytes()).is_ok();
            if !ok || t.commit().is_err() {
                break;
            }
            committed += 1;
            if i % 10 == 9 && env.checkpoint().is_err() {
                break;
            }
        }
        committed
    };
    let clean = Arc::new(SimVfs::new());
    assert_eq!(run(&clean), 60);
    for crash_at in 1..=clean.sync_count() {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let acked = run(&vfs);
        let env = env_on(&Arc::new(vfs.crash_image(crash_at)));
        let (Ok(a), Ok(b)) = (env.open_tree("a"), env.open_tree("b")) else {
            assert_eq!(acked, 0);
            continue;
        };
        let na = a.range(Bound::Unbounded, Bound::Unbounded, false).count();
        let nb = b.range(Bound::Unbounded, Bound::Unbounded, false).count();
        let count = b
            .get(b"count")
            .unwrap()
            .map_or(0, |v| u64::from_le_bytes(v.try_into().unwrap()) as usize);
        assert!(
            na == acked || na == acked + 1,
            "crash {crash_at}: {na} rows in a, {acked} acked"
        );
        assert_eq!(
            nb,
            na + usize::from(na > 0),
            "crash {crash_at}: trees disagree"
        );
        assert_eq!(count, na, "crash {crash_at}: upsert count disagrees");
    }
}

#[test]
fn a_lock_without_a_write_blocks_writers_and_ends_without_a_trace() {
    let vfs = Arc::new(SimVfs::new());
    let env = env_on(&vfs);
    let a = env.create_tree("a", None).unwrap();
    a.put(b"k", b"v0").unwrap();
    let mut holder = env.begin(quick()).unwrap();
    holder.lock_key(&a, b"k").unwrap();
    assert!(!holder.has_writes());
    assert_eq!(env.stats().row_locks, 1);
    let mut other = env.begin(quick()).unwrap();
    assert!(matches!(
        other.put(&a, b"k", b"v1"),
        Err(Error::LockTimeout)
    ));
    // Another key is free; a batch locks and writes every key it carries.
    other
        .write_batch(
            &a,
            vec![
                (b"m1".to_vec(), betula_storage::Op::Put(b"x".to_vec())),
                (b"m2".to_vec(), betula_storage::Op::Delete),
            ],
        )
        .unwrap();
    assert!(other.has_writes());
    holder.rollback().unwrap();
    other.put(&a, b"k", b"v1").unwrap();
    other.commit().unwrap();
    assert_eq!(env.stats().row_locks, 0);
    assert_eq!(env.stats().active_txns, 0);
    assert_eq!(a.get(b"k").unwrap(), Some(b"v1".to_vec()));
    assert_eq!(a.get(b"m1").unwrap(), Some(b"x".to_vec()));
    // The lock-only transaction left nothing to recover: reopen sees the same rows.
    drop(a);
    drop(env);
    let env = env_on(&vfs);
    let a = env.open_tree("a").unwrap();
    assert_eq!(a.get(b"k").unwrap(), Some(b"v1".to_vec()));
    assert_eq!(a.get(b"m2").unwrap(), None);
}
