//! What a tree is made of in memory: nodes and their pivots, a leaf's basements of entries, an internal
//! node's message buffers, the messages themselves and the multi-version cells they build.
//!
//! Invariants (design.md, tree invariants): in every node, basement and buffer keys strictly increase;
//! part *i* of a node (a basement, or a child and its buffer) holds only keys in
//! [pivots[i-1], pivots[i]); a buffer's messages are newer than everything below it. Contents are shared
//! through `Arc`, so a checkpoint or a detached flush holds a frozen copy while writers copy-on-write;
//! each structure keeps its byte count (`bytes()`) in step, so the cache budget counts it without a walk.

pub mod basement;
pub mod buffer;
pub mod key_index;
pub mod message;
pub mod mvcc;
pub mod node;
pub mod pivots;
pub(super) mod points;
pub mod stored_copy;
