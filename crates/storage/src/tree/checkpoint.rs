//! This tree's part of a checkpoint (design.md, "Checkpoint protocol", steps 2 to 4 and 6).
//!
//! `capture` holds the write lock only to copy pointers: the root, the table, the highest MSN and an `Arc` of
//! each dirty node (invariant CKP7). `write_capture` then serializes and writes those nodes without the lock,
//! writes the table and the header slot with fsyncs in between (CKP2), and marks each written node clean if no
//! writer changed it meanwhile. Places the capture references are pinned until the next checkpoint of this
//! tree is durable (CKP1).

use super::node::{BlockNum, Node};
use super::Tree;
use crate::block::slots;
use crate::block::BlockLoc;
use crate::error::{Error, Result};
use crate::tree::message::Msn;
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) const TREE_MAGIC: &[u8; 8] = b"BETULATR";
/// Bytes a checkpoint writes out at a time before its fsync (CKP9).
const WRITE_OUT_SLICE: u64 = 4 << 20;
pub(crate) const TREE_PAYLOAD_BYTES: usize = 56;

/// What a checkpoint captured of one tree.
pub struct TreeCapture {
    root: BlockNum,
    next_bn: BlockNum,
    msn: Msn,
    seq: u64,
    table: HashMap<BlockNum, BlockLoc>,
    dirty: Vec<(BlockNum, u64, Arc<Node>)>,
}

/// The fields of a tree header slot (file-format.md §3.1).
pub(crate) struct TreeHeader {
    pub tree_id: u64,
    pub seq: u64,
    pub msn: Msn,
    pub root: BlockNum,
    pub next_bn: BlockNum,
    pub table_offset: u64,
    pub table_len: u32,
    pub table_crc: u32,
}

impl TreeHeader {
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(TREE_PAYLOAD_BYTES);
        for v in [
            self.tree_id,
            self.seq,
            self.msn,
            self.root,
            self.next_bn,
            self.table_offset,
        ] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&self.table_len.to_le_bytes());
        p.extend_from_slice(&self.table_crc.to_le_bytes());
        debug_assert_eq!(p.len(), TREE_PAYLOAD_BYTES);
        slots::encode_slot(TREE_MAGIC, &p)
    }

    pub fn decode(p: &[u8]) -> TreeHeader {
        let u = |i: usize| u64::from_le_bytes(p[i * 8..i * 8 + 8].try_into().unwrap());
        TreeHeader {
            tree_id: u(0),
            seq: u(1),
            msn: u(2),
            root: u(3),
            next_bn: u(4),
            table_offset: u(5),
            table_len: u32::from_le_bytes(p[48..52].try_into().unwrap()),
            table_crc: u32::from_le_bytes(p[52..56].try_into().unwrap()),
        }
    }
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
