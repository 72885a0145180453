//! Applying a batch of messages under the tree's write lock (design.md, "Write batches", APL1-APL3).
//!
//! Each message is routed on its own, exactly as a single write would be: from the root it passes a child
//! whose buffer is empty and which is in memory (promotion), enters a leaf only on the tree's left or right
//! edge and only with a key beyond that leaf's keys (an append, as sequential inserts make), and otherwise
//! goes into the buffer where it stopped. A random key that falls inside an edge leaf is buffered like any
//! other: applied to the leaf one at a time (a basement copied from a snapshot, a search, an entry
//! allocated), such keys took 19% of the writer's samples in random inserts at 10x the cache (perf),
//! though only the two edge leaves of about a hundred receive them. What does not depend on the individual
//! message runs once per batch, after the last one: rebalancing the nodes the messages passed through
//! (splits, merges, the root), settling node sizes against the cache budget, relieving pressure and
//! evicting. Consecutive messages routed to the same leaf are applied to it together, so a run of
//! sequential inserts is one sorted merge into its basement instead of one change per row.
//!
//! Invariants: design.md, "Write batches", APL1-APL3: messages reach their destinations in MSN order
//! (APL1); nothing is evicted while a batch is routed (APL2); rebalancing finds each passed child by its
//! number among its parent's current children and runs deepest first (APL3).

use super::write::push_routed;
use crate::error::Result;
use crate::tree::in_memory::message::Message;
use crate::tree::in_memory::node::{BlockNum, Node};
use crate::tree::{Tree, TreeState};

/// What to do with a message at the node it has reached.
enum Step {
    Leaf,
    Descend(BlockNum),
    /// Into the buffer of the child at this index (None: a ranged message, clipped into every buffer).
    Buffer(Option<usize>),
}

/// Work a batch leaves for its end.
#[derive(Default)]
struct Pending {
    /// (depth, parent, child) of every step down that a message took.
    steps: Vec<(u32, BlockNum, BlockNum)>,
    /// Messages routed to one leaf and not yet applied to it (APL1).
    leaf_run: Option<(BlockNum, Vec<Message>)>,
}

impl Tree {
    /// Applies one message; the caller holds the write lock and the message's MSN exceeds every earlier one.
    pub(crate) fn apply_locked(&self, st: &mut TreeState, msg: Message) -> Result<()> {
        self.apply_batch(st, vec![msg])
    }

    /// Applies messages in the order given (ascending MSNs, each above every message already in the
    /// tree); the caller holds the write lock.
    pub(crate) fn apply_batch(&self, st: &mut TreeState, msgs: Vec<Message>) -> Result<()> {
        let mut pending = Pending::default();
        let mut result = Ok(());
        for msg in msgs {
            result = self.route(st, msg, &mut pending);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = self.apply_leaf_run(st, &mut pending);
        }
        if result.is_ok() {
            result = self.finish_batch(st, pending.steps);
        }
        self.settle(st);
        result
    }

