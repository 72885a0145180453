//! Fuzzing without a nightly toolchain: each target is a function over bytes that must never panic (and,
//! where the codec allows, must give back what it decoded); the runner feeds it a committed corpus, then
//! inputs a seeded mutator derives from it, catches every panic and writes the input that caused it under
//! `crates/fuzz/regressions/<target>/`, where the smoke test replays it from then on (docs/testing.md,
//! "Fuzzing").
//!
//! Layers: `mutator` (bytes → bytes, deterministic from a seed), `targets` (what is fuzzed), `seeds` (the
//! corpus made with the encoders), `runner` (the loop, crash capture and the hang watchdog). No coverage
//! feedback: the corpus holds valid encodings of every kind, and the mutator stays close to them.

pub mod mutator;
pub mod runner;
pub mod seeds;
pub mod targets;
