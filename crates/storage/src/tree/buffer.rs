//! The message buffer an internal node keeps for one child.
//!
//! Point messages are indexed by key (each key's messages in MSN order); range deletes and broadcasts are
//! kept in MSN order beside them. Invariant: every message concerns only keys in the child's key range
//! (design.md, tree invariant 2); [`Buffer::split_off`] keeps that true when the child splits.
//!
//! The index is a `BTreeMap` keyed by [`BufKey`], which orders keys by their first 8 bytes as an integer
//! before their bytes: adding a message was 44% of a writer's samples (perf) in random inserts at 10x the cache,
//! most of it in a `memcmp` call per step of the map's descent.

use super::key_filter::KeyFilter;
use super::message::{Message, Msn, Op, TxnId};
use crate::encoding::{DecodeError, Decoder, Encode};
use smallvec::SmallVec;
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;

/// A buffered message's key with its first 8 bytes (zero-padded) as a big-endian integer. Comparing the
/// integers first, then the whole keys when they tie, is the keys' bytewise order: where two padded heads
/// differ, either both keys have a byte there (the first differing byte decides) or the shorter key ran
/// out (a prefix of the other, so smaller). So lookups by `&[u8]` (`Borrow`) agree with inserts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BufKey {
    head: u64,
    key: Vec<u8>,
}

impl BufKey {
    fn new(key: Vec<u8>) -> BufKey {
        let mut b = [0u8; 8];
        let n = key.len().min(8);
        b[..n].copy_from_slice(&key[..n]);
        BufKey {
            head: u64::from_be_bytes(b),
            key,
        }
    }
}

impl Ord for BufKey {
    fn cmp(&self, other: &BufKey) -> Ordering {
        self.head
            .cmp(&other.head)
            .then_with(|| self.key.cmp(&other.key))
    }
}

