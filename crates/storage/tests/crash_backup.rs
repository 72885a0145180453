//! Crash tests of backups (design.md BKP6, BKP7): a workload that takes a full backup and then an
//! incremental one runs on the simulated file system dying at its n-th sync, for every n. After the power
//! loss the environment recovers every acknowledged change (a backup in flight changes nothing of that),
//! every backup that had returned restores to exactly the state the environment had while it ran, and a
//! backup cut short either restores to that state too (its manifest was durable) or is refused.

mod common;

use betula_storage::vfs::{SimCrashPlan, SimVfs, Vfs};
use betula_storage::{restore_backup, BackupOptions, BackupProgress, Env, EnvOptions, Op};
use common::{random_op, registry, Model, Rng};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn opts() -> EnvOptions {
    common::crash_opts()
}

enum Step {
    Write(Vec<u8>, Op),
    Checkpoint,
    /// A backup into /bk/<name>, an increment of /bk/<base> when given.
    Backup(&'static str, Option<&'static str>),
}

fn workload() -> Vec<Step> {
    let mut rng = Rng::new(7);
    let mut steps = Vec::new();
    for i in 0..150 {
        match i {
            60 => steps.push(Step::Backup("full", None)),
            110 => steps.push(Step::Backup("incr", Some("full"))),
            _ if rng.chance(5) => steps.push(Step::Checkpoint),
            _ => {
                let (k, op) = random_op(&mut rng, 300);
                steps.push(Step::Write(k, op));
            }
        }
    }
    steps
}

/// What a run saw: the acknowledged state, the change in flight, and each backup's state and whether it
/// returned.
struct Run {
    acked: Model,
    in_flight: Option<(Vec<u8>, Op)>,
    backups: Vec<(&'static str, Model, bool)>,
}

fn run_until_crash(vfs: &Arc<SimVfs>, steps: &[Step]) -> Run {
    let mut run = Run {
        acked: Model::default(),
        in_flight: None,
        backups: Vec::new(),
    };
    let Ok(env) = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()) else {
        return run;
    };
    let Ok(t) = env.create_tree("t", None) else {
        return run;
    };
    for step in steps {
        match step {
            Step::Write(k, op) => match t.write_batch(vec![(k.clone(), op.clone())]) {
                Ok(()) => run.acked.apply(k, op),
                Err(_) => {
                    run.in_flight = Some((k.clone(), op.clone()));
                    return run;
                }
            },
            Step::Checkpoint => {
                if env.checkpoint().is_err() {
                    return run;
                }
            }
            Step::Backup(name, base) => {
                let o = BackupOptions {
                    base: base.map(|b| Path::new("/bk").join(b)),
                    throttle_bytes_per_sec: None,
                };
                let done = env.backup(&Path::new("/bk").join(name), &o, &BackupProgress::default());
                run.backups.push((name, run.acked.clone(), done.is_ok()));
                if done.is_err() {
                    return run;
                }
            }
        }
    }
    run
}

/// The rows of tree "t" in the environment `dir` (None: there is no such tree).
fn contents(vfs: Arc<dyn Vfs>, dir: &Path) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let env = Env::open_with_vfs(vfs, dir, opts(), registry())
        .unwrap_or_else(|e| panic!("{} does not open: {e}", dir.display()));
    let t = env.open_tree("t").ok()?;
    t.check_invariants().unwrap();
    Some(
        t.range(Bound::Unbounded, Bound::Unbounded, false)
            .map(|r| r.unwrap())
            .collect(),
    )
}

#[test]
fn a_crash_at_any_sync_of_a_backup_loses_nothing_and_restores_only_complete_backups() {
    let steps = workload();
    let clean = Arc::new(SimVfs::new());
    let full = run_until_crash(&clean, &steps);
    assert_eq!(full.backups.len(), 2);
    assert!(
        full.backups.iter().all(|b| b.2),
        "a backup failed without a crash"
    );
    let total = clean.sync_count();
    let (mut restored, mut refused) = (0, 0);
    for crash_at in 1..=total + 1 {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(crash_at),
            fail_write: None,
        });
        let run = run_until_crash(&vfs, &steps);
        let image: Arc<dyn Vfs> = Arc::new(vfs.crash_image(crash_at));
        if image.exists(Path::new("/db/betula.env")) || !run.acked.map.is_empty() {
            let got = contents(image.clone(), Path::new("/db")).unwrap_or_default();
            let mut with = run.acked.clone();
            if let Some((k, op)) = &run.in_flight {
                with.apply(k, op);
            }
            assert!(
                got == run.acked.map.clone().into_iter().collect::<Vec<_>>()
                    || got == with.map.into_iter().collect::<Vec<_>>(),
                "crash at sync {crash_at}: the environment lost or invented a change"
            );
        }
        for (name, model, returned) in &run.backups {
            let to: PathBuf = Path::new("/restored").join(name);
            match restore_backup(&*image, &Path::new("/bk").join(name), &to) {
                Ok(_) => {
                    let got = contents(image.clone(), &to).expect("a backup holds the tree");
                    let want: Vec<_> = model.map.clone().into_iter().collect();
                    assert!(
                        got == want,
                        "crash at sync {crash_at}: backup {name} restores another state"
                    );
                    restored += 1;
                }
                Err(e) => {
                    assert!(!returned, "crash at sync {crash_at}: backup {name} returned but does not restore: {e}");
                    refused += 1;
                }
            }
        }
    }
    eprintln!("{total} syncs: {restored} backups restored, {refused} refused");
    assert!(
        restored > 100 && refused > 10,
        "restored {restored}, refused {refused}"
    );
}
