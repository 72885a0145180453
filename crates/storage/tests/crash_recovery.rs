//! Crash tests: a workload runs on a simulated file system that dies at its n-th sync, for every n; the
//! file system a power loss would leave (unsynced writes dropped, the last one possibly torn) is reopened,
//! and the recovered tree must hold every acknowledged change and nothing else, except that the change in
//! flight at the crash may or may not be there.

mod common;

use betula_storage::vfs::{SimCrashPlan, SimVfs};
use betula_storage::{Durability, Env, EnvOptions, Error, Op};
use common::{random_op, registry, Model, Rng};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    common::crash_opts()
}

enum Step {
    Write(Vec<u8>, Op),
    Checkpoint,
    /// The flusher's work (leaf flushes prepared without the lock, write-back) run in this thread.
    Flush,
}

fn workload(seed: u64, n: usize) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            if rng.chance(4) {
                Step::Checkpoint
            } else if rng.chance(4) {
                Step::Flush
            } else {
                let (k, op) = random_op(&mut rng, 400);
                Step::Write(k, op)
            }
        })
        .collect()
}

fn contents(env: &Env) -> Vec<(Vec<u8>, Vec<u8>)> {
    let t = env.open_tree("t").expect("tree exists after recovery");
    t.check_invariants().unwrap();
    t.range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Runs the workload until the planned crash; returns the model of acknowledged changes and the change in
/// flight when it failed.
fn run_until_crash(vfs: &Arc<SimVfs>, steps: &[Step]) -> (Model, Option<(Vec<u8>, Op)>, bool) {
    let dir = Path::new("/db");
    let env = match Env::open_with_vfs(vfs.clone(), dir, opts(), registry()) {
        Ok(e) => e,
        Err(_) => return (Model::default(), None, false),
    };
    let t = match env.create_tree("t", None) {
        Ok(t) => t,
        Err(_) => return (Model::default(), None, false),
    };
    let mut model = Model::default();
    for step in steps {
        match step {
            Step::Write(k, op) => match t.write_batch(vec![(k.clone(), op.clone())]) {
                Ok(()) => model.apply(k, op),
                Err(_) => return (model, Some((k.clone(), op.clone())), true),
            },
            Step::Checkpoint => {
                if env.checkpoint().is_err() {
                    return (model, None, true);
                }
            }
            Step::Flush => {
                if t.flush_now().is_err() {
                    return (model, None, true);
                }
            }
        }
    }
    (model, None, true)
}

#[test]
fn crash_at_every_sync_point_loses_nothing_acknowledged() {
    let steps = workload(42, 260);
    // Count the syncs of a clean run.
    let clean = Arc::new(SimVfs::new());
    run_until_crash(&clean, &steps);
    let total = clean.sync_count();
    assert!(total > 200, "workload too small: {total} syncs");
    let mut checked = 0;
    for crash_at in 1..=total + 1 {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let (acked, in_flight, tree_created) = run_until_crash(&vfs, &steps);
        for tear_seed in 0..2 {
            let image = Arc::new(vfs.crash_image(crash_at * 7 + tear_seed));
            let env = Env::open_with_vfs(image, Path::new("/db"), opts(), registry())
                .unwrap_or_else(|e| panic!("reopen after crash at sync {crash_at}: {e}"));
            if !tree_created || env.tree_names().is_empty() {
                assert!(
                    acked.map.is_empty(),
                    "crash at sync {crash_at}: tree lost with acknowledged data"
                );
                continue;
            }
            let got = contents(&env);
            let without: Vec<_> = acked.map.clone().into_iter().collect();
            let mut with_model = acked.clone();
            if let Some((k, op)) = &in_flight {
                with_model.apply(k, op);
            }
            let with: Vec<_> = with_model.map.into_iter().collect();
            assert!(
                got == without || got == with,
                "crash at sync {crash_at} (tear {tear_seed}): recovered state is neither the \
                 acknowledged state nor that plus the change in flight"
            );
            checked += 1;
        }
    }
    assert!(checked > 300);
}

#[test]
fn crash_during_tree_create_drop_and_rename() {
    let run = |vfs: &Arc<SimVfs>| -> Vec<&'static str> {
        let mut acked = Vec::new();
        let Ok(env) = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()) else {
            return acked;
        };
        type Step = Box<dyn Fn(&Env) -> Result<(), Error>>;
        let steps: [(&str, Step); 6] = [
            (
                "create a",
                Box::new(|e| e.create_tree("a", None).map(|_| ())),
            ),
            ("put a", Box::new(|e| e.open_tree("a")?.put(b"k", b"v"))),
            (
                "create b",
                Box::new(|e| e.create_tree("b", None).map(|_| ())),
            ),
            ("checkpoint", Box::new(|e| e.checkpoint())),
            ("rename a c", Box::new(|e| e.rename_tree("a", "c"))),
            ("drop b", Box::new(|e| e.drop_tree("b"))),
        ];
        for (name, f) in steps.iter() {
            if f(&env).is_err() {
                break;
            }
            acked.push(*name);
        }
        acked
    };
    let clean = Arc::new(SimVfs::new());
    assert_eq!(run(&clean).len(), 6);
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
        let names = env.tree_names();
        let has = |n: &str| names.iter().any(|x| x == n);
        if acked.contains(&"rename a c") || acked.len() == 4 {
            // Renamed, or with the rename in flight, under either name.
            let name = if has("c") { "c" } else { "a" };
            assert!(
                acked.len() == 4 || name == "c",
                "crash {crash_at}: {names:?}"
            );
            assert_eq!(
                env.open_tree(name).unwrap().get(b"k").unwrap(),
                Some(b"v".to_vec())
            );
        } else if acked.contains(&"put a") && acked.len() < 4 {
            let t = env.open_tree(if has("a") { "a" } else { "c" }).unwrap();
            assert_eq!(
                t.get(b"k").unwrap(),
                Some(b"v".to_vec()),
                "crash {crash_at}"
            );
        } else if acked.contains(&"create a") {
            assert!(has("a") || has("c"), "crash {crash_at}: {names:?}");
        }
        if acked.contains(&"drop b") {
            assert!(!has("b"), "crash {crash_at}: dropped tree came back");
        } else if acked.contains(&"create b") && acked.len() < 5 {
            // (With "drop b" in flight, b may or may not be gone.)
            assert!(has("b"), "crash {crash_at}: created tree lost");
        }
    }
}