impl PartialOrd for BufKey {
    fn partial_cmp(&self, other: &BufKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Borrow<[u8]> for BufKey {
    fn borrow(&self) -> &[u8] {
        &self.key
    }
}

/// One key's messages in MSN order (most keys have one: kept inline, no allocation).
type KeyMessages = SmallVec<[(Msn, TxnId, Op); 1]>;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Buffer {
    points: BTreeMap<BufKey, KeyMessages>,
    ranged: Vec<Message>,
    bytes: usize,
    count: usize,
}

/// Clips a ranged message to [lo, hi) (None = unbounded); None if nothing is left.
pub fn clip(msg: &Message, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Option<Message> {
    match &msg.op {
        Op::Broadcast { func, arg, end } => {
            let start = match lo {
                Some(lo) if lo > msg.key.as_slice() => lo.to_vec(),
                _ => msg.key.clone(),
            };
            let end = match hi {
                Some(hi) if end.is_empty() || hi < end.as_slice() => hi.to_vec(),
                _ => end.clone(),
            };
            (end.is_empty() || start < end).then(|| Message {
                msn: msg.msn,
                txn: msg.txn,
                key: start,
                op: Op::Broadcast {
                    func: *func,
                    arg: arg.clone(),
                    end,
                },
            })
        }
        Op::RangeDelete { end } => {
            let start = match lo {
                Some(lo) if lo > msg.key.as_slice() => lo.to_vec(),
                _ => msg.key.clone(),
            };
            let end = match hi {
                Some(hi) if hi < end.as_slice() => hi.to_vec(),
                _ => end.clone(),
            };
            (start < end).then_some(Message {
                msn: msg.msn,
                txn: msg.txn,
                key: start,
                op: Op::RangeDelete { end },
            })
        }
        _ => Some(msg.clone()),
    }
}

impl Buffer {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Serialized size estimate in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn count(&self) -> usize {
        self.count
    }
    /// Whether any range delete or broadcast is pending.
    pub fn has_ranged(&self) -> bool {
        !self.ranged.is_empty()
    }

    /// The key filter of this buffer as it stands (design.md F2): its point messages' keys; None when a
    /// range delete or broadcast is pending (no key can be ruled out).
    pub fn key_filter(&self) -> Option<KeyFilter> {
        (!self.has_ranged()).then(|| {
            KeyFilter::build(
                self.points.keys().map(|k| k.key.as_slice()),
                self.points.len(),
            )
        })
    }

    /// Adds a message; its MSN must exceed every MSN already here for the same keys.
    pub fn push(&mut self, msg: Message) {
        self.bytes += msg.size();
        self.count += 1;
        if msg.op.is_ranged() {
            self.ranged.push(msg);
        } else {
            self.points
                .entry(BufKey::new(msg.key))
                .or_default()
                .push((msg.msn, msg.txn, msg.op));
        }
    }

    /// Appends clones of the messages that concern `key`.
    pub fn collect_for_key(&self, key: &[u8], out: &mut Vec<Message>) {
        if let Some(list) = self.points.get(key) {
            for (msn, txn, op) in list {
                out.push(Message {
                    msn: *msn,
                    txn: *txn,
                    key: key.to_vec(),
                    op: op.clone(),
                });
            }
        }
        out.extend(self.ranged.iter().filter(|m| m.covers(key)).cloned());
    }

    /// Appends clones of the messages that concern any key in [lo, hi) (None = unbounded).
    pub fn collect_range(&self, lo: Option<&[u8]>, hi: Option<&[u8]>, out: &mut Vec<Message>) {
        let lower = lo.map_or(Bound::Unbounded, Bound::Included);
        let upper = hi.map_or(Bound::Unbounded, Bound::Excluded);
        for (key, list) in self.points.range::<[u8], _>((lower, upper)) {
            for (msn, txn, op) in list {
                out.push(Message {
                    msn: *msn,
                    txn: *txn,
                    key: key.key.clone(),
                    op: op.clone(),
                });
            }
        }
        out.extend(self.ranged.iter().filter_map(|m| clip(m, lo, hi)));
    }

    /// Removes and returns every message, in MSN order.
    pub fn drain(&mut self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.count);
        for (key, list) in std::mem::take(&mut self.points) {
            let mut key = Some(key.key);
            let mut list = list.into_iter().peekable();
            while let Some((msn, txn, op)) = list.next() {
                // The key's last message takes the key itself, the others a copy.
                let key = match list.peek() {
                    Some(_) => key.clone(),
                    None => key.take(),
                };
                out.push(Message {
                    msn,
                    txn,
                    key: key.expect("taken only by the last message"),
                    op,
                });
            }
        }
        out.append(&mut self.ranged);
        out.sort_by_key(|m| m.msn);
        self.bytes = 0;
        self.count = 0;
        out
    }

    /// Copies of every message, in MSN order.
    pub fn messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.count);
        for (key, list) in &self.points {
            out.extend(list.iter().map(|(msn, txn, op)| Message {
                msn: *msn,
                txn: *txn,
                key: key.key.clone(),
                op: op.clone(),
            }));
        }
        out.extend(self.ranged.iter().cloned());
        out.sort_by_key(|m| m.msn);
        out
    }

    /// Removes every message with an MSN at or below `msn`.
    pub fn remove_through(&mut self, msn: Msn) {
        self.points.retain(|_, list| {
            list.retain(|(m, _, _)| *m > msn);
            !list.is_empty()
        });
        self.ranged.retain(|m| m.msn > msn);
        self.recount();
    }

    /// Moves the messages for keys ≥ `pivot` into a new buffer (ranged messages are clipped into both).
    pub fn split_off(&mut self, pivot: &[u8]) -> Buffer {
        let right_points = self.points.split_off(pivot);
        let ranged = std::mem::take(&mut self.ranged);
        let mut right = Buffer::default();
        for m in &ranged {
            if let Some(l) = clip(m, None, Some(pivot)) {
                self.ranged.push(l);
            }
            if let Some(r) = clip(m, Some(pivot), None) {
                right.ranged.push(r);
            }
        }
        right.points = right_points;
        self.recount();
        right.recount();
        right
    }

    fn recount(&mut self) {
        let mut bytes = 0;
        let mut count = 0;
        for (k, list) in &self.points {
            for (_, _, op) in list {
                bytes += k.key.len() + op.size();
                count += 1;
            }
        }
        for m in &self.ranged {
            bytes += m.size();
            count += 1;
        }
        self.bytes = bytes;
        self.count = count;
    }

