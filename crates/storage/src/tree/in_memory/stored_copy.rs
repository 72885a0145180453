//! A basement's stored bytes kept beside it while its leaf is dirty, so writing the leaf again
//! re-encodes only the basements that changed (design.md TREE6).
//!
//! When a clean leaf is dirtied, the stored form of each of its loaded basements is copied out of
//! the leaf's block (its checksum checked) before the block's place is given up. A leaf write
//! (`tree/format/node_codec.rs`) copies those bytes into the new block for every basement that is
//! still the very one they were read for, and encodes (columnar transform, compression) only the
//! others. Most writes of a large leaf change a few of its basements: a flush brings a handful of
//! messages, sequential inserts touch the last basement.
//!
//! Invariants:
//! - a copy is used only for the basement allocation it was taken from: it holds a `Weak` to that
//!   `Arc<Basement>`, whose address cannot be reused while the copy lives, and a basement changes only
//!   through `Arc::make_mut`, which moves a basement that has weak references to a new allocation
//!   (so a changed basement never matches an old copy);
//! - a copy is taken only while its node is clean, when the loaded basement is identical to the block's
//!   partition (TREE5), and only from a tagged frames partition of the codec the tree writes with;
//! - copies count in the node's cached bytes and are dropped when the node is written (clean again).

use crate::tree::format::key_filter::KeyFilter;
use std::sync::{Arc, Weak};

/// The stored form of one basement, as its node's last block holds it.
#[derive(Debug)]
pub struct StoredCopy<T> {
    of: Weak<T>,
    pub parts: CopyParts,
}

/// What a copy holds.
#[derive(Debug)]
pub struct CopyParts {
    /// The partition's stored bytes (frame table and frames).
    pub bytes: Box<[u8]>,
    /// CRC-32C of `bytes`.
    pub crc: u32,
    /// Length of the basement's plain encoding.
    pub raw_len: u32,
    /// The key filter the block holds for the partition.
    pub filter: Option<Arc<KeyFilter>>,
    /// Frames in `bytes`, and of them columnar ones (for the write counters).
    pub frames: usize,
    pub columnar: usize,
}

impl<T> StoredCopy<T> {
    /// A copy of the stored form of `of`.
    pub fn new(of: &Arc<T>, parts: CopyParts) -> StoredCopy<T> {
        StoredCopy {
            of: Arc::downgrade(of),
            parts,
        }
    }

    /// Whether this is the stored form of `loaded` (the same allocation, hence unchanged).
    pub fn is_of(&self, loaded: &Arc<T>) -> bool {
        std::ptr::eq(self.of.as_ptr(), Arc::as_ptr(loaded))
    }

    /// Bytes the copy counts in its node's cached size.
    pub fn mem_bytes(&self) -> usize {
        self.parts.bytes.len() + 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> CopyParts {
        CopyParts {
            bytes: vec![1, 2, 3].into_boxed_slice(),
            crc: 7,
            raw_len: 3,
            filter: None,
            frames: 1,
            columnar: 0,
        }
    }

    #[test]
    fn a_copy_matches_only_its_own_unchanged_allocation() {
        let a = Arc::new(vec![1u8, 2, 3]);
        let copy = StoredCopy::new(&a, parts());
        assert!(copy.is_of(&a));
        // An equal value in another allocation is not the same basement.
        let b = Arc::new(vec![1u8, 2, 3]);
        assert!(!copy.is_of(&b));
        // A shared clone is the same allocation.
        let shared = a.clone();
        assert!(copy.is_of(&shared));
        drop(shared);
        // A change through make_mut moves the value away from the copied allocation.
        let mut changed = a;
        Arc::make_mut(&mut changed).push(4);
        assert!(!copy.is_of(&changed));
        assert_eq!(*changed, vec![1, 2, 3, 4]);
    }

    #[test]
    fn a_dropped_basement_leaves_its_address_reserved() {
        let a = Arc::new(vec![9u8; 16]);
        let copy = StoredCopy::new(&a, parts());
        drop(a);
        // New allocations of the same type never reuse the address the weak reference holds.
        for _ in 0..1000 {
            let fresh = Arc::new(vec![9u8; 16]);
            assert!(!copy.is_of(&fresh));
        }
    }
}
