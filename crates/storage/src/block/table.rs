//! The translation table: block number → place in the file (file-format.md §3.2).
//!
//! Nodes are written copy-on-write, so a node's entry changes each time it is written; parents keep the
//! stable block number.

use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::in_memory::node::BlockNum;
use std::collections::HashMap;

const MAGIC: &[u8; 8] = b"BETULATT";
/// Bytes of one encoded entry: block number, offset, length, prefix length.
const ENTRY_BYTES: u64 = 24;

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
        // The count is read from the file: trust it only as far as the bytes that follow can hold it.
        if u64::from(n) * ENTRY_BYTES > d.remaining() as u64 {
            return Err(DecodeError(format!(
                "{n} entries overrun the translation table"
            )));
        }
        let mut map = HashMap::with_capacity(n as usize);
        for _ in 0..n {
            let bn = d.u64()?;
            let loc = BlockLoc {
                offset: d.u64()?,
                len: d.u32()?,
                prefix_len: d.u32()?,
            };
            let end = loc.offset.checked_add(u64::from(loc.len));
            if end.is_none_or(|end| end > file_len) || loc.prefix_len > loc.len {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TranslationTable {
        let map = (0..3)
            .map(|i| {
                let loc = BlockLoc {
                    offset: 4096 * (i + 1),
                    len: 100,
                    prefix_len: 10,
                };
                (i, loc)
            })
            .collect();
        TranslationTable { map }
    }

    #[test]
    fn round_trips() {
        let t = table();
        assert_eq!(TranslationTable::decode(&t.encode(), 1 << 20).unwrap(), t);
    }

    /// Found by fuzzing: a count of 2^32-1 entries made the decoder reserve about 100 GB and abort the
    /// process; an offset near 2^64 overflowed the bounds check.
    #[test]
    fn counts_and_places_the_bytes_cannot_hold_are_errors() {
        let mut raw = MAGIC.to_vec();
        raw.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(TranslationTable::decode(&raw, 1 << 20).is_err());
        let mut raw = table().encode();
        raw[12 + 8..12 + 16].copy_from_slice(&(u64::MAX - 10).to_le_bytes());
        assert!(TranslationTable::decode(&raw, 1 << 20).is_err());
    }
}
