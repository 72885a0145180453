//! Format constants shared by every on-disk structure (file-format.md).

/// The on-disk format version this build writes and reads. Bump it (and add a row to the version history in
/// docs/file-format.md) on any change of layout.
pub const FORMAT_VERSION: u32 = 7;

/// The oldest format version this build still reads (version 1 node blocks have no filter chunk, version 2 leaf
/// blocks store each basement as one chunk, not as frames; version 4 changed only how the log is read and
/// version 5 only its frames, file-format.md §4; version 6 leaf frames begin with their transform byte and
/// may be columnar, file-format.md §3.4-3.5; version 7 message buffers begin with a transform byte and may be
/// columnar, §3.6; nothing else changed).
pub const OLDEST_READABLE_VERSION: u32 = 1;

/// Whether this build reads structures written in format `version`.
pub fn readable(version: u32) -> bool {
    (OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version)
}

/// Alignment of blocks in a tree file, in bytes.
pub const BLOCK_ALIGN: u64 = 4096;

/// Size of one header slot (environment and tree files), in bytes.
pub const HEADER_SLOT_BYTES: u64 = 4096;

/// First byte of the block area of a tree file (after two header slots).
pub const DATA_START: u64 = 2 * HEADER_SLOT_BYTES;

const _: () = assert!(DATA_START.is_multiple_of(BLOCK_ALIGN));
const _: () = assert!(HEADER_SLOT_BYTES >= 512);
