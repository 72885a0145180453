//! Model-based randomized tests: random puts, deletes, upserts, range deletes and broadcasts against a
//! BTreeMap, across node sizes, fanouts, codecs and cache sizes, with checkpoints and reopens in between.
//! Every configuration must give the model's results.

mod common;

use betula_storage::vfs::SimVfs;
use betula_storage::{Codec, Durability, Env, EnvOptions, TreeOptions};
use common::{random_op, registry, Model, Rng};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

struct Config {
    tree: TreeOptions,
    cache_bytes: u64,
}

fn configs() -> Vec<Config> {
    let small = |codec, fanout, node: u32, basement: u32| TreeOptions {
        node_size_bytes: node,
        basement_size_bytes: basement,
        fanout,
        codec,
        level: 0,
    };
    vec![
        Config {
            tree: small(Codec::None, 4, 2048, 512),
            cache_bytes: 64 << 10,
        },
        Config {
            tree: small(Codec::Zstd, 8, 4096, 1024),
            cache_bytes: 32 << 10,
        },
        Config {
            tree: small(Codec::Lz4, 3, 1024, 256),
            cache_bytes: 1 << 30,
        },
        Config {
            tree: small(Codec::Snappy, 16, 16384, 2048),
            cache_bytes: 128 << 10,
        },
        Config {
            tree: small(Codec::Zlib, 5, 3000, 700),
            cache_bytes: 48 << 10,
        },
        Config {
            tree: small(Codec::Lzma, 6, 8192, 1024),
            cache_bytes: 96 << 10,
        },
    ]
}

fn env_opts(cfg: &Config) -> EnvOptions {
    EnvOptions {
        cache_bytes: cfg.cache_bytes,
        durability: Durability::Sync,
        background: false,
        default_tree: cfg.tree,
        wal_segment_bytes: 64 << 10,
        // The log's frames go through the same codecs as the tree's nodes.
        wal_codec: cfg.tree.codec,
        ..EnvOptions::default()
    }
}

fn check_all(t: &betula_storage::TreeHandle, model: &Model, rng: &mut Rng, space: u64, ctx: &str) {
    let got: Vec<(Vec<u8>, Vec<u8>)> = t
        .range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap();
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.map.clone().into_iter().collect();
    if got != want {
        let gm: std::collections::BTreeMap<_, _> = got.iter().cloned().collect();
        for (k, v) in &model.map {
            if gm.get(k) != Some(v) {
                panic!(
                    "{ctx}: full scan differs first at model key {:?}: scan {:?} get {:?} model {:?}",
                    String::from_utf8_lossy(k),
                    gm.get(k),
                    t.get(k).unwrap(),
                    v
                );
            }
        }
        for (k, v) in &gm {
            if model.map.get(k) != Some(v) {
                panic!(
                    "{ctx}: scan has extra key {:?} = {v:?}, get {:?}",
                    String::from_utf8_lossy(k),
                    t.get(k).unwrap()
                );
            }
        }
    }
    let mut rev: Vec<(Vec<u8>, Vec<u8>)> = t
        .range(Bound::Unbounded, Bound::Unbounded, true)
        .collect::<Result<_, _>>()
        .unwrap();
    rev.reverse();
    assert!(rev == want, "{ctx}: reverse scan differs");
    for _ in 0..20 {
        let k = common::key(rng.below(space));
        assert_eq!(t.get(&k).unwrap(), model.map.get(&k).cloned(), "{ctx}: get");
        let a = common::key(rng.below(space));
        let b = common::key(rng.below(space));
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let reverse = rng.chance(50);
        let incl = rng.chance(50);
        let upper = if incl {
            Bound::Included(hi.as_slice())
        } else {
            Bound::Excluded(hi.as_slice())
        };
        // An excluded lower bound too (not on an empty range: BTreeMap rejects (x, x) exclusive).
        let lower = if lo != hi && rng.chance(50) {
            Bound::Excluded(lo.as_slice())
        } else {
            Bound::Included(lo.as_slice())
        };
        let got: Vec<_> = t
            .range(lower, upper, reverse)
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let mut want: Vec<_> = model
            .map
            .range::<[u8], _>((lower, upper))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if reverse {
            want.reverse();
        }
        assert!(got == want, "{ctx}: range {lo:?}..{hi:?} reverse={reverse}");
    }
    t.check_invariants().unwrap();
}

/// Runs `ops` random operations; returns how many leaf flushes were prepared without the lock.
fn run(seed: u64, cfg: &Config, ops: usize, space: u64) -> u64 {
    let mut detached = 0;
    let vfs = Arc::new(SimVfs::new());
    let dir = Path::new("/db");
    let mut env = Env::open_with_vfs(vfs.clone(), dir, env_opts(cfg), registry()).unwrap();
    let mut t = env.create_tree("t", None).unwrap();
    let mut model = Model::default();
    let mut rng = Rng::new(seed);
    for i in 0..ops {
        let (k, op) = random_op(&mut rng, space);
        model.apply(&k, &op);
        t.write_batch(vec![(k, op)]).unwrap();
        if rng.chance(1) {
            env.checkpoint().unwrap();
        }
        if rng.chance(2) {
            // The flusher's work, as the background thread would do it (leaf flushes prepared
            // without the lock among it, design.md FLU2).
            t.flush_now().unwrap();
        }
        if i % 700 == 699 {
            check_all(&t, &model, &mut rng, space, &format!("seed {seed} op {i}"));
        }
        if rng.below(1000) < 3 {
            // Reopen: cleanly (checkpoint) or by recovery from the log.
            drop(t);
            detached += env.stats().detached_flushes;
            if rng.chance(50) {
                env.close().unwrap();
            } else {
                drop(env);
            }
            env = Env::open_with_vfs(vfs.clone(), dir, env_opts(cfg), registry()).unwrap();
            t = env.open_tree("t").unwrap();
            check_all(
                &t,
                &model,
                &mut rng,
                space,
                &format!("seed {seed} reopen at {i}"),
            );
        }
    }
    check_all(&t, &model, &mut rng, space, &format!("seed {seed} end"));
    t.check_invariants().unwrap();
    drop(t);
    detached += env.stats().detached_flushes;
    env.close().unwrap();
    let env = Env::open_with_vfs(vfs, dir, env_opts(cfg), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    check_all(
        &t,
        &model,
        &mut rng,
        space,
        &format!("seed {seed} final reopen"),
    );
    detached
}

#[test]
fn model_matches_across_configurations() {
    let mut detached = 0;
    for (i, cfg) in configs().iter().enumerate() {
        detached += run(1000 + i as u64, cfg, 6000, 3000);
    }
    assert!(detached > 0, "no leaf flush was prepared without the lock");
}

#[test]
fn model_matches_with_a_dense_key_space() {
    // Few keys, many changes per key: deep message histories per key.
    let cfg = &configs()[0];
    run(77, cfg, 8000, 150);
}

#[test]
fn sequential_inserts_take_the_edge_and_stay_correct() {
    let cfg = &configs()[1];
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs, Path::new("/db"), env_opts(cfg), registry()).unwrap();
    let t = env.create_tree("seq", None).unwrap();
    let mut model = Model::default();
    for i in 0..5000u64 {
        let k = common::key(i);
        let v = vec![(i % 251) as u8; 40];
        model.apply(&k, &betula_storage::Op::Put(v.clone()));
        t.put(&k, &v).unwrap();
    }
    let mut rng = Rng::new(5);
    check_all(&t, &model, &mut rng, 5000, "sequential");
    assert!(
        t.stats().height >= 2,
        "5000 rows in 4 KiB nodes need a deeper tree"
    );
}
