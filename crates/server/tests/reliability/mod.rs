//! Reliability test support shared by crash_loop.rs, disk_faults.rs, isolation.rs and soak.rs: the
//! server process (server.rs), the crash loop's model, workers and verifier (crash/), the disk-fault rig
//! (faults.rs), the isolation workloads (isolation.rs, list_append.rs), and the long forms' knobs read
//! from the environment.
#![allow(dead_code)]

pub mod crash;
pub mod faults;
pub mod isolation;
pub mod list_append;
pub mod server;

/// A number from the environment (the long forms' knobs), or `default`.
pub fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}
