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

/// TokuDB's defaults (4 MiB nodes, 64 KiB basements, fanout 16), with zstd.
impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            node_size_bytes: 4 << 20,
            basement_size_bytes: 64 << 10,
            fanout: 16,
            codec: Codec::Zstd,
            level: 0,
        }
    }
}

impl TreeOptions {
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
