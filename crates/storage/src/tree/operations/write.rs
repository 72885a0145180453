//! Injecting messages, promotion, flushing, splits and merges (design.md, "Trees and messages").
//!
//! A message enters at the root. It passes a child whose buffer is empty and which is in memory; it enters a
//! leaf directly only on the tree's left or right edge (sequential inserts), so random writes collect in the
//! lowest internal buffers and reach leaves in batches. A node whose buffers exceed the node size flushes the
//! heaviest child's buffer into that child, recursively. After every change the touched path is rebalanced:
//! oversized leaves and internal nodes split, small leaves merge with a neighbour, a root with one child and
//! nothing buffered steps down.

use crate::error::Result;
use crate::tree::in_memory::basement::Basement;
use crate::tree::in_memory::buffer::{clip, Buffer};
use crate::tree::in_memory::message::{Message, MsgRef};
use crate::tree::in_memory::node::{BasementSlot, BlockNum, BufferSlot, Node};
use crate::tree::{Tree, TreeState};
use std::sync::Arc;

/// Key range of part `i` given a node's pivots: [lo, hi), None = unbounded.
pub(crate) fn part_range(pivots: &[Vec<u8>], i: usize) -> (Option<&[u8]>, Option<&[u8]>) {
    let lo = if i == 0 {
        None
    } else {
        Some(pivots[i - 1].as_slice())
    };
    let hi = pivots.get(i).map(|p| p.as_slice());
    (lo, hi)
}

/// Puts a message into the buffers of an internal node (ranged messages clipped into each child they touch);
/// `child`: the buffer a point message belongs in, when the caller has already found it.
pub(super) fn push_routed(node: &mut Node, msg: Message, child: Option<usize>) {
    let Node::Internal {
        pivots, buffers, ..
    } = node
    else {
        unreachable!("push_routed on a leaf");
    };
    if !msg.op.is_ranged() {
        let i = child.unwrap_or_else(|| pivots.part_index(&msg.key));
        debug_assert_eq!(i, pivots.part_index(&msg.key), "routed to the wrong child");
        buffers[i].buffer_mut().push(msg);
        return;
    }
    for (i, buffer) in buffers.iter_mut().enumerate() {
        let (lo, hi) = part_range(pivots, i);
        if let Some(m) = clip(&msg, lo, hi) {
            buffer.buffer_mut().push(m);
        }
    }
}

impl Tree {
    /// Applies messages (in MSN order) to a leaf and splits its oversized basements.
    pub(crate) fn apply_to_leaf(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        msgs: Vec<Message>,
    ) -> Result<()> {
        let node = self.node_mut(st, bn)?;
        self.apply_to_leaf_node(node, msgs)
    }

    /// Applies `msgs` (each key's in MSN order) to a fully loaded leaf, as
    /// [`Tree::apply_refs_to_leaf_node`] does with borrowed ones.
    pub(crate) fn apply_to_leaf_node(&self, node: &mut Node, msgs: Vec<Message>) -> Result<()> {
        if mergeable(msgs.len(), msgs.iter().map(|m| &m.op)) {
            return self.merge_into_leaf(node, msgs.iter().map(Message::as_ref).collect());
        }
        self.apply_each_to_leaf(node, &msgs)
    }

    /// Applies `msgs` (each key's in MSN order) to a fully loaded leaf's basements, then splits the
    /// basements they made too big and drops those they emptied. Touches nothing but `node`, so it can
    /// run on a private copy without the tree's lock, with messages borrowed from the buffer being
    /// flushed (tree/maintenance/detached_flush.rs).
    pub(crate) fn apply_refs_to_leaf_node(
        &self,
        node: &mut Node,
        msgs: Vec<MsgRef<'_>>,
    ) -> Result<()> {
        if mergeable(msgs.len(), msgs.iter().map(|m| m.op)) {
            return self.merge_into_leaf(node, msgs);
        }
        let owned: Vec<Message> = msgs.iter().map(MsgRef::to_message).collect();
        self.apply_each_to_leaf(node, &owned)
    }

