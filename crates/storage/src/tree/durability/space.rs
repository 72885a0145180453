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
}

impl Space {
    pub fn new(alloc: Allocator, durable: HashMap<u64, u64>) -> Space {
        Space {
            alloc,
            durable,
            pending: HashMap::new(),
        }
    }
    pub fn alloc(&mut self, len: u64) -> u64 {
        self.alloc.alloc(len)
    }
    /// A place is no longer the live home of anything.
    pub fn release(&mut self, loc: BlockLoc) {
        if !self.durable.contains_key(&loc.offset) && !self.pending.contains_key(&loc.offset) {
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
            if !self.durable.contains_key(&off) {
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
            if !self.durable.contains_key(&off) && !live(off) {
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
