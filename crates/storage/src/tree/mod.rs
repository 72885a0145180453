//! One Bε-tree stored in one file.
//!
//! `Tree` owns the file, the live translation table, the space allocator and this tree's share of the node
//! cache. Structure changes happen under the tree's write lock; reads share a read lock (design.md,
//! "Concurrency"). Each group of submodules is a folder whose `mod.rs` says what it owns:
//!
//! - `mod.rs` (here): `Tree`, the state its lock guards (`TreeState`), cached-node slots, `TreeStats`.
//! - `node_cache.rs`: loading, dirtying and writing this tree's nodes (the hub every group uses).
//! - `eviction.rs`: dropping the least-recently-used nodes of the whole cache while it is over budget.
//! - `options.rs`: per-tree options (node and basement sizes, fanout, codec and level), in the catalog.
//! - `invariants.rs`: whole-tree structural checks, for tests.
//! - `in_memory/`: what a tree is made of in memory.
//!   - `node.rs`: nodes, their partition slots (loaded and/or placed in the block) and memory accounting;
//!   - `pivots.rs`: a node's pivot keys with a search summary;
//!   - `key_index.rs`: the 8-byte key summaries that searches of pivots and basements go through first;
//!   - `basement/`: a leaf's sorted entries, owned or still packed as read (`mod.rs`: the structure,
//!     reads and encoding; `changes.rs`: applying messages, splits and appends);
//!   - `buffer.rs`: an internal node's message buffer for one child (layered over a shared snapshot);
//!   - `points.rs`: a buffer's point messages, in arrival order with a sorted index;
//!   - `message.rs`: messages (MSN, transaction, key, operation) and the registry of upsert functions;
//!   - `mvcc.rs`: multi-version cells, read views, the transactions' state and garbage collection.
//! - `format/`: the bytes on disk.
//!   - `node_codec.rs`: a node as a block (header, partition directory, meta, filters, partitions);
//!   - `frames.rs`: a basement stored as separately compressed frames, and reading one frame;
//!   - `columnar/`: a frame's entries split into one stream per column by the tree's layout;
//!   - `packed.rs`: a basement's entry encoding, parsed in place and built without decoding;
//!   - `key_filter.rs`: the Bloom filter written for each partition (its hash is part of the format);
//!   - `tree_header.rs`: the header slot naming the root, the table's place and the checkpoint's MSN.
//! - `operations/`: what callers' threads do to the tree.
//!   - `apply.rs`: routing a batch of messages (promotion, leaf runs) and the once-per-batch rebalancing;
//!   - `write.rs`: buffers, flushing, splits and merges;
//!   - `read.rs`: point reads and basement-at-a-time range materialization;
//!   - `cold_read.rs`: point reads of one frame of a basement not in memory;
//!   - `cursor.rs`: range iteration (`RangeIter`), one basement at a time;
//!   - `sample.rs`: row estimates and key samples from a few descents (`Tree::sample`);
//!   - `build.rs`: bottom-up construction from a sorted stream (bulk load).
//! - `durability/`: making the tree durable and reading it back.
//!   - `checkpoint.rs`: capture, write-out and completion of this tree's part of a checkpoint;
//!   - `open.rs`: reading the newer valid header and the translation table back;
//!   - `space.rs`: the file's allocator and the places checkpoints pin;
//!   - `reclaim.rs`: giving free space back to the file system after a checkpoint.
//! - `maintenance/`: background work of the flusher and maintenance threads.
//!   - `flusher.rs`: flushing over-full buffers and relieving cache pressure (`FlushQueue`);
//!   - `detached_flush.rs`: leaf flushes prepared without the write lock;
//!   - `write_back.rs`: writing dirty nodes out without the write lock, so eviction finds them clean;
//!   - `aged_write_out.rs`: handing written blocks to the disk ahead of the next checkpoint.

mod durability;
mod eviction;
pub mod format;
pub mod in_memory;
mod invariants;
pub mod maintenance;
mod node_cache;
pub mod operations;
pub mod options;

// Paths other crates use (`betula_storage::tree::basement::Basement`, `tree::mvcc::Cell`).
pub use in_memory::{basement, mvcc};

pub use durability::checkpoint::TreeCapture;
pub(crate) use durability::open::TreeContextArgs;
pub(crate) use durability::open::{read_checkpoint, DurableCheckpoint};
pub use operations::build::BuildStats;

use crate::block::BlockLoc;
use crate::cache_budget::CacheBudget;
use crate::health::Health;
use crate::vfs::VfsFile;
use durability::space::Space;
use format::columnar::ColumnLayout;
use in_memory::message::{Msn, UpdateRegistry};
use in_memory::node::{BlockNum, Node};
use options::TreeOptions;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::sync::Arc;

/// The cache's map from block number to node. Hashed with Fx (a multiply and a rotate) rather than the
/// standard SipHash: every message routed looks nodes up in it, and SipHash was 3-4% of a writer's samples
/// in random inserts at 10x the cache (perf). Block numbers are ours, not an attacker's.
pub(crate) type NodeMap = HashMap<BlockNum, Slot, rustc_hash::FxBuildHasher>;

