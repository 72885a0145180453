//! The node cache is one budget for the whole environment: the least-recently-used nodes of every tree
//! are evicted first, so a tree nobody touches cannot keep the cache from the tree in use, and the cache
//! stays within its margin of the budget.

mod common;

use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions};
use common::registry;
use std::ops::Bound;

const CACHE: u64 = 1 << 20;

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: CACHE,
        durability: Durability::NoSync,
        background: false,
        default_tree: TreeOptions {
            node_size_bytes: 16 << 10,
            basement_size_bytes: 2 << 10,
            fanout: 8,
            codec: Codec::Lz4,
            ..TreeOptions::default()
        },
        ..EnvOptions::default()
    }
}

fn key(i: u64) -> [u8; 8] {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes()
}

#[test]
fn an_idle_tree_does_not_keep_the_cache_from_the_tree_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    // A tree of ~6 MiB, six times the cache, then left alone.
    let cold = env.create_tree("cold", None).unwrap();
    for i in 0..60_000u64 {
        cold.put(&key(i), &[7u8; 100]).unwrap();
    }
    // A tree whose whole content (~300 KiB) fits in the cache.
    let hot = env.create_tree("hot", None).unwrap();
    for i in 0..20_000u64 {
        hot.put(&key(i), &i.to_le_bytes()).unwrap();
    }
    for i in 0..20_000u64 {
        assert_eq!(hot.get(&key(i)).unwrap(), Some(i.to_le_bytes().to_vec()));
    }
    // Once read, the hot tree stays cached: reading it again reads nothing from disk.
    let before = env.stats().node_reads;
    for _ in 0..3 {
        for i in 0..20_000u64 {
            assert_eq!(hot.get(&key(i)).unwrap(), Some(i.to_le_bytes().to_vec()));
        }
    }
    let reads = env.stats().node_reads - before;
    assert_eq!(
        reads, 0,
        "the hot tree's nodes were evicted while the idle tree's stayed"
    );
    let s = env.stats();
    assert!(
        s.cache_used_bytes <= CACHE + CACHE / 4,
        "cache {} over its budget {CACHE}",
        s.cache_used_bytes
    );
    // The cold tree is intact.
    for i in (0..60_000u64).step_by(997) {
        assert_eq!(cold.get(&key(i)).unwrap(), Some(vec![7u8; 100]));
    }
}

/// Basements read from disk stay in the cache decoded (packed): reading a key again reads no node or whole
/// basement again, reads after eviction equal what was written (with pending messages on top), and the cache stays within
/// its margin while a tree several times its size is read at random.
#[test]
fn cached_basements_are_read_once_and_reads_match_after_eviction() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    let mut model = std::collections::BTreeMap::new();
    for i in 0..40_000u64 {
        let v = vec![(i % 251) as u8; 60 + (i % 80) as usize];
        t.put(&key(i), &v).unwrap();
        model.insert(key(i), v);
    }
    env.checkpoint().unwrap();
    // Pending messages above the leaves: overwrites and deletes after the checkpoint.
    for i in (0..40_000u64).step_by(7) {
        if i % 2 == 0 {
            t.delete(&key(i)).unwrap();
            model.remove(&key(i));
        } else {
            let v = i.to_le_bytes().to_vec();
            t.put(&key(i), &v).unwrap();
            model.insert(key(i), v);
        }
    }
    let mut x = 12345u64;
    for round in 0..4 {
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (x >> 33) % 41_000; // some keys were never written
            assert_eq!(
                t.get(&key(i)).unwrap().as_ref(),
                model.get(&key(i)),
                "key {i}, round {round}"
            );
            // The same key again: its buffers and node are cached; its basement is too, or the read
            // decompresses the one frame that holds the key (design.md FRM1).
            let before = env.stats();
            assert_eq!(t.get(&key(i)).unwrap().as_ref(), model.get(&key(i)));
            let after = env.stats();
            assert_eq!(after.part_reads, before.part_reads, "key {i} re-read");
            assert_eq!(after.node_reads, before.node_reads, "key {i} re-read");
            assert!(after.frame_reads <= before.frame_reads + 1, "key {i}");
        }
        let s = env.stats();
        assert!(
            s.cache_used_bytes <= CACHE + CACHE / 4,
            "cache {} over its budget {CACHE}",
            s.cache_used_bytes
        );
    }
    assert!(
        env.stats().part_reads > 1000,
        "the tree was not evicted and re-read"
    );
    // A full scan after all that agrees with the model too.
    let all: Vec<_> = t
        .range(Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(all.len(), model.len());
    for ((k, v), (mk, mv)) in all.iter().zip(&model) {
        assert_eq!((k.as_slice(), v), (mk.as_slice(), mv));
    }
}

