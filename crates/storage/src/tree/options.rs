//! Per-tree options (stored in the catalog, file-format.md §2).

use crate::compress::Codec;
use crate::error::{Error, Result};

/// Shape and compression of one tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeOptions {
    /// A node holds at most about this many bytes (buffers or entries) before it flushes or splits.
    pub node_size_bytes: u32,
    /// A basement splits above this many bytes.
    pub basement_size_bytes: u32,
    /// An internal node splits above this many children.
    pub fanout: u16,
    /// Codec for node chunks.
    pub codec: Codec,
    /// Codec level (0 = codec default).
    pub level: i8,
}

/// 4 MiB nodes and fanout 16 as TokuDB; 32 KiB basements (TokuDB: 64 KiB), with zstd.
///
/// A cold point read decompresses one frame of a basement (half of it, `FRAMES_PER_BASEMENT`), and zstd's
/// decompression dominated such reads (perf, design.md "Trees and messages"). With data 10x the cache,
/// 32 KiB basements serve 1.45x the point reads of 64 KiB ones at the same insert rates; 16 KiB ones
/// 1.95x, but insert sequential keys 11-16% slower and take 8-26% more bytes per row on the sensor rows of
/// the SQL suite (bench/results/2026-11-24-basement-size.md, measured before frames). `read_block_size`
/// chooses per server.
impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            node_size_bytes: 4 << 20,
            basement_size_bytes: 32 << 10,
            fanout: 16,
            codec: Codec::Zstd,
            level: 0,
        }
    }
}

/// Frames a basement is cut into on disk (tree/format/frames.rs): a point read that misses the cache
/// decompresses one of them. Two halve the work of such a read for 6% more bytes on the sensor rows
/// of the SQL suite; four cut it to a quarter for 16% more
/// (bench/results/2026-11-24-frames-per-basement.md).
pub const FRAMES_PER_BASEMENT: u32 = 2;

impl TreeOptions {
    /// Target raw size of a basement's frames: half the basement, at least 256 bytes.
    pub fn frame_bytes(&self) -> usize {
        (self.basement_size_bytes / FRAMES_PER_BASEMENT).max(256) as usize
    }

    /// Checks the options are usable.
    pub fn validate(&self) -> Result<()> {
        if self.node_size_bytes < 1024 || self.node_size_bytes > (256 << 20) {
            return Err(Error::InvalidArgument(format!(
                "node size {} outside 1 KiB..256 MiB",
                self.node_size_bytes
            )));
        }
        if self.basement_size_bytes < 256 || self.basement_size_bytes > self.node_size_bytes {
            return Err(Error::InvalidArgument(format!(
                "basement size {} outside 256 bytes..node size",
                self.basement_size_bytes
            )));
        }
        if self.fanout < 3 || self.fanout > 4096 {
            return Err(Error::InvalidArgument(format!(
                "fanout {} outside 3..4096",
                self.fanout
            )));
        }
        Ok(())
    }
}
