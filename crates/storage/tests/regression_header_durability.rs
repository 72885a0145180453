//! Regression: a process that dies after writing a checkpoint's environment header but before the header
//! is durable (its fsync failed) leaves the header in the page cache only. Recovery read it, retired the
//! log segments before its replay LSN and reused them; a power loss then took the header back to the
//! previous checkpoint's, whose log was gone: "log records ... are missing", an environment that no
//! longer opens (found by the deterministic simulation, seed 5965). Recovery now makes the header it
//! acts on durable first (RCV5).

mod common;

use betula_storage::vfs::{FaultKind, FaultPlan, FaultRule, FaultVfs, SimVfs};
use betula_storage::{Durability, Env, EnvOptions};
use common::registry;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        durability: Durability::Sync,
        background: false,
        ..EnvOptions::default()
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

#[test]
fn a_header_whose_fsync_failed_is_made_durable_before_recovery_retires_the_log() {
    let disk = Arc::new(SimVfs::new());
    let plan = FaultPlan::new();
    let vfs = Arc::new(FaultVfs::new(disk.clone(), plan.clone()));
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    for i in 0..50 {
        t.put(&key(i), b"before").unwrap();
    }
    env.checkpoint().unwrap();
    for i in 50..100 {
        t.put(&key(i), b"between").unwrap();
    }
    // The next checkpoint writes its header, and the header's fsync fails: the engine latches.
    let mut rule = FaultRule::new(FaultKind::SyncError, "betula.env");
    rule.count = Some(1);
    plan.set(vec![rule]);
    assert!(env.checkpoint().is_err());
    drop(t);
    drop(env);
    plan.clear();

    // The process restarts (the page cache, and the header in it, survive), and goes on.
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    let t = env.open_tree("t").unwrap();
    for i in 100..150 {
        t.put(&key(i), b"after").unwrap();
    }
    drop(t);
    std::mem::forget(env);

    // Then the power fails. Without RCV5 the header write survived some crash images and not others (a
    // torn slot keeps the old header when it tears in its first bytes: image 80 of these), and those
    // did not open. Every image must hold the header recovery acted on, and open with every row.
    let header = Path::new("/db/betula.env");
    for seed in 0..3000 {
        let image = Arc::new(disk.crash_image(seed));
        assert!(
            image.read_all(header) == disk.read_all(header),
            "crash image {seed}: the header recovery acted on is not durable"
        );
        let env = Env::open_with_vfs(image, Path::new("/db"), opts(), registry())
            .unwrap_or_else(|e| panic!("crash image {seed}: {e}"));
        let t = env.open_tree("t").unwrap();
        for i in 0..150 {
            assert!(
                t.get(&key(i)).unwrap().is_some(),
                "crash image {seed}: row {i} lost"
            );
        }
    }
}
