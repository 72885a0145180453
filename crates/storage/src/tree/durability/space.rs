//! Space bookkeeping of one tree file: the allocator plus the places pinned by checkpoints.
//!
//! Invariant CKP1 (design.md): a place referenced by the durable checkpoint or by the checkpoint in progress is
//! never freed; a superseded place that no checkpoint references is freed at once; the durable checkpoint's
//! places that the new checkpoint no longer references are freed when the new one is durable.

use crate::block::{Allocator, BlockLoc};
use std::collections::HashMap;

pub(crate) struct Space {
    alloc: Allocator,
    /// offset → length of places referenced by the durable checkpoint (its nodes and its table).
    durable: HashMap<u64, u64>,
    /// The same for the checkpoint in progress.
    pending: HashMap<u64, u64>,
    /// The same for the checkpoint a running backup copies (BKP1).
    held: HashMap<u64, u64>,
}

impl Space {
    pub fn new(alloc: Allocator, durable: HashMap<u64, u64>) -> Space {
        Space {
            alloc,
            durable,
            pending: HashMap::new(),
            held: HashMap::new(),
        }
    }
    pub fn alloc(&mut self, len: u64) -> u64 {
        self.alloc.alloc(len)
    }
    /// A place is no longer the live home of anything.
    pub fn release(&mut self, loc: BlockLoc) {
        if !self.pinned(loc.offset) {
            self.alloc.free(loc.offset, u64::from(loc.len));
        }
    }
    /// Pins a place for the checkpoint in progress.
    pub fn pin_pending(&mut self, offset: u64, len: u64) {
        self.pending.insert(offset, len);
    }
    /// Unpins a place written for an abandoned checkpoint and frees it unless the durable one references it.
    pub fn abandon_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (off, len) in pending {
            if !self.durable.contains_key(&off) && !self.held.contains_key(&off) {
                self.alloc.free(off, len);
            }
        }
    }
    /// The checkpoint in progress is durable: it becomes the durable one, and the old one's places that the new
    /// one does not reference are freed.
    pub fn promote_pending(&mut self, live: impl Fn(u64) -> bool) {
        let new = std::mem::take(&mut self.pending);
        let old = std::mem::replace(&mut self.durable, new);
        for (off, len) in old {
            if !self.durable.contains_key(&off) && !self.held.contains_key(&off) && !live(off) {
                self.alloc.free(off, len);
            }
        }
    }
    /// Whether a checkpoint (durable or in progress) or a backup references the place.
    fn pinned(&self, offset: u64) -> bool {
        self.durable.contains_key(&offset)
            || self.pending.contains_key(&offset)
            || self.held.contains_key(&offset)
    }
    /// Pins the places of the durable checkpoint for a backup (BKP1): from now on they are freed only by
    /// [`Space::unhold`]. Only places the durable checkpoint references can be pinned this way.
    pub fn hold_durable(&mut self) {
        for (off, len) in &self.durable {
            self.held.insert(*off, *len);
        }
    }
    /// The backup is over: its places are freed unless a checkpoint or a live node references them.
    pub fn unhold(&mut self, live: impl Fn(u64) -> bool) {
        for (off, len) in std::mem::take(&mut self.held) {
            if !self.durable.contains_key(&off) && !self.pending.contains_key(&off) && !live(off) {
                self.alloc.free(off, len);
            }
        }
    }
    pub fn end(&self) -> u64 {
        self.alloc.end()
    }
    pub fn free_bytes(&self) -> u64 {
        self.alloc.free_bytes()
    }
    /// Free extents of at least `min` bytes.
    pub fn large_free(&self, min: u64) -> Vec<(u64, u64)> {
        self.alloc.free_extents().filter(|e| e.1 >= min).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::DATA_START;

    fn space_with_durable(places: &[(u64, u64)]) -> Space {
        let alloc = Allocator::with_used(places.iter().copied());
        Space::new(alloc, places.iter().copied().collect())
    }

    #[test]
    fn held_places_outlive_the_checkpoints_until_unheld() {
        let (a, b) = (8192, 8192 + 4096);
        let mut s = space_with_durable(&[(a, 4096), (b, 4096)]);
        s.hold_durable();
        // A new checkpoint references only b and a fresh place; a stays allocated while held (BKP1).
        let c = s.alloc(4096);
        s.pin_pending(b, 4096);
        s.pin_pending(c, 4096);
        s.promote_pending(|_| false);
        assert_ne!(s.alloc(4096), a, "a held place was handed out again");
        let free_before = s.free_bytes();
        // Unheld: a is freed (nothing references it), b stays (the durable checkpoint does).
        s.unhold(|_| false);
        assert_eq!(s.free_bytes(), free_before + 4096);
        assert_eq!(s.alloc(4096), a);
        // A superseded live place that is held is not freed by release either.
        let mut s = space_with_durable(&[(a, 4096)]);
        s.hold_durable();
        s.promote_pending(|_| false);
        s.release(BlockLoc {
            offset: a,
            len: 4096,
            prefix_len: 0,
        });
        assert_eq!(s.free_bytes(), 0);
        s.unhold(|_| false);
        assert_eq!(s.end(), DATA_START);
    }
}
