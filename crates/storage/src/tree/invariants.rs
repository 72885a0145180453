//! Whole-tree structural checks (design.md TREE1 to TREE4, and FLT2), for tests.

use super::in_memory::message::Msn;
use super::in_memory::node::{BlockNum, Node};
use super::operations::write::part_range;
use super::{Tree, TreeState};
use crate::corruption;
use crate::error::Result;

impl Tree {
    /// Reads every node and checks key ranges, ordering, heights and the MSN order of buffered messages.
    pub fn check_invariants(&self) -> Result<()> {
        let st = self.state.read();
        let root = self.load(&st, st.root)?;
        self.check_node(&st, st.root, root.height(), None, None, Msn::MAX)
    }

    fn check_node(
        &self,
        st: &TreeState,
        bn: BlockNum,
        height: u32,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        max_msn: Msn,
    ) -> Result<()> {
        let node = self.load(st, bn)?;
        let bad = |what: String| Err(corruption!(self.path, None, "node {bn}: {what}"));
        if node.height() != height {
            return bad(format!("height {} where {height} expected", node.height()));
        }
        let pivots = node.pivots();
        if pivots.windows(2).any(|w| w[0] >= w[1]) {
            return bad("pivots out of order".into());
        }
        if let (Some(lo), Some(first)) = (lo, pivots.first()) {
            if first.as_slice() <= lo {
                return bad("pivot below the node's range".into());
            }
        }
        if let (Some(hi), Some(last)) = (hi, pivots.last()) {
            if last.as_slice() >= hi {
                return bad("pivot above the node's range".into());
            }
        }
        match &*node {
            Node::Leaf { basements, .. } => {
                for (j, slot) in basements.iter().enumerate() {
                    let b = self.load_basement(st, bn, node.clone(), j)?;
                    let (plo, phi) = part_range(pivots, j);
                    let (plo, phi) = (plo.or(lo), phi.or(hi));
                    for w in b.entries().windows(2) {
                        if w[0].0 >= w[1].0 {
                            return bad(format!("basement {j} keys out of order"));
                        }
                    }
                    let filter = slot.filter.as_ref();
                    for (i, (k, _)) in b.entries().iter().enumerate() {
                        if filter.is_some_and(|f| !f.may_contain(k)) {
                            return bad(format!("basement {j} key filter lacks entry {i}"));
                        }
                        if b.lower_bound(k) != i || b.get(k).is_none() {
                            return bad(format!(
                                "basement {j} search summary disagrees at entry {i}"
                            ));
                        }
                        if plo.is_some_and(|l| k.as_slice() < l)
                            || phi.is_some_and(|h| k.as_slice() >= h)
                        {
                            return bad(format!("basement {j} key outside its range"));
                        }
                    }
                }
            }
            Node::Internal {
                children, buffers, ..
            } => {
                if children.len() != pivots.len() + 1 || buffers.len() != children.len() {
                    return bad("children, buffers and pivots disagree".into());
                }
                for (i, &child) in children.iter().enumerate() {
                    let (plo, phi) = part_range(pivots, i);
                    let (plo, phi) = (plo.or(lo), phi.or(hi));
                    let mut msgs = Vec::new();
                    self.load_buffer(st, bn, node.clone(), i)?
                        .collect_range(None, None, &mut msgs);
                    if let Some(f) = &buffers[i].filter {
                        if msgs
                            .iter()
                            .any(|m| m.op.is_ranged() || !f.may_contain(&m.key))
                        {
                            return bad(format!("buffer {i} key filter lacks a message"));
                        }
                    }
                    for m in &msgs {
                        if m.msn > max_msn {
                            return bad(format!("message {} newer than an ancestor's", m.msn));
                        }
                        if !m.op.is_ranged()
                            && (plo.is_some_and(|l| m.key.as_slice() < l)
                                || phi.is_some_and(|h| m.key.as_slice() >= h))
                        {
                            return bad(format!(
                                "buffer {i} holds a key outside the child's range"
                            ));
                        }
                    }
                    // A flush moves a whole buffer and promotion passes only empty buffers, so everything
                    // below child i is older than everything buffered for it here (a stricter form of
                    // invariant 1).
                    let bound = msgs
                        .iter()
                        .map(|m| m.msn)
                        .min()
                        .unwrap_or(max_msn)
                        .min(max_msn);
                    self.check_node(st, child, height - 1, plo, phi, bound)?;
                }
            }
        }
        Ok(())
    }
}