    /// A flushed batch of point messages: sorted by (key, MSN) — stable, so equal keys keep MSN order;
    /// a drained buffer already gives them so — and each basement's share merged in one pass.
    fn merge_into_leaf(&self, node: &mut Node, mut sorted: Vec<MsgRef<'_>>) -> Result<()> {
        let (reg, horizon, aborted) = (self.reg.clone(), self.mvcc.horizon(), self.mvcc.aborted());
        let Node::Leaf { pivots, basements } = node else {
            unreachable!("apply_to_leaf on an internal node");
        };
        if !sorted.is_sorted_by(|a, b| a.key <= b.key) {
            sorted.sort_by(|a, b| a.key.cmp(b.key));
        }
        // Indexes of the basements the messages reached: only these can have grown past the basement
        // size or become empty.
        let mut touched: Vec<usize> = Vec::new();
        let mut start = 0;
        while start < sorted.len() {
            let j = pivots.part_index(sorted[start].key);
            let end = match pivots.get(j) {
                Some(hi) => start + sorted[start..].partition_point(|m| m.key < hi.as_slice()),
                None => sorted.len(),
            };
            basement_mut(&mut basements[j]).apply_sorted(
                &sorted[start..end],
                &reg,
                horizon,
                &aborted,
            )?;
            touched.push(j);
            start = end;
        }
        self.resize_basements(pivots, basements, touched);
        Ok(())
    }

    /// Applies messages one at a time (few of them, or range messages among them).
    fn apply_each_to_leaf(&self, node: &mut Node, msgs: &[Message]) -> Result<()> {
        let (reg, horizon, aborted) = (self.reg.clone(), self.mvcc.horizon(), self.mvcc.aborted());
        let Node::Leaf { pivots, basements } = node else {
            unreachable!("apply_to_leaf on an internal node");
        };
        let mut touched: Vec<usize> = Vec::new();
        for msg in msgs {
            if !msg.op.is_ranged() {
                let j = pivots.part_index(&msg.key);
                basement_mut(&mut basements[j]).apply(msg, &reg, horizon, &aborted)?;
                touched.push(j);
                continue;
            }
            for (j, slot) in basements.iter_mut().enumerate() {
                let (lo, hi) = part_range(pivots, j);
                if let Some(m) = clip(msg, lo, hi) {
                    basement_mut(slot).apply(&m, &reg, horizon, &aborted)?;
                    touched.push(j);
                }
            }
        }
        self.resize_basements(pivots, basements, touched);
        Ok(())
    }

    /// Splits the touched basements that grew past the basement size and drops those left empty
    /// (keeping at least one), from the right so that the indexes still to visit stay valid.
    fn resize_basements(
        &self,
        pivots: &mut crate::tree::in_memory::node::Pivots,
        basements: &mut Vec<BasementSlot>,
        mut touched: Vec<usize>,
    ) {
        let basement_max = self.opts.basement_size_bytes as usize;
        touched.sort_unstable();
        touched.dedup();
        for &first in touched.iter().rev() {
            // `first..end` holds the pieces of the touched basement (more after a split).
            let (mut j, mut end) = (first, first + 1);
            while j < end {
                let b = basement_mut(&mut basements[j]);
                if b.bytes() > basement_max && b.len() > 1 {
                    let right = b.split_half();
                    let pivot = right.first_key().expect("non-empty").to_vec();
                    basements.insert(j + 1, BasementSlot::new(right));
                    pivots.insert(j, pivot);
                    end += 1;
                    continue;
                }
                if b.is_empty() && basements.len() > 1 {
                    basements.remove(j);
                    pivots.remove(if j == 0 { 0 } else { j - 1 });
                    end -= 1;
                    continue;
                }
                j += 1;
            }
        }
    }

    /// Flushes the heaviest children of internal node `bn` until its buffers fit the node size, at most
    /// `budget` child flushes (the budget is spent as they happen, by flushes further down too).
    pub(in crate::tree) fn flush_over_size(
        &self,
        st: &mut TreeState,
        bn: BlockNum,
        budget: &mut usize,
    ) -> Result<()> {
        let node_max = self.opts.node_size_bytes as usize;
        while *budget > 0 {
            let node = self.load(st, bn)?;
            let Node::Internal { buffers, .. } = &*node else {
                return Ok(());
            };
            let total: usize = buffers.iter().map(|b| b.bytes()).sum();
            if total <= node_max {
                return Ok(());
            }
            let Some(idx) = crate::tree::in_memory::node::BufferSlot::heaviest(buffers) else {
                return Ok(());
            };
            drop(node);
            *budget -= 1;
            self.flush_child(st, bn, idx, budget)?;
        }
        Ok(())
    }

    /// Moves the whole buffer for child `idx` of `parent` into that child, then rebalances the child; an
    /// internal child left over the node size flushes in turn, spending `budget`.
    pub(crate) fn flush_child(
        &self,
        st: &mut TreeState,
        parent: BlockNum,
        idx: usize,
        budget: &mut usize,
    ) -> Result<()> {
        let (msgs, child) = {
            let Node::Internal {
                buffers, children, ..
            } = self.node_mut(st, parent)?
            else {
                unreachable!()
            };
            (buffers[idx].buffer_mut().drain(), children[idx])
        };
        if self.load(st, child)?.is_leaf() {
            self.apply_to_leaf(st, child, msgs)?;
        } else {
            let c = self.node_mut(st, child)?;
            for m in msgs {
                push_routed(c, m, None);
            }
            self.flush_over_size(st, child, budget)?;
        }
        self.fix_child(st, parent, idx)
    }

