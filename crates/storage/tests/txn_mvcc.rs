//! Multi-version reads: snapshot stability, READ COMMITTED vs REPEATABLE READ, consistent scans during
//! concurrent transfers, a model-based test of interleaved transactions, and transactions open across a
//! checkpoint and a crash.

mod common;

use betula_storage::vfs::{SimCrashPlan, SimVfs};
use betula_storage::{Durability, Env, EnvOptions, Error, Isolation, Op, TxnOptions};
use common::{registry, Rng, F_ADD};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn env_on(vfs: &Arc<SimVfs>, cache: u64) -> Env {
    let opts = EnvOptions {
        durability: Durability::Sync,
        background: false,
        cache_bytes: cache,
        default_tree: betula_storage::TreeOptions {
            node_size_bytes: 4096,
            basement_size_bytes: 1024,
            fanout: 4,
            ..Default::default()
        },
        ..EnvOptions::default()
    };
    Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts, registry()).unwrap()
}

fn opts(isolation: Isolation) -> TxnOptions {
    TxnOptions {
        isolation,
        lock_timeout: Duration::from_millis(1),
        durability: None,
    }
}

fn u(v: Option<Vec<u8>>) -> u64 {
    u64::from_le_bytes(v.expect("row").try_into().unwrap())
}

#[test]
fn repeatable_read_keeps_its_snapshot_and_read_committed_does_not() {
    let vfs = Arc::new(SimVfs::new());
    let env = env_on(&vfs, 1 << 20);
    let t = env.create_tree("t", None).unwrap();
    t.put(b"x", &1u64.to_le_bytes()).unwrap();
    let rr = env.begin(opts(Isolation::RepeatableRead)).unwrap();
    let rc = env.begin(opts(Isolation::ReadCommitted)).unwrap();
    assert_eq!(u(rr.get(&t, b"x").unwrap()), 1);
    let mut w = env.begin(opts(Isolation::RepeatableRead)).unwrap();
    w.put(&t, b"x", &2u64.to_le_bytes()).unwrap();
    w.put(&t, b"y", &9u64.to_le_bytes()).unwrap();
    assert_eq!(u(rr.get(&t, b"x").unwrap()), 1, "dirty read");
    assert_eq!(u(rc.get(&t, b"x").unwrap()), 1, "dirty read");
    w.commit().unwrap();
    assert_eq!(u(rr.get(&t, b"x").unwrap()), 1, "snapshot moved");
    assert_eq!(rr.get(&t, b"y").unwrap(), None, "phantom row");
    let rows: Vec<_> = rr
        .range(&t, Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        u(rc.get(&t, b"x").unwrap()),
        2,
        "read committed sees the commit"
    );
    assert_eq!(u(t.get(b"x").unwrap()), 2);
    // Flushes and checkpoints in between do not lose the old version the snapshot needs.
    for i in 0..3000u32 {
        t.put(&i.to_be_bytes(), &[7; 20]).unwrap();
    }
    env.checkpoint().unwrap();
    assert_eq!(u(rr.get(&t, b"x").unwrap()), 1);
    let st = env.stats();
    assert_eq!(st.open_views, 1, "the REPEATABLE READ snapshot is listed");
    assert!(
        st.oldest_view_lag_lsns >= 3000,
        "lag {}",
        st.oldest_view_lag_lsns
    );
    rr.commit().unwrap();
    rc.commit().unwrap();
    assert_eq!(env.stats().open_views, 0);
}

