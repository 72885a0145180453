//! The node cache is one budget for the whole environment: the least-recently-used nodes of every tree
//! are evicted first, so a tree nobody touches cannot keep the cache from the tree in use, and the cache
//! stays within its margin of the budget.

mod common;

use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions};
use common::registry;

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
