//! A basement as read from disk, kept in its encoded form (file-format.md §3.3, leaf partition) with one
//! offset triple per entry, so a point read looks up one key without materializing every entry.
//!
//! Decoding a 64 KiB basement into owned entries costs two heap allocations per entry and dominated the
//! instruction count of a cold point read (bench/results, callgrind figures in the commit that added this);
//! a packed basement costs one validation pass and one `Vec` of offsets, and its cells are decoded one at
//! a time when asked for. A basement that is about to change is unpacked first (`Basement::unpack`),
//! except for a batch of point messages, which [`PackedBuilder`] merges into a new packed basement.
//!
//! Invariants: `raw` is a complete, valid basement encoding (checked once by [`Packed::parse`]: known
//! encoding, every entry decodable, keys strictly increasing, key lengths minimal varints, no trailing
//! bytes); `ents[i]` is (key offset, key length, cell offset) of entry *i* in `raw`, so the entry
//! starts `varint_len(key length)` bytes before its key; `bytes` equals what the unpacked
//! basement's `bytes()` would be.

use crate::encoding::{varint_len, DecodeError, Decoder, Encode};
use crate::tree::in_memory::mvcc::Cell;

#[derive(Debug, Clone)]
pub struct Packed {
    raw: Vec<u8>,
    ents: Vec<[u32; 3]>,
    bytes: usize,
}

impl Packed {
    /// Checks `raw` (a basement's decompressed bytes) and records where each entry sits.
    /// `encoding` is the expected encoding byte; `overhead` the per-entry overhead counted in `bytes`.
    pub fn parse(raw: Vec<u8>, encoding: u8, overhead: usize) -> Result<Packed, DecodeError> {
        if raw.len() > u32::MAX as usize {
            return Err(DecodeError("basement larger than 4 GiB".into()));
        }
        let mut d = Decoder::new(&raw);
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
            let start = d.position();
            let k = d.bytes()?;
            let key_off = d.position() - k.len();
            // Entries are copied by byte ranges found from the key offset (PackedBuilder), so the
            // key length must be a minimal varint, as the encoder writes it.
            if key_off - start != varint_len(k.len() as u64) {
                return Err(DecodeError("key length is not a minimal varint".into()));
            }
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
        Ok(Packed { raw, ents, bytes })
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

    /// How many entries from `from` on have keys below `key`.
    pub fn count_below(&self, from: usize, key: &[u8]) -> usize {
        self.ents[from..]
            .partition_point(|&[off, len, _]| &self.raw[off as usize..(off + len) as usize] < key)
    }

    /// Where entry `i`'s encoding (key length, key, cell) starts in `raw`.
    pub(crate) fn entry_start(&self, i: usize) -> usize {
        match self.ents.get(i) {
            Some(&[off, len, _]) => off as usize - varint_len(len as u64),
            None => self.raw.len(),
        }
    }

    /// (entry start, key offset, key length) of every entry, in order.
    pub fn entry_places(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        self.ents.iter().map(|&[off, len, _]| {
            let off = off as usize;
            (off - varint_len(len as u64), off, len as usize)
        })
    }

    /// Key and value of entry `i` when it is a plain committed value, without decoding it into a `Cell`.
    pub fn plain(&self, i: usize) -> Option<(&[u8], &[u8])> {
        let mut d = Decoder::new(&self.raw[self.ents[i][2] as usize..]);
        Cell::plain_value(&mut d).map(|v| (self.key(i), v))
    }
}

/// Builds a packed basement entry by entry, copying runs of an existing one as they are: a batch of
/// messages merged into a packed basement costs one copy of its bytes and decodes only the cells the
/// messages reach (Basement::apply_sorted).
///
/// The header (encoding byte, entry count) is reserved at the front for the count the caller expects,
/// so that [`PackedBuilder::finish`] writes it in place when the count's varint has that length (for any
/// count from 128 to 16383) instead of copying the body behind a header (the copy was 3.5% of the
/// flusher's samples in random inserts at 10x the cache).
///
/// Invariant: entries are added in strictly increasing key order (the caller's merge guarantees it);
/// `bytes` is kept as `Basement::bytes` counts it; `body[..reserved]` is the header's place and `ents`
/// are offsets into `body`.
pub struct PackedBuilder {
    encoding: u8,
    /// The header's place, then the entry encodings.
    body: Vec<u8>,
    reserved: usize,
    ents: Vec<[u32; 3]>,
    bytes: usize,
}

impl PackedBuilder {
    /// A builder for about `count` entries (only the length of its varint matters) of `capacity` bytes.
    pub fn new(encoding: u8, capacity: usize, count: usize) -> PackedBuilder {
        let reserved = 1 + varint_len(count as u64);
        let mut body = Vec::with_capacity(reserved + capacity);
        body.resize(reserved, 0);
        PackedBuilder {
            encoding,
            body,
            reserved,
            ents: Vec::with_capacity(count),
            bytes: 0,
        }
    }

