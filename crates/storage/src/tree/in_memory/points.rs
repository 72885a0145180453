//! A buffer's point messages (puts, deletes, upserts): kept in arrival order, found through a sorted index.
//!
//! Adding a message to a `BTreeMap` keyed by the message's key was 38% of a writer's samples (perf) in
//! random inserts at 10x the cache: a descent of four or five map nodes per message, each a likely cache
//! miss, plus a node allocation every few messages. Here a message is appended to `entries`, and a 16-byte
//! slot (the key's first 8 bytes as an integer, and the entry's index) to an unsorted `tail`. When the
//! tail reaches [`TAIL`] slots, it is sorted and merged into `sorted` in one pass. Lookups search `sorted`
//! by binary search and scan the tail, which stays a few KiB.
//!
//! A slot's head is 8 bytes of its key right after `prefix`, a prefix every key held shares (most of a
//! buffer's keys start alike: a column marker, the high bytes of an id), so heads tell keys apart and
//! the search rarely compares whole keys. `prefix` only shrinks while messages arrive, and every head is
//! recomputed when it does; it is at most [`MAX_PREFIX`] bytes, so that happens a bounded number of
//! times per buffer.
//!
//! Invariants: design.md, "Message buffers", BUF1-BUF4: one slot per entry across `sorted` and `tail`
//! (BUF1); `sorted` in (head, key, index) order, the keys' bytewise order (BUF2, see [`head`]); every
//! index in `tail` above every index in `sorted` (BUF3); a key's entries in MSN order, so index order is
//! MSN order (BUF4). Every key held starts with `prefix`, and every slot's head is taken after it.

use super::key_index;
use super::message::{Message, Op};
use std::cmp::Ordering;

/// Slots the unsorted tail holds before it is merged into the sorted index. Each push costs about
/// 1/TAIL of a pass over the index at the merge, and each lookup a scan of up to TAIL slots.
const TAIL: usize = 256;

/// The longest `prefix` kept: the first key sets it to at most this many of its bytes.
const MAX_PREFIX: usize = 24;