#[test]
fn a_failed_write_latches_the_environment_until_reopened() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    for i in 0..50u32 {
        t.put(&i.to_be_bytes(), b"before").unwrap();
    }
    vfs.set_plan(SimCrashPlan {
        crash_at_sync: None,
        fail_write: Some(vfs_writes_after(&vfs) + 1),
    });
    let first = t.put(b"x", b"y");
    assert!(first.is_err(), "the failing write must surface");
    match t.put(b"z", b"w") {
        Err(Error::Poisoned(why)) => assert!(why.contains("simulated write failure"), "{why}"),
        other => panic!("expected Poisoned, got {other:?}"),
    }
    assert!(matches!(env.checkpoint(), Err(Error::Poisoned(_))));
    drop(t);
    drop(env);
    vfs.set_plan(SimCrashPlan::default());
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    for i in 0..50u32 {
        assert_eq!(t.get(&i.to_be_bytes()).unwrap(), Some(b"before".to_vec()));
    }
    t.put(b"after", b"ok").unwrap();
}

/// The number of writes the simulated file system has seen (probe: a plan that never fires).
fn vfs_writes_after(vfs: &SimVfs) -> u64 {
    vfs.write_count()
}

#[test]
fn a_tree_dropped_after_a_checkpoint_stays_dropped_after_reopen() {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    env.create_tree("gone", None)
        .unwrap()
        .put(b"k", b"v")
        .unwrap();
    env.create_tree("kept", None)
        .unwrap()
        .put(b"k", b"v")
        .unwrap();
    env.checkpoint().unwrap();
    env.drop_tree("gone").unwrap();
    drop(env);
    // The file removal is visible now (as on a real file system once it settles).
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    assert_eq!(env.tree_names(), vec!["kept".to_string()]);
    drop(env);
    // A catalog tree whose file vanished without a drop in the log is corruption, not silent loss.
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    env.checkpoint().unwrap();
    drop(env);
    betula_storage::vfs::Vfs::remove(&*vfs, Path::new("/db/tree-2.bt")).unwrap();
    match Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry()) {
        Err(Error::Corruption(r)) => assert!(r.what.contains("missing"), "{r}"),
        other => panic!("expected corruption, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_clean_drop_keeps_acknowledged_writes_in_every_durability_mode() {
    for durability in [
        Durability::NoSync,
        Durability::Periodic(std::time::Duration::from_secs(3600)),
    ] {
        let vfs = Arc::new(SimVfs::new());
        let o = EnvOptions {
            durability,
            ..opts()
        };
        let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), o.clone(), registry()).unwrap();
        env.create_tree("t", None).unwrap().put(b"k", b"v").unwrap();
        drop(env);
        // Only what is durable survives the crash image: the drop must have synced the log.
        let env = Env::open_with_vfs(
            Arc::new(vfs.crash_image(1)),
            Path::new("/db"),
            o,
            registry(),
        )
        .unwrap();
        assert_eq!(
            env.open_tree("t").unwrap().get(b"k").unwrap(),
            Some(b"v".to_vec()),
            "{durability:?}"
        );
    }
}