    /// Takes one message down from the root to where it stops (APL1).
    fn route(&self, st: &mut TreeState, msg: Message, pending: &mut Pending) -> Result<()> {
        st.max_msn = st.max_msn.max(msg.msn);
        let mut bn = st.root;
        let mut depth = 0;
        let (mut left_edge, mut right_edge) = (true, true);
        loop {
            // Decide with a borrowed copy of the node, and drop it before changing the node: a live extra
            // `Arc` would make the copy-on-write below copy the whole node and the buffer it changes.
            let step = {
                let node = self.load(st, bn)?;
                match &*node {
                    Node::Leaf { .. } => Step::Leaf,
                    Node::Internal {
                        pivots,
                        children,
                        buffers,
                        ..
                    } => {
                        let mut step = Step::Buffer(None);
                        if !msg.op.is_ranged() {
                            let i = pivots.part_index(&msg.key);
                            step = Step::Buffer(Some(i));
                            left_edge &= i == 0;
                            right_edge &= i + 1 == children.len();
                            let child = children[i];
                            if buffers[i].is_empty()
                                && self.promotable(st, child, &msg.key, left_edge, right_edge)
                            {
                                step = Step::Descend(child);
                            }
                        }
                        step
                    }
                }
            };
            match step {
                Step::Leaf => {
                    match &mut pending.leaf_run {
                        Some((leaf, run)) if *leaf == bn => run.push(msg),
                        _ => {
                            self.apply_leaf_run(st, pending)?;
                            pending.leaf_run = Some((bn, vec![msg]));
                        }
                    }
                    return Ok(());
                }
                Step::Descend(child) => {
                    pending.steps.push((depth, bn, child));
                    depth += 1;
                    bn = child;
                }
                Step::Buffer(child) => {
                    self.apply_leaf_run(st, pending)?;
                    let node = self.node_mut(st, bn)?;
                    push_routed(node, msg, child);
                    let total = match &*node {
                        Node::Internal { buffers, .. } => buffers.iter().map(|b| b.bytes()).sum(),
                        Node::Leaf { .. } => 0,
                    };
                    if self.flush_inline(total) {
                        let mut budget = self.inline_budget(usize::MAX);
                        self.flush_over_size(st, bn, &mut budget)?;
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Applies the pending run of leaf messages, if any.
    fn apply_leaf_run(&self, st: &mut TreeState, pending: &mut Pending) -> Result<()> {
        match pending.leaf_run.take() {
            Some((leaf, run)) => self.apply_to_leaf(st, leaf, run),
            None => Ok(()),
        }
    }

    /// Rebalances the nodes the batch passed through (deepest first, APL3) and the root, settles sizes,
    /// relieves pressure and evicts.
    fn finish_batch(
        &self,
        st: &mut TreeState,
        mut steps: Vec<(u32, BlockNum, BlockNum)>,
    ) -> Result<()> {
        steps.sort_unstable_by(|a, b| b.cmp(a));
        steps.dedup();
        for &(_, parent, child) in &steps {
            let idx = match st.nodes.get_mut().get(&parent).map(|s| &*s.node) {
                Some(Node::Internal { children, .. }) => children.iter().position(|&c| c == child),
                _ => None,
            };
            if let Some(idx) = idx {
                self.fix_child(st, parent, idx)?;
            }
        }
        self.fix_root(st)?;
        let mut keep: Vec<BlockNum> = steps.iter().flat_map(|s| [s.1, s.2]).collect();
        keep.push(st.root);
        keep.sort_unstable();
        keep.dedup();
        self.settle(st);
        if self.relieve_inline() {
            self.relieve_pressure(st)?;
        }
        self.evict_if_needed(st, &keep)
    }

    /// Whether a message for `key` may pass down into `child` without buffering above it: an internal
    /// node in memory, or a leaf in memory on the tree's edge that `key` extends (above its last key on
    /// the right edge, below its first on the left).
    fn promotable(
        &self,
        st: &TreeState,
        child: BlockNum,
        key: &[u8],
        left_edge: bool,
        right_edge: bool,
    ) -> bool {
        match st.nodes.lock().get(&child) {
            Some(slot) => match &*slot.node {
                Node::Leaf { basements, .. } => {
                    if !(left_edge || right_edge) || !slot.node.fully_loaded() {
                        return false;
                    }
                    let loaded = |i: usize| basements.get(i).and_then(|b| b.loaded.as_deref());
                    let past_end = right_edge
                        && loaded(basements.len() - 1)
                            .and_then(|b| b.last_key())
                            .is_none_or(|last| key > last);
                    let before_start = left_edge
                        && loaded(0)
                            .and_then(|b| b.first_key())
                            .is_none_or(|first| key < first);
                    past_end || before_start
                }
                Node::Internal { .. } => true,
            },
            None => false,
        }
    }
}