#[test]
fn concurrent_transfers_keep_the_sum_for_every_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let env = Arc::new(
        Env::open(
            dir.path(),
            EnvOptions {
                durability: Durability::NoSync,
                checkpoint_interval: Duration::from_millis(100),
                cache_bytes: 256 << 10,
                ..EnvOptions::default()
            },
            registry(),
        )
        .unwrap(),
    );
    let t = env.create_tree("accounts", None).unwrap();
    const N: u32 = 50;
    for i in 0..N {
        t.put(&i.to_be_bytes(), &100u64.to_le_bytes()).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let movers: Vec<_> = (0..3u64)
        .map(|w| {
            let (env, t) = (env.clone(), t.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(w + 1);
                let mut done = 0;
                while done < 300 {
                    let a = rng.below(N as u64) as u32;
                    let b = (a + 1 + rng.below(N as u64 - 1) as u32) % N;
                    let mut txn = env
                        .begin(TxnOptions {
                            lock_timeout: Duration::from_millis(200),
                            ..TxnOptions::default()
                        })
                        .unwrap();
                    let r = (|| -> Result<(), Error> {
                        let va = u(txn.get_for_update(&t, &a.to_be_bytes())?);
                        let vb = u(txn.get_for_update(&t, &b.to_be_bytes())?);
                        let amount = rng.below(va + 1);
                        txn.put(&t, &a.to_be_bytes(), &(va - amount).to_le_bytes())?;
                        txn.put(&t, &b.to_be_bytes(), &(vb + amount).to_le_bytes())?;
                        Ok(())
                    })();
                    match r {
                        Ok(()) => {
                            txn.commit().unwrap();
                            done += 1;
                        }
                        Err(Error::Deadlock | Error::LockTimeout) => txn.rollback().unwrap(),
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    let checker = {
        let (env, t, stop) = (env.clone(), t.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut checks = 0;
            loop {
                let last_round = stop.load(Ordering::Relaxed);
                let txn = env.begin(TxnOptions::default()).unwrap();
                let sum: u64 = txn
                    .range(&t, Bound::Unbounded, Bound::Unbounded, false)
                    .map(|r| u64::from_le_bytes(r.unwrap().1.try_into().unwrap()))
                    .sum();
                assert_eq!(sum, 100 * N as u64, "a snapshot saw money in flight");
                let scan: u64 = t
                    .range(Bound::Unbounded, Bound::Unbounded, false)
                    .map(|r| u64::from_le_bytes(r.unwrap().1.try_into().unwrap()))
                    .sum();
                assert_eq!(scan, 100 * N as u64, "a plain scan saw money in flight");
                txn.commit().unwrap();
                checks += 1;
                if last_round {
                    break;
                }
            }
            checks
        })
    };
    for m in movers {
        m.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(checker.join().unwrap() > 0);
}

/// Reference semantics: a committed map; each transaction sees the committed map as of its begin (RR)
/// plus its own writes; its writes are computed on the latest committed value plus its own writes.
#[test]
fn interleaved_transactions_match_a_snapshot_model() {
    for seed in 0..4u64 {
        let vfs = Arc::new(SimVfs::new());
        let env = env_on(&vfs, 64 << 10);
        let t = env.create_tree("t", None).unwrap();
        let mut rng = Rng::new(seed + 100);
        let mut committed: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        struct Open {
            txn: betula_storage::Txn,
            snapshot: BTreeMap<Vec<u8>, u64>,
            own: BTreeMap<Vec<u8>, Option<u64>>,
        }
        let mut open: Vec<Open> = Vec::new();
        let key = |i: u64| format!("k{i:03}").into_bytes();
        for step in 0..3000 {
            let roll = rng.below(100);
            if open.is_empty() || roll < 8 {
                open.push(Open {
                    txn: env.begin(opts(Isolation::RepeatableRead)).unwrap(),
                    snapshot: committed.clone(),
                    own: BTreeMap::new(),
                });
                continue;
            }
            let i = rng.below(open.len() as u64) as usize;
            let k = key(rng.below(60));
            if roll < 40 {
                // write: put, delete or add
                let o = &mut open[i];
                let latest = match o.own.get(&k) {
                    Some(v) => *v,
                    None => committed.get(&k).copied(),
                };
                let kind = rng.below(3);
                let n = rng.below(1000);
                let (op, new) = match kind {
                    0 => (Op::Put(n.to_le_bytes().to_vec()), Some(n)),
                    1 => (Op::Delete, None),
                    _ => (
                        Op::Upsert {
                            func: F_ADD,
                            arg: n.to_le_bytes().to_vec(),
                        },
                        Some(latest.unwrap_or(0).wrapping_add(n)),
                    ),
                };
                let r = match op {
                    Op::Put(v) => o.txn.put(&t, &k, &v),
                    Op::Delete => o.txn.delete(&t, &k),
                    Op::Upsert { func, arg } => o.txn.upsert(&t, &k, func, &arg),
                    _ => unreachable!(),
                };
                match r {
                    Ok(()) => {
                        o.own.insert(k, new);
                    }
                    Err(Error::LockTimeout) => {
                        let holder = open
                            .iter()
                            .enumerate()
                            .any(|(j, p)| j != i && p.own.contains_key(&k));
                        assert!(
                            holder,
                            "seed {seed} step {step}: lock timeout with no other writer"
                        );
                    }
                    Err(e) => panic!("{e}"),
                }
            } else if roll < 75 {
                let o = &open[i];
                let want = match o.own.get(&k) {
                    Some(v) => *v,
                    None => o.snapshot.get(&k).copied(),
                };
                let got = o
                    .txn
                    .get(&t, &k)
                    .unwrap()
                    .map(|v| u64::from_le_bytes(v.try_into().unwrap()));
                assert_eq!(got, want, "seed {seed} step {step}: read of {k:?}");
            } else if roll < 82 {
                let o = &open[i];
                let mut want: BTreeMap<Vec<u8>, u64> = o.snapshot.clone();
                for (k, v) in &o.own {
                    match v {
                        Some(v) => want.insert(k.clone(), *v),
                        None => want.remove(k),
                    };
                }
                let got: BTreeMap<Vec<u8>, u64> = o
                    .txn
                    .range(&t, Bound::Unbounded, Bound::Unbounded, false)
                    .map(|r| {
                        let (k, v) = r.unwrap();
                        (k, u64::from_le_bytes(v.try_into().unwrap()))
                    })
                    .collect();
                assert_eq!(got, want, "seed {seed} step {step}: scan");
            } else if roll < 94 {
                let o = open.swap_remove(i);
                o.txn.commit().unwrap();
                for (k, v) in o.own {
                    match v {
                        Some(v) => committed.insert(k, v),
                        None => committed.remove(&k),
                    };
                }
            } else {
                let o = open.swap_remove(i);
                o.txn.rollback().unwrap();
            }
            if step % 500 == 499 {
                env.checkpoint().unwrap();
            }
        }
        for o in open.drain(..) {
            o.txn.commit().unwrap();
            for (k, v) in o.own {
                match v {
                    Some(v) => committed.insert(k, v),
                    None => committed.remove(&k),
                };
            }
        }
        let got: BTreeMap<Vec<u8>, u64> = t
            .range(Bound::Unbounded, Bound::Unbounded, false)
            .map(|r| {
                let (k, v) = r.unwrap();
                (k, u64::from_le_bytes(v.try_into().unwrap()))
            })
            .collect();
        assert_eq!(got, committed, "seed {seed}: final state");
        t.check_invariants().unwrap();
    }
}

#[test]
fn range_locks_keep_rows_from_appearing_and_per_transaction_durability_applies() {
    let vfs = Arc::new(SimVfs::new());
    let env = env_on(&vfs, 1 << 20);
    let t = env.create_tree("t", None).unwrap();
    let mut reader = env.begin(opts(Isolation::RepeatableRead)).unwrap();
    reader.lock_range(&t, b"b", Some(b"m")).unwrap();
    let mut writer = env.begin(opts(Isolation::RepeatableRead)).unwrap();
    assert!(matches!(
        writer.put(&t, b"c", b"phantom"),
        Err(Error::LockTimeout)
    ));
    writer.put(&t, b"x", b"outside").unwrap();
    reader.commit().unwrap();
    writer.put(&t, b"c", b"now").unwrap();
    writer.commit().unwrap();
    assert_eq!(t.get(b"c").unwrap(), Some(b"now".to_vec()));
    // A NoSync commit in a Sync environment is not fsynced by the commit itself.
    let before = vfs.sync_count();
    let mut relaxed = env
        .begin(TxnOptions {
            durability: Some(Durability::NoSync),
            ..TxnOptions::default()
        })
        .unwrap();
    relaxed.put(&t, b"r", b"1").unwrap();
    relaxed.commit().unwrap();
    assert_eq!(
        vfs.sync_count(),
        before,
        "a NoSync commit waited for an fsync"
    );
    let mut strict = env.begin(TxnOptions::default()).unwrap();
    strict.put(&t, b"s", b"1").unwrap();
    strict.commit().unwrap();
    assert!(vfs.sync_count() > before, "a Sync commit did not fsync");
}

#[test]
fn crash_with_a_transaction_open_across_a_checkpoint_rolls_it_back() {
    // Txn A writes before the checkpoint and never commits; txn B writes before it and commits after it.
    let run = |vfs: &Arc<SimVfs>| -> (bool, bool) {
        let env_opts = EnvOptions {
            background: false,
            ..EnvOptions::default()
        };
        let Ok(env) = Env::open_with_vfs(vfs.clone(), Path::new("/db"), env_opts, registry())
        else {
            return (false, false);
        };
        let Ok(t) = env.create_tree("t", None) else {
            return (false, false);
        };
        let mut a = env.begin(opts(Isolation::RepeatableRead)).unwrap();
        let mut b = env.begin(opts(Isolation::RepeatableRead)).unwrap();
        let ok = a.put(&t, b"a", b"uncommitted").is_ok()
            && b.put(&t, b"b", b"committed").is_ok()
            && t.put(b"plain", b"p").is_ok()
            && env.checkpoint().is_ok();
        if !ok {
            std::mem::forget(a);
            return (false, false);
        }
        let committed = b.commit().is_ok();
        let _ = t.put(b"after", b"x");
        std::mem::forget(a); // the machine dies with A open
        (true, committed)
    };
    let clean = Arc::new(SimVfs::new());
    assert_eq!(run(&clean), (true, true));
    let total = clean.sync_count();
    for crash_at in 1..=total + 1 {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let (_, b_acked) = run(&vfs);
        let env = env_on(&Arc::new(vfs.crash_image(crash_at)), 1 << 20);
        let Ok(t) = env.open_tree("t") else {
            continue;
        };
        assert_eq!(
            t.get(b"a").unwrap(),
            None,
            "crash {crash_at}: uncommitted write survived"
        );
        if b_acked {
            assert_eq!(
                t.get(b"b").unwrap(),
                Some(b"committed".to_vec()),
                "crash {crash_at}"
            );
        }
        t.check_invariants().unwrap();
        // And after another clean reopen, still gone.
        drop(t);
        env.close().unwrap();
    }
}

#[test]
fn a_rolled_back_transaction_stays_invisible_after_checkpoints_and_reopen() {
    let vfs = Arc::new(SimVfs::new());
    let env = env_on(&vfs, 1 << 20);
    let t = env.create_tree("t", None).unwrap();
    t.put(b"x", &1u64.to_le_bytes()).unwrap();
    let mut a = env.begin(opts(Isolation::RepeatableRead)).unwrap();
    a.put(&t, b"x", &99u64.to_le_bytes()).unwrap();
    a.put(&t, b"new", b"row").unwrap();
    a.upsert(&t, b"x", F_ADD, &1u64.to_le_bytes()).unwrap();
    a.rollback().unwrap();
    assert_eq!(u(t.get(b"x").unwrap()), 1);
    // An upsert after the rollback builds on the committed value, not on the rolled-back one.
    t.upsert(b"x", F_ADD, &5u64.to_le_bytes()).unwrap();
    assert_eq!(u(t.get(b"x").unwrap()), 6);
    env.checkpoint().unwrap();
    env.checkpoint().unwrap(); // the log with the rollback record is gone now
    drop(t);
    drop(env);
    let env = env_on(&vfs, 1 << 20);
    let t = env.open_tree("t").unwrap();
    assert_eq!(u(t.get(b"x").unwrap()), 6);
    assert_eq!(t.get(b"new").unwrap(), None, "rolled-back row came back");
    let rows = t.range(Bound::Unbounded, Bound::Unbounded, false).count();
    assert_eq!(rows, 1);
}
