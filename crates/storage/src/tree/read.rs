//! Point reads and basement-at-a-time range materialization (design.md, "Trees and messages").
//!
//! A read descends from the root and collects, from each buffer on its path, the messages that concern the
//! key (or the basement's key range), then applies them oldest first to what the leaf holds. Nothing is
//! written: pending messages stay where they are.

use super::message::Message;
use super::node::{part_index, Node};
use super::write::part_range;
use super::{Tree, TreeState};
use crate::error::Result;
use std::collections::BTreeMap;
use std::ops::Bound;

/// One basement's worth of entries, materialized with every pending message applied.
pub(crate) struct Batch {
    /// Entries in key order.
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
    /// The value of `key`, if any.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let value = {
            let st = self.state.read();
            self.get_locked(&st, key)?
        };
        self.evict_after_read()?;
        Ok(value)
    }

    pub(crate) fn get_locked(&self, st: &TreeState, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut msgs: Vec<Message> = Vec::new();
        let mut bn = st.root;
        loop {
            let node = self.load(st, bn)?;
            match &*node {
                Node::Internal {
                    pivots,
                    children,
                    buffers,
                    ..
                } => {
                    let i = part_index(pivots, key);
                    buffers[i].collect_for_key(key, &mut msgs);
                    bn = children[i];
                }
                Node::Leaf { pivots, .. } => {
                    let j = part_index(pivots, key);
                    let basement = self.load_basement(st, bn, &node, j)?;
                    let mut value = basement.get(key).map(|v| v.to_vec());
                    msgs.sort_by_key(|m| m.msn);
                    for m in &msgs {
                        value = self.reg.apply(key, value, &m.op)?;
                    }
                    return Ok(value);
                }
            }
        }
    }

    /// Materializes the basement that holds `key` (None: the first basement of the tree), or with `before`
    /// set, the basement holding the greatest keys below `key` (None: the last basement).
    pub(crate) fn batch_at(&self, key: Option<&[u8]>, before: bool) -> Result<Batch> {
        let batch = {
            let st = self.state.read();
            self.batch_locked(&st, key, before)?
        };
        self.evict_after_read()?;
        Ok(batch)
    }

    fn batch_locked(&self, st: &TreeState, key: Option<&[u8]>, before: bool) -> Result<Batch> {
        let choose = |pivots: &[Vec<u8>]| match (key, before) {
            (None, false) => 0,
            (None, true) => pivots.len(),
            (Some(k), false) => part_index(pivots, k),
            (Some(k), true) => pivots.partition_point(|p| p.as_slice() < k),
        };
        let (mut lo, mut hi): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
        let mut path = Vec::new();
        let mut bn = st.root;
        loop {
            let node = self.load(st, bn)?;
            let i = choose(node.pivots());
            narrow(&mut lo, &mut hi, node.pivots(), i);
            match &*node {
                Node::Internal { children, .. } => {
                    bn = children[i];
                    path.push((node.clone(), i));
                }
                Node::Leaf { .. } => {
                    let basement = self.load_basement(st, bn, &node, i)?;
                    let mut msgs = Vec::new();
                    for (anc, ai) in &path {
                        if let Node::Internal { buffers, .. } = &**anc {
                            buffers[*ai].collect_range(lo.as_deref(), hi.as_deref(), &mut msgs);
                        }
                    }
                    let entries = if msgs.is_empty() {
                        basement.entries().to_vec()
                    } else {
                        let mut map: BTreeMap<Vec<u8>, Vec<u8>> =
                            basement.entries().iter().cloned().collect();
                        msgs.sort_by_key(|m| m.msn);
                        for m in msgs {
                            self.apply_to_map(&mut map, m)?;
                        }
                        map.into_iter().collect()
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

    fn apply_to_map(&self, map: &mut BTreeMap<Vec<u8>, Vec<u8>>, m: Message) -> Result<()> {
        use super::message::Op;
        match &m.op {
            Op::RangeDelete { end } => {
                let doomed: Vec<Vec<u8>> = map
                    .range::<[u8], _>((
                        Bound::Included(m.key.as_slice()),
                        Bound::Excluded(end.as_slice()),
                    ))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in doomed {
                    map.remove(&k);
                }
            }
            Op::Broadcast { .. } => {
                let old = std::mem::take(map);
                for (k, v) in old {
                    if !m.covers(&k) {
                        map.insert(k, v);
                        continue;
                    }
                    if let Some(nv) = self.reg.apply(&k, Some(v), &m.op)? {
                        map.insert(k, nv);
                    }
                }
            }
            _ => {
                let old = map.remove(&m.key);
                if let Some(nv) = self.reg.apply(&m.key, old, &m.op)? {
                    map.insert(m.key, nv);
                }
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
