//! A basement: a sorted run of a leaf's entries, compressed and read on its own (file-format.md §3.3).
//!
//! Each entry is a key and a [`Cell`] (a plain committed value or a stack of versions, see `mvcc`).
//! Invariant: keys strictly increase. Applying a message keeps them so; an entry whose last version is a
//! delete below the garbage-collection horizon is removed.
//!
//! Here: the structure, its reads and searches, and its encoding. `changes.rs` applies messages, splits
//! and appends (in place on a packed basement where it can); `tests.rs` and `packed_tests.rs` check that
//! both forms, owned and packed, read and change alike.

mod changes;
#[cfg(test)]
mod packed_tests;
#[cfg(test)]
mod tests;

use super::key_index::KeyIndex;
use super::message::TxnId;
use super::mvcc::{self, Cell, ReadView};
use crate::encoding::{DecodeError, Encode};
use crate::error::Result;
use crate::tree::format::frames::{self, Cut};
use crate::tree::format::key_filter::KeyFilter;
use crate::tree::format::packed::Packed;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Basement encoding: plain entry list.
pub const ENCODING_PLAIN: u8 = 0;
/// Per-entry overhead counted in [`Basement::bytes`].
pub const ENTRY_OVERHEAD: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Basement {
    /// Owned entries; empty while `packed` holds them.
    entries: Vec<(Vec<u8>, Cell)>,
    /// The entries in their encoded form, as read from disk and not changed since (see `packed`).
    packed: Option<Packed>,
    bytes: usize,
    /// Search summary of the keys, kept in step with the entries once built. A basement read from
    /// disk builds it at its second search: most basements a cold point read brings in are searched
    /// once and evicted, and right after decompression a plain binary search is cheap (its bytes are
    /// in the CPU cache); building the summary was 6% of a cold read.
    index: OnceLock<KeyIndex>,
    /// Set by the first search without a summary.
    searched: OnceLock<()>,
}

impl PartialEq for Basement {
    fn eq(&self, other: &Basement) -> bool {
        *self.entries() == *other.entries()
    }
}
impl Eq for Basement {}

fn entry_size(k: &[u8], c: &Cell) -> usize {
    k.len() + c.size() + ENTRY_OVERHEAD
}

impl Basement {
    pub fn from_sorted(entries: Vec<(Vec<u8>, Cell)>) -> Basement {
        let bytes = entries.iter().map(|(k, c)| entry_size(k, c)).sum();
        let index = KeyIndex::build_from(|i| entries[i].0.as_slice(), entries.len());
        Basement {
            entries,
            packed: None,
            bytes,
            index: OnceLock::from(index),
            searched: OnceLock::new(),
        }
    }
    /// A basement of plain committed values.
    pub fn from_plain(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Basement {
        Basement::from_sorted(
            entries
                .into_iter()
                .map(|(k, v)| (k, Cell::Plain(v)))
                .collect(),
        )
    }
    pub fn len(&self) -> usize {
        match &self.packed {
            Some(p) => p.len(),
            None => self.entries.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Serialized size estimate in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    /// Whether the entries are held in their encoded form (read from disk, unchanged).
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }
    /// The entries (decoded into a fresh vector when packed: prefer `get`/`visible_entries` on read paths).
    pub fn entries(&self) -> Cow<'_, [(Vec<u8>, Cell)]> {
        match &self.packed {
            Some(p) => Cow::Owned(p.entries()),
            None => Cow::Borrowed(&self.entries),
        }
    }
    /// Key of entry `i`.
    fn key(&self, i: usize) -> &[u8] {
        match &self.packed {
            Some(p) => p.key(i),
            None => &self.entries[i].0,
        }
    }
    /// This basement without the versions no reader can see any more (`mvcc::collect`: aborted
    /// ones, and those hidden below `horizon`; a lone committed version becomes a plain value),
    /// or `None` when it holds no version stack (a packed basement is left as it is). It keeps
    /// every key: an entry that collection would remove stays as it is, so the key filter of
    /// either is the same (design.md FLT2).
    pub fn collected(&self, horizon: TxnId, aborted: &[TxnId]) -> Option<Basement> {
        let has_versions = |e: &(Vec<u8>, Cell)| matches!(e.1, Cell::Versions(_));
        if self.packed.is_some() || !self.entries.iter().any(has_versions) {
            return None;
        }
        let entries = self
            .entries
            .iter()
            .map(|(k, c)| {
                let c = mvcc::collect(c.clone(), horizon, aborted).unwrap_or_else(|| c.clone());
                (k.clone(), c)
            })
            .collect();
        Some(Basement::from_sorted(entries))
    }

    /// The key filter of this basement as it stands (design.md FLT2, FLT3): every entry's key.
    pub fn key_filter(&self) -> KeyFilter {
        KeyFilter::for_sorted((0..self.len()).map(|i| self.key(i)), self.len())
    }

    /// The Bloom filter of its keys, as a version 5 build wrote it (tests of older formats).
    #[cfg(test)]
    pub fn bloom_filter(&self) -> KeyFilter {
        KeyFilter::build((0..self.len()).map(|i| self.key(i)), self.len())
    }
    pub fn first_key(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.key(0))
    }

