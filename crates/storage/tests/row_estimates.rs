//! `TreeHandle::sample` (design.md STA1-STA3): row estimates from a few descents on randomized
//! trees of several sizes and shapes (tiny nodes, so a few thousand rows make trees of three and
//! more levels), with deletes, range deletes and messages still buffered in internal nodes; exact
//! counts for small trees; keys of the sampled runs in order and present; uncommitted rows not
//! counted.

mod common;

use betula_storage::{
    Codec, Durability, Env, EnvOptions, Op, SampleOptions, TreeHandle, TreeOptions, TxnOptions,
};
use common::{registry, Rng};
use std::collections::BTreeSet;

fn env(dir: &std::path::Path, node: u32, basement: u32, fanout: u16) -> Env {
    let opts = EnvOptions {
        cache_bytes: 8 << 20,
        durability: Durability::NoSync,
        background: false,
        default_tree: TreeOptions {
            node_size_bytes: node,
            basement_size_bytes: basement,
            fanout,
            codec: Codec::Lz4,
            level: 0,
        },
        ..EnvOptions::default()
    };
    Env::open(dir, opts, registry()).unwrap()
}

fn key(k: u64) -> Vec<u8> {
    format!("k{k:012}").into_bytes()
}

/// Puts `n` random keys (values of 10 to 40 bytes) into `t`, then deletes about `delete_percent`
/// of them one by one, and returns the keys left.
fn fill(t: &TreeHandle, rng: &mut Rng, n: u64, delete_percent: u64) -> BTreeSet<Vec<u8>> {
    let mut keys = BTreeSet::new();
    let mut batch = Vec::new();
    while (keys.len() as u64) < n {
        let k = key(rng.below(u64::MAX / 2));
        if keys.insert(k.clone()) {
            let v = vec![b'v'; 10 + rng.below(31) as usize];
            batch.push((k, Op::Put(v)));
        }
        if batch.len() == 500 {
            t.write_batch(std::mem::take(&mut batch)).unwrap();
        }
    }
    t.write_batch(batch).unwrap();
    let gone: Vec<Vec<u8>> = keys
        .iter()
        .filter(|_| rng.chance(delete_percent))
        .cloned()
        .collect();
    for chunk in gone.chunks(500) {
        let ops = chunk.iter().map(|k| (k.clone(), Op::Delete)).collect();
        t.write_batch(ops).unwrap();
        for k in chunk {
            keys.remove(k);
        }
    }
    keys
}

fn estimate(t: &TreeHandle, descents: u32) -> betula_storage::TreeSample {
    t.sample(&SampleOptions {
        descents,
        exact_up_to_rows: 0,
        keys: true,
        run_keys: 0,
    })
    .unwrap()
}

fn assert_within(got: u64, want: u64, percent: u64, ctx: &str) {
    let (lo, hi) = (want * (100 - percent) / 100, want * (100 + percent) / 100);
    assert!(
        (lo..=hi).contains(&got),
        "{ctx}: estimate {got}, rows {want} (allowed {lo}..={hi})"
    );
}

/// Each run's keys are in order and are keys of the tree; the runs come in key order.
fn assert_runs_sound(sample: &betula_storage::TreeSample, keys: &BTreeSet<Vec<u8>>, ctx: &str) {
    let mut prev: Option<&Vec<u8>> = None;
    for run in &sample.runs {
        assert_eq!(run.keys.len() as u64, run.entries, "{ctx}");
        for k in &run.keys {
            assert!(
                keys.contains(k),
                "{ctx}: sampled key {k:?} is not in the tree"
            );
            assert!(
                prev.is_none_or(|p| p < k),
                "{ctx}: sampled keys out of order"
            );
            prev = Some(k);
        }
    }
}

#[test]
fn estimates_are_close_on_many_level_trees_of_several_sizes() {
    let shapes = [(4096, 512, 4), (8192, 1024, 8), (16384, 1024, 16)];
    for (seed, (node, basement, fanout)) in shapes.into_iter().enumerate() {
        for (n, delete_percent) in [(3_000, 0), (12_000, 30), (40_000, 10)] {
            let ctx = format!("node {node}, basement {basement}, fanout {fanout}, {n} rows");
            let dir = tempfile::tempdir().unwrap();
            let env = env(dir.path(), node, basement, fanout);
            let t = env.create_tree("t", None).unwrap();
            let mut rng = Rng::new(seed as u64 * 7 + n);
            let keys = fill(&t, &mut rng, n, delete_percent);
            let stats = t.stats();
            assert!(stats.height >= 2, "{ctx}: height {}", stats.height);
            let s = estimate(&t, 64);
            assert!(!s.exact, "{ctx}");
            assert_within(s.rows, keys.len() as u64, 20, &ctx);
            assert_runs_sound(&s, &keys, &ctx);
            // An unchanged tree gives the same estimate again.
            assert_eq!(estimate(&t, 64).rows, s.rows, "{ctx}");
        }
    }
}

