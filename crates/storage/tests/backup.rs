//! Online backup and restore (design.md, "Online backup and restore", BKP1-BKP8): a backup taken while
//! writers, transactions, bulk loads and checkpoints run restores to an environment that holds, for every
//! writer, exactly its first k operations for some k at least as large as what was acknowledged before the
//! backup began; transactions and bulk loads whole or not at all. Incremental backups copy only what changed
//! and restore through their base; a damaged backup, a missing manifest or base are refused at restore; a
//! cancelled backup leaves the environment working and pins nothing.

mod common;

use betula_storage::vfs::RealVfs;
use betula_storage::{
    restore_backup, verify_environment, BackupOptions, BackupProgress, Codec, Durability, Env,
    EnvOptions, Error, Op, SortedRows, TreeOptions, TxnOptions,
};
use common::{registry, Model, Rng, F_ADD};
use parking_lot::Mutex;
use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 1 << 20,
        durability: Durability::Sync,
        background: true,
        checkpoint_interval: Duration::from_millis(100),
        checkpoint_log_bytes: 512 << 10,
        wal_segment_bytes: 256 << 10,
        wal_recycle_segments: 2,
        wal_codec: Codec::Lz4,
        default_tree: TreeOptions {
            node_size_bytes: 16 << 10,
            basement_size_bytes: 4 << 10,
            fanout: 8,
            codec: Codec::Lz4,
            level: 0,
        },
    }
}

/// The operations one writer had acknowledged, in order.
#[derive(Default)]
struct Journal {
    ops: Mutex<Vec<(Vec<u8>, Op)>>,
    acked: AtomicU64,
}

/// Writer `w`: puts, deletes and additions on its own keys, spread over the whole pre-filled tree (so the
/// blocks round 1 copies are superseded while it copies them), each recorded once acknowledged.
fn write_loop(env: &Env, w: u64, journal: &Journal, stop: &AtomicBool) {
    let t = env.open_tree("plain").unwrap();
    let mut rng = Rng::new(w + 1);
    while !stop.load(Ordering::Relaxed) {
        let key = format!("{:05}-w{w}", rng.below(PREFILL as u64)).into_bytes();
        let op = match rng.below(10) {
            0 => Op::Delete,
            1..=3 => Op::Upsert {
                func: F_ADD,
                arg: rng.below(100).to_le_bytes().to_vec(),
            },
            _ => Op::Put(vec![b'v'; 20 + rng.below(200) as usize]),
        };
        match &op {
            Op::Put(v) => t.put(&key, v).unwrap(),
            Op::Delete => t.delete(&key).unwrap(),
            Op::Upsert { func, arg } => t.upsert(&key, *func, arg).unwrap(),
            _ => unreachable!(),
        }
        journal.ops.lock().push((key, op));
        journal.acked.fetch_add(1, Ordering::SeqCst);
    }
}

/// Transactions that set four keys to their number: a restore must show one number on all four.
fn txn_loop(env: &Env, journal: &Journal, stop: &AtomicBool) {
    let t = env.open_tree("txn").unwrap();
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let mut txn = env.begin(TxnOptions::default()).unwrap();
        for j in 0..4u8 {
            txn.put(&t, &[b't', j], &n.to_le_bytes()).unwrap();
        }
        txn.commit().unwrap();
        journal.acked.store(n, Ordering::SeqCst);
    }
}