/// A cached node.
pub(crate) struct Slot {
    pub node: Arc<Node>,
    pub dirty: bool,
    /// Bumped on every change (a checkpoint compares it to know whether what it wrote is still current).
    pub gen: u64,
    pub last_use: u64,
    /// Bytes counted against the cache budget.
    pub bytes: usize,
}

/// State guarded by the tree lock.
pub(crate) struct TreeState {
    pub root: BlockNum,
    pub next_bn: BlockNum,
    /// Cached nodes. Readers insert under the read lock through the mutex; writers use `get_mut`.
    pub nodes: Mutex<NodeMap>,
    /// Where each clean node's current block is. Dirty nodes have no entry.
    pub table: HashMap<BlockNum, BlockLoc>,
    /// Highest MSN applied.
    pub max_msn: Msn,
    /// MSN and sequence of the last checkpoint of this tree.
    pub ckpt_msn: Msn,
    pub ckpt_seq: u64,
    /// Nodes changed by the current operation (their sizes are settled against the budget afterwards).
    pub touched: Vec<BlockNum>,
}

/// A tree: one table index or partition.
pub struct Tree {
    pub(crate) id: u64,
    pub(crate) opts: TreeOptions,
    pub(crate) path: String,
    pub(crate) file: Arc<dyn VfsFile>,
    pub(crate) state: RwLock<TreeState>,
    pub(crate) space: Mutex<Space>,
    pub(crate) budget: Arc<CacheBudget>,
    pub(crate) reg: Arc<UpdateRegistry>,
    pub(crate) health: Arc<Health>,
    pub(crate) mvcc: Arc<in_memory::mvcc::MvccState>,
    /// Where writes leave flushes for the environment's flusher thread.
    pub(crate) flushq: Arc<maintenance::flusher::FlushQueue>,
    /// Set when the tree is dropped; handles still held refuse writes.
    pub(crate) dropped: std::sync::atomic::AtomicBool,
    /// Blocks written back, waiting to be handed to the disk (maintenance/aged_write_out.rs).
    pub(crate) aging: maintenance::aged_write_out::Aging,
    /// Which dirty nodes write-back takes as settled (maintenance/write_back.rs, design.md WBK2).
    pub(crate) settled: Mutex<maintenance::write_back::Settled>,
    /// How the tree's keys and values are built from fields, if its owner said (design.md COL5):
    /// leaves are written with columnar frames where it fits.
    pub(crate) layout: RwLock<Option<Arc<ColumnLayout>>>,
    /// Tests of reading older formats: write nodes as a version 5 build did.
    #[cfg(test)]
    pub(crate) write_version_5: std::sync::atomic::AtomicBool,
}

/// Sizes and counts for status output.
#[derive(Debug, Clone, Default)]
pub struct TreeStats {
    /// Bytes the tree's file occupies (logical end of the allocated area).
    pub file_bytes: u64,
    /// Free bytes inside the file (holes awaiting reuse).
    pub free_bytes: u64,
    /// Nodes in memory and their bytes.
    pub cached_nodes: usize,
    pub cached_bytes: usize,
    pub dirty_nodes: usize,
    /// Height of the tree (0 = the root is a leaf).
    pub height: u32,
    pub max_msn: Msn,
    pub ckpt_msn: Msn,
    /// The backlog flushes move down: bytes of messages in the buffers of the internal nodes in memory,
    /// and the messages of those buffers that are loaded (internal nodes not in memory are not counted).
    pub buffered_messages: u64,
    pub buffered_bytes: u64,
}

impl Tree {
    /// The tree's id in the catalog.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The tree's options.
    pub fn options(&self) -> TreeOptions {
        self.opts
    }

    /// The layout leaves are written with (design.md COL5), if any.
    pub fn column_layout(&self) -> Option<Arc<ColumnLayout>> {
        self.layout.read().clone()
    }

    /// Sets (or clears) the layout leaves are written with from now on; what was written before
    /// stays readable as it is (COL2).
    pub fn set_column_layout(&self, layout: Option<Arc<ColumnLayout>>) {
        *self.layout.write() = layout;
    }

    /// Current sizes and counts.
    pub fn stats(&self) -> TreeStats {
        let st = self.state.read();
        let nodes = st.nodes.lock();
        let space = self.space.lock();
        let height = nodes.get(&st.root).map_or(0, |s| s.node.height());
        let (mut buffered_messages, mut buffered_bytes) = (0u64, 0u64);
        for slot in nodes.values() {
            if let Node::Internal { buffers, .. } = &*slot.node {
                for b in buffers {
                    buffered_bytes += b.bytes() as u64;
                    buffered_messages += b.loaded.as_ref().map_or(0, |l| l.count() as u64);
                }
            }
        }
        TreeStats {
            file_bytes: space.end(),
            free_bytes: space.free_bytes(),
            cached_nodes: nodes.len(),
            cached_bytes: nodes.values().map(|s| s.bytes).sum(),
            dirty_nodes: nodes.values().filter(|s| s.dirty).count(),
            height,
            max_msn: st.max_msn,
            ckpt_msn: st.ckpt_msn,
            buffered_messages,
            buffered_bytes,
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let st = self.state.get_mut();
        for slot in st.nodes.get_mut().values() {
            self.budget.add(-(slot.bytes as i64), !slot.node.is_leaf());
        }
    }
}
