//! What callers' threads do to a tree: routing and applying messages, point and range reads, and
//! building a tree from sorted rows.
//!
//! Invariants: every change (a message's application, a flush, a split, a merge) happens under the
//! tree's write lock and leaves the tree invariants holding when the lock is released; reads hold the
//! read lock, change nothing but what the cache holds, and evict afterwards under the write lock.

pub(super) mod apply;
pub(super) mod build;
pub(super) mod cold_read;
pub mod cursor;
pub(super) mod read;
pub mod sample;
pub(super) mod write;
