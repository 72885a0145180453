//! The translation table: block number → place in the file (file-format.md §3.2).
//!
//! Nodes are written copy-on-write, so a node's entry changes each time it is written; parents keep the
//! stable block number.

use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::in_memory::node::BlockNum;
use std::collections::HashMap;

const MAGIC: &[u8; 8] = b"BETULATT";

/// Where a block sits in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockLoc {
    pub offset: u64,
    pub len: u32,
    /// Bytes of header + directory + meta at the start of the block (node blocks).
    pub prefix_len: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranslationTable {
    pub map: HashMap<BlockNum, BlockLoc>,
}

impl TranslationTable {
    pub fn encode(&self) -> Vec<u8> {
        let mut entries: Vec<_> = self.map.iter().collect();
        entries.sort_by_key(|(bn, _)| **bn);
        let mut out = Vec::with_capacity(12 + entries.len() * 24);
        out.extend_from_slice(MAGIC);
        out.put_u32(entries.len() as u32);
        for (bn, loc) in entries {
            out.put_u64(*bn);
            out.put_u64(loc.offset);
            out.put_u32(loc.len);
            out.put_u32(loc.prefix_len);
        }
        out
    }

    pub fn decode(raw: &[u8], file_len: u64) -> Result<TranslationTable, DecodeError> {
        let mut d = Decoder::new(raw);
        if d.take(8)? != MAGIC {
            return Err(DecodeError("bad translation table magic".into()));
        }
        let n = d.u32()?;
        let mut map = HashMap::with_capacity(n as usize);
        for _ in 0..n {
            let bn = d.u64()?;
            let loc = BlockLoc {
                offset: d.u64()?,
                len: d.u32()?,
                prefix_len: d.u32()?,
            };
            if loc.offset + u64::from(loc.len) > file_len || loc.prefix_len > loc.len {
                return Err(DecodeError(format!(
                    "block {bn} at {}+{} lies outside the file ({file_len} bytes)",
                    loc.offset, loc.len
                )));
            }
            if map.insert(bn, loc).is_some() {
                return Err(DecodeError(format!("block {bn} listed twice")));
            }
        }
        d.finish()?;
        Ok(TranslationTable { map })
    }
}
