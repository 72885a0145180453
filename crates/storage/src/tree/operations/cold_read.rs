//! Point reads of basements not in memory (design.md, "Reading one frame").
//!
//! A point read whose basement is not cached reads the basement's stored bytes and decompresses only the
//! frame that can hold its key (tree/format/frames.rs), without caching anything: with data much larger than
//! the cache, most such basements would be evicted before a second read, and loading one whole costs
//! the decompression and parsing of every frame. A basement is loaded into the cache as before when the
//! cache has room, when it was read this way [`COLD_READS_TO_CACHE`] times since it was last in memory
//! (it is hot), or when its block predates frames (format version 2).
//!
//! Invariant: the cell returned is the one the whole basement holds for the key (frames cut the
//! basement's encoding at entry boundaries; tree/format/frames.rs invariants), so both paths read the same
//! data.

use crate::corruption;
use crate::error::Result;
use crate::tree::format::frames;
use crate::tree::in_memory::mvcc::Cell;
use crate::tree::in_memory::node::{BlockNum, Node};
use crate::tree::{Tree, TreeState};
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Frame reads of one basement after which the next point read loads it into the cache.
pub const COLD_READS_TO_CACHE: u8 = 8;

impl Tree {
    /// The cell basement `j` of leaf `bn` (whose cached content is `node`) holds for `key`, if any.
    pub(crate) fn basement_cell(
        &self,
        st: &TreeState,
        bn: BlockNum,
        node: Arc<Node>,
        j: usize,
        key: &[u8],
    ) -> Result<Option<Cell>> {
        let Node::Leaf { basements, .. } = &*node else {
            unreachable!("basement_cell on an internal node");
        };
        let slot = &basements[j];
        if let Some(b) = &slot.loaded {
            return Ok(b.get(key).map(Cow::into_owned));
        }
        let frame_read = slot.part.filter(|p| {
            p.framed && self.budget.near() && slot.cold_reads.get() < COLD_READS_TO_CACHE
        });
        let Some(part) = frame_read else {
            let basement = self.load_basement(st, bn, node, j)?;
            return Ok(basement.get(key).map(Cow::into_owned));
        };
        slot.cold_reads.bump();
        drop(node);
        let loc = self.location(st, bn)?;
        self.budget.frame_reads.fetch_add(1, Ordering::Relaxed);
        self.with_bytes(
            loc.offset + u64::from(part.offset),
            part.stored_len as usize,
            |stored| {
                frames::lookup(stored, part.codec, part.tagged, key).map_err(|e| {
                    corruption!(self.path, Some(loc.offset), "node {bn} basement {j}: {e}")
                })
            },
        )
    }
}