#[test]
fn messages_still_buffered_count_as_rows_and_deletes_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), 16384, 1024, 8);
    let t = env.create_tree("t", None).unwrap();
    let mut rng = Rng::new(11);
    let mut keys = fill(&t, &mut rng, 30_000, 0);
    // More puts and deletes in small batches: they stay in the internal nodes' buffers for a while.
    for _ in 0..4_000 {
        let k = key(rng.below(u64::MAX / 2));
        t.put(&k, b"late").unwrap();
        keys.insert(k);
    }
    let victims: Vec<Vec<u8>> = keys.iter().step_by(3).cloned().collect();
    for k in &victims {
        t.delete(k).unwrap();
        keys.remove(k);
    }
    assert!(
        t.stats().buffered_messages > 0,
        "no message left in a buffer"
    );
    let s = estimate(&t, 64);
    assert_within(s.rows, keys.len() as u64, 20, "buffered");
    assert_runs_sound(&s, &keys, "buffered");
    // A range delete of about half of the keys, still pending, takes its rows away.
    let (mid, end) = (key(u64::MAX / 4), key(u64::MAX / 2));
    t.range_delete(&mid, &end).unwrap();
    keys.retain(|k| k < &mid || k >= &end);
    let s = estimate(&t, 64);
    assert_within(s.rows, keys.len() as u64, 20, "after a range delete");
    assert_runs_sound(&s, &keys, "after a range delete");
}

#[test]
fn runs_read_on_to_the_keys_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), 8192, 1024, 8);
    let t = env.create_tree("t", None).unwrap();
    let keys = fill(&t, &mut Rng::new(21), 20_000, 10);
    let all: Vec<Vec<u8>> = keys.iter().cloned().collect();
    let s = t
        .sample(&SampleOptions {
            descents: 16,
            exact_up_to_rows: 0,
            keys: true,
            run_keys: 300,
        })
        .unwrap();
    assert!(!s.exact);
    for run in &s.runs {
        // Consecutive keys of the tree, from the first key of the basement reached.
        let at = all.binary_search(&run.keys[0]).unwrap();
        let want = &all[at..(at + run.keys.len()).min(all.len())];
        assert_eq!(run.keys, want);
        assert!(run.keys.len() >= 300 || at + run.keys.len() == all.len());
        assert!(run.keys.len() as u64 >= run.entries);
    }
}

#[test]
fn small_trees_are_counted_exactly_with_every_key() {
    for n in [0, 1, 7, 300, 5_000] {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path(), 8192, 1024, 8);
        let t = env.create_tree("t", None).unwrap();
        let mut rng = Rng::new(n + 3);
        let keys = fill(&t, &mut rng, n, 20);
        let s = t
            .sample(&SampleOptions {
                keys: true,
                ..SampleOptions::default()
            })
            .unwrap();
        assert!(s.exact, "{n} rows");
        assert_eq!(s.rows, keys.len() as u64, "{n} rows");
        let all: Vec<Vec<u8>> = keys.iter().cloned().collect();
        assert_eq!(s.runs.len(), 1);
        assert_eq!(s.runs[0].keys, all, "{n} rows");
        // Without keys asked for, the count alone.
        let s = t.sample(&SampleOptions::default()).unwrap();
        assert_eq!((s.rows, s.runs[0].keys.len()), (keys.len() as u64, 0));
    }
}

#[test]
fn a_tree_whose_root_is_a_leaf_is_counted_exactly_even_without_a_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), 1 << 20, 4096, 16);
    let t = env.create_tree("t", None).unwrap();
    let keys = fill(&t, &mut Rng::new(5), 2_000, 0);
    assert_eq!(t.stats().height, 0);
    let s = estimate(&t, 4);
    assert!(s.exact);
    assert_eq!(s.rows, keys.len() as u64);
}

#[test]
fn rows_of_a_transaction_not_committed_are_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), 8192, 1024, 8);
    let t = env.create_tree("t", None).unwrap();
    let keys = fill(&t, &mut Rng::new(9), 1_000, 0);
    let mut txn = env.begin(TxnOptions::default()).unwrap();
    for i in 0..500 {
        txn.put(&t, &key(u64::MAX / 2 + i), b"pending").unwrap();
    }
    let s = t.sample(&SampleOptions::default()).unwrap();
    assert_eq!((s.rows, s.exact), (keys.len() as u64, true));
    txn.commit().unwrap();
    let s = t.sample(&SampleOptions::default()).unwrap();
    assert_eq!(s.rows, keys.len() as u64 + 500);
}
