//! The bytes on disk of a tree's file (file-format.md §3): the header slot, a node as a block, a
//! basement's entry encoding and its frames, and the key filters of a node's prefix.
//!
//! Invariants: decoders never panic and never read out of bounds: any inconsistency is a `DecodeError`,
//! which the caller reports as corruption naming the file and block; every stored byte is covered by a
//! CRC-32C checked before it is decoded; what a format version writes (layouts, hashes, probe sequences)
//! never changes meaning within that version, and older versions stay readable.

pub mod buffer_chunk;
pub mod columnar;
pub mod frames;
pub mod key_filter;
pub mod key_runs;
pub mod node_codec;
pub mod packed;
pub(crate) mod tree_header;