    pub fn last_key(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.key(self.len() - 1))
    }

    /// The index of the first entry with key ≥ `key`, and whether its key equals `key`.
    fn search(&self, key: &[u8]) -> (usize, bool) {
        if let Some(index) = self.index.get() {
            return index.search(key, |i| self.key(i));
        }
        if self.searched.set(()).is_err() {
            let index = self
                .index
                .get_or_init(|| KeyIndex::build_from(|i| self.key(i), self.len()));
            return index.search(key, |i| self.key(i));
        }
        let (mut a, mut b) = (0, self.len());
        while a < b {
            let mid = a + (b - a) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => a = mid + 1,
                std::cmp::Ordering::Greater => b = mid,
                std::cmp::Ordering::Equal => return (mid, true),
            }
        }
        (a, false)
    }

    /// The cell of `key`, if present (borrowed, or decoded alone from a packed basement).
    pub fn get(&self, key: &[u8]) -> Option<Cow<'_, Cell>> {
        match self.search(key) {
            (i, true) => Some(match &self.packed {
                Some(p) => Cow::Owned(p.cell(i)),
                None => Cow::Borrowed(&self.entries[i].1),
            }),
            _ => None,
        }
    }

    /// Keys and values `view` sees, in key order (copies; packed plain cells are not decoded into cells).
    pub fn visible_entries(&self, view: &ReadView) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.visible_range(view, 0, self.len())
    }

    /// Keys and values `view` sees among entries `from..to`, in key order.
    pub fn visible_range(
        &self,
        view: &ReadView,
        from: usize,
        to: usize,
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        match &self.packed {
            Some(p) => (from..to)
                .filter_map(|i| match p.plain(i) {
                    Some((k, v)) => Some((k.to_vec(), v.to_vec())),
                    None => p
                        .cell(i)
                        .visible(view)
                        .map(|v| (p.key(i).to_vec(), v.to_vec())),
                })
                .collect(),
            None => self.entries[from..to]
                .iter()
                .filter_map(|(k, c)| c.visible(view).map(|v| (k.clone(), v.to_vec())))
                .collect(),
        }
    }

    /// Entries `from..to` (only those decoded when packed).
    pub fn entries_range(&self, from: usize, to: usize) -> Cow<'_, [(Vec<u8>, Cell)]> {
        match &self.packed {
            Some(p) => Cow::Owned((from..to).map(|i| (p.key(i).to_vec(), p.cell(i))).collect()),
            None => Cow::Borrowed(&self.entries[from..to]),
        }
    }

    /// Turns a packed basement into owned entries (before any change).
    fn unpack(&mut self) {
        if let Some(p) = self.packed.take() {
            self.entries = p.entries();
            if self.index.get().is_none() {
                self.reindex();
            }
        }
    }

    /// As `search`, with the summary built first: the owned entries are about to change at the index
    /// returned, and the summary must describe them as they were.
    fn search_for_change(&mut self, key: &[u8]) -> (usize, bool) {
        self.index_mut();
        self.search(key)
    }

    /// The search summary, built first if it is not (before a change of the owned entries).
    fn index_mut(&mut self) -> &mut KeyIndex {
        if self.index.get().is_none() {
            self.reindex();
        }
        self.index.get_mut().expect("built just above")
    }

    /// Index of the first entry with key ≥ `key`.
    pub fn lower_bound(&self, key: &[u8]) -> usize {
        self.search(key).0
    }

    fn reindex(&mut self) {
        let entries = &self.entries;
        self.index = OnceLock::from(KeyIndex::build_from(
            |i| entries[i].0.as_slice(),
            entries.len(),
        ));
    }

    pub fn encode(&self) -> Vec<u8> {
        self.encode_cut(usize::MAX).0.into_owned()
    }

    /// The encoding (as [`Basement::encode`]) and where to cut it into frames of about `target` bytes
    /// (tree/format/frames.rs).
    pub fn encode_cut(&self, target: usize) -> (Cow<'_, [u8]>, Vec<Cut>) {
        if let Some(p) = &self.packed {
            return (
                Cow::Borrowed(p.raw()),
                frames::plan(p.entry_places(), target),
            );
        }
        let mut out = Vec::with_capacity(self.bytes + 8);
        out.put_u8(ENCODING_PLAIN);
        out.put_varint(self.entries.len() as u64);
        let mut places = Vec::with_capacity(self.entries.len());
        for (k, c) in &self.entries {
            let start = out.len();
            out.put_bytes(k);
            places.push((start, out.len() - k.len(), k.len()));
            c.encode(&mut out);
        }
        (Cow::Owned(out), frames::plan(places.into_iter(), target))
    }

    /// Reads an encoded basement, keeping it packed (entries are decoded when asked for).
    pub fn decode(raw: &[u8]) -> Result<Basement, DecodeError> {
        Basement::decode_owned(raw.to_vec())
    }

    /// As [`Basement::decode`], keeping `raw` itself (no copy of a freshly decompressed basement).
    pub fn decode_owned(raw: Vec<u8>) -> Result<Basement, DecodeError> {
        Ok(Basement::from_packed(Packed::parse(
            raw,
            ENCODING_PLAIN,
            ENTRY_OVERHEAD,
        )?))
    }

    fn from_packed(p: Packed) -> Basement {
        Basement {
            entries: Vec::new(),
            bytes: p.bytes(),
            packed: Some(p),
            index: OnceLock::new(),
            searched: OnceLock::new(),
        }
    }
}
