//! In-memory nodes.
//!
//! A leaf holds basements, each loaded or not; an internal node holds one message buffer per child. Node
//! contents are shared through `Arc` so a checkpoint can hold a frozen copy while writers copy-on-write.
//!
//! Invariants: `pivots.len() + 1 == parts` (basements or children); child *i* holds keys in
//! [pivots[i-1], pivots[i]); a leaf's basement is unloaded (`loaded == None`) only while the node is clean, and
//! then `part` says where it sits in the node's current block (design.md TREE5). A partition's key
//! filter is known exactly while its `part` is (design.md FLT1).

use super::basement::Basement;
use super::buffer::Buffer;
use super::message::TxnId;
pub use super::pivots::Pivots;
use super::stored_copy::StoredCopy;
use crate::tree::format::key_filter::KeyFilter;
use std::sync::atomic::{AtomicU8, Ordering};
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
    /// Stored as frames (a leaf partition of a version 3 block, tree/format/frames.rs).
    pub framed: bool,
    /// Each frame starts with its transform byte (a leaf partition of a version 6 block), or the
    /// partition does (a message buffer of a version 7 block, tree/format/buffer_chunk.rs).
    pub tagged: bool,
}

/// Where a just-written node's partitions sit in its block, and the key filters written with them.
#[derive(Debug, Clone, Default)]
pub struct PartPlaces {
    pub parts: Vec<PartLoc>,
    pub filters: Vec<Option<Arc<KeyFilter>>>,
}

/// A partition slot: the partition in memory, and/or where it sits in the node's current block.
#[derive(Debug, Clone)]
pub struct PartSlot<T> {
    pub loaded: Option<Arc<T>>,
    /// Place in the node's current block; valid only while the node is clean.
    pub part: Option<PartLoc>,
    /// The key filter written with the node's current block (None: none written, or the node is dirty).
    pub filter: Option<Arc<KeyFilter>>,
    /// Point reads that found the partition out of memory since it last was in it
    /// (tree/operations/cold_read.rs).
    pub cold_reads: ColdReads,
    /// The partition's stored bytes from the node's last block, while the node is dirty and the
    /// partition unchanged (leaves only; stored_copy.rs, design.md TREE6).
    pub stored: Option<Arc<StoredCopy<T>>>,
}

/// A count of point reads that read one frame of a partition instead of loading it (shared by the
/// readers of a cached node, so atomic; saturates at 255).
#[derive(Debug, Default)]
pub struct ColdReads(AtomicU8);

impl Clone for ColdReads {
    fn clone(&self) -> ColdReads {
        ColdReads(AtomicU8::new(self.get()))
    }
}

impl ColdReads {
    pub fn get(&self) -> u8 {
        self.0.load(Ordering::Relaxed)
    }
    /// Counts one more read (racing readers may count once for two: it is a hint).
    pub fn bump(&self) {
        let n = self.get();
        self.0.store(n.saturating_add(1), Ordering::Relaxed);
    }
    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

impl<T> PartSlot<T> {
    /// Whether the partition, not in memory, certainly holds nothing for `key` (its filter says so).
    pub fn surely_lacks(&self, key: &[u8]) -> bool {
        self.loaded.is_none() && self.filter.as_ref().is_some_and(|f| !f.may_contain(key))
    }

    fn filter_bytes(&self) -> usize {
        self.filter.as_ref().map_or(0, |f| f.mem_bytes())
    }

    fn stored_bytes(&self) -> usize {
        self.stored.as_ref().map_or(0, |s| s.mem_bytes())
    }

    /// The stored copy of the partition, if it is one of the loaded partition as it is now.
    pub fn current_copy(&self) -> Option<&Arc<StoredCopy<T>>> {
        let loaded = self.loaded.as_ref()?;
        self.stored.as_ref().filter(|s| s.is_of(loaded))
    }
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
            filter: None,
            cold_reads: ColdReads::default(),
            stored: None,
        }
    }
    /// The partition; the node must be fully loaded (dirty nodes always are).
    pub fn get(&self) -> &T {
        self.loaded
            .as_ref()
            .expect("partition of a fully loaded node")
    }
    /// The partition for change (copy-on-write); the node must be fully loaded. Its stored copy, about
    /// to be out of date, is dropped.
    pub fn get_mut(&mut self) -> &mut T {
        self.stored = None;
        Arc::make_mut(
            self.loaded
                .as_mut()
                .expect("partition of a fully loaded node"),
        )
    }
}

impl BufferSlot {
    /// The buffer for change. When a snapshot shares it, the change goes into a new layer over the shared
    /// buffer (`Buffer::layered_over`) instead of a copy of it.
    pub fn buffer_mut(&mut self) -> &mut Buffer {
        let arc = self
            .loaded
            .as_mut()
            .expect("partition of a fully loaded node");
        if Arc::get_mut(arc).is_none() {
            let shared = Arc::clone(arc);
            *arc = Arc::new(Buffer::layered_over(shared));
        }
        Arc::get_mut(arc).expect("just made unique")
    }

