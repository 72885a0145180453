//! The message buffer an internal node keeps for one child.
//!
//! Point messages are indexed by key (each key's messages in MSN order); range deletes and broadcasts are
//! kept in MSN order beside them. Invariant: every message concerns only keys in the child's key range
//! (design.md TREE2); [`Buffer::split_off`] keeps that true when the child splits.
//!
//! Point messages live in [`Points`] (tree/in_memory/points.rs): an arena in arrival order with a sorted
//! index.
//!
//! A buffer may sit on a shared **base** (`Buffer::layered_over`): when a writer changes a buffer that a
//! snapshot also holds (a detached leaf flush, a checkpoint), the change goes into a new, empty layer over
//! the shared buffer instead of a copy of it; copying the whole map had been an eighth of the writer's time
//! in random inserts. Invariant BUF5: every message of the own layer is newer than every message of the base
//! for the same key, and `bytes`, `count` and `max_msn` cover both. A push folds the base back in once
//! nobody else holds it; removing through an MSN at or above the base's newest drops the base whole.

use super::message::{Message, MsgRef, Msn, Op};
use super::points::Points;
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::format::key_filter::KeyFilter;
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct Buffer {
    /// Older messages shared with a snapshot (BUF5); None for a plain buffer.
    base: Option<Arc<Buffer>>,
    points: Points,
    ranged: Vec<Message>,
    /// Totals over this layer and the base.
    bytes: usize,
    count: usize,
    /// The newest MSN here or in the base (0 when empty).
    max_msn: Msn,
}

/// Buffers are equal when they hold the same messages, however layered.
impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        let by_msn = |b: &Buffer| {
            let mut v = b.messages();
            v.sort_by_key(|m| m.msn);
            v
        };
        self.count == other.count && by_msn(self) == by_msn(other)
    }
}