/// Bulk loads replacing "bulk" with 300 rows of generation g (rows never reach the log, BKP3).
fn bulk_loop(env: &Env, journal: &Journal, stop: &AtomicBool) {
    let mut g = 0u64;
    while !stop.load(Ordering::Relaxed) {
        g += 1;
        let rows: SortedRows<'_> = Box::new(
            (0..300u32).map(move |i| Ok((i.to_be_bytes().to_vec(), g.to_le_bytes().to_vec()))),
        );
        env.bulk_replace(vec![("bulk".to_string(), rows)]).unwrap();
        journal.acked.store(g, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// Rows in "plain" before the writers start.
const PREFILL: u32 = 30_000;

fn scan(t: &betula_storage::TreeHandle, prefix: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    t.range(Bound::Included(prefix), Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .take_while(|(k, _)| k.starts_with(prefix))
        .collect()
}

/// The restored keys of writer `w` are its first k operations applied, for some k ≥ `at_least`.
fn check_prefix(w: u64, got: &[(Vec<u8>, Vec<u8>)], ops: &[(Vec<u8>, Op)], at_least: u64) {
    let mut model = Model::default();
    let want: Vec<_> = got.to_vec();
    for (k, (key, op)) in ops.iter().enumerate() {
        if k as u64 >= at_least && model.map.clone().into_iter().collect::<Vec<_>>() == want {
            return;
        }
        model.apply(key, op);
    }
    assert_eq!(
        model.map.into_iter().collect::<Vec<_>>(),
        want,
        "writer {w}: the restored keys are no prefix of its {} operations from {at_least} on",
        ops.len()
    );
}

fn restored(dir: &Path) -> Env {
    Env::open(dir, opts(), registry()).unwrap()
}

#[test]
fn a_backup_during_writes_restores_to_a_prefix_of_every_writer() {
    let live = tempfile::tempdir().unwrap();
    let env = Arc::new(Env::open(live.path(), opts(), registry()).unwrap());
    for name in ["plain", "txn", "bulk"] {
        env.create_tree(name, None).unwrap();
    }
    // Enough data that round 1 takes a while at the throttled rate.
    let plain = env.open_tree("plain").unwrap();
    let mut rng = Rng::new(99);
    for chunk in 0..PREFILL / 1000 {
        let ops = (0..1000u32)
            .map(|i| {
                let v = (0..12).flat_map(|_| rng.next().to_le_bytes()).collect();
                (format!("{:05}", chunk * 1000 + i).into_bytes(), Op::Put(v))
            })
            .collect();
        plain.write_batch(ops).unwrap();
    }
    drop(plain);
    let journals: Arc<Vec<Journal>> = Arc::new((0..4).map(|_| Journal::default()).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4u64)
        .map(|w| {
            let (env, journals, stop) = (env.clone(), journals.clone(), stop.clone());
            std::thread::spawn(move || match w {
                0 | 1 => write_loop(&env, w, &journals[w as usize], &stop),
                2 => txn_loop(&env, &journals[2], &stop),
                _ => bulk_loop(&env, &journals[3], &stop),
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    let before: Vec<u64> = journals
        .iter()
        .map(|j| j.acked.load(Ordering::SeqCst))
        .collect();
    let out = tempfile::tempdir().unwrap();
    let progress = BackupProgress::default();
    let checkpoints = env.stats().checkpoints;
    let summary = env
        .backup(
            &out.path().join("b"),
            &BackupOptions {
                base: None,
                // Slow enough that checkpoints run while round 1 copies (BKP1, BKP2).
                throttle_bytes_per_sec: Some(2 << 20),
            },
            &progress,
        )
        .unwrap();
    let during = env.stats().checkpoints - checkpoints;
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(summary.end_lsn >= summary.begin_lsn);
    assert!(summary.blocks_copied > 0);
    // Checkpoints of their own ran while round 1 copied (two are the backup's).
    eprintln!("{summary:?}, {during} checkpoints during the backup");
    assert!(
        during > 2,
        "{during} checkpoints during a {:?} backup",
        summary.elapsed
    );
    assert_eq!(progress.phase.load(Ordering::Relaxed), 3);

    let to = out.path().join("restored");
    let r = restore_backup(&RealVfs, &out.path().join("b"), &to).unwrap();
    assert_eq!(r.end_lsn, summary.end_lsn);
    let copy = restored(&to);
    let plain = copy.open_tree("plain").unwrap();
    let all = scan(&plain, b"");
    assert_eq!(
        all.iter().filter(|(k, _)| k.len() == 5).count(),
        PREFILL as usize
    );
    for w in 0..2u64 {
        let suffix = format!("-w{w}");
        let got: Vec<_> = all
            .iter()
            .filter(|(k, _)| k.ends_with(suffix.as_bytes()))
            .cloned()
            .collect();
        check_prefix(
            w,
            &got,
            &journals[w as usize].ops.lock(),
            before[w as usize],
        );
    }
    let txn = copy.open_tree("txn").unwrap();
    let values: Vec<_> = scan(&txn, b"t").into_iter().map(|(_, v)| v).collect();
    assert_eq!(values.len(), 4, "a transaction restored in part");
    assert!(values.windows(2).all(|w| w[0] == w[1]), "{values:?}");
    let n = u64::from_le_bytes(values[0].clone().try_into().unwrap());
    assert!(
        n >= before[2],
        "transaction {n} restored, {} acknowledged",
        before[2]
    );
    let bulk = copy.open_tree("bulk").unwrap();
    let rows = scan(&bulk, b"");
    assert_eq!(rows.len(), 300, "a bulk load restored in part");
    let g = u64::from_le_bytes(rows[0].1.clone().try_into().unwrap());
    assert!(
        rows.iter().all(|(_, v)| v == &rows[0].1),
        "generations mixed"
    );
    assert!(
        g >= before[3],
        "bulk load {g} restored, {} acknowledged",
        before[3]
    );
    for name in copy.tree_names() {
        copy.open_tree(&name).unwrap().check_invariants().unwrap();
    }
    drop((plain, txn, bulk));
    copy.close().unwrap();
    let report = verify_environment(&RealVfs, &to).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(report.blocks > 0 && report.trees >= 3);
}

/// Rows `from..from + n` of tree "t", in 500-row batches (one commit each).
fn fill(env: &Env, from: u32, n: u32) {
    let t = env.open_tree("t").unwrap();
    let rows: Vec<u32> = (from..from + n).collect();
    for chunk in rows.chunks(500) {
        let ops = chunk
            .iter()
            .map(|i| {
                let v = format!("value {i} {}", "x".repeat(40)).into_bytes();
                (i.to_be_bytes().to_vec(), Op::Put(v))
            })
            .collect();
        t.write_batch(ops).unwrap();
    }
}

fn rows(dir: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let env = restored(dir);
    let out = scan(&env.open_tree("t").unwrap(), b"");
    env.close().unwrap();
    out
}

#[test]
fn an_incremental_backup_copies_what_changed_and_restores_through_its_base() {
    let live = tempfile::tempdir().unwrap();
    let env = Env::open(live.path(), opts(), registry()).unwrap();
    env.create_tree("t", None).unwrap();
    fill(&env, 0, 20_000);
    let out = tempfile::tempdir().unwrap();
    let (full, incr) = (out.path().join("full"), out.path().join("incr"));
    let p = BackupProgress::default();
    let first = env.backup(&full, &BackupOptions::default(), &p).unwrap();
    assert_eq!(first.blocks_from_base, 0);
    fill(&env, 20_000, 500);
    let opts = BackupOptions {
        base: Some(full.clone()),
        throttle_bytes_per_sec: None,
    };
    let second = env
        .backup(&incr, &opts, &BackupProgress::default())
        .unwrap();
    assert_eq!(second.base_id, first.id);
    assert!(
        second.blocks_from_base > second.blocks_copied,
        "an increment after 500 appended rows copied {} blocks and took {} from its base",
        second.blocks_copied,
        second.blocks_from_base
    );
    let want = scan(&env.open_tree("t").unwrap(), b"");
    assert_eq!(want.len(), 20_500);
    let (a, b) = (out.path().join("ra"), out.path().join("rb"));
    assert_eq!(restore_backup(&RealVfs, &incr, &b).unwrap().chain, 2);
    assert_eq!(rows(&b), want);
    restore_backup(&RealVfs, &full, &a).unwrap();
    assert_eq!(rows(&a).len(), 20_000);

    // An increment whose base is gone, or is another backup, is refused.
    let moved = out.path().join("moved");
    std::fs::rename(&full, &moved).unwrap();
    let err = restore_backup(&RealVfs, &incr, &out.path().join("rc")).unwrap_err();
    assert!(err.to_string().contains("no backup.manifest"), "{err}");
    let other = env.backup(&full, &BackupOptions::default(), &p).unwrap();
    assert_ne!(other.id, first.id);
    let err = restore_backup(&RealVfs, &incr, &out.path().join("rd")).unwrap_err();
    assert!(err.to_string().contains("is not the base backup"), "{err}");
}

/// Flips one byte of `file` at `offset` (from its end when negative).
fn flip(file: &Path, offset: i64) {
    let mut bytes = std::fs::read(file).unwrap();
    let at = if offset < 0 {
        bytes.len() - (-offset) as usize
    } else {
        offset as usize
    };
    bytes[at] ^= 0x10;
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn a_damaged_backup_is_refused_at_restore() {
    let live = tempfile::tempdir().unwrap();
    let env = Env::open(live.path(), opts(), registry()).unwrap();
    env.create_tree("t", None).unwrap();
    fill(&env, 0, 5_000);
    let out = tempfile::tempdir().unwrap();
    let good = out.path().join("good");
    env.backup(&good, &BackupOptions::default(), &BackupProgress::default())
        .unwrap();
    let copy = |name: &str| {
        let to = out.path().join(name);
        std::process::Command::new("cp")
            .args(["-r"])
            .arg(&good)
            .arg(&to)
            .status()
            .unwrap();
        to
    };
    let blocks: Vec<_> = std::fs::read_dir(&good)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "blocks"))
        .collect();
    assert!(!blocks.is_empty());
    type Damage<'a> = Box<dyn Fn(&Path) + 'a>;
    let cases: Vec<(&str, Damage<'_>, &str)> = vec![
        (
            "block",
            Box::new(|d: &Path| flip(&d.join(blocks[0].file_name().unwrap()), 100)),
            "hash mismatch",
        ),
        (
            "log",
            Box::new(|d: &Path| {
                let wal = std::fs::read_dir(d.join("wal")).unwrap().next().unwrap();
                flip(&wal.unwrap().path(), 20)
            }),
            "does not match the backup manifest",
        ),
        (
            "manifest",
            Box::new(|d: &Path| flip(&d.join("backup.manifest"), 30)),
            "manifest checksum mismatch",
        ),
        (
            "catalog",
            Box::new(|d: &Path| {
                let c = std::fs::read_dir(d)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.to_string_lossy().contains("catalog-"))
                    .unwrap();
                flip(&c, -1)
            }),
            "does not match the backup manifest",
        ),
        (
            "unfinished",
            Box::new(|d: &Path| std::fs::remove_file(d.join("backup.manifest")).unwrap()),
            "is not a complete backup",
        ),
    ];
    for (name, damage, expect) in cases {
        let dir = copy(name);
        damage(&dir);
        let err =
            restore_backup(&RealVfs, &dir, &out.path().join(format!("r-{name}"))).expect_err(name);
        assert!(err.to_string().contains(expect), "{name}: {err}");
    }
    restore_backup(&RealVfs, &good, &out.path().join("r-good")).unwrap();
    assert_eq!(rows(&out.path().join("r-good")).len(), 5_000);
}

#[test]
fn a_cancelled_backup_leaves_the_environment_as_it_was() {
    let live = tempfile::tempdir().unwrap();
    let env = Arc::new(Env::open(live.path(), opts(), registry()).unwrap());
    env.create_tree("t", None).unwrap();
    fill(&env, 0, 20_000);
    let out = tempfile::tempdir().unwrap();
    let progress = Arc::new(BackupProgress::default());
    let canceller = {
        let progress = progress.clone();
        std::thread::spawn(move || {
            while progress.bytes_done.load(Ordering::Relaxed) < 64 << 10 {
                std::thread::sleep(Duration::from_millis(5));
            }
            progress.cancel.store(true, Ordering::Relaxed);
        })
    };
    let slow = BackupOptions {
        base: None,
        throttle_bytes_per_sec: Some(256 << 10),
    };
    let err = env
        .backup(&out.path().join("cancelled"), &slow, &progress)
        .unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(err, Error::Cancelled), "{err}");
    // Writes and checkpoints go on, the pins are gone (the file shrinks back once nothing references the
    // superseded blocks), and another backup runs.
    fill(&env, 0, 20_000);
    env.checkpoint().unwrap();
    env.checkpoint().unwrap();
    let done = env
        .backup(
            &out.path().join("second"),
            &BackupOptions::default(),
            &BackupProgress::default(),
        )
        .unwrap();
    assert!(done.blocks_copied > 0);
    restore_backup(&RealVfs, &out.path().join("second"), &out.path().join("r")).unwrap();
    assert_eq!(rows(&out.path().join("r")).len(), 20_000);
    // A directory that is not empty is refused.
    let err = env
        .backup(
            &out.path().join("second"),
            &BackupOptions::default(),
            &BackupProgress::default(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
}

#[test]
fn verify_reports_a_damaged_block_with_its_file_and_place() {
    let live = tempfile::tempdir().unwrap();
    {
        let env = Env::open(live.path(), opts(), registry()).unwrap();
        env.create_tree("t", None).unwrap();
        fill(&env, 0, 5_000);
        env.close().unwrap();
    }
    let clean = verify_environment(&RealVfs, live.path()).unwrap();
    assert!(clean.problems.is_empty(), "{:?}", clean.problems);
    assert!(clean.blocks > 1);
    let tree = std::fs::read_dir(live.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bt"))
        .unwrap();
    // A byte inside the block area (blocks start at 8192; a checkpoint's blocks fill it from there).
    flip(&tree, 8192 + 60);
    let report = verify_environment(&RealVfs, live.path()).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let p = &report.problems[0];
    assert!(
        p.contains(&tree.display().to_string()) && p.contains("block at offset "),
        "{p}"
    );
    // A running environment is refused.
    let _env = Env::open(live.path(), opts(), registry());
    if _env.is_ok() {
        assert!(matches!(
            verify_environment(&RealVfs, live.path()),
            Err(Error::Locked(_))
        ));
    }
}