/// With the cache full, a point read of a basement not in memory decompresses the one frame that holds
/// the key and caches nothing, until the basement has been read that way `COLD_READS_TO_CACHE` times; then
/// it is loaded and later reads of it read nothing (design.md FRM1-FRM2).
#[test]
fn cold_point_reads_decompress_one_frame_until_the_basement_is_hot() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    let mut model = std::collections::BTreeMap::new();
    for i in 0..60_000u64 {
        let v = vec![(i % 253) as u8; 40 + (i % 90) as usize];
        t.put(&key(i), &v).unwrap();
        model.insert(key(i), v);
    }
    env.checkpoint().unwrap();
    let mut x = 99u64;
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (x >> 33) % 61_000;
        assert_eq!(
            t.get(&key(i)).unwrap().as_ref(),
            model.get(&key(i)),
            "key {i}"
        );
    }
    let s = env.stats();
    assert!(s.frame_reads > 5_000, "{} frame reads", s.frame_reads);
    assert!(
        s.cache_used_bytes <= CACHE + CACHE / 4,
        "cache {} over its budget {CACHE}",
        s.cache_used_bytes
    );
    // One key read again and again: a few frame reads, then one load, then nothing.
    let k = key(4242);
    let before = env.stats();
    for _ in 0..12 {
        assert_eq!(t.get(&k).unwrap().as_ref(), model.get(&k));
    }
    let mid = env.stats();
    assert!(mid.frame_reads - before.frame_reads <= 8);
    assert!(mid.part_reads - before.part_reads <= 1);
    assert_eq!(t.get(&k).unwrap().as_ref(), model.get(&k));
    let after = env.stats();
    assert_eq!(
        after.frame_reads, mid.frame_reads,
        "the hot basement was not cached"
    );
    assert_eq!(after.part_reads, mid.part_reads);
}

/// A lookup of a key the tree lacks is answered by the key filters of the partitions not in memory
/// (design.md FLT1–FLT2): in a tree six times the cache, almost no such lookup reads a basement or buffer, and
/// every present key is still found.
#[test]
fn key_filters_answer_absent_keys_without_reading_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::open(dir.path(), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    for i in 0..60_000u64 {
        t.put(&key(i), &[7u8; 100]).unwrap();
    }
    env.checkpoint().unwrap();
    t.check_invariants().unwrap();
    let (reads0, skips0) = (env.stats().part_reads, env.stats().filter_skips);
    let lookups = 20_000u64;
    for i in 1_000_000..1_000_000 + lookups {
        assert_eq!(t.get(&key(i)).unwrap(), None);
    }
    let s = env.stats();
    let (reads, skips) = (s.part_reads - reads0, s.filter_skips - skips0);
    assert!(
        reads < lookups / 10,
        "{reads} partitions read for {lookups} absent keys"
    );
    assert!(
        skips > lookups / 2,
        "only {skips} lookups of {lookups} answered by a filter"
    );
    for i in (0..60_000u64).step_by(101) {
        assert_eq!(t.get(&key(i)).unwrap(), Some(vec![7u8; 100]));
    }
    assert!(s.cache_used_bytes <= CACHE + CACHE / 4);
}