/// What a message moved out of the arena leaves behind (no allocation).
fn vacant() -> Message {
    Message {
        msn: 0,
        txn: 0,
        key: Vec::new(),
        op: Op::Delete,
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    head: u64,
    idx: u32,
}

/// A key's 8 bytes after its first `skip` (zero-padded) as a big-endian integer. For keys sharing their
/// first `skip` bytes, comparing heads, then whole keys when they tie, is the keys' bytewise order:
/// where two padded heads differ, either both keys have a byte there (the first differing byte decides)
/// or the shorter key ran out (a prefix of the other, so smaller).
fn head(key: &[u8], skip: usize) -> u64 {
    key_index::head(key, skip)
}

/// Where `key` stands against keys that all start with `prefix`: `Less` (before all of them),
/// `Greater` (after all of them) or `Equal` (it starts with `prefix` too).
fn against_prefix(key: &[u8], prefix: &[u8]) -> Ordering {
    key[..prefix.len().min(key.len())].cmp(prefix)
}

/// BUF2's order of two slots of `entries`.
fn order(entries: &[Message], a: &Slot, b: &Slot) -> Ordering {
    a.head
        .cmp(&b.head)
        .then_with(|| {
            entries[a.idx as usize]
                .key
                .cmp(&entries[b.idx as usize].key)
        })
        .then(a.idx.cmp(&b.idx))
}

#[derive(Debug, Clone, Default)]
pub struct Points {
    entries: Vec<Message>,
    sorted: Vec<Slot>,
    tail: Vec<Slot>,
    /// Shared by every key in `entries` (set by the first message).
    prefix: Vec<u8>,
}

impl Points {
    /// Messages held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Adds a message; its MSN must exceed every MSN already here for the same key (BUF4).
    pub fn push(&mut self, msg: Message) {
        let idx = u32::try_from(self.entries.len()).expect("a buffer holds under 2^32 messages");
        if self.entries.is_empty() {
            self.prefix.clear();
            self.prefix
                .extend_from_slice(&msg.key[..msg.key.len().min(MAX_PREFIX)]);
        } else {
            self.narrow_prefix(&msg.key);
        }
        self.tail.push(Slot {
            head: head(&msg.key, self.prefix.len()),
            idx,
        });
        self.entries.push(msg);
        if self.tail.len() >= TAIL {
            self.merge_tail();
        }
    }

    /// Appends `newer`, whose messages are each newer than this one's for the same key.
    pub fn append(&mut self, newer: Points) {
        assert!(
            u32::try_from(self.entries.len() + newer.entries.len()).is_ok(),
            "a buffer holds under 2^32 messages"
        );
        if newer.entries.is_empty() {
            return;
        }
        if self.entries.is_empty() {
            *self = newer;
            return;
        }
        let offset = self.entries.len() as u32;
        self.narrow_prefix(&newer.prefix);
        let Points {
            entries,
            sorted,
            tail,
            prefix,
        } = newer;
        let skip = self.prefix.len();
        let same_skip = prefix.len() == skip;
        self.entries.extend(entries);
        // Their slots join the tail, so BUF3 holds; the merge sorts them.
        for s in sorted.into_iter().chain(tail) {
            let idx = s.idx + offset;
            let head = if same_skip {
                s.head
            } else {
                head(&self.entries[idx as usize].key, skip)
            };
            self.tail.push(Slot { head, idx });
        }
        if self.tail.len() >= TAIL {
            self.merge_tail();
        }
    }

    /// Every entry, in no particular order (arrival order until a `retain` or `split_off` rebuilds the
    /// entries in key order).
    pub fn iter(&self) -> impl Iterator<Item = &Message> {
        self.entries.iter()
    }

    /// The messages for `key`, in MSN order.
    pub fn for_key<'a>(&'a self, key: &'a [u8]) -> impl Iterator<Item = &'a Message> + 'a {
        // A key outside the prefix has no messages here.
        let inside = against_prefix(key, &self.prefix) == Ordering::Equal;
        let h = head(key, self.prefix.len());
        let from = if inside {
            self.lower_bound(key)
        } else {
            self.sorted.len()
        };
        let sorted = self.sorted[from..]
            .iter()
            .take_while(move |s| s.head == h && self.key_of(s) == key);
        // Tail slots are newer than the sorted ones (BUF3), and one key's come in index order, so in MSN
        // order (BUF4): pushes append, and `append` adds the newer layer's slots after the older tail.
        let tail = self
            .tail
            .iter()
            .filter(move |s| inside && s.head == h && self.key_of(s) == key);
        sorted.chain(tail).map(|s| &self.entries[s.idx as usize])
    }

    /// The messages for keys in [lo, hi) (None = unbounded), in key order and each key's in MSN order.
    pub fn range(&self, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Vec<&Message> {
        let start = lo.map_or(0, |k| self.lower_bound(k));
        let end = hi.map_or(self.sorted.len(), |k| self.lower_bound(k));
        let in_range = |s: &&Slot| {
            let k = self.key_of(s);
            lo.is_none_or(|lo| k >= lo) && hi.is_none_or(|hi| k < hi)
        };
        let mut tail: Vec<Slot> = self.tail.iter().filter(in_range).copied().collect();
        tail.sort_unstable_by(|a, b| order(&self.entries, a, b));
        let sorted = &self.sorted[start..end.max(start)];
        let mut out = Vec::with_capacity(sorted.len() + tail.len());
        let (mut i, mut j) = (0, 0);
        while i < sorted.len() || j < tail.len() {
            // On a tie (the same key) the sorted slot is older (BUF3), so it comes first.
            let take_sorted = j == tail.len()
                || (i < sorted.len()
                    && order(&self.entries, &sorted[i], &tail[j]) == Ordering::Less);
            let s = if take_sorted {
                i += 1;
                &sorted[i - 1]
            } else {
                j += 1;
                &tail[j - 1]
            };
            out.push(&self.entries[s.idx as usize]);
        }
        out
    }

    /// The distinct keys, in order.
    pub fn distinct_keys(&self) -> Vec<&[u8]> {
        let mut keys: Vec<&[u8]> = self.range(None, None).iter().map(|e| &e.key[..]).collect();
        keys.dedup();
        keys
    }

    /// Removes and returns every entry, in key order and each key's in MSN order.
    pub fn into_sorted(mut self) -> Vec<Message> {
        self.merge_tail();
        let mut entries = std::mem::take(&mut self.entries);
        self.sorted
            .iter()
            .map(|s| std::mem::replace(&mut entries[s.idx as usize], vacant()))
            .collect()
    }

    /// Keeps only the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Message) -> bool) {
        self.merge_tail();
        let order: Vec<u32> = self
            .sorted
            .iter()
            .map(|s| s.idx)
            .filter(|&i| keep(&self.entries[i as usize]))
            .collect();
        if order.len() < self.entries.len() {
            *self = self.rebuilt(&order);
        }
    }

    /// Moves the entries for keys ≥ `pivot` into a new `Points`.
    pub fn split_off(&mut self, pivot: &[u8]) -> Points {
        self.merge_tail();
        let at = self.lower_bound(pivot);
        let left: Vec<u32> = self.sorted[..at].iter().map(|s| s.idx).collect();
        let right: Vec<u32> = self.sorted[at..].iter().map(|s| s.idx).collect();
        let r = self.rebuilt(&right);
        *self = self.rebuilt(&left);
        r
    }

    /// A new `Points` of the entries at `order` (indexes in key order), moved out of this one.
    fn rebuilt(&mut self, order: &[u32]) -> Points {
        let entries: Vec<Message> = order
            .iter()
            .map(|&i| std::mem::replace(&mut self.entries[i as usize], vacant()))
            .collect();
        // Still a prefix of every key kept.
        let skip = self.prefix.len();
        let sorted = entries
            .iter()
            .enumerate()
            .map(|(i, e)| Slot {
                head: head(&e.key, skip),
                idx: i as u32,
            })
            .collect();
        Points {
            entries,
            sorted,
            tail: Vec::new(),
            prefix: self.prefix.clone(),
        }
    }

    /// Shortens `prefix` to what it shares with `key`, recomputing every head if it changed.
    fn narrow_prefix(&mut self, key: &[u8]) {
        let shared = self
            .prefix
            .iter()
            .zip(key)
            .take_while(|(a, b)| a == b)
            .count();
        if shared == self.prefix.len() {
            return;
        }
        self.prefix.truncate(shared);
        let entries = &self.entries;
        for s in self.sorted.iter_mut().chain(self.tail.iter_mut()) {
            s.head = head(&entries[s.idx as usize].key, shared);
        }
    }

    fn key_of(&self, s: &Slot) -> &[u8] {
        &self.entries[s.idx as usize].key
    }

    /// The first position in `sorted` whose key is ≥ `key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        match against_prefix(key, &self.prefix) {
            Ordering::Less => 0,
            Ordering::Greater => self.sorted.len(),
            Ordering::Equal => {
                let h = head(key, self.prefix.len());
                self.sorted
                    .partition_point(|s| s.head < h || (s.head == h && self.key_of(s) < key))
            }
        }
    }

    /// Sorts the tail and merges it into `sorted`, from the back, in place. A tail much shorter than
    /// `sorted` (the usual case: [`TAIL`] slots into a buffer of tens of thousands) finds each slot's
    /// place by binary search and moves the slots after it as one block, so the merge compares about
    /// TAIL × log(len) slots instead of len: with random keys whose heads often tie (an index on a
    /// column of few values), the comparisons of a slot-by-slot merge were a quarter of a writer's
    /// samples (perf).
    fn merge_tail(&mut self) {
        if self.tail.is_empty() {
            return;
        }
        let entries = &self.entries;
        let order = |a: &Slot, b: &Slot| order(entries, a, b);
        let tail = &mut self.tail;
        tail.sort_unstable_by(order);
        let sorted = &mut self.sorted;
        let (mut i, mut j) = (sorted.len(), tail.len());
        let searching = j.saturating_mul(24) < i;
        sorted.resize(i + j, Slot { head: 0, idx: 0 });
        let mut k = sorted.len();
        while j > 0 {
            let t = tail[j - 1];
            let after_all = i == 0 || order(&sorted[i - 1], &t) == Ordering::Less;
            if searching && !after_all {
                // The slots of sorted[..i] ordered after `t` move up as one block (slots are
                // never equal: the index breaks ties). Appends in key order never get here.
                let at = sorted[..i].partition_point(|s| order(s, &t) == Ordering::Less);
                sorted.copy_within(at..i, k - (i - at));
                k -= i - at;
                i = at;
            } else if !after_all {
                k -= 1;
                sorted[k] = sorted[i - 1];
                i -= 1;
                continue;
            }
            k -= 1;
            sorted[k] = t;
            j -= 1;
        }
        tail.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::in_memory::message::Msn;
    use std::collections::BTreeMap;

    /// A buffer grown far past 24 tails (where merges place each tail slot by binary search), with
    /// keys whose heads mostly tie (one shared start, then few distinct bytes, then a varying end) and
    /// repeated keys: every answer as a sorted map gives it.
    #[test]
    fn long_buffers_merge_by_search_as_a_sorted_map_does() {
        let mut x = 11u64;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut p = Points::default();
        let mut model: BTreeMap<Vec<u8>, Vec<Msn>> = BTreeMap::new();
        for msn in 1..=40_000u64 {
            let r = next();
            let mut key = vec![7, 7, 7];
            key.extend_from_slice(&[(r % 3) as u8; 8]);
            key.extend_from_slice(&((r >> 8) % 5000).to_be_bytes()[5..]);
            p.push(Message {
                msn,
                txn: 0,
                key: key.clone(),
                op: Op::Delete,
            });
            model.entry(key).or_default().push(msn);
            if msn % 7919 == 0 {
                for (k, v) in model.iter().step_by(97) {
                    let msns: Vec<Msn> = p.for_key(k).map(|e| e.msn).collect();
                    assert_eq!(&msns, v, "key {k:?} after {msn} messages");
                }
            }
        }
        let all: Vec<(Vec<u8>, Msn)> = p
            .range(None, None)
            .into_iter()
            .map(|e| (e.key.clone(), e.msn))
            .collect();
        let want: Vec<(Vec<u8>, Msn)> = model
            .iter()
            .flat_map(|(k, v)| v.iter().map(move |&m| (k.clone(), m)))
            .collect();
        assert_eq!(all, want);
    }

    /// Against a map from key to its messages: every question answered alike through pushes, appends,
    /// retains and splits, with short keys over a tiny alphabet so that equal heads, zero padding and
    /// prefixes all occur, and enough pushes that the tail is merged many times. Later rounds put a long
    /// shared start before every key (heads are taken after it) and, from the middle on, some keys
    /// that share less of it, so the prefix narrows while the buffer is full.
    #[test]
    fn points_answer_as_a_sorted_map_does() {
        let mut x = 5u64;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for round in 0..12 {
            let start: Vec<u8> = if round < 6 {
                Vec::new()
            } else {
                vec![1, 128, 0, 0, 0, 0, 0, 0, 0, 3]
            };
            let mut p = Points::default();
            let mut model: BTreeMap<Vec<u8>, Vec<Msn>> = BTreeMap::new();
            let mut msn = 0;
            for step in 0..3000 {
                let r = next();
                let len = (r % 11) as usize;
                let narrowed = round >= 9 && step > 1500 && r % 7 == 0;
                let key: Vec<u8> = start[..if narrowed { 2 } else { start.len() }]
                    .iter()
                    .copied()
                    .chain((0..len).map(|i| [0u8, 1, 255][(r >> (i * 2 + 4)) as usize % 3]))
                    .collect();
                msn += 1;
                p.push(Message {
                    msn,
                    txn: 0,
                    key: key.clone(),
                    op: Op::Put(vec![step as u8]),
                });
                model.entry(key).or_default().push(msn);
                match next() % 500 {
                    0 => {
                        let cut = msn.saturating_sub(next() % 300);
                        p.retain(|e| e.msn > cut);
                        model.retain(|_, v| {
                            v.retain(|&m| m > cut);
                            !v.is_empty()
                        });
                    }
                    1 if round % 2 == 0 => {
                        // A newer layer appended, as a buffer folds its base back in.
                        let mut newer = Points::default();
                        for _ in 0..(next() % 400) {
                            msn += 1;
                            let mut k = start.clone();
                            k.extend(vec![(next() % 3) as u8; (next() % 4) as usize]);
                            newer.push(Message {
                                msn,
                                txn: 0,
                                key: k.clone(),
                                op: Op::Delete,
                            });
                            model.entry(k).or_default().push(msn);
                        }
                        p.append(newer);
                    }
                    _ => {}
                }
                assert_eq!(p.len(), model.values().map(Vec::len).sum::<usize>());
            }
            let flat = |m: &BTreeMap<Vec<u8>, Vec<Msn>>| -> Vec<(Vec<u8>, Msn)> {
                m.iter()
                    .flat_map(|(k, v)| v.iter().map(move |&m| (k.clone(), m)))
                    .collect()
            };
            let got = |v: Vec<&Message>| -> Vec<(Vec<u8>, Msn)> {
                v.into_iter().map(|e| (e.key.clone(), e.msn)).collect()
            };
            assert_eq!(got(p.range(None, None)), flat(&model));
            let distinct: Vec<&[u8]> = model.keys().map(Vec::as_slice).collect();
            assert_eq!(p.distinct_keys(), distinct);
            let with_start =
                |tail: &[u8]| -> Vec<u8> { start.iter().chain(tail).copied().collect() };
            let bounds = [
                (with_start(&[1]), with_start(&[1, 255, 0])),
                (vec![0], vec![1, 128]),
                (vec![1, 128, 0], vec![2]),
                (vec![1], vec![1, 128, 0, 0, 0, 0, 0, 0, 0, 3, 1]),
            ];
            for (lo, hi) in bounds {
                let sub: BTreeMap<_, _> = model
                    .range(lo.clone()..hi.clone())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                assert_eq!(got(p.range(Some(&lo), Some(&hi))), flat(&sub));
            }
            for (k, v) in model.iter().take(200) {
                let msns: Vec<Msn> = p.for_key(k).map(|e| e.msn).collect();
                assert_eq!(&msns, v, "key {k:?}");
            }
            assert_eq!(p.for_key(b"\x07").count(), 0);
            assert_eq!(
                p.for_key(b"\x01").count(),
                model.get(&vec![1u8]).map_or(0, Vec::len)
            );
            assert_eq!(
                p.for_key(b"").count(),
                model.get(&vec![]).map_or(0, Vec::len)
            );
            let pivot = with_start(&[1, 0]);
            let right = p.split_off(&pivot);
            let model_right = model.split_off(&pivot);
            assert_eq!(got(p.range(None, None)), flat(&model));
            let drained: Vec<(Vec<u8>, Msn)> = right
                .into_sorted()
                .into_iter()
                .map(|e| (e.key, e.msn))
                .collect();
            assert_eq!(drained, flat(&model_right));
        }
    }
}
