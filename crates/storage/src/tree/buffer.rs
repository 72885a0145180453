//! The message buffer an internal node keeps for one child.
//!
//! Point messages are indexed by key (each key's messages in MSN order); range deletes and broadcasts are
//! kept in MSN order beside them. Invariant: every message concerns only keys in the child's key range
//! (design.md, tree invariant 2); [`Buffer::split_off`] keeps that true when the child splits.

use super::key_filter::KeyFilter;
use super::message::{Message, Msn, Op, TxnId};
use crate::encoding::{DecodeError, Decoder, Encode};
use std::collections::BTreeMap;
use std::ops::Bound;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Buffer {
    points: BTreeMap<Vec<u8>, Vec<(Msn, TxnId, Op)>>,
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
        (!self.has_ranged())
            .then(|| KeyFilter::build(self.points.keys().map(|k| k.as_slice()), self.points.len()))
    }

    /// Adds a message; its MSN must exceed every MSN already here for the same keys.
    pub fn push(&mut self, msg: Message) {
        self.bytes += msg.size();
        self.count += 1;
        if msg.op.is_ranged() {
            self.ranged.push(msg);
        } else {
            self.points
                .entry(msg.key)
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
                    key: key.clone(),
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
            for (msn, txn, op) in list {
                out.push(Message {
                    msn,
                    txn,
                    key: key.clone(),
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
                bytes += k.len() + op.size();
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
                    .map(|(msn, txn, op)| (*msn, *txn, key.as_slice(), op)),
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
