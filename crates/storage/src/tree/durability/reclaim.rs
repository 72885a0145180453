//! Giving a tree file's free space back to the file system after each checkpoint (design.md, "Space
//! reclamation", invariant CKP8).
//!
//! Copy-on-write leaves the places of superseded nodes free once a checkpoint no longer references them.
//! The allocator reuses them, but the file keeps its high-water length and its blocks, so `du` and the
//! status figures would count space that holds nothing. After a checkpoint is durable the tree truncates
//! the file to the allocator's end and punches holes in free extents of at least [`PUNCH_MIN_BYTES`].
//!
//! Both calls are advisory: their failure loses nothing (the space stays allocated), so it is ignored.
//! They run under the space lock, so no place is handed out while its range is being punched; every place
//! the durable or the pending checkpoint references, and every live place, is allocated (CKP1) and therefore
//! lies below the end and outside every free extent.

use crate::tree::Tree;

/// Free extents smaller than this are left alone (they are reused soon, and each punch is a system call).
pub(crate) const PUNCH_MIN_BYTES: u64 = 256 << 10;

impl Tree {
    /// Truncates the file to the used area and punches holes in large free extents.
    pub(crate) fn reclaim_space(&self) {
        let space = self.space.lock();
        let end = space.end();
        if self.file.len().is_ok_and(|len| len > end) {
            let _ = self.file.set_len(end);
        }
        for (offset, len) in space.large_free(PUNCH_MIN_BYTES) {
            let _ = self.file.punch_hole(offset, len);
        }
    }
}