    /// Appends entries `from..to` of `p` (their keys above every key added so far). Their share of
    /// `bytes` is the caller's to give to [`PackedBuilder::finish`].
    pub fn copy_run(&mut self, p: &Packed, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let (start, end) = (p.entry_start(from), p.entry_start(to));
        let shift = self.body.len() as i64 - start as i64;
        self.body.extend_from_slice(&p.raw[start..end]);
        self.ents.extend(
            p.ents[from..to]
                .iter()
                .map(|&[k, l, c]| [(k as i64 + shift) as u32, l, (c as i64 + shift) as u32]),
        );
    }

    /// Appends one entry; `overhead` is the per-entry overhead counted in `bytes`.
    pub fn push(&mut self, key: &[u8], cell: &Cell, overhead: usize) {
        self.body.put_bytes(key);
        let key_off = self.body.len() - key.len();
        let cell_off = self.body.len();
        cell.encode(&mut self.body);
        self.ents
            .push([key_off as u32, key.len() as u32, cell_off as u32]);
        self.bytes += key.len() + cell.size() + overhead;
    }

    /// Appends one entry holding plain committed `value`, as [`PackedBuilder::push`] of a
    /// `Cell::Plain` would, without making the cell.
    pub fn push_plain(&mut self, key: &[u8], value: &[u8], overhead: usize) {
        self.body.put_bytes(key);
        let key_off = self.body.len() - key.len();
        let cell_off = self.body.len();
        Cell::encode_plain(value, &mut self.body);
        self.ents
            .push([key_off as u32, key.len() as u32, cell_off as u32]);
        self.bytes += key.len() + value.len() + overhead;
    }

    /// The finished basement; `copied_bytes` is what the entries added by
    /// [`PackedBuilder::copy_run`] count in `Basement::bytes`.
    pub fn finish(self, copied_bytes: usize) -> Packed {
        let mut head = Vec::with_capacity(11);
        head.put_u8(self.encoding);
        head.put_varint(self.ents.len() as u64);
        let bytes = self.bytes + copied_bytes;
        if head.len() == self.reserved {
            let mut raw = self.body;
            raw[..head.len()].copy_from_slice(&head);
            return Packed {
                raw,
                ents: self.ents,
                bytes,
            };
        }
        // The count's varint came out longer or shorter than reserved: copy the body behind it.
        let shift = head.len() as i64 - self.reserved as i64;
        head.extend_from_slice(&self.body[self.reserved..]);
        let ents = self
            .ents
            .into_iter()
            .map(|[k, l, c]| [(k as i64 + shift) as u32, l, (c as i64 + shift) as u32])
            .collect();
        Packed {
            raw: head,
            ents,
            bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENC: u8 = 0;
    const OVERHEAD: usize = 8;

    fn built(count_hint: usize, entries: usize, copy_from: Option<&Packed>) -> Packed {
        let mut b = PackedBuilder::new(ENC, 64, count_hint);
        let mut copied = 0;
        if let Some(p) = copy_from {
            b.copy_run(p, 0, p.len());
            copied = p.bytes();
        }
        for i in 0..entries {
            let key = format!("k{i:05}");
            if i % 2 == 0 {
                b.push_plain(key.as_bytes(), &[i as u8; 3], OVERHEAD);
            } else {
                b.push(key.as_bytes(), &Cell::Plain(vec![i as u8; 3]), OVERHEAD);
            }
        }
        b.finish(copied)
    }

    /// Whatever count the builder was told to expect, the result is the encoding `Packed::parse` reads
    /// back to the same entries, offsets and size: the header written in place when the count's varint
    /// has the expected length, the body copied behind it otherwise.
    #[test]
    fn the_header_fits_in_place_or_the_body_moves_and_either_way_parses_the_same() {
        let base = built(3, 3, None);
        for (hint, n) in [
            (0, 0),
            (3, 3),
            (200, 3),
            (3, 200),
            (130, 130),
            (20_000, 300),
        ] {
            let p = built(hint, n, None);
            let again = Packed::parse(p.raw().to_vec(), ENC, OVERHEAD).unwrap();
            assert_eq!(again.len(), n, "hint {hint}");
            assert_eq!(again.raw(), p.raw());
            assert_eq!(again.bytes(), p.bytes(), "hint {hint}");
            for i in 0..n {
                assert_eq!(p.key(i), again.key(i));
                assert_eq!(p.cell(i), Cell::Plain(vec![i as u8; 3]));
                assert_eq!(p.plain(i), again.plain(i));
            }
        }
        // Entries copied as a run keep their places relative to the header.
        let mut b = PackedBuilder::new(ENC, 64, 500);
        b.copy_run(&base, 0, base.len());
        b.push_plain(b"z", b"last", OVERHEAD);
        let p = b.finish(base.bytes());
        let again = Packed::parse(p.raw().to_vec(), ENC, OVERHEAD).unwrap();
        assert_eq!(again.len(), 4);
        assert_eq!(again.bytes(), p.bytes());
        assert_eq!(p.key(0), b"k00000");
        assert_eq!(p.plain(3), Some((&b"z"[..], &b"last"[..])));
    }
}
