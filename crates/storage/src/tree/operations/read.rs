//! Point reads and basement-at-a-time range materialization (design.md, "Trees and messages").
//!
//! A read descends from the root and collects, from each buffer on its path, the messages that concern the
//! key (or the basement's key range), then applies them oldest first to the leaf's cells and returns what
//! the reader's [`ReadView`] sees. Nothing is written: pending messages stay where they are.

use super::write::part_range;
use crate::error::Result;
use crate::tree::in_memory::buffer::Buffer;
use crate::tree::in_memory::message::{Message, MsgRef, Op, TxnId};
use crate::tree::in_memory::mvcc::{self, Cell, ReadView};
use crate::tree::in_memory::node::Node;
use crate::tree::{Tree, TreeState};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Keys a batched point read looks up under one hold of the tree's read lock.
const KEYS_PER_READ_HOLD: usize = 64;

/// Reads never collect garbage (they change nothing).
const NO_GC: TxnId = 0;

/// One basement's worth of entries, materialized with every pending message applied.
pub(crate) struct Batch {
    /// Visible entries in key order.
    pub entries: Vec<(Vec<u8>, Vec<u8>)>,
    /// Start key of the next basement to the right (None: this was the last).
    pub next_lo: Option<Vec<u8>>,
    /// Start key of this basement (None: this was the first).
    pub lo: Option<Vec<u8>>,
}

fn narrow(lo: &mut Option<Vec<u8>>, hi: &mut Option<Vec<u8>>, pivots: &[Vec<u8>], i: usize) {
    let (l, h) = part_range(pivots, i);
    if let Some(l) = l {
        *lo = Some(l.to_vec());
    }
    if let Some(h) = h {
        *hi = Some(h.to_vec());
    }
}

impl Tree {
    /// A view of everything committed now (not registered: good for one locked read).
    pub(crate) fn latest_view(&self) -> ReadView {
        self.mvcc.view(0, || TxnId::MAX, false).0
    }

    /// The rolled-back transactions to leave out when a read applies pending messages: the set now, not
    /// the one the view copied when it was made. An upsert builds on the newest version not rolled back
    /// (design.md, "Transactions and multi-version reads"), and a transaction rolled back after the view was
    /// made must not be its basis; the view could not see that transaction's versions anyway (it was
    /// active or not yet begun then), so the larger set changes no visibility.
    fn basis_aborted(&self) -> Arc<Vec<TxnId>> {
        self.mvcc.aborted()
    }

