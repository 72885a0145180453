//! Space reclamation (design.md CKP8): after checkpoints, a tree file is truncated to its used area and its
//! large free extents no longer occupy disk blocks, while every live row still reads back, before and
//! after a reopen.

mod common;

use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions};
use common::registry;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 1 << 20,
        durability: Durability::NoSync,
        background: false,
        default_tree: TreeOptions {
            node_size_bytes: 256 << 10,
            basement_size_bytes: 16 << 10,
            fanout: 8,
            codec: Codec::None,
            ..TreeOptions::default()
        },
        ..EnvOptions::default()
    }
}

fn key(i: u64) -> [u8; 8] {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes()
}

fn value(i: u64, round: u64) -> Vec<u8> {
    let mut v = vec![(i ^ round) as u8; 1000];
    v[..8].copy_from_slice(&i.to_le_bytes());
    v[8..16].copy_from_slice(&round.to_le_bytes());
    v
}

/// The tree file of the only tree in `dir`.
fn tree_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bt"))
        .collect();
    assert_eq!(files.len(), 1, "one tree file expected: {files:?}");
    files.pop().unwrap()
}

#[test]
fn checkpoints_give_free_space_back_and_keep_every_live_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = BTreeMap::new();
    let (peak, punched_ok) = {
        let env = Env::open(dir.path(), opts(), registry()).unwrap();
        let t = env.create_tree("t", None).unwrap();
        // Three rounds of overwriting 4,000 rows of 1 KB (4 MB, four times the cache): copy-on-write leaves
        // every superseded node's place free after the next checkpoint.
        for round in 0..3 {
            for i in 0..4_000u64 {
                t.put(&key(i), &value(i, round)).unwrap();
                model.insert(key(i).to_vec(), value(i, round));
            }
            env.checkpoint().unwrap();
        }
        let peak = std::fs::metadata(tree_file(dir.path())).unwrap().len();
        // Delete nine rows in ten: most of the file becomes free.
        for i in (0..4_000u64).filter(|i| i % 10 != 0) {
            t.delete(&key(i)).unwrap();
            model.remove(key(i).as_slice());
        }
        env.checkpoint().unwrap();
        env.checkpoint().unwrap();
        let st = t.stats();
        let meta = std::fs::metadata(tree_file(dir.path())).unwrap();
        // The last place may end inside its aligned block, so the file can be a little shorter than the
        // allocator's end, never longer.
        assert!(
            meta.len() <= st.file_bytes,
            "the file ({} bytes) is truncated to the allocator's end ({})",
            meta.len(),
            st.file_bytes
        );
        let allocated = meta.blocks() * 512;
        let live = st.file_bytes - st.free_bytes;
        // Free extents of 256 KiB and more hold no blocks; smaller ones may (at most one per live place,
        // and the test's nodes are 256 KiB, so allow the live size again as slack).
        let punched_ok = allocated <= 2 * live + (256 << 10);
        for (k, v) in &model {
            assert_eq!(t.get(k).unwrap().as_deref(), Some(v.as_slice()));
        }
        env.close().unwrap();
        (peak, (punched_ok, allocated, live, st.free_bytes))
    };
    let (ok, allocated, live, free) = punched_ok;
    assert!(
        ok,
        "{allocated} bytes allocated for {live} live bytes ({free} free, peak file {peak})"
    );
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    let mut n = 0;
    for (k, v) in &model {
        assert_eq!(t.get(k).unwrap().as_deref(), Some(v.as_slice()));
        n += 1;
    }
    assert_eq!(n, 400);
}

/// Bytes of the live log segments in `dir` (not those kept for reuse, design.md SEG1).
fn log_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with("free-"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// Names of the log segments kept for reuse in `dir`.
fn free_segments(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("free-"))
        .collect()
}

#[test]
fn retired_log_segments_are_kept_for_reuse_up_to_the_option_and_no_more() {
    for keep in [0usize, 2] {
        let dir = tempfile::tempdir().unwrap();
        // Synced puts write the log record by record, so it rolls every 64 KiB.
        let o = EnvOptions {
            durability: Durability::Sync,
            wal_segment_bytes: 64 << 10,
            wal_recycle_segments: keep,
            ..opts()
        };
        let env = Env::open(dir.path(), o.clone(), registry()).unwrap();
        let t = env.create_tree("t", None).unwrap();
        for round in 0..4u64 {
            for i in 0..500u64 {
                t.put(&key(i), &value(i, round)).unwrap();
            }
            env.checkpoint().unwrap();
            assert!(
                free_segments(dir.path()).len() <= keep,
                "{keep}: {:?}",
                free_segments(dir.path())
            );
        }
        assert_eq!(
            free_segments(dir.path()).len(),
            keep,
            "segments kept with {keep}"
        );
        // Reused segments hold older records after the new ones; reading the log back ignores them.
        for i in 0..300u64 {
            t.put(&key(i), &value(i, 9)).unwrap();
        }
        drop(t);
        drop(env);
        let env = Env::open(dir.path(), o, registry()).unwrap();
        let t = env.open_tree("t").unwrap();
        for i in 0..500u64 {
            let round = if i < 300 { 9 } else { 3 };
            assert_eq!(t.get(&key(i)).unwrap(), Some(value(i, round)), "key {i}");
        }
        // A log gone quiet gives the kept segments back: the pool never outgrows the segments the log
        // started since the previous checkpoint (SEG3).
        env.checkpoint().unwrap();
        t.put(&key(0), &value(0, 3)).unwrap();
        env.checkpoint().unwrap();
        assert!(free_segments(dir.path()).len() <= 1, "{keep}");
        env.checkpoint().unwrap();
        // Each checkpoint starts a segment, so one stays kept, and it only held a checkpoint record.
        let kept = free_segments(dir.path());
        assert!(kept.len() <= 1, "{keep}: {kept:?}");
        for name in kept {
            let len = std::fs::metadata(dir.path().join("wal").join(&name))
                .unwrap()
                .len();
            assert!(len < 4096, "{name} of {len} bytes kept by an idle log");
        }
    }
}

#[test]
fn a_checkpoint_leaves_only_the_log_written_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    for i in 0..2_000u64 {
        t.put(&key(i), &value(i, 0)).unwrap();
    }
    env.checkpoint().unwrap();
    // 2 MB of records went into a segment of 64 MiB; the checkpoint rolled the log, so that segment is gone.
    assert!(
        log_bytes(dir.path()) < 64 << 10,
        "{} log bytes left after a checkpoint",
        log_bytes(dir.path())
    );
    for i in 0..10u64 {
        t.put(&key(i), &value(i, 1)).unwrap();
    }
    drop(t);
    drop(env);
    // Reopening replays the records written after the checkpoint on top of it.
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    for i in 0..2_000u64 {
        let round = u64::from(i < 10);
        assert_eq!(t.get(&key(i)).unwrap(), Some(value(i, round)));
    }
}
