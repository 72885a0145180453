//! A tree file's header slot (file-format.md §3.1): the two slots at the start of the file, written in
//! turn by checkpoints; the newer valid one names the root, the next block number, the highest MSN and
//! where the translation table is.
//!
//! Invariant: the payload is exactly [`TREE_PAYLOAD_BYTES`], little-endian, in the order below; the slot
//! framing (magic, format version, CRC-32C) is `block::slots`'s; the sequence is in the payload.

use crate::block::slots;
use crate::tree::in_memory::message::Msn;
use crate::tree::in_memory::node::BlockNum;

pub(crate) const TREE_MAGIC: &[u8; 8] = b"BETULATR";
pub(crate) const TREE_PAYLOAD_BYTES: usize = 56;

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
