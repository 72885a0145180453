//! A basement: a sorted run of a leaf's entries, compressed and read on its own (file-format.md §3.3).
//!
//! Each entry is a key and a [`Cell`] (a plain committed value or a stack of versions, see `mvcc`).
//! Invariant: keys strictly increase. Applying a message keeps them so; an entry whose last version is a
//! delete below the garbage-collection horizon is removed.

use super::frames::{self, Cut};
use super::key_filter::KeyFilter;
use super::key_index::KeyIndex;
use super::message::{Message, MsgRef, Op, TxnId, UpdateRegistry};
use super::mvcc::{self, Cell, ReadView};
use super::packed::{Packed, PackedBuilder};
use crate::encoding::{DecodeError, Encode};
use crate::error::Result;
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
    /// The key filter of this basement as it stands (design.md FLT2): every entry's key.
    pub fn key_filter(&self) -> KeyFilter {
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

    /// Applies one message (already clipped to this basement's range, if ranged), collecting versions below
    /// `horizon`.
    pub fn apply(
        &mut self,
        msg: &Message,
        reg: &UpdateRegistry,
        horizon: TxnId,
        aborted: &[TxnId],
    ) -> Result<()> {
        self.unpack();
        match &msg.op {
            Op::RangeDelete { .. } | Op::Broadcast { .. } => {
                let (a, b) = match &msg.op {
                    Op::RangeDelete { end } => (self.lower_bound(&msg.key), self.lower_bound(end)),
                    Op::Broadcast { end, .. } if end.is_empty() => {
                        (self.lower_bound(&msg.key), self.entries.len())
                    }
                    Op::Broadcast { end, .. } => {
                        (self.lower_bound(&msg.key), self.lower_bound(end))
                    }
                    _ => unreachable!(),
                };
                if a >= b {
                    return Ok(());
                }
                let tail = self.entries.split_off(b);
                let range: Vec<(Vec<u8>, Cell)> = self.entries.drain(a..).collect();
                for (k, c) in range {
                    self.bytes -= entry_size(&k, &c);
                    if let Some(nc) = mvcc::apply(&k, Some(c), msg.as_ref(), reg, horizon, aborted)?
                    {
                        self.bytes += entry_size(&k, &nc);
                        self.entries.push((k, nc));
                    }
                }
                self.entries.extend(tail);
                self.reindex();
            }
            _ => match self.search_for_change(&msg.key) {
                (i, true) => {
                    let old = std::mem::replace(&mut self.entries[i].1, Cell::Plain(Vec::new()));
                    self.bytes -= entry_size(&msg.key, &old);
                    match mvcc::apply(&msg.key, Some(old), msg.as_ref(), reg, horizon, aborted)? {
                        Some(nc) => {
                            self.bytes += entry_size(&msg.key, &nc);
                            self.entries[i].1 = nc;
                        }
                        None => {
                            self.entries.remove(i);
                            self.index_mut().remove(i);
                        }
                    }
                }
                (i, false) => {
                    if let Some(nc) =
                        mvcc::apply(&msg.key, None, msg.as_ref(), reg, horizon, aborted)?
                    {
                        self.bytes += entry_size(&msg.key, &nc);
                        self.entries.insert(i, (msg.key.clone(), nc));
                        let entries = &self.entries;
                        self.index
                            .get_mut()
                            .expect("built by search_for_change")
                            .insert(i, &msg.key, |j| entries[j].0.as_slice(), entries.len());
                    }
                }
            },
        }
        Ok(())
    }

    /// Applies point messages sorted by key (and by MSN within a key) in one merge pass over the entries:
    /// O(entries + messages) instead of one insertion (and shift) per message.
    pub fn apply_sorted(
        &mut self,
        msgs: &[MsgRef<'_>],
        reg: &UpdateRegistry,
        horizon: TxnId,
        aborted: &[TxnId],
    ) -> Result<()> {
        debug_assert!(msgs.iter().all(|m| !m.op.is_ranged()));
        if let Some(p) = &self.packed {
            *self = Basement::from_packed(merge_packed(p, msgs, reg, horizon, aborted)?);
            return Ok(());
        }
        let old = std::mem::take(&mut self.entries);
        let mut out: Vec<(Vec<u8>, Cell)> = Vec::with_capacity(old.len() + msgs.len());
        let mut old = old.into_iter().peekable();
        let mut i = 0;
        while i < msgs.len() {
            let key = msgs[i].key;
            while old.peek().is_some_and(|(k, _)| k.as_slice() < key) {
                out.push(old.next().expect("peeked"));
            }
            let mut cell = match old.peek() {
                Some((k, _)) if k.as_slice() == key => Some(old.next().expect("peeked").1),
                _ => None,
            };
            while i < msgs.len() && msgs[i].key == key {
                cell = mvcc::apply(key, cell, msgs[i], reg, horizon, aborted)?;
                i += 1;
            }
            if let Some(c) = cell {
                out.push((key.to_vec(), c));
            }
        }
        out.extend(old);
        *self = Basement::from_sorted(out);
        Ok(())
    }

    /// Splits off the upper half by bytes; returns the new right basement (its first key is the pivot).
    pub fn split_half(&mut self) -> Basement {
        if let Some((left, right)) = self.packed.as_ref().and_then(split_packed) {
            *self = Basement::from_packed(left);
            return Basement::from_packed(right);
        }
        self.unpack();
        let mut acc = 0;
        let mut at = self.entries.len() / 2;
        for (i, (k, c)) in self.entries.iter().enumerate() {
            acc += entry_size(k, c);
            if acc >= self.bytes / 2 {
                at = i + 1;
                break;
            }
        }
        let at = at.clamp(1, self.entries.len().saturating_sub(1).max(1));
        let right = Basement::from_sorted(self.entries.split_off(at));
        self.bytes -= right.bytes;
        self.reindex();
        right
    }

    /// Appends `other`, whose keys are all greater.
    pub fn append(&mut self, mut other: Basement) {
        self.unpack();
        other.unpack();
        self.bytes += other.bytes;
        self.entries.append(&mut other.entries);
        self.reindex();
    }

    pub fn encode(&self) -> Vec<u8> {
        self.encode_cut(usize::MAX).0.into_owned()
    }

    /// The encoding (as [`Basement::encode`]) and where to cut it into frames of about `target` bytes
    /// (tree/frames.rs).
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

/// What entry `i` of `p` counts in `Basement::bytes` (a plain value is measured without decoding it).
fn packed_entry_size(p: &Packed, i: usize) -> usize {
    match p.plain(i) {
        Some((k, v)) => k.len() + v.len() + ENTRY_OVERHEAD,
        None => entry_size(p.key(i), &p.cell(i)),
    }
}

/// Cuts packed basement `p` in two halves by bytes, as `Basement::split_half` cuts owned entries, copying
/// each half's entries as bytes (splitting a merged basement had unpacked every entry into its own
/// allocations, 5% of the flusher's CPU in random inserts); None with fewer than two entries.
fn split_packed(p: &Packed) -> Option<(Packed, Packed)> {
    let n = p.len();
    if n < 2 {
        return None;
    }
    let total = p.bytes();
    let mut acc = 0;
    let mut at = n / 2;
    for i in 0..n {
        acc += packed_entry_size(p, i);
        if acc >= total / 2 {
            at = i + 1;
            break;
        }
    }
    let at = at.clamp(1, n - 1);
    let left_bytes: usize = (0..at).map(|i| packed_entry_size(p, i)).sum();
    let mut left = PackedBuilder::new(ENCODING_PLAIN, p.entry_start(at), at);
    left.copy_run(p, 0, at);
    let mut right = PackedBuilder::new(ENCODING_PLAIN, p.raw().len() - p.entry_start(at), n - at);
    right.copy_run(p, at, n);
    Some((left.finish(left_bytes), right.finish(total - left_bytes)))
}

/// Merges sorted point messages into packed basement `p` without decoding the entries they do not
/// reach: runs between message keys are copied as bytes, each reached entry is decoded, has its
/// messages applied (MSN order within a key) and is re-encoded, or dropped when it ends deleted.
fn merge_packed(
    p: &Packed,
    msgs: &[MsgRef<'_>],
    reg: &UpdateRegistry,
    horizon: TxnId,
    aborted: &[TxnId],
) -> Result<Packed> {
    let extra: usize = msgs.iter().map(|m| m.key.len() + m.op.size()).sum();
    let n = p.len();
    let mut out = PackedBuilder::new(ENCODING_PLAIN, p.raw().len() + extra, n + msgs.len());
    // The copied entries count as the whole basement less the entries the messages reach (each
    // decoded anyway).
    let mut replaced = 0;
    let (mut j, mut run) = (0, 0);
    let mut i = 0;
    while i < msgs.len() {
        let key = msgs[i].key;
        // Entries below the key join the run to copy.
        j += p.count_below(j, key);
        out.copy_run(p, run, j);
        let exists = j < n && p.key(j) == key;
        let single = msgs.get(i + 1).is_none_or(|m| m.key != key);
        if let (true, Op::Put(value)) = (single, msgs[i].op) {
            // The common case of a key's only message being a put that every reader sees (no version
            // to keep): write the value as it is, without decoding the old cell or copying the value
            // into a new one (the copy was 5% of the flusher's samples in random inserts).
            let old_plain = if exists { p.plain(j) } else { None };
            // `mvcc::apply`'s plain-value case, for a put (no old value needed).
            if mvcc::seen_by_all(msgs[i], horizon) && (!exists || old_plain.is_some()) {
                if let Some((k, v)) = old_plain {
                    replaced += k.len() + v.len() + ENTRY_OVERHEAD;
                    j += 1;
                }
                run = j;
                out.push_plain(key, value, ENTRY_OVERHEAD);
                i += 1;
                continue;
            }
        }
        let mut cell = None;
        if exists {
            let c = p.cell(j);
            replaced += entry_size(key, &c);
            cell = Some(c);
            j += 1;
        }
        run = j;
        while i < msgs.len() && msgs[i].key == key {
            cell = mvcc::apply(key, cell, msgs[i], reg, horizon, aborted)?;
            i += 1;
        }
        if let Some(c) = cell {
            out.push(key, &c, ENTRY_OVERHEAD);
        }
    }
    out.copy_run(p, run, n);
    Ok(out.finish(p.bytes() - replaced))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_split_and_round_trip() {
        let mut reg = UpdateRegistry::new();
        reg.register(1, |_, old, arg| {
            let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
            v.extend_from_slice(arg);
            Some(v)
        });
        let all = TxnId::MAX;
        let mut b = Basement::default();
        for i in 0..100u32 {
            let m = Message {
                msn: i as u64 + 1,
                txn: 0,
                key: format!("k{i:03}").into_bytes(),
                op: Op::Put(vec![1; 10]),
            };
            b.apply(&m, &reg, all, &[]).unwrap();
        }
        let up = Message {
            msn: 200,
            txn: 0,
            key: b"k005".to_vec(),
            op: Op::Upsert {
                func: 1,
                arg: vec![2],
            },
        };
        b.apply(&up, &reg, all, &[]).unwrap();
        assert_eq!(b.get(b"k005").unwrap().newest(&[]).unwrap().len(), 11);
        let rd = Message {
            msn: 201,
            txn: 0,
            key: b"k010".to_vec(),
            op: Op::RangeDelete {
                end: b"k020".to_vec(),
            },
        };
        b.apply(&rd, &reg, all, &[]).unwrap();
        assert_eq!(b.len(), 90);
        // A transactional write below no horizon keeps versions.
        let tx = Message {
            msn: 300,
            txn: 250,
            key: b"k050".to_vec(),
            op: Op::Put(b"new".to_vec()),
        };
        b.apply(&tx, &reg, 100, &[]).unwrap();
        assert!(matches!(b.get(b"k050").as_deref(), Some(Cell::Versions(v)) if v.len() == 2));
        let back = Basement::decode(&b.encode()).unwrap();
        assert_eq!(back, b);
        let total = b.bytes();
        let right = b.split_half();
        assert_eq!(b.bytes() + right.bytes(), total);
        assert!(b.entries().last().unwrap().0 < right.entries()[0].0);
        let enc = right.encode();
        for cut in 0..enc.len() {
            assert!(Basement::decode(&enc[..cut]).is_err());
        }
    }
}

#[cfg(test)]
mod packed_tests {
    use super::*;
    use crate::tree::mvcc::Version;
    use std::sync::Arc;

    fn view_below(low_limit: TxnId) -> ReadView {
        ReadView {
            own: 0,
            low_limit,
            active: Arc::new(Vec::new()),
            aborted: Arc::new(Vec::new()),
        }
    }

    /// Entries mixing plain values, version stacks and a deleted version, keys with a shared prefix.
    fn sample() -> Basement {
        let mut entries = Vec::new();
        for i in 0..300u32 {
            let k = format!("user/{:05}", i * 3).into_bytes();
            let c = match i % 5 {
                0 => Cell::Versions(vec![
                    Version {
                        txn: 0,
                        value: Some(vec![i as u8; 3]),
                    },
                    Version {
                        txn: 50 + u64::from(i),
                        value: if i % 2 == 0 {
                            None
                        } else {
                            Some(b"new".to_vec())
                        },
                    },
                ]),
                _ => Cell::Plain(vec![(i % 256) as u8; (i % 40) as usize]),
            };
            entries.push((k, c));
        }
        Basement::from_sorted(entries)
    }

    #[test]
    fn a_packed_basement_reads_like_the_decoded_one() {
        let owned = sample();
        let packed = Basement::decode(&owned.encode()).unwrap();
        assert!(packed.is_packed() && !owned.is_packed());
        assert_eq!(packed, owned);
        assert_eq!(packed.len(), owned.len());
        assert_eq!(packed.bytes(), owned.bytes());
        assert_eq!(packed.first_key(), owned.first_key());
        assert_eq!(packed.encode(), owned.encode());
        for i in 0..950u32 {
            let k = format!("user/{i:05}").into_bytes();
            assert_eq!(packed.get(&k), owned.get(&k), "key {i}");
            assert_eq!(packed.lower_bound(&k), owned.lower_bound(&k), "key {i}");
        }
        for probe in [&b""[..], b"a", b"user/", b"user/99999", b"zzz"] {
            assert_eq!(packed.get(probe), owned.get(probe));
            assert_eq!(packed.lower_bound(probe), owned.lower_bound(probe));
        }
        for sees in [0u64, 100, TxnId::MAX] {
            let view = view_below(sees);
            assert_eq!(packed.visible_entries(&view), owned.visible_entries(&view));
        }
    }

    #[test]
    fn a_packed_basement_unpacks_before_it_changes() {
        let reg = UpdateRegistry::new();
        let mut owned = sample();
        let mut packed = Basement::decode(&owned.encode()).unwrap();
        let msgs = [
            Message {
                msn: 1,
                txn: 0,
                key: b"user/00003".to_vec(),
                op: Op::Put(b"x".to_vec()),
            },
            Message {
                msn: 2,
                txn: 0,
                key: b"user/00004".to_vec(),
                op: Op::Put(b"y".to_vec()),
            },
            Message {
                msn: 3,
                txn: 0,
                key: b"user/00100".to_vec(),
                op: Op::RangeDelete {
                    end: b"user/00200".to_vec(),
                },
            },
        ];
        for m in &msgs {
            owned.apply(m, &reg, TxnId::MAX, &[]).unwrap();
            packed.apply(m, &reg, TxnId::MAX, &[]).unwrap();
            assert!(!packed.is_packed());
            assert_eq!(packed, owned);
            assert_eq!(packed.bytes(), owned.bytes());
        }
        let mut p2 = Basement::decode(&owned.encode()).unwrap();
        let (r1, r2) = (owned.split_half(), p2.split_half());
        assert_eq!((&p2, &r2), (&owned, &r1));
        let mut p3 = Basement::decode(&owned.encode()).unwrap();
        p3.append(Basement::decode(&r1.encode()).unwrap());
        owned.append(r1);
        assert_eq!(p3, owned);
        assert_eq!(p3.bytes(), owned.bytes());
    }

    #[test]
    fn damaged_bytes_fail_to_parse_or_read_consistently() {
        let enc = sample().encode();
        for cut in 0..enc.len() {
            assert!(Basement::decode(&enc[..cut]).is_err(), "cut at {cut}");
        }
        // Any single damaged byte either fails to parse or yields a basement every accessor can read.
        for at in 0..enc.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = enc.clone();
                bad[at] ^= flip;
                if let Ok(b) = Basement::decode(&bad) {
                    let all = b.entries().into_owned();
                    assert_eq!(all.len(), b.len());
                    for (k, c) in &all {
                        assert_eq!(b.get(k).as_deref(), Some(c));
                    }
                    b.visible_entries(&view_below(TxnId::MAX));
                }
            }
        }
    }

    /// A batch merged into a packed basement gives the same entries, byte count and encoding as the
    /// same batch applied to its unpacked form, whatever the mix of puts, deletes, upserts,
    /// transactional versions and aborts.
    #[test]
    fn packed_merge_matches_the_unpacked_merge() {
        use rand::{Rng, SeedableRng};
        let mut reg = UpdateRegistry::new();
        reg.register(1, |_, old, arg| {
            let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
            v.extend_from_slice(arg);
            (v.len() < 40).then_some(v)
        });
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for round in 0..300 {
            let mut base = Basement::default();
            let mut msn = 1;
            let n = rng.gen_range(0..60);
            for _ in 0..n {
                let key = format!("k{:04}", rng.gen_range(0..200)).into_bytes();
                let len = rng.gen_range(0..300);
                let txn = if rng.gen_bool(0.2) {
                    rng.gen_range(1..50)
                } else {
                    0
                };
                let m = Message {
                    msn,
                    txn,
                    key,
                    op: Op::Put(vec![b'v'; len]),
                };
                msn += 1;
                base.apply(&m, &reg, 10, &[]).unwrap();
            }
            let packed = Basement::decode(&base.encode()).unwrap();
            assert!(packed.is_packed());
            let mut msgs = Vec::new();
            for _ in 0..rng.gen_range(1..40) {
                let key = format!("k{:04}", rng.gen_range(0..200)).into_bytes();
                let txn = if rng.gen_bool(0.3) {
                    rng.gen_range(1..50)
                } else {
                    0
                };
                let op = match rng.gen_range(0..4) {
                    0 => Op::Delete,
                    1 => Op::Upsert {
                        func: 1,
                        arg: vec![b'u'; rng.gen_range(0..8)],
                    },
                    2 if txn > 0 => Op::Abort,
                    _ => Op::Put(vec![b'w'; rng.gen_range(0..100)]),
                };
                msgs.push(Message { msn, txn, key, op });
                msn += 1;
            }
            let mut sorted: Vec<MsgRef> = msgs.iter().map(Message::as_ref).collect();
            sorted.sort_by(|a, b| a.key.cmp(b.key));
            let (horizon, aborted) = (rng.gen_range(0..60), vec![3, 17]);
            let mut a = packed.clone();
            a.apply_sorted(&sorted, &reg, horizon, &aborted).unwrap();
            let mut b = packed.clone();
            b.unpack();
            b.apply_sorted(&sorted, &reg, horizon, &aborted).unwrap();
            assert!(a.is_packed() && !b.is_packed(), "round {round}");
            assert_eq!(a.entries(), b.entries(), "round {round}");
            assert_eq!(a.bytes(), b.bytes(), "round {round}");
            assert_eq!(a.encode(), b.encode(), "round {round}");
            for (k, _) in b.entries().iter() {
                assert_eq!(a.get(k), b.get(k), "round {round}");
            }
            assert_eq!(Basement::decode(&a.encode()).unwrap(), a, "round {round}");
            // Splitting the packed result cuts where splitting its owned entries does, with the same
            // byte counts on both sides.
            if a.len() >= 2 {
                let (mut pl, mut ul) = (a.clone(), a.clone());
                ul.unpack();
                let (pr, ur) = (pl.split_half(), ul.split_half());
                assert!(pl.is_packed() && pr.is_packed(), "round {round}");
                assert_eq!((pl.entries(), pr.entries()), (ul.entries(), ur.entries()));
                assert_eq!((pl.bytes(), pr.bytes()), (ul.bytes(), ur.bytes()));
                assert_eq!(pr.first_key(), ur.first_key());
            }
        }
    }

    #[test]
    fn overlong_key_lengths_are_refused() {
        // encoding 0, one entry: key length 1 written in two bytes (0x81 0x00), key "a", plain value.
        let mut raw = vec![ENCODING_PLAIN, 1, 0x81, 0x00, b'a'];
        Cell::Plain(b"v".to_vec()).encode(&mut raw);
        assert!(Basement::decode(&raw).is_err());
        let mut ok = vec![ENCODING_PLAIN, 1, 0x01, b'a'];
        Cell::Plain(b"v".to_vec()).encode(&mut ok);
        assert!(Basement::decode(&ok).is_ok());
    }
}
