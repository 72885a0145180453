//! Workloads: what is run against each engine.

pub mod codecs;
pub mod commit;
pub mod keys;
pub mod sampler;
pub mod storage;
