//! Bulk replacement: a sorted stream builds a tree bottom-up and replaces the target atomically; unsorted
//! input and failures leave the target as it was; a crash at any sync point leaves either the old or the new
//! contents, never a mix.

mod common;

use betula_storage::vfs::{SimCrashPlan, SimVfs};
use betula_storage::{Env, EnvOptions, Error, SortedRows, TreeOptions};
use common::registry;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        background: false,
        cache_bytes: 256 << 10,
        default_tree: TreeOptions {
            node_size_bytes: 8192,
            basement_size_bytes: 1024,
            fanout: 4,
            ..TreeOptions::default()
        },
        ..EnvOptions::default()
    }
}

fn rows(n: u32, tag: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                format!("k{i:07}").into_bytes(),
                format!("{tag}-{i}").into_bytes(),
            )
        })
        .collect()
}

fn stream(v: Vec<(Vec<u8>, Vec<u8>)>) -> SortedRows<'static> {
    Box::new(v.into_iter().map(Ok))
}

fn all(env: &Env, name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let t = env.open_tree(name).unwrap();
    t.check_invariants().unwrap();
    t.range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn bulk_replace_builds_a_correct_tree_and_swaps_atomically() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    env.create_tree("primary", None).unwrap();
    env.create_tree("index", None)
        .unwrap()
        .put(b"old", b"x")
        .unwrap();
    let data = rows(20_000, "p");
    let idx = rows(5_000, "i");
    let stats = env
        .bulk_replace(vec![
            ("primary".into(), stream(data.clone())),
            ("index".into(), stream(idx.clone())),
        ])
        .unwrap();
    assert_eq!(stats[0].rows, 20_000);
    assert!(stats[0].leaves > 10);
    assert_eq!(all(&env, "primary"), data);
    assert_eq!(all(&env, "index"), idx);
    let t = env.open_tree("primary").unwrap();
    assert_eq!(t.get(b"k0012345").unwrap(), Some(b"p-12345".to_vec()));
    assert!(t.stats().height >= 2);
    // The loaded tree takes normal writes afterwards.
    t.put(b"k0012345", b"changed").unwrap();
    t.put(b"zzz", b"new").unwrap();
    assert_eq!(t.get(b"k0012345").unwrap(), Some(b"changed".to_vec()));
    drop(t);
    assert_eq!(
        env.tree_names(),
        vec!["index".to_string(), "primary".to_string()]
    );
    drop(env);
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()).unwrap();
    let after = all(&env, "primary");
    assert_eq!(after.len(), 20_001);
    assert_eq!(
        env.open_tree("primary").unwrap().get(b"zzz").unwrap(),
        Some(b"new".to_vec())
    );
}

#[test]
fn unsorted_input_is_an_error_and_leaves_the_target_untouched() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()).unwrap();
    env.create_tree("t", None)
        .unwrap()
        .put(b"keep", b"me")
        .unwrap();
    let mut bad = rows(100, "x");
    bad.swap(10, 50);
    let err = env
        .bulk_replace(vec![("t".into(), stream(bad))])
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidArgument(ref m) if m.contains("row 12")),
        "{err}"
    );
    assert_eq!(all(&env, "t"), vec![(b"keep".to_vec(), b"me".to_vec())]);
    assert_eq!(
        env.tree_names(),
        vec!["t".to_string()],
        "staging tree left behind"
    );
}

#[test]
fn crash_during_a_bulk_load_leaves_old_or_new_contents() {
    let old = vec![(b"a".to_vec(), b"old".to_vec())];
    let new = rows(3_000, "n");
    let run = |vfs: &Arc<SimVfs>| -> bool {
        let Ok(env) = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()) else {
            return false;
        };
        let Ok(t) = env.create_tree("t", None) else {
            return false;
        };
        if t.put(b"a", b"old").is_err() {
            return false;
        }
        env.bulk_replace(vec![("t".into(), stream(rows(3_000, "n")))])
            .is_ok()
    };
    let clean = Arc::new(SimVfs::new());
    assert!(run(&clean));
    for crash_at in 1..=clean.sync_count() {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let acked = run(&vfs);
        let env = Env::open_with_vfs(
            Arc::new(vfs.crash_image(crash_at)),
            Path::new("/db"),
            opts(),
            registry(),
        )
        .unwrap();
        assert!(
            env.tree_names().iter().all(|n| n == "t"),
            "crash {crash_at}: {:?}",
            env.tree_names()
        );
        if env.tree_names().is_empty() {
            continue;
        }
        let got = all(&env, "t");
        if acked {
            assert_eq!(got, new, "crash {crash_at}: acknowledged load lost");
        } else {
            assert!(
                got == new || got == old || got.is_empty(),
                "crash {crash_at}: a mix"
            );
        }
    }
}
