//! A basement as read from disk, kept in its encoded form (file-format.md §3.3, leaf partition) with one
//! offset triple per entry, so a point read looks up one key without materializing every entry.
//!
//! Decoding a 64 KiB basement into owned entries costs two heap allocations per entry and dominated the
//! instruction count of a cold point read (bench/results, callgrind figures in the commit that added this);
//! a packed basement costs one validation pass and one `Vec` of offsets, and its cells are decoded one at
//! a time when asked for. A basement that is about to change is unpacked first (`Basement::unpack`).
//!
//! Invariants: `raw` is a complete, valid basement encoding (checked once by [`Packed::parse`]: known
//! encoding, every entry decodable, keys strictly increasing, no trailing bytes); `ents[i]` is
//! (key offset, key length, cell offset) of entry *i* in `raw`; `bytes` equals what the unpacked
//! basement's `bytes()` would be.

use super::mvcc::Cell;
use crate::encoding::{DecodeError, Decoder};

#[derive(Debug, Clone)]
pub struct Packed {
    raw: Box<[u8]>,
    ents: Vec<[u32; 3]>,
    bytes: usize,
}

impl Packed {
    /// Checks `raw` (a basement's decompressed bytes) and records where each entry sits.
    /// `encoding` is the expected encoding byte; `overhead` the per-entry overhead counted in `bytes`.
    pub fn parse(raw: &[u8], encoding: u8, overhead: usize) -> Result<Packed, DecodeError> {
        if raw.len() > u32::MAX as usize {
            return Err(DecodeError("basement larger than 4 GiB".into()));
        }
        let mut d = Decoder::new(raw);
        let enc = d.u8()?;
        if enc != encoding {
            return Err(DecodeError(format!("unknown basement encoding {enc}")));
        }
        let count = d.varint()?;
        if count > raw.len() as u64 {
            return Err(DecodeError(format!(
                "entry count {count} exceeds basement size"
            )));
        }
        let mut ents: Vec<[u32; 3]> = Vec::with_capacity(count as usize);
        let mut bytes = 0;
        let mut last: Option<&[u8]> = None;
        for _ in 0..count {
            let k = d.bytes()?;
            let key_off = d.position() - k.len();
            if last.is_some_and(|l| l >= k) {
                return Err(DecodeError("keys not strictly increasing".into()));
            }
            last = Some(k);
            let cell_off = d.position();
            let size = Cell::skip(&mut d)?;
            bytes += k.len() + size + overhead;
            ents.push([key_off as u32, k.len() as u32, cell_off as u32]);
        }
        d.finish()?;
        Ok(Packed {
            raw: raw.into(),
            ents,
            bytes,
        })
    }

    pub fn len(&self) -> usize {
        self.ents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ents.is_empty()
    }

    /// Bytes as `Basement::bytes` counts them.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The encoded basement.
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// Key of entry `i`.
    pub fn key(&self, i: usize) -> &[u8] {
        let [off, len, _] = self.ents[i];
        &self.raw[off as usize..(off + len) as usize]
    }

    /// Cell of entry `i`, decoded.
    pub fn cell(&self, i: usize) -> Cell {
        let mut d = Decoder::new(&self.raw[self.ents[i][2] as usize..]);
        Cell::decode(&mut d).expect("a packed basement was validated when parsed")
    }

    /// Every entry, decoded into owned keys and cells.
    pub fn entries(&self) -> Vec<(Vec<u8>, Cell)> {
        (0..self.len())
            .map(|i| (self.key(i).to_vec(), self.cell(i)))
            .collect()
    }

    /// Key and value of entry `i` when it is a plain committed value, without decoding it into a `Cell`.
    pub fn plain(&self, i: usize) -> Option<(&[u8], &[u8])> {
        let mut d = Decoder::new(&self.raw[self.ents[i][2] as usize..]);
        Cell::plain_value(&mut d).map(|v| (self.key(i), v))
    }
}