#[test]
fn a_crash_leaves_a_swap_of_tree_names_whole_or_undone() {
    // Three pairs swapped at once, with writes before and after: after a crash at any sync, every
    // pair is swapped or none is (design.md WAL3), and what was acknowledged is there.
    let names = ["a", "b", "c", "d", "e", "f"];
    let run = |vfs: &Arc<SimVfs>| -> (bool, bool) {
        let Ok(env) = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()) else {
            return (false, false);
        };
        for n in names {
            let Ok(t) = env.create_tree(n, None) else {
                return (false, false);
            };
            if t.put(b"owner", n.as_bytes()).is_err() {
                return (false, false);
            }
        }
        if env.checkpoint().is_err() {
            return (true, false);
        }
        let pairs: Vec<(String, String)> = names
            .chunks(2)
            .map(|p| (p[0].to_string(), p[1].to_string()))
            .collect();
        let swapped = env.swap_trees(&pairs).is_ok();
        if swapped {
            let _ = env.open_tree("a").and_then(|t| t.put(b"after", b"1"));
        }
        (true, swapped)
    };
    let clean = Arc::new(SimVfs::new());
    assert_eq!(run(&clean), (true, true));
    for crash_at in 1..=clean.sync_count() {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let (created, swapped) = run(&vfs);
        let env = Env::open_with_vfs(
            Arc::new(vfs.crash_image(crash_at)),
            Path::new("/db"),
            opts(),
            registry(),
        )
        .unwrap();
        if !created || env.tree_names().len() < names.len() {
            continue;
        }
        let owner = |n: &str| env.open_tree(n).unwrap().get(b"owner").unwrap();
        if owner("a").is_none() || owner("f").is_none() {
            continue; // the crash came before the last put was durable
        }
        let flipped: Vec<bool> = names
            .iter()
            .map(|n| owner(n) != Some(n.as_bytes().to_vec()))
            .collect();
        assert!(
            flipped.iter().all(|f| *f) || flipped.iter().all(|f| !*f),
            "crash {crash_at}: a partial swap {flipped:?}"
        );
        if swapped {
            assert!(
                flipped[0],
                "crash {crash_at}: an acknowledged swap was lost"
            );
            assert_eq!(owner("a"), Some(b"b".to_vec()));
        }
    }
}
