//! In-memory nodes.
//!
//! A leaf holds basements, each loaded or not; an internal node holds one message buffer per child. Node
//! contents are shared through `Arc` so a checkpoint can hold a frozen copy while writers copy-on-write.
//!
//! Invariants: `pivots.len() + 1 == parts` (basements or children); child *i* holds keys in
//! [pivots[i-1], pivots[i]); a leaf's basement is unloaded (`loaded == None`) only while the node is clean, and
//! then `part` says where it sits in the node's current block (design.md, tree invariant 5).

use super::basement::Basement;
use super::buffer::Buffer;
use std::sync::Arc;

/// A node's stable number within its tree (what parents store; mapped to a file place by the translation
/// table).
pub type BlockNum = u64;

/// Where a partition sits inside its node block (file-format.md §3.3, partition directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartLoc {
    pub offset: u32,
    pub stored_len: u32,
    pub raw_len: u32,
    pub crc: u32,
    /// Codec of the block (from its header).
    pub codec: crate::compress::Codec,
}

/// A partition slot: the partition in memory, and/or where it sits in the node's current block.
#[derive(Debug, Clone)]
pub struct PartSlot<T> {
    pub loaded: Option<Arc<T>>,
    /// Place in the node's current block; valid only while the node is clean.
    pub part: Option<PartLoc>,
}

/// A leaf's basement slot.
pub type BasementSlot = PartSlot<Basement>;
/// An internal node's buffer slot (one per child).
pub type BufferSlot = PartSlot<Buffer>;

impl<T: Clone> PartSlot<T> {
    pub fn new(v: T) -> PartSlot<T> {
        PartSlot {
            loaded: Some(Arc::new(v)),
            part: None,
        }
    }
    /// The partition; the node must be fully loaded (dirty nodes always are).
    pub fn get(&self) -> &T {
        self.loaded
            .as_ref()
            .expect("partition of a fully loaded node")
    }
    /// The partition for change (copy-on-write); the node must be fully loaded.
    pub fn get_mut(&mut self) -> &mut T {
        Arc::make_mut(
            self.loaded
                .as_mut()
                .expect("partition of a fully loaded node"),
        )
    }
}

impl BufferSlot {
    /// Whether the buffer holds no message (known without loading it: an empty buffer encodes to 1 byte).
    pub fn is_empty(&self) -> bool {
        match (&self.loaded, &self.part) {
            (Some(b), _) => b.is_empty(),
            (None, Some(p)) => p.raw_len <= 1,
            (None, None) => true,
        }
    }
    /// Bytes of messages (known without loading it).
    pub fn bytes(&self) -> usize {
        match (&self.loaded, &self.part) {
            (Some(b), _) => b.bytes(),
            (None, Some(p)) => p.raw_len as usize,
            (None, None) => 0,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Node {
    Leaf {
        pivots: Vec<Vec<u8>>,
        basements: Vec<BasementSlot>,
    },
    Internal {
        height: u32,
        pivots: Vec<Vec<u8>>,
        children: Vec<BlockNum>,
        buffers: Vec<BufferSlot>,
    },
}

/// Index of the part (basement or child) whose range holds `key`.
pub fn part_index(pivots: &[Vec<u8>], key: &[u8]) -> usize {
    pivots.partition_point(|p| p.as_slice() <= key)
}

impl Node {
    /// An empty leaf.
    pub fn empty_leaf() -> Node {
        Node::Leaf {
            pivots: Vec::new(),
            basements: vec![BasementSlot::new(Basement::default())],
        }
    }

    pub fn height(&self) -> u32 {
        match self {
            Node::Leaf { .. } => 0,
            Node::Internal { height, .. } => *height,
        }
    }

    pub fn is_leaf(&self) -> bool {
        matches!(self, Node::Leaf { .. })
    }

    pub fn pivots(&self) -> &[Vec<u8>] {
        match self {
            Node::Leaf { pivots, .. } | Node::Internal { pivots, .. } => pivots,
        }
    }

    pub fn parts(&self) -> usize {
        self.pivots().len() + 1
    }

    /// Bytes of the partitions that are in memory (what the cache budget counts).
    pub fn mem_bytes(&self) -> usize {
        let pivots: usize = self.pivots().iter().map(|p| p.len() + 24).sum();
        pivots
            + 256
            + match self {
                Node::Leaf { basements, .. } => basements
                    .iter()
                    .map(|b| b.loaded.as_ref().map_or(0, |b| b.bytes() + 64))
                    .sum::<usize>(),
                Node::Internal { buffers, .. } => buffers
                    .iter()
                    .map(|b| b.loaded.as_ref().map_or(0, |b| b.bytes() + 64))
                    .sum::<usize>(),
            }
    }

    /// Whether every partition is in memory.
    pub fn fully_loaded(&self) -> bool {
        match self {
            Node::Leaf { basements, .. } => basements.iter().all(|b| b.loaded.is_some()),
            Node::Internal { buffers, .. } => buffers.iter().all(|b| b.loaded.is_some()),
        }
    }

    /// Total serialized size estimate; for leaves only meaningful when fully loaded.
    pub fn total_bytes(&self) -> usize {
        self.mem_bytes()
    }

    /// Forgets the block places of partitions (the node is being dirtied).
    pub fn forget_parts(&mut self) {
        match self {
            Node::Leaf { basements, .. } => basements.iter_mut().for_each(|b| b.part = None),
            Node::Internal { buffers, .. } => buffers.iter_mut().for_each(|b| b.part = None),
        }
    }

    /// Records the block places of partitions (the node was just written).
    pub fn set_parts(&mut self, parts: &[PartLoc]) {
        match self {
            Node::Leaf { basements, .. } => basements
                .iter_mut()
                .zip(parts)
                .for_each(|(b, p)| b.part = Some(*p)),
            Node::Internal { buffers, .. } => buffers
                .iter_mut()
                .zip(parts)
                .for_each(|(b, p)| b.part = Some(*p)),
        }
    }
}
