//! This tree's part of a checkpoint (design.md, "Checkpoint protocol", steps 2 to 4 and 6).
//!
//! `capture` holds the write lock only to copy pointers: the root, the table, the highest MSN and an `Arc` of
//! each dirty node (invariant CKP7). `write_capture` then serializes and writes those nodes without the lock,
//! writes the table and the header slot with fsyncs in between (CKP2), and marks each written node clean if no
//! writer changed it meanwhile. Places the capture references are pinned until the next checkpoint of this
//! tree is durable (CKP1).

use crate::block::slots;
use crate::block::BlockLoc;
use crate::error::{Error, Result};
use crate::tree::format::tree_header::TreeHeader;
use crate::tree::in_memory::message::Msn;
use crate::tree::in_memory::node::{BlockNum, Node};
use crate::tree::Tree;
use std::collections::HashMap;
use std::sync::Arc;

/// Bytes a checkpoint writes out at a time before its fsync (CKP9).
const WRITE_OUT_SLICE: u64 = 4 << 20;

/// What a checkpoint captured of one tree.
pub struct TreeCapture {
    root: BlockNum,
    next_bn: BlockNum,
    msn: Msn,
    seq: u64,
    table: HashMap<BlockNum, BlockLoc>,
    dirty: Vec<(BlockNum, u64, Arc<Node>)>,
}

impl TreeCapture {
    /// The tree checkpoint sequence this capture will write.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

impl Tree {
    /// Step 2: copies pointers under the tree lock (shared: it excludes writers, not readers).
    pub fn capture(&self) -> TreeCapture {
        let st = self.state.read();
        let nodes = st.nodes.lock();
        let dirty = nodes
            .iter()
            .filter(|(_, s)| s.dirty)
            .map(|(bn, s)| (*bn, s.gen, s.node.clone()))
            .collect();
        let mut space = self.space.lock();
        for loc in st.table.values() {
            space.pin_pending(loc.offset, u64::from(loc.len));
        }
        TreeCapture {
            root: st.root,
            next_bn: st.next_bn,
            msn: st.max_msn,
            seq: st.ckpt_seq + 1,
            table: st.table.clone(),
            dirty,
        }
    }

    /// Steps 3 and 4: writes the captured nodes, the table and the header slot, with fsyncs (CKP2), then frees
    /// what the previous checkpoint alone referenced.
    pub fn write_capture(&self, mut cap: TreeCapture) -> Result<()> {
        let result = self.write_capture_inner(&mut cap);
        if result.is_err() {
            self.space.lock().abandon_pending();
        }
        result
    }

    fn write_capture_inner(&self, cap: &mut TreeCapture) -> Result<()> {
        for (bn, gen, node) in std::mem::take(&mut cap.dirty) {
            let (loc, parts) = self.write_node(&node, bn)?;
            self.space
                .lock()
                .pin_pending(loc.offset, u64::from(loc.len));
            cap.table.insert(bn, loc);
            drop(node);
            let mut st = self.state.write();
            self.mark_clean_if_current(&mut st, bn, gen, loc, &parts);
        }
        let table = crate::block::TranslationTable {
            map: std::mem::take(&mut cap.table),
        }
        .encode();
        let table_loc = self.write_block(&table, 0)?;
        self.space
            .lock()
            .pin_pending(table_loc.offset, u64::from(table_loc.len));
        self.write_out_in_slices();
        self.sync_file()?;
        let header = TreeHeader {
            tree_id: self.id,
            seq: cap.seq,
            msn: cap.msn,
            root: cap.root,
            next_bn: cap.next_bn,
            table_offset: table_loc.offset,
            table_len: table_loc.len,
            table_crc: crc32c::crc32c(&table),
        };
        if let Err(e) = slots::write_slot(&*self.file, cap.seq, &header.encode()) {
            return Err(self
                .health
                .fail(Error::io("write header", self.path.clone(), e)));
        }
        self.sync_file()?;
        let mut st = self.state.write();
        st.ckpt_seq = cap.seq;
        st.ckpt_msn = cap.msn;
        let live: std::collections::HashSet<u64> = st.table.values().map(|l| l.offset).collect();
        self.space.lock().promote_pending(|off| live.contains(&off));
        drop(st);
        self.reclaim_space();
        Ok(())
    }

    /// Writes the file's dirty pages out slice by slice before the checkpoint's fsync (invariant CKP9), so
    /// that commits' log fsyncs queue behind one slice at a time, not behind everything written since
    /// the last checkpoint. The same pages reach the disk as the fsync alone would write.
    fn write_out_in_slices(&self) {
        let end = self.space.lock().end();
        let mut offset = 0;
        while offset < end {
            let len = WRITE_OUT_SLICE.min(end - offset);
            self.file.write_out(offset, len);
            offset += len;
        }
    }

    /// fsyncs the tree file; a failure latches the environment.
    pub(crate) fn sync_file(&self) -> Result<()> {
        self.file
            .sync()
            .map_err(|e| self.health.fail(Error::io("fsync", self.path.clone(), e)))
    }
}