    /// The latest committed value of `key`, if any.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_with_fresh_view(key, || self.latest_view())
    }

    /// The value of `key` as a view made by `make_view` sees it. The view is made under the tree's read
    /// lock (invariant TXN4): an unregistered view does not hold back garbage collection, so one made
    /// before the lock could find the versions it needs collapsed by a flush that ran in between (a
    /// committed row read as absent).
    pub fn get_with_fresh_view(
        &self,
        key: &[u8],
        make_view: impl FnOnce() -> ReadView,
    ) -> Result<Option<Vec<u8>>> {
        let value = {
            let st = self.state.read();
            let view = make_view();
            self.get_locked(&st, key, &view)?
        };
        self.evict_after_read()?;
        Ok(value)
    }

    /// Whether each of `keys` has a value as a view made by `make_view` sees it. The keys are read in
    /// groups of [`KEYS_PER_READ_HOLD`], each under one hold of the tree's read lock with a view made
    /// under it (as in [`Tree::get_with_fresh_view`]), so writers wait at most one group's reads.
    pub fn contains_with_fresh_view(
        &self,
        keys: &[&[u8]],
        make_view: impl Fn() -> ReadView,
    ) -> Result<Vec<bool>> {
        let mut found = Vec::with_capacity(keys.len());
        for group in keys.chunks(KEYS_PER_READ_HOLD) {
            {
                let st = self.state.read();
                let view = make_view();
                for k in group {
                    found.push(self.get_locked(&st, k, &view)?.is_some());
                }
            }
            self.evict_after_read()?;
        }
        Ok(found)
    }

    /// The value of each of `keys` as a view made by `make_view` sees it, in groups under one hold of
    /// the read lock each, as [`Tree::contains_with_fresh_view`] reads them.
    pub fn get_many_with_fresh_view(
        &self,
        keys: &[&[u8]],
        make_view: impl Fn() -> ReadView,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let mut values = Vec::with_capacity(keys.len());
        for group in keys.chunks(KEYS_PER_READ_HOLD) {
            {
                let st = self.state.read();
                let view = make_view();
                for k in group {
                    values.push(self.get_locked(&st, k, &view)?);
                }
            }
            self.evict_after_read()?;
        }
        Ok(values)
    }

    /// The value of `key` as `view` sees it.
    pub fn get_with_view(&self, key: &[u8], view: &ReadView) -> Result<Option<Vec<u8>>> {
        let value = {
            let st = self.state.read();
            self.get_locked(&st, key, view)?
        };
        self.evict_after_read()?;
        Ok(value)
    }

    pub(crate) fn get_locked(
        &self,
        st: &TreeState,
        key: &[u8],
        view: &ReadView,
    ) -> Result<Option<Vec<u8>>> {
        // The path's buffers holding messages for `key`, kept so their messages can be borrowed.
        let mut bufs: Vec<Arc<Buffer>> = Vec::new();
        let mut bn = st.root;
        loop {
            let node = self.load(st, bn)?;
            let (i, next) = match &*node {
                Node::Internal {
                    pivots,
                    children,
                    buffers,
                    ..
                } => {
                    let i = pivots.part_index(key);
                    // A buffer not in memory whose filter rules the key out is not read (design.md FLT2).
                    let lacks = buffers[i].surely_lacks(key);
                    if lacks && !buffers[i].is_empty() {
                        self.budget.filter_skips.fetch_add(1, Ordering::Relaxed);
                    }
                    let has_msgs = !buffers[i].is_empty() && !lacks;
                    (i, Some((children[i], has_msgs)))
                }
                Node::Leaf { pivots, .. } => (pivots.part_index(key), None),
            };
            match next {
                Some((child, has_msgs)) => {
                    if has_msgs {
                        bufs.push(self.load_buffer(st, bn, node, i)?);
                    }
                    bn = child;
                }
                None => {
                    let mut msgs: Vec<&Message> = Vec::new();
                    for b in &bufs {
                        b.collect_refs_for_key(key, &mut msgs);
                    }
                    msgs.sort_by_key(|m| m.msn);
                    // Messages below the newest put or delete the view sees cannot show through it.
                    let skip = mvcc::first_needed(msgs.iter().map(|m| m.as_ref()), view);
                    if let Some(j) = skip {
                        msgs.drain(..j);
                    }
                    let lacks = match &*node {
                        Node::Leaf { basements, .. } => basements[i].surely_lacks(key),
                        Node::Internal { .. } => false,
                    };
                    let mut cell = if skip.is_some() {
                        None
                    } else if lacks {
                        self.budget.filter_skips.fetch_add(1, Ordering::Relaxed);
                        None
                    } else {
                        self.basement_cell(st, bn, node, i, key)?
                    };
                    // Fast path: a plain value (or none) and only committed, visible messages on top.
                    if matches!(cell, None | Some(Cell::Plain(_)))
                        && msgs.iter().all(|m| m.txn == 0 && m.msn < view.low_limit)
                    {
                        let mut value = match cell {
                            Some(Cell::Plain(v)) => Some(v),
                            _ => None,
                        };
                        for m in &msgs {
                            value = self.reg.apply(key, value, &m.op)?;
                        }
                        return Ok(value);
                    }
                    let aborted = self.basis_aborted();
                    // The same for messages of transactions the view sees: folded without versions
                    // (design.md TXN7).
                    if matches!(cell, None | Some(Cell::Plain(_)))
                        && mvcc::all_visible(msgs.iter().map(|m| m.as_ref()), view, &aborted)
                    {
                        let stored = match &cell {
                            Some(Cell::Plain(v)) => Some(v.as_slice()),
                            _ => None,
                        };
                        return self.fold_committed(key, stored, &msgs);
                    }
                    for m in &msgs {
                        cell = mvcc::apply(key, cell, m.as_ref(), &self.reg, NO_GC, &aborted)?;
                    }
                    return Ok(cell.and_then(|c| c.visible(view).map(|v| v.to_vec())));
                }
            }
        }
    }

    /// Materializes the basement that holds `key` (None: the first basement of the tree), or with `before`
    /// set, the basement holding the greatest keys below `key` (None: the last basement). Only the entries
    /// inside `window` ([lo, hi), None = unbounded: the keys the caller still needs) are materialized, and
    /// only the pending messages for them are applied; the batch's bounds are the basement's all the same.
    pub(crate) fn batch_at(
        &self,
        key: Option<&[u8]>,
        before: bool,
        view: &ReadView,
        window: (Option<&[u8]>, Option<&[u8]>),
    ) -> Result<Batch> {
        let mut choose = |node: &Node| {
            let pivots = node.pivots();
            match (key, before) {
                (None, false) => 0,
                (None, true) => pivots.len(),
                (Some(k), false) => pivots.part_index(k),
                (Some(k), true) => pivots.partition_point(|p| p.as_slice() < k),
            }
        };
        let batch = {
            let st = self.state.read();
            self.batch_locked(&st, &mut choose, view, window)?
        };
        self.evict_after_read()?;
        Ok(batch)
    }

    /// Materializes the basement a descent reaches when `choose` picks the part to go down at each
    /// node, as [`Tree::batch_at`] does.
    pub(super) fn batch_locked(
        &self,
        st: &TreeState,
        choose: &mut dyn FnMut(&Node) -> usize,
        view: &ReadView,
        window: (Option<&[u8]>, Option<&[u8]>),
    ) -> Result<Batch> {
        let (mut lo, mut hi): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
        let mut path = Vec::new();
        let mut bn = st.root;
        loop {
            let node = self.load(st, bn)?;
            let i = choose(&node);
            narrow(&mut lo, &mut hi, node.pivots(), i);
            match &*node {
                Node::Internal { children, .. } => {
                    path.push((bn, node.clone(), i));
                    bn = children[i];
                }
                Node::Leaf { .. } => {
                    let basement = self.load_basement(st, bn, node, i)?;
                    // The keys to materialize: the basement's range cut to the caller's window.
                    let wlo = match (lo.as_deref(), window.0) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    let whi = match (hi.as_deref(), window.1) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    let mut bufs = Vec::new();
                    for (abn, anc, ai) in path {
                        if let Node::Internal { buffers, .. } = &*anc {
                            if !buffers[ai].is_empty() {
                                bufs.push(self.load_buffer(st, abn, anc, ai)?);
                            }
                        }
                    }
                    // The path's messages for the window: point messages borrowed, range ones clipped.
                    let (mut points, mut clipped) = (Vec::new(), Vec::new());
                    for b in &bufs {
                        b.collect_range_refs(wlo, whi, &mut points, &mut clipped);
                    }
                    let from = wlo.map_or(0, |w| basement.lower_bound(w));
                    let to = whi
                        .map_or(basement.len(), |w| basement.lower_bound(w))
                        .max(from);
                    let visible = |(k, c): (&Vec<u8>, &Cell)| {
                        c.visible(view).map(|v| (k.clone(), v.to_vec()))
                    };
                    let entries = if points.is_empty() && clipped.is_empty() {
                        basement.visible_range(view, from, to)
                    } else if clipped.is_empty() {
                        let part = basement.entries_range(from, to);
                        self.merge_point_messages(&part, points, view, &self.basis_aborted())?
                    } else {
                        let mut map: BTreeMap<Vec<u8>, Cell> = basement
                            .entries_range(from, to)
                            .into_owned()
                            .into_iter()
                            .collect();
                        let mut msgs: Vec<MsgRef<'_>> = points
                            .iter()
                            .map(|m| m.as_ref())
                            .chain(clipped.iter().map(Message::as_ref))
                            .collect();
                        msgs.sort_by_key(|m| m.msn);
                        let aborted = self.basis_aborted();
                        for m in msgs {
                            self.apply_to_map(&mut map, m, &aborted)?;
                        }
                        map.iter().filter_map(visible).collect()
                    };
                    return Ok(Batch {
                        entries,
                        next_lo: hi,
                        lo,
                    });
                }
            }
        }
    }

    /// Merges a basement's sorted entries with point messages (no range messages): each key with messages
    /// gets them applied in MSN order; keys without any are read in place, never copied into a map.
    fn merge_point_messages(
        &self,
        part: &[(Vec<u8>, Cell)],
        mut msgs: Vec<&Message>,
        view: &ReadView,
        aborted: &[TxnId],
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        // Each buffer gives its messages in (key, MSN) order: the stable sort finds those runs and
        // merges them, where the unstable one would sort them all again.
        msgs.sort_by(|a, b| a.key.cmp(&b.key).then(a.msn.cmp(&b.msn)));
        let mut out = Vec::with_capacity(part.len() + msgs.len());
        let mut entries = part.iter().peekable();
        let mut at = 0;
        loop {
            let next_is_entry = match (entries.peek(), msgs.get(at)) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((k, _)), Some(m)) => k.as_slice() < m.key.as_slice(),
            };
            if next_is_entry {
                let (k, c) = entries.next().expect("peeked");
                if let Some(v) = c.visible(view) {
                    out.push((k.clone(), v.to_vec()));
                }
                continue;
            }
            let key: &[u8] = &msgs[at].key;
            let run = msgs[at..].iter().take_while(|m| m.key == key).count();
            let own = &msgs[at..at + run];
            at += run;
            let stored = match entries.peek() {
                Some((k, _)) if k.as_slice() == key => entries.next().map(|(_, c)| c),
                _ => None,
            };
            // Messages below the newest put or delete the view sees cannot show through it.
            let (stored, own) = match mvcc::first_needed(own.iter().map(|m| m.as_ref()), view) {
                Some(j) => (None, &own[j..]),
                None => (stored, own),
            };
            // Fast path: a plain value (or none) and only messages the view sees (design.md TXN7).
            if matches!(stored, None | Some(Cell::Plain(_)))
                && mvcc::all_visible(own.iter().map(|m| m.as_ref()), view, aborted)
            {
                let plain = match stored {
                    Some(Cell::Plain(v)) => Some(v.as_slice()),
                    _ => None,
                };
                if let Some(v) = self.fold_committed(key, plain, own)? {
                    out.push((key.to_vec(), v));
                }
                continue;
            }
            let mut cell = stored.cloned();
            for m in own {
                cell = mvcc::apply(key, cell, m.as_ref(), &self.reg, NO_GC, aborted)?;
            }
            if let Some(v) = cell.as_ref().and_then(|c| c.visible(view)) {
                out.push((key.to_vec(), v.to_vec()));
            }
        }
        Ok(out)
    }

    /// The value messages a view sees all of (mvcc::all_visible) leave on `stored`, copied once: a
    /// put's value is borrowed until a later upsert needs it owned.
    fn fold_committed(
        &self,
        key: &[u8],
        stored: Option<&[u8]>,
        msgs: &[&Message],
    ) -> Result<Option<Vec<u8>>> {
        let mut value: Option<Cow<'_, [u8]>> = stored.map(Cow::Borrowed);
        for m in msgs {
            value = match &m.op {
                Op::Put(v) => Some(Cow::Borrowed(v.as_slice())),
                Op::Delete | Op::RangeDelete { .. } => None,
                Op::Abort => value,
                op => self
                    .reg
                    .apply(key, value.map(Cow::into_owned), op)?
                    .map(Cow::Owned),
            };
        }
        Ok(value.map(Cow::into_owned))
    }

    fn apply_to_map(
        &self,
        map: &mut BTreeMap<Vec<u8>, Cell>,
        m: MsgRef<'_>,
        aborted: &[TxnId],
    ) -> Result<()> {
        let keys: Vec<Vec<u8>> = match m.op {
            Op::RangeDelete { end } => map
                .range::<[u8], _>((Bound::Included(m.key), Bound::Excluded(end.as_slice())))
                .map(|(k, _)| k.clone())
                .collect(),
            Op::Broadcast { .. } => map.keys().filter(|k| m.covers(k)).cloned().collect(),
            _ => vec![m.key.to_vec()],
        };
        for k in keys {
            let old = map.remove(&k);
            if let Some(nc) = mvcc::apply(&k, old, m, &self.reg, NO_GC, aborted)? {
                map.insert(k, nc);
            }
        }
        Ok(())
    }

    /// Readers cannot evict under the read lock; when the cache is over budget a reader takes the write lock
    /// afterwards and evicts.
    pub(crate) fn evict_after_read(&self) -> Result<()> {
        if self.budget.used() > self.budget.limit() + self.budget.limit() / 8 {
            let mut st = self.state.write();
            self.evict_if_needed(&mut st, &[])?;
        }
        Ok(())
    }
}
