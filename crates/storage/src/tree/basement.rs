//! A basement: a sorted run of a leaf's entries, compressed and read on its own (file-format.md §3.3).
//!
//! Each entry is a key and a [`Cell`] (a plain committed value or a stack of versions, see `mvcc`).
//! Invariant: keys strictly increase. Applying a message keeps them so; an entry whose last version is a
//! delete below the garbage-collection horizon is removed.

use super::key_index::KeyIndex;
use super::message::{Message, Op, TxnId, UpdateRegistry};
use super::mvcc::{self, Cell};
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::error::Result;

/// Basement encoding: plain entry list.
pub const ENCODING_PLAIN: u8 = 0;
/// Per-entry overhead counted in [`Basement::bytes`].
pub const ENTRY_OVERHEAD: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Basement {
    entries: Vec<(Vec<u8>, Cell)>,
    bytes: usize,
    /// Search summary of the keys (kept in step with `entries`).
    index: KeyIndex,
}

impl PartialEq for Basement {
    fn eq(&self, other: &Basement) -> bool {
        self.entries == other.entries
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
            bytes,
            index,
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
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Serialized size estimate in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn entries(&self) -> &[(Vec<u8>, Cell)] {
        &self.entries
    }
    pub fn first_key(&self) -> Option<&[u8]> {
        self.entries.first().map(|(k, _)| k.as_slice())
    }

    /// The index of the first entry with key ≥ `key`, and whether its key equals `key`.
    fn search(&self, key: &[u8]) -> (usize, bool) {
        let entries = &self.entries;
        self.index.search(key, |i| entries[i].0.as_slice())
    }

    pub fn get(&self, key: &[u8]) -> Option<&Cell> {
        match self.search(key) {
            (i, true) => Some(&self.entries[i].1),
            _ => None,
        }
    }

    /// Index of the first entry with key ≥ `key`.
    pub fn lower_bound(&self, key: &[u8]) -> usize {
        self.search(key).0
    }

    fn reindex(&mut self) {
        let entries = &self.entries;
        self.index = KeyIndex::build_from(|i| entries[i].0.as_slice(), entries.len());
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
                    if let Some(nc) = mvcc::apply(&k, Some(c), msg, reg, horizon, aborted)? {
                        self.bytes += entry_size(&k, &nc);
                        self.entries.push((k, nc));
                    }
                }
                self.entries.extend(tail);
                self.reindex();
            }
            _ => match self.search(&msg.key) {
                (i, true) => {
                    let old = std::mem::replace(&mut self.entries[i].1, Cell::Plain(Vec::new()));
                    self.bytes -= entry_size(&msg.key, &old);
                    match mvcc::apply(&msg.key, Some(old), msg, reg, horizon, aborted)? {
                        Some(nc) => {
                            self.bytes += entry_size(&msg.key, &nc);
                            self.entries[i].1 = nc;
                        }
                        None => {
                            self.entries.remove(i);
                            self.index.remove(i);
                        }
                    }
                }
                (i, false) => {
                    if let Some(nc) = mvcc::apply(&msg.key, None, msg, reg, horizon, aborted)? {
                        self.bytes += entry_size(&msg.key, &nc);
                        self.entries.insert(i, (msg.key.clone(), nc));
                        let entries = &self.entries;
                        self.index
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
        msgs: &[&Message],
        reg: &UpdateRegistry,
        horizon: TxnId,
        aborted: &[TxnId],
    ) -> Result<()> {
        debug_assert!(msgs.iter().all(|m| !m.op.is_ranged()));
        let old = std::mem::take(&mut self.entries);
        let mut out: Vec<(Vec<u8>, Cell)> = Vec::with_capacity(old.len() + msgs.len());
        let mut old = old.into_iter().peekable();
        let mut i = 0;
        while i < msgs.len() {
            let key = &msgs[i].key;
            while old.peek().is_some_and(|(k, _)| k < key) {
                out.push(old.next().expect("peeked"));
            }
            let mut cell = match old.peek() {
                Some((k, _)) if k == key => Some(old.next().expect("peeked").1),
                _ => None,
            };
            while i < msgs.len() && &msgs[i].key == key {
                cell = mvcc::apply(key, cell, msgs[i], reg, horizon, aborted)?;
                i += 1;
            }
            if let Some(c) = cell {
                out.push((key.clone(), c));
            }
        }
        out.extend(old);
        *self = Basement::from_sorted(out);
        Ok(())
    }

    /// Splits off the upper half by bytes; returns the new right basement (its first key is the pivot).
    pub fn split_half(&mut self) -> Basement {
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
        self.bytes += other.bytes;
        self.entries.append(&mut other.entries);
        self.reindex();
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes + 8);
        out.put_u8(ENCODING_PLAIN);
        out.put_varint(self.entries.len() as u64);
        for (k, c) in &self.entries {
            out.put_bytes(k);
            c.encode(&mut out);
        }
        out
    }

    pub fn decode(raw: &[u8]) -> Result<Basement, DecodeError> {
        let mut d = Decoder::new(raw);
        let encoding = d.u8()?;
        if encoding != ENCODING_PLAIN {
            return Err(DecodeError(format!("unknown basement encoding {encoding}")));
        }
        let count = d.varint()?;
        if count > raw.len() as u64 {
            return Err(DecodeError(format!(
                "entry count {count} exceeds basement size"
            )));
        }
        let mut entries: Vec<(Vec<u8>, Cell)> = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let k = d.bytes()?.to_vec();
            let c = Cell::decode(&mut d)?;
            if let Some((last, _)) = entries.last() {
                if *last >= k {
                    return Err(DecodeError("keys not strictly increasing".into()));
                }
            }
            entries.push((k, c));
        }
        d.finish()?;
        Ok(Basement::from_sorted(entries))
    }
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
        assert!(matches!(b.get(b"k050"), Some(Cell::Versions(v)) if v.len() == 2));
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