    /// Splits child `idx` of `parent` if it is too big, or merges it with a neighbour if it is a small leaf.
    pub(in crate::tree) fn fix_child(
        &self,
        st: &mut TreeState,
        parent: BlockNum,
        idx: usize,
    ) -> Result<()> {
        let child = match &*self.load(st, parent)? {
            Node::Internal { children, .. } => children[idx],
            Node::Leaf { .. } => return Ok(()),
        };
        let cnode = self.load(st, child)?;
        if !cnode.fully_loaded() {
            return Ok(());
        }
        if let Some(pieces) = self.split_pieces(&cnode) {
            drop(cnode);
            return self.split_child(st, parent, idx, pieces);
        }
        let node_max = self.opts.node_size_bytes as usize;
        if cnode.is_leaf() && cnode.total_bytes() < node_max / 4 {
            drop(cnode);
            self.try_merge_leaf(st, parent, idx)?;
        }
        Ok(())
    }

    /// How to cut a node that is too big: the part index where each piece after the first starts.
    fn split_pieces(&self, node: &Node) -> Option<Vec<usize>> {
        match node {
            Node::Leaf { basements, .. } => {
                let node_max = self.opts.node_size_bytes as usize;
                let sizes: Vec<usize> = basements
                    .iter()
                    .map(|b| b.loaded.as_ref().map_or(0, |b| b.bytes()))
                    .collect();
                let total: usize = sizes.iter().sum();
                if total <= node_max || sizes.len() < 2 {
                    return None;
                }
                let target = node_max / 2;
                let mut cuts = Vec::new();
                let mut acc = 0;
                for (j, s) in sizes.iter().enumerate() {
                    if acc >= target && j > 0 {
                        cuts.push(j);
                        acc = 0;
                    }
                    acc += s;
                }
                (!cuts.is_empty()).then_some(cuts)
            }
            Node::Internal { children, .. } => {
                let n = children.len();
                let fanout = self.opts.fanout as usize;
                if n <= fanout {
                    return None;
                }
                let pieces = n.div_ceil(fanout).max(2);
                let chunk = n.div_ceil(pieces);
                Some((1..pieces).map(|p| p * chunk).filter(|&c| c < n).collect())
            }
        }
    }

    /// Cuts `node` at the given part indexes; returns the pieces with the pivot in front of each later piece.
    fn cut(node: Node, cuts: &[usize]) -> (Node, Vec<(Vec<u8>, Node)>) {
        match node {
            Node::Leaf {
                mut pivots,
                mut basements,
            } => {
                let mut rest = Vec::new();
                for &c in cuts.iter().rev() {
                    let b = basements.split_off(c);
                    let mut p = pivots.split_off(c - 1);
                    let sep = p.remove(0);
                    rest.push((
                        sep,
                        Node::Leaf {
                            pivots: p,
                            basements: b,
                        },
                    ));
                }
                rest.reverse();
                (Node::Leaf { pivots, basements }, rest)
            }
            Node::Internal {
                height,
                mut pivots,
                mut children,
                mut buffers,
            } => {
                let mut rest = Vec::new();
                for &c in cuts.iter().rev() {
                    let ch = children.split_off(c);
                    let bu = buffers.split_off(c);
                    let mut p = pivots.split_off(c - 1);
                    let sep = p.remove(0);
                    rest.push((
                        sep,
                        Node::Internal {
                            height,
                            pivots: p,
                            children: ch,
                            buffers: bu,
                        },
                    ));
                }
                rest.reverse();
                (
                    Node::Internal {
                        height,
                        pivots,
                        children,
                        buffers,
                    },
                    rest,
                )
            }
        }
    }

    fn split_child(
        &self,
        st: &mut TreeState,
        parent: BlockNum,
        idx: usize,
        cuts: Vec<usize>,
    ) -> Result<()> {
        let child = match &*self.load(st, parent)? {
            Node::Internal { children, .. } => children[idx],
            Node::Leaf { .. } => unreachable!(),
        };
        let whole = std::mem::replace(self.node_mut(st, child)?, Node::empty_leaf());
        let (first, rest) = Self::cut(whole, &cuts);
        *self.node_mut(st, child)? = first;
        let mut new_children = Vec::with_capacity(rest.len());
        for (sep, piece) in rest {
            let bn = self.new_node(st, piece);
            new_children.push((sep, bn));
        }
        let pieces: Vec<BlockNum> = new_children.iter().map(|&(_, bn)| bn).collect();
        self.settled.lock().inherit(child, &pieces);
        let Node::Internal {
            pivots,
            children,
            buffers,
            ..
        } = self.node_mut(st, parent)?
        else {
            unreachable!()
        };
        let mut tail_buffers = Vec::new();
        let buf = buffers[idx].buffer_mut();
        for (sep, _) in new_children.iter().rev() {
            tail_buffers.push(buf.split_off(sep));
        }
        tail_buffers.reverse();
        for (k, ((sep, bn), b)) in new_children.into_iter().zip(tail_buffers).enumerate() {
            pivots.insert(idx + k, sep);
            children.insert(idx + 1 + k, bn);
            buffers.insert(idx + 1 + k, BufferSlot::new(b));
        }
        Ok(())
    }