    /// Serializes the buffer (file-format.md §3.3, internal partition).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes + 8);
        out.put_varint(self.count as u64);
        // Messages in MSN order, by reference (cloning the map to drain it cost a third of eviction's CPU).
        let mut order: Vec<(Msn, TxnId, &[u8], &Op)> = Vec::with_capacity(self.count);
        for (key, list) in &self.points {
            order.extend(
                list.iter()
                    .map(|(msn, txn, op)| (*msn, *txn, key.key.as_slice(), op)),
            );
        }
        order.extend(
            self.ranged
                .iter()
                .map(|m| (m.msn, m.txn, m.key.as_slice(), &m.op)),
        );
        order.sort_by_key(|m| m.0);
        for (msn, txn, key, op) in order {
            Message::encode_parts(msn, txn, key, op, &mut out);
        }
        out
    }

    pub fn decode(raw: &[u8]) -> Result<Buffer, DecodeError> {
        let mut d = Decoder::new(raw);
        let count = d.varint()?;
        let mut buf = Buffer::default();
        let mut last = 0;
        for _ in 0..count {
            let m = Message::decode(&mut d)?;
            if m.msn < last {
                return Err(DecodeError(format!(
                    "message MSN {} after {last}: not in MSN order",
                    m.msn
                )));
            }
            last = m.msn;
            if let Op::RangeDelete { end } = &m.op {
                if end <= &m.key {
                    return Err(DecodeError("empty range delete".into()));
                }
            }
            buf.push(m);
        }
        d.finish()?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(msn: Msn, key: &str, op: Op) -> Message {
        Message {
            msn,
            txn: 0,
            key: key.as_bytes().to_vec(),
            op,
        }
    }

    #[test]
    fn buffered_keys_order_as_their_bytes() {
        // Short keys over a tiny alphabet, so zero padding, equal heads and prefixes all occur.
        let mut keys = Vec::new();
        let mut x = 7u64;
        for _ in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (x >> 60) as usize % 13;
            let key: Vec<u8> = (0..len)
                .map(|i| [0u8, 1, 255][(x >> (i * 3)) as usize % 3])
                .collect();
            keys.push(key);
        }
        for a in keys.iter().take(300) {
            for b in &keys {
                let (ka, kb) = (BufKey::new(a.clone()), BufKey::new(b.clone()));
                assert_eq!(ka.cmp(&kb), a.cmp(b), "{a:?} vs {b:?}");
                assert_eq!(ka == kb, a == b);
            }
        }
        // Lookups by bytes find what inserts put in.
        let mut buf = Buffer::default();
        for (i, k) in keys.iter().enumerate() {
            buf.push(Message {
                msn: i as Msn + 1,
                txn: 0,
                key: k.clone(),
                op: Op::Put(vec![i as u8]),
            });
        }
        for k in &keys {
            let mut found = Vec::new();
            buf.collect_for_key(k, &mut found);
            assert!(!found.is_empty() && found.iter().all(|m| &m.key == k));
            assert!(found.windows(2).all(|w| w[0].msn < w[1].msn));
        }
        let mut all = Vec::new();
        buf.collect_range(None, None, &mut all);
        assert_eq!(all.len(), keys.len());
        assert!(all.windows(2).all(|w| w[0].key <= w[1].key));
        let drained = buf.drain();
        assert_eq!(drained.len(), keys.len());
        assert!(drained
            .iter()
            .enumerate()
            .all(|(i, m)| m.msn == i as Msn + 1 && m.key == keys[i]));
    }

    #[test]
    fn split_clips_ranges_and_round_trips() {
        let mut b = Buffer::default();
        b.push(msg(1, "a", Op::Put(b"1".to_vec())));
        b.push(msg(2, "m", Op::Delete));
        b.push(msg(3, "c", Op::RangeDelete { end: b"q".to_vec() }));
        b.push(msg(4, "z", Op::Put(b"2".to_vec())));
        let decoded = Buffer::decode(&b.encode()).unwrap();
        assert_eq!(decoded, b);
        let right = b.split_off(b"k");
        let mut l = Vec::new();
        b.collect_range(None, None, &mut l);
        let mut r = Vec::new();
        right.collect_range(None, None, &mut r);
        assert_eq!(l.len(), 2);
        assert_eq!(r.len(), 3);
        assert!(r
            .iter()
            .any(|m| m.key == b"k" && m.op == Op::RangeDelete { end: b"q".to_vec() }));
        let mut for_key = Vec::new();
        right.collect_for_key(b"m", &mut for_key);
        assert_eq!(for_key.len(), 2);
        assert_eq!(b.count() + right.count(), 5);
    }
}
