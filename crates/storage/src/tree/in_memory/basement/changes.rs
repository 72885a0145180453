//! Changing a basement: applying messages (one at a time, or a sorted batch in one merge pass),
//! splitting it in two halves by bytes and appending its right neighbour. A packed basement (as read
//! from disk) takes a batch of point messages and a split without being decoded: the runs of entries
//! that the change does not reach are copied as bytes.
//!
//! Invariant: keys still strictly increase after every change and `bytes` stays what the entries count;
//! the packed and the owned path give the same entries, byte count and encoding.

use super::{entry_size, Basement, ENCODING_PLAIN, ENTRY_OVERHEAD};
use crate::error::Result;
use crate::tree::format::packed::{Packed, PackedBuilder};
use crate::tree::in_memory::message::{Message, MsgRef, Op, TxnId, UpdateRegistry};
use crate::tree::in_memory::mvcc::{self, Cell};

/// A batch of fewer than entries ÷ this many messages is applied message by message
/// ([`Basement::apply_sorted`]): a binary search and at most one shift of the entries each costs less
/// than rebuilding the whole basement.
const SPARSE_BATCH_DIVISOR: usize = 16;

impl Basement {
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
            _ => self.apply_point(msg.as_ref(), reg, horizon, aborted)?,
        }
        Ok(())
    }

    /// Applies one point message to an unpacked basement: in place when its key is there (or removed),
    /// inserted at its place otherwise.
    fn apply_point(
        &mut self,
        msg: MsgRef<'_>,
        reg: &UpdateRegistry,
        horizon: TxnId,
        aborted: &[TxnId],
    ) -> Result<()> {
        match self.search_for_change(msg.key) {
            (i, true) => {
                let old = std::mem::replace(&mut self.entries[i].1, Cell::Plain(Vec::new()));
                self.bytes -= entry_size(msg.key, &old);
                match mvcc::apply(msg.key, Some(old), msg, reg, horizon, aborted)? {
                    Some(nc) => {
                        self.bytes += entry_size(msg.key, &nc);
                        self.entries[i].1 = nc;
                    }
                    None => {
                        self.entries.remove(i);
                        self.index_mut().remove(i);
                    }
                }
            }
            (i, false) => {
                if let Some(nc) = mvcc::apply(msg.key, None, msg, reg, horizon, aborted)? {
                    self.bytes += entry_size(msg.key, &nc);
                    self.entries.insert(i, (msg.key.to_vec(), nc));
                    let entries = &self.entries;
                    self.index
                        .get_mut()
                        .expect("built by search_for_change")
                        .insert(i, msg.key, |j| entries[j].0.as_slice(), entries.len());
                }
            }
        }
        Ok(())
    }

    /// Applies point messages sorted by key (and by MSN within a key). Few messages into an unpacked
    /// basement ([`SPARSE_BATCH_DIVISOR`]) are applied one by one, each a binary search and, for a key
    /// that is there (an upsert of an existing row), a change in place; otherwise one merge pass over
    /// the entries: O(entries + messages) instead of one insertion (and shift) per message.
    pub fn apply_sorted(
        &mut self,
        msgs: &[MsgRef<'_>],
        reg: &UpdateRegistry,
        horizon: TxnId,
        aborted: &[TxnId],
    ) -> Result<()> {
        debug_assert!(msgs.iter().all(|m| !m.op.is_ranged()));
        if self.packed.is_none() && msgs.len() * SPARSE_BATCH_DIVISOR < self.entries.len() {
            for m in msgs {
                self.apply_point(*m, reg, horizon, aborted)?;
            }
            return Ok(());
        }
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
            if mvcc::seen_by_all(msgs[i], horizon)
                && !mvcc::rolled_back(msgs[i], aborted)
                && (!exists || old_plain.is_some())
            {
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
