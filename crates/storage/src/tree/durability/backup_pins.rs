//! What a backup needs of one tree (design.md, "Online backup and restore"): its durable checkpoint read
//! back from the file, that checkpoint's places pinned until the backup ends (BKP1), and its blocks read
//! raw and checked.

use super::open::{read_checkpoint, DurableCheckpoint};
use crate::block::BlockLoc;
use crate::corruption;
use crate::error::{Error, Result};
use crate::tree::format::node_codec;
use crate::tree::in_memory::node::BlockNum;
use crate::tree::Tree;
use std::collections::HashSet;

impl Tree {
    /// Reads the durable checkpoint back and pins its places for a backup (BKP1). The caller holds the
    /// checkpoint mutex right after a checkpoint of this tree, so the durable checkpoint is the one just
    /// written and nothing can supersede it before the pin.
    pub(crate) fn pin_for_backup(&self) -> Result<Option<DurableCheckpoint>> {
        let ck = read_checkpoint(&*self.file, &self.path, Some(self.id))?;
        self.space.lock().hold_durable();
        Ok(ck)
    }

    /// The backup is over: its pinned places that no checkpoint and no live node references are freed.
    pub(crate) fn unpin_for_backup(&self) {
        let st = self.state.read();
        let live: HashSet<u64> = st.table.values().map(|l| l.offset).collect();
        self.space.lock().unhold(|off| live.contains(&off));
    }

    /// Reads `buf.len()` bytes of the tree file at `offset` (a span of blocks, read at once).
    pub(crate) fn read_span(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| Error::io_at("read", &self.path, offset, e))
    }

    /// Checks the checksums of the node block `bn`, whose bytes `block` were read at `loc`.
    pub(crate) fn check_block_at(&self, bn: BlockNum, loc: BlockLoc, block: &[u8]) -> Result<()> {
        node_codec::check_block(block, bn)
            .map_err(|e| corruption!(self.path, Some(loc.offset), "node {bn}: {e}"))
    }

    /// The tree file's name as errors show it.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }
}
