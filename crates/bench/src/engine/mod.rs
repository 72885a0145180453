//! The engines under test behind one trait, so every workload runs the same code against each.

pub mod betula;
#[cfg(feature = "rocksdb")]
pub mod rocks;

use std::path::Path;
use std::time::Duration;

pub type BenchError = Box<dyn std::error::Error + Send + Sync>;
pub type BenchResult<T> = Result<T, BenchError>;

/// When a write is durable, in engine-neutral terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurabilityMode {
    /// Each write (batch) returns after the log is fsynced past it.
    Sync,
    /// The log is fsynced every interval in the background; writes return at once.
    Periodic(Duration),
    /// The log is written to the OS but not fsynced by writes.
    NoSync,
}

impl std::fmt::Display for DurabilityMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DurabilityMode::Sync => write!(f, "sync"),
            DurabilityMode::Periodic(d) => write!(f, "periodic({} ms)", d.as_millis()),
            DurabilityMode::NoSync => write!(f, "nosync"),
        }
    }
}

/// Settings every engine is opened with.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub cache_bytes: u64,
    pub durability: DurabilityMode,
    /// Betula's tree options (None: the engine's defaults).
    pub betula_tree: Option<betula_storage::TreeOptions>,
    /// Retired log segments Betula keeps for reuse (None: the engine's default).
    pub betula_wal_recycle: Option<usize>,
}

/// One open key/value store.
pub trait Engine: Send + Sync {
    /// Writes the rows as one batch (one commit).
    fn write_batch(&self, rows: Vec<(Vec<u8>, Vec<u8>)>) -> BenchResult<()>;
    fn get(&self, key: &[u8]) -> BenchResult<Option<Vec<u8>>>;
    /// Reads up to `limit` rows from `start` upwards; returns (rows, key+value bytes).
    fn scan(&self, start: &[u8], limit: usize) -> BenchResult<(usize, usize)>;
    /// Brings deferred write work to rest so disk figures are comparable: Betula checkpoints, RocksDB flushes
    /// its memtables and waits for compactions.
    fn settle(&self) -> BenchResult<()>;
    /// Checkpoints (Betula) or compactions (RocksDB) completed so far, for the per-second series.
    fn background_events(&self) -> u64;
    /// Engine-specific figures for the report, as (name, value).
    fn extra_stats(&self) -> Vec<(String, String)>;
    /// The engine's settings as (name, value), for the report.
    fn settings(&self) -> Vec<(String, String)>;
    fn version(&self) -> String;
    fn close(self: Box<Self>) -> BenchResult<()>;
}

/// Which engines this build can run.
pub fn available() -> Vec<&'static str> {
    let mut v = vec!["betula"];
    if cfg!(feature = "rocksdb") {
        v.push("rocksdb");
    }
    v
}

/// Opens engine `name` in a fresh directory `dir`.
pub fn open(name: &str, dir: &Path, cfg: &EngineConfig) -> BenchResult<Box<dyn Engine>> {
    match name {
        "betula" => Ok(Box::new(betula::BetulaEngine::open(dir, cfg)?)),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Ok(Box::new(rocks::RocksEngine::open(dir, cfg)?)),
        #[cfg(not(feature = "rocksdb"))]
        "rocksdb" => Err(
            "this build has no RocksDB: rebuild with --features rocksdb (see bench/run-storage.sh)"
                .into(),
        ),
        other => Err(format!("unknown engine {other:?}").into()),
    }
}