    /// Merges small leaf child `idx` with a neighbour when the two fit comfortably in one node.
    fn try_merge_leaf(&self, st: &mut TreeState, parent: BlockNum, idx: usize) -> Result<()> {
        let (l, left, right) = match &*self.load(st, parent)? {
            Node::Internal { children, .. } if children.len() > 1 => {
                let l = if idx + 1 < children.len() {
                    idx
                } else {
                    idx - 1
                };
                (l, children[l], children[l + 1])
            }
            _ => return Ok(()),
        };
        let (ln, rn) = (self.load(st, left)?, self.load(st, right)?);
        if !ln.is_leaf() || !rn.is_leaf() || !ln.fully_loaded() || !rn.fully_loaded() {
            return Ok(());
        }
        if ln.total_bytes() + rn.total_bytes() > self.opts.node_size_bytes as usize * 3 / 4 {
            return Ok(());
        }
        drop((ln, rn));
        let right_node = std::mem::replace(self.node_mut(st, right)?, Node::empty_leaf());
        let sep = match &*self.load(st, parent)? {
            Node::Internal { pivots, .. } => pivots[l].clone(),
            Node::Leaf { .. } => unreachable!(),
        };
        let Node::Leaf {
            pivots: rp,
            basements: rb,
        } = right_node
        else {
            unreachable!()
        };
        if let Node::Leaf { pivots, basements } = self.node_mut(st, left)? {
            pivots.push(sep);
            pivots.extend(rp.into_vec());
            basements.extend(rb);
        }
        let Node::Internal {
            pivots,
            children,
            buffers,
            ..
        } = self.node_mut(st, parent)?
        else {
            unreachable!()
        };
        pivots.remove(l);
        children.remove(l + 1);
        let mut right_buf = buffers.remove(l + 1);
        let left_buf = buffers[l].buffer_mut();
        for m in right_buf.buffer_mut().drain() {
            left_buf.push(m);
        }
        self.delete_node(st, right);
        Ok(())
    }

    /// Splits an oversized root under a new root, or lets a root with one child and nothing buffered step down.
    pub(in crate::tree) fn fix_root(&self, st: &mut TreeState) -> Result<()> {
        loop {
            let root = st.root;
            let node = self.load(st, root)?;
            if !node.fully_loaded() {
                return Ok(());
            }
            if let Some(cuts) = self.split_pieces(&node) {
                let height = node.height() + 1;
                drop(node);
                let whole = std::mem::replace(self.node_mut(st, root)?, Node::empty_leaf());
                let (first, rest) = Self::cut(whole, &cuts);
                *self.node_mut(st, root)? = first;
                let mut pivots = Vec::new();
                let mut children = vec![root];
                for (sep, piece) in rest {
                    pivots.push(sep);
                    children.push(self.new_node(st, piece));
                }
                let buffers = children
                    .iter()
                    .map(|_| BufferSlot::new(Buffer::default()))
                    .collect();
                st.root = self.new_node(
                    st,
                    Node::Internal {
                        height,
                        pivots: pivots.into(),
                        children,
                        buffers,
                    },
                );
                continue;
            }
            if let Node::Internal {
                children, buffers, ..
            } = &*node
            {
                if children.len() == 1 && buffers[0].is_empty() {
                    let only = children[0];
                    drop(node);
                    self.delete_node(st, root);
                    st.root = only;
                    continue;
                }
            }
            return Ok(());
        }
    }
}

fn basement_mut(slot: &mut BasementSlot) -> &mut Basement {
    slot.stored = None;
    Arc::make_mut(slot.loaded.as_mut().expect("dirty leaves are fully loaded"))
}

/// Whether a batch of `n` messages is merged into a leaf in one sorted pass: more than a few, and point
/// messages only.
fn mergeable<'a>(
    n: usize,
    mut ops: impl Iterator<Item = &'a crate::tree::in_memory::message::Op>,
) -> bool {
    n > 8 && ops.all(|op| !op.is_ranged())
}
