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

    /// Reads the block at `loc`, checking its checksums (the node block `bn`, or with `bn` None the
    /// translation table, which its header's CRC covers and the caller checks).
    pub(crate) fn read_checked_block(&self, bn: BlockNum, loc: BlockLoc) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; loc.len as usize];
        self.file
            .read_exact_at(&mut buf, loc.offset)
            .map_err(|e| Error::io_at("read", &self.path, loc.offset, e))?;
        node_codec::check_block(&buf, bn)
            .map_err(|e| corruption!(self.path, Some(loc.offset), "node {bn}: {e}"))?;
        Ok(buf)
    }

    /// The tree file's name as errors show it.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }
}