impl Eq for Buffer {}

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
        !self.ranged.is_empty() || self.base.as_ref().is_some_and(|b| b.has_ranged())
    }

    /// A buffer holding everything `shared` holds, whose changes go into a layer of its own (BUF5).
    pub fn layered_over(shared: Arc<Buffer>) -> Buffer {
        Buffer {
            bytes: shared.bytes,
            count: shared.count,
            max_msn: shared.max_msn,
            base: (!shared.is_empty()).then_some(shared),
            ..Buffer::default()
        }
    }

    /// The layers from the oldest base to this one.
    fn layers(&self) -> Vec<&Buffer> {
        let mut out = vec![self];
        while let Some(b) = out.last().and_then(|l| l.base.as_deref()) {
            out.push(b);
        }
        out.reverse();
        out
    }

    /// The key filter of this buffer as it stands (design.md FLT2): its point messages' keys; None when a
    /// range delete or broadcast is pending (no key can be ruled out).
    pub fn key_filter(&self) -> Option<KeyFilter> {
        (!self.has_ranged()).then(|| {
            // Sized by distinct keys, as each key sets its bits once however many messages it has.
            let keys: Vec<&[u8]> = self
                .layers()
                .iter()
                .flat_map(|l| l.points.distinct_keys())
                .collect();
            KeyFilter::build(keys.iter().copied(), keys.len())
        })
    }

    /// Makes this buffer one plain layer: folds the base in, copying it only if a snapshot still holds it.
    fn flatten(&mut self) {
        let Some(base) = self.base.take() else {
            return;
        };
        let mut below = Arc::try_unwrap(base).unwrap_or_else(|shared| (*shared).clone());
        below.flatten();
        // Per key the base's messages stay first (BUF5).
        below.points.append(std::mem::take(&mut self.points));
        self.points = std::mem::take(&mut below.points);
        below.ranged.append(&mut self.ranged);
        self.ranged = below.ranged;
    }

    /// Adds a message; its MSN must exceed every MSN already here for the same keys.
    pub fn push(&mut self, msg: Message) {
        if self
            .base
            .as_ref()
            .is_some_and(|b| Arc::strong_count(b) == 1)
        {
            // Nobody else holds the base any more: fold it back in (no copy).
            self.flatten();
        }
        self.bytes += msg.size();
        self.count += 1;
        self.max_msn = self.max_msn.max(msg.msn);
        if msg.op.is_ranged() {
            self.ranged.push(msg);
        } else {
            self.points.push(msg);
        }
    }

    /// Appends clones of the messages that concern `key`.
    pub fn collect_for_key(&self, key: &[u8], out: &mut Vec<Message>) {
        let mut refs = Vec::new();
        self.collect_refs_for_key(key, &mut refs);
        out.extend(refs.into_iter().cloned());
    }

    /// Appends the messages that concern `key`, borrowed: the base's first, then this layer's points,
    /// then its range messages.
    pub fn collect_refs_for_key<'a>(&'a self, key: &'a [u8], out: &mut Vec<&'a Message>) {
        if let Some(b) = &self.base {
            b.collect_refs_for_key(key, out);
        }
        out.extend(self.points.for_key(key));
        out.extend(self.ranged.iter().filter(|m| m.covers(key)));
    }

    /// Appends clones of the messages that concern any key in [lo, hi) (None = unbounded).
    pub fn collect_range(&self, lo: Option<&[u8]>, hi: Option<&[u8]>, out: &mut Vec<Message>) {
        if let Some(b) = &self.base {
            b.collect_range(lo, hi, out);
        }
        out.extend(self.points.range(lo, hi).into_iter().cloned());
        out.extend(self.ranged.iter().filter_map(|m| clip(m, lo, hi)));
    }

    /// [`Buffer::collect_range`] without copying point messages: they are borrowed into `points`; the
    /// range messages, clipped to [lo, hi), are copied into `ranged`.
    pub fn collect_range_refs<'a>(
        &'a self,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        points: &mut Vec<&'a Message>,
        ranged: &mut Vec<Message>,
    ) {
        if let Some(b) = &self.base {
            b.collect_range_refs(lo, hi, points, ranged);
        }
        points.extend(self.points.range(lo, hi));
        ranged.extend(self.ranged.iter().filter_map(|m| clip(m, lo, hi)));
    }

    /// Removes and returns every message. Each key's messages come in MSN order; with no range delete or
    /// broadcast pending, the keys come in order (what a flush into a leaf merges, so it need not sort
    /// them), otherwise all messages come in MSN order.
    pub fn drain(&mut self) -> Vec<Message> {
        self.flatten();
        let mut out = std::mem::take(&mut self.points).into_sorted();
        if !self.ranged.is_empty() {
            out.append(&mut self.ranged);
            out.sort_by_key(|m| m.msn);
        }
        self.bytes = 0;
        self.count = 0;
        self.max_msn = 0;
        out
    }

    /// Every message borrowed, in the order [`Buffer::messages`] gives them: what a leaf flush prepared
    /// without the lock applies, without copying keys and values (making the copies was 5.6% of the
    /// flusher's samples in random inserts at 10x the cache, freeing them part of another 8.9%).
    pub fn refs(&self) -> Vec<MsgRef<'_>> {
        let mut out = Vec::with_capacity(self.count);
        let in_key_order = self.base.is_none() && self.ranged.is_empty();
        for layer in self.layers() {
            out.extend(
                layer
                    .points
                    .range(None, None)
                    .into_iter()
                    .map(Message::as_ref),
            );
            out.extend(layer.ranged.iter().map(Message::as_ref));
        }
        if !in_key_order {
            out.sort_by_key(|m| m.msn);
        }
        out
    }

    /// Copies of every message, in the order [`Buffer::drain`] gives them (key order needs one layer).
    pub fn messages(&self) -> Vec<Message> {
        self.refs().iter().map(MsgRef::to_message).collect()
    }

    /// Removes every message with an MSN at or below `msn`.
    pub fn remove_through(&mut self, msn: Msn) {
        if self.max_msn <= msn {
            // Everything goes (a buffer nobody wrote to during a detached flush): no per-key walk.
            *self = Buffer::default();
            return;
        }
        if self.base.as_ref().is_some_and(|b| b.max_msn <= msn) {
            // The common case after a detached leaf flush: the base is the snapshot it applied.
            self.base = None;
        }
        self.flatten();
        self.points.retain(|e| e.msn > msn);
        self.ranged.retain(|m| m.msn > msn);
        self.recount();
    }

    /// Moves the messages for keys ≥ `pivot` into a new buffer (ranged messages are clipped into both).
    pub fn split_off(&mut self, pivot: &[u8]) -> Buffer {
        self.flatten();
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

    /// Recomputes the totals of a plain (flattened) buffer.
    fn recount(&mut self) {
        debug_assert!(self.base.is_none());
        let (mut bytes, mut count, mut max_msn) = (0, 0, 0);
        for m in self.points.iter().chain(&self.ranged) {
            bytes += m.size();
            count += 1;
            max_msn = max_msn.max(m.msn);
        }
        self.bytes = bytes;
        self.count = count;
        self.max_msn = max_msn;
    }

    /// Serializes the buffer (file-format.md §3.3, internal partition).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes + 8);
        out.put_varint(self.count as u64);
        // Messages in MSN order, by reference (cloning the map to drain it cost a third of eviction's CPU).
        let mut order: Vec<&Message> = Vec::with_capacity(self.count);
        for layer in self.layers() {
            order.extend(layer.points.iter().chain(&layer.ranged));
        }
        order.sort_by_key(|m| m.msn);
        for m in order {
            m.encode(&mut out);
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
        let mut drained = buf.drain();
        assert_eq!(drained.len(), keys.len());
        // No range message: in key order, each key's messages in MSN order.
        assert!(drained
            .windows(2)
            .all(|w| w[0].key < w[1].key || (w[0].key == w[1].key && w[0].msn < w[1].msn)));
        drained.sort_by_key(|m| m.msn);
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

    /// A layered buffer (BUF5) answers every question as a plain buffer with the same messages does,
    /// whatever the snapshot holding its base does meanwhile.
    #[test]
    fn layers_behave_as_one_buffer() {
        let key = |x: u64| format!("k{:03}", x % 97).into_bytes();
        let mut x = 99u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for round in 0..40 {
            let (mut plain, mut layered) = (Buffer::default(), Buffer::default());
            let mut snapshots = Vec::new();
            let mut msn = 0;
            for step in 0..200 {
                msn += 1;
                let r = next();
                let m = Message {
                    msn,
                    txn: 0,
                    key: key(r),
                    op: match r % 13 {
                        0 => Op::RangeDelete { end: key(r + 5) },
                        1 | 2 => Op::Delete,
                        _ => Op::Put(vec![step as u8; (r % 7) as usize]),
                    },
                };
                let m = match &m.op {
                    Op::RangeDelete { end } if end <= &m.key => Message {
                        op: Op::Delete,
                        ..m
                    },
                    _ => m,
                };
                plain.push(m.clone());
                layered.push(m);
                match next() % 23 {
                    // A snapshot takes the buffer, as a detached flush does; the writer then layers.
                    0 => {
                        let shared = Arc::new(std::mem::take(&mut layered));
                        layered = Buffer::layered_over(shared.clone());
                        snapshots.push(shared);
                    }
                    1 => drop(snapshots.pop()),
                    2 if round % 2 == 0 => {
                        let through = msn.saturating_sub(next() % 10);
                        plain.remove_through(through);
                        layered.remove_through(through);
                    }
                    _ => {}
                }
                assert_eq!(layered.count(), plain.count());
                assert_eq!(layered.bytes(), plain.bytes());
                assert_eq!(layered.has_ranged(), plain.has_ranged());
            }
            let by_msn = |mut v: Vec<Message>| {
                v.sort_by_key(|m| m.msn);
                v
            };
            assert_eq!(by_msn(layered.messages()), by_msn(plain.messages()));
            for b in [&layered, &plain] {
                let borrowed: Vec<Message> = b.refs().iter().map(MsgRef::to_message).collect();
                assert_eq!(borrowed, b.messages());
            }
            for k in 0..97 {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                plain.collect_for_key(&key(k), &mut a);
                layered.collect_for_key(&key(k), &mut b);
                a.sort_by_key(|m| m.msn);
                b.sort_by_key(|m| m.msn);
                assert_eq!(a, b);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            plain.collect_range(Some(b"k010"), Some(b"k050"), &mut a);
            layered.collect_range(Some(b"k010"), Some(b"k050"), &mut b);
            a.sort_by_key(|m| m.msn);
            b.sort_by_key(|m| m.msn);
            assert_eq!(a, b);
            assert_eq!(Buffer::decode(&layered.encode()).unwrap(), plain);
            assert_eq!(layered.key_filter().is_some(), plain.key_filter().is_some());
            if let Some(f) = layered.key_filter() {
                for k in 0..97 {
                    let mut found = Vec::new();
                    plain.collect_for_key(&key(k), &mut found);
                    assert!(found.is_empty() || f.may_contain(&key(k)), "key {k}");
                }
            }
            let (mut pr, mut lr) = (plain.clone(), layered.clone());
            assert_eq!(pr.split_off(b"k050"), lr.split_off(b"k050"));
            assert_eq!(pr, lr);
            assert_eq!(by_msn(layered.drain()), by_msn(plain.drain()));
            assert!(layered.is_empty());
        }
    }
}