    /// The index of the heaviest of an internal node's buffers (by bytes), if any holds messages:
    /// the child a flush moves messages into.
    pub fn heaviest(buffers: &[BufferSlot]) -> Option<usize> {
        buffers
            .iter()
            .enumerate()
            .max_by_key(|(_, b)| b.bytes())
            .filter(|(_, b)| !b.is_empty())
            .map(|(i, _)| i)
    }
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
        pivots: Pivots,
        basements: Vec<BasementSlot>,
    },
    Internal {
        height: u32,
        pivots: Pivots,
        children: Vec<BlockNum>,
        buffers: Vec<BufferSlot>,
    },
}

/// Bytes a loaded partition counts in [`Node::mem_bytes`] beside its own size.
pub const PART_OVERHEAD: usize = 64;

/// A partition's own size as [`Node::mem_bytes`] counts it.
pub trait PartSize {
    fn part_size(&self) -> usize;
}

impl PartSize for Basement {
    fn part_size(&self) -> usize {
        self.bytes()
    }
}

impl PartSize for Buffer {
    fn part_size(&self) -> usize {
        self.bytes()
    }
}

impl Node {
    /// A leaf as it is worth writing: its basements without the versions no reader can see any
    /// more (`Basement::collected`), or `None` when none of them changes (and for internal nodes).
    /// Reads of either give the same answers; the written form is smaller and its committed
    /// values can be stored columnar (design.md COL3).
    pub fn collected(&self, horizon: TxnId, aborted: &[TxnId]) -> Option<Node> {
        let Node::Leaf { pivots, basements } = self else {
            return None;
        };
        let mut changed = false;
        let basements = basements
            .iter()
            .map(|slot| {
                match slot
                    .loaded
                    .as_ref()
                    .and_then(|b| b.collected(horizon, aborted))
                {
                    Some(b) => {
                        changed = true;
                        BasementSlot::new(b)
                    }
                    None => slot.clone(),
                }
            })
            .collect();
        changed.then(|| Node::Leaf {
            pivots: pivots.clone(),
            basements,
        })
    }
}

impl Node {
    /// An empty leaf.
    pub fn empty_leaf() -> Node {
        Node::Leaf {
            pivots: Pivots::default(),
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

    pub fn pivots(&self) -> &Pivots {
        match self {
            Node::Leaf { pivots, .. } | Node::Internal { pivots, .. } => pivots,
        }
    }

    pub fn parts(&self) -> usize {
        self.pivots().len() + 1
    }

    /// Bytes of the partitions that are in memory (what the cache budget counts).
    pub fn mem_bytes(&self) -> usize {
        let pivots: usize = self
            .pivots()
            .iter()
            .map(|p| p.len() + 24 + Pivots::SUMMARY_BYTES_PER_KEY)
            .sum();
        pivots
            + 256
            + match self {
                Node::Leaf { basements, .. } => basements
                    .iter()
                    .map(|b| {
                        b.loaded.as_ref().map_or(0, |l| l.bytes() + PART_OVERHEAD)
                            + b.filter_bytes()
                            + b.stored_bytes()
                    })
                    .sum::<usize>(),
                Node::Internal { buffers, .. } => buffers
                    .iter()
                    .map(|b| {
                        b.loaded.as_ref().map_or(0, |l| l.bytes() + PART_OVERHEAD)
                            + b.filter_bytes()
                            + b.stored_bytes()
                    })
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

    /// Forgets the block places and filters of partitions (the node is being dirtied).
    pub fn forget_parts(&mut self) {
        match self {
            Node::Leaf { basements, .. } => basements.iter_mut().for_each(|b| {
                b.part = None;
                b.filter = None;
            }),
            Node::Internal { buffers, .. } => buffers.iter_mut().for_each(|b| {
                b.part = None;
                b.filter = None;
            }),
        }
    }

    /// Records the block places and filters of partitions (the node was just written).
    pub fn set_parts(&mut self, places: &PartPlaces) {
        let (parts, filters) = (&places.parts[..], &places.filters[..]);
        fn set<T>(
            slots: &mut [PartSlot<T>],
            parts: &[PartLoc],
            filters: &[Option<Arc<KeyFilter>>],
        ) {
            for (i, s) in slots.iter_mut().enumerate() {
                s.part = parts.get(i).copied();
                s.filter = filters.get(i).cloned().flatten();
                s.stored = None;
            }
        }
        match self {
            Node::Leaf { basements, .. } => set(basements, parts, filters),
            Node::Internal { buffers, .. } => set(buffers, parts, filters),
        }
    }

    /// Drops every loaded partition that its block can give back (a clean node's), keeping the prefix;
    /// returns how many were dropped. Partitions without a place (a dirty node's) stay.
    pub fn shed_parts(&mut self) -> usize {
        fn shed<T>(slots: &mut [PartSlot<T>]) -> usize {
            let mut n = 0;
            for s in slots
                .iter_mut()
                .filter(|s| s.part.is_some() && s.loaded.is_some())
            {
                s.loaded = None;
                s.stored = None;
                s.cold_reads.reset();
                n += 1;
            }
            n
        }
        match self {
            Node::Leaf { basements, .. } => shed(basements),
            Node::Internal { buffers, .. } => shed(buffers),
        }
    }

    /// Whether any partition is in memory.
    pub fn any_loaded(&self) -> bool {
        match self {
            Node::Leaf { basements, .. } => basements.iter().any(|b| b.loaded.is_some()),
            Node::Internal { buffers, .. } => buffers.iter().any(|b| b.loaded.is_some()),
        }
    }
}
