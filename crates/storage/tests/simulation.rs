//! Deterministic simulation of the engine from a seed (sim/): transactions of many clients, writes
//! outside transactions, checkpoints, flushes, periodic log syncs, power losses, crashes at a chosen
//! sync, I/O faults and a final flipped bit, all checked against a model. Any failure prints its seed and
//! the command that replays it.
//!
//! Short form (CI): `SHORT_SEEDS` seeds. Long form:
//! `BETULA_SIM_SEEDS=10000 cargo test --release -p betula-storage --test simulation -- --nocapture many_seeds`
//! (`BETULA_SIM_FIRST` picks the first seed, `BETULA_SIM_STEPS` the steps per seed). Replay one:
//! `BETULA_SIM_SEED=<seed> cargo test -p betula-storage --test simulation -- --nocapture replay_one_seed`.

mod common;
mod sim;

use sim::{run_seed, SimReport};

/// Seeds the short form runs.
const SHORT_SEEDS: u64 = 150;
/// Steps per seed unless told otherwise.
const STEPS: u64 = 1000;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

#[test]
fn many_seeds() {
    let seeds = env_number("BETULA_SIM_SEEDS").unwrap_or(SHORT_SEEDS);
    let first = env_number("BETULA_SIM_FIRST").unwrap_or(1);
    let steps = env_number("BETULA_SIM_STEPS").unwrap_or(STEPS);
    let mut total = SimReport::default();
    let mut detected = 0;
    for seed in first..first + seeds {
        let r = run_seed(seed, steps).unwrap_or_else(|f| panic!("{f}"));
        total.steps += r.steps;
        total.commits += r.commits;
        total.rollbacks += r.rollbacks;
        total.lock_conflicts += r.lock_conflicts;
        total.power_losses += r.power_losses;
        total.planned_crashes += r.planned_crashes;
        total.restarts += r.restarts;
        total.faults += r.faults;
        total.checkpoints += r.checkpoints;
        detected += r.corruption_detected as u64;
    }
    println!(
        "simulation: seeds {first}..{}, all passed: {} steps, {} commits, {} rollbacks, {} lock conflicts, \
         {} restarts ({} after power loss, {} crashes at a sync armed), {} I/O faults injected, {} \
         checkpoints; a flipped bit detected in {detected} seeds (the rest hit unused bytes)",
        first + seeds - 1,
        total.steps,
        total.commits,
        total.rollbacks,
        total.lock_conflicts,
        total.restarts,
        total.power_losses,
        total.planned_crashes,
        total.faults,
        total.checkpoints
    );
    assert!(total.commits > seeds, "the clients committed too little");
    assert!(total.restarts > seeds, "too few restarts");
}

#[test]
fn replay_one_seed() {
    let Some(seed) = env_number("BETULA_SIM_SEED") else {
        return;
    };
    let steps = env_number("BETULA_SIM_STEPS").unwrap_or(STEPS);
    let r = run_seed(seed, steps).unwrap_or_else(|f| panic!("{f}"));
    println!("seed {seed}: {r:?}");
}

#[test]
fn the_same_seed_replays_the_same_run() {
    for seed in [3, 17, 29] {
        let a = run_seed(seed, STEPS).unwrap_or_else(|f| panic!("{f}"));
        let b = run_seed(seed, STEPS).unwrap_or_else(|f| panic!("{f}"));
        assert_eq!(a, b, "seed {seed} ran differently twice");
        assert!(a.restarts > 0 && a.commits > 0, "seed {seed}: {a:?}");
    }
}
