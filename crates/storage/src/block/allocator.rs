//! Space allocation inside a tree file.
//!
//! First fit over a map of free extents (coalesced), aligned to [`BLOCK_ALIGN`]; the file grows only when no
//! hole fits, and shrinks when its tail is free. Freed space anywhere is reused.
//!
//! Invariant CKP1 (design.md): the allocator never hands out a place referenced by the durable checkpoint or by
//! the checkpoint in progress. It does so by never being told such a place is free: callers route frees
//! through the checkpoint's pin set (see `tree::durability::space`).

use crate::format::{BLOCK_ALIGN, DATA_START};
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Allocator {
    /// offset → length of each free extent.
    free: BTreeMap<u64, u64>,
    /// End of the used area (the file's logical length).
    end: u64,
}

/// Rounds a byte count up to the block alignment.
pub fn aligned(len: u64) -> u64 {
    len.div_ceil(BLOCK_ALIGN) * BLOCK_ALIGN
}

impl Allocator {
    /// An allocator for a file where the given extents are in use and everything else is free.
    pub fn with_used(used: impl IntoIterator<Item = (u64, u64)>) -> Allocator {
        let mut used: Vec<(u64, u64)> = used.into_iter().map(|(o, l)| (o, aligned(l))).collect();
        used.sort();
        let mut free = BTreeMap::new();
        let mut pos = DATA_START;
        for (off, len) in used {
            if off > pos {
                free.insert(pos, off - pos);
            }
            pos = pos.max(off + len);
        }
        Allocator { free, end: pos }
    }

    /// Allocates `len` bytes (rounded up to the alignment); returns the offset.
    pub fn alloc(&mut self, len: u64) -> u64 {
        let len = aligned(len.max(1));
        let found = self
            .free
            .iter()
            .find(|(_, l)| **l >= len)
            .map(|(o, l)| (*o, *l));
        if let Some((off, l)) = found {
            self.free.remove(&off);
            if l > len {
                self.free.insert(off + len, l - len);
            }
            return off;
        }
        let off = self.end;
        self.end += len;
        off
    }

    /// Returns `len` bytes at `off` to the free map.
    pub fn free(&mut self, off: u64, len: u64) {
        let mut off = off;
        let mut len = aligned(len.max(1));
        debug_assert!(off >= DATA_START && off + len <= self.end);
        if let Some((&p, &pl)) = self.free.range(..off).next_back() {
            debug_assert!(p + pl <= off, "double free at {off}");
            if p + pl == off {
                self.free.remove(&p);
                off = p;
                len += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(off + len)) {
            self.free.remove(&(off + len));
            len += nl;
        }
        if off + len == self.end {
            self.end = off;
        } else {
            self.free.insert(off, len);
        }
    }

    /// The logical end of the file: everything past it is free.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Free extents inside the used area, (offset, length) in offset order.
    pub fn free_extents(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.free.iter().map(|(o, l)| (*o, *l))
    }

    /// Free bytes inside the used area.
    pub fn free_bytes(&self) -> u64 {
        self.free.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_holes_and_shrinks_the_tail() {
        let mut a = Allocator::with_used([]);
        let x = a.alloc(5000);
        let y = a.alloc(100);
        let z = a.alloc(100);
        assert_eq!(x, DATA_START);
        assert_eq!(y, DATA_START + 8192);
        a.free(x, 5000);
        assert_eq!(a.alloc(4096), x);
        assert_eq!(a.alloc(10), x + 4096);
        a.free(z, 100);
        assert_eq!(a.end(), z);
        a.free(y, 100);
        assert_eq!(a.end(), y);
        let b = Allocator::with_used([(DATA_START + 8192, 10)]);
        assert_eq!(b.free_bytes(), 8192);
        assert_eq!(b.end(), DATA_START + 12288);
    }
}
