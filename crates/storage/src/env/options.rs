//! Environment options.

use crate::compress::Codec;
use crate::tree::options::TreeOptions;
use std::time::Duration;

/// When a write is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// A write returns after the log is fsynced past it (group commit). The default.
    Sync,
    /// The log is fsynced every so often by a background thread; writes return at once.
    Periodic(Duration),
    /// The log is written when its buffer fills and fsynced only at checkpoints.
    NoSync,
}

/// Options of an environment.
#[derive(Debug, Clone)]
pub struct EnvOptions {
    /// Node cache budget in bytes.
    pub cache_bytes: u64,
    pub durability: Durability,
    /// A checkpoint starts this long after the previous one began...
    pub checkpoint_interval: Duration,
    /// ...or once the log has grown this many bytes since, whichever comes first.
    pub checkpoint_log_bytes: u64,
    /// Log segments roll over at this size.
    pub wal_segment_bytes: u64,
    /// Obsolete log segments kept to be written over instead of new files (design.md SEG1): an fdatasync
    /// after overwriting blocks a file already has costs less than after appending.
    pub wal_recycle_segments: usize,
    /// Compression of the log's packed frames (file-format.md §4). With lz4, the storage benchmark's log
    /// took half the bytes of single-record frames, for about 9 µs per 100-row commit (design.md,
    /// "Write-ahead log and durability"); `Codec::None` still packs, without compressing.
    pub wal_codec: Codec,
    /// Options for trees created without explicit ones.
    pub default_tree: TreeOptions,
    /// Run the background thread (periodic sync, checkpoints). Tests that drive checkpoints by hand turn it
    /// off.
    pub background: bool,
}

impl Default for EnvOptions {
    fn default() -> EnvOptions {
        EnvOptions {
            cache_bytes: 512 << 20,
            durability: Durability::Sync,
            checkpoint_interval: Duration::from_secs(60),
            checkpoint_log_bytes: 256 << 20,
            wal_segment_bytes: 64 << 20,
            wal_recycle_segments: 4,
            wal_codec: Codec::Lz4,
            default_tree: TreeOptions::default(),
            background: true,
        }
    }
}
