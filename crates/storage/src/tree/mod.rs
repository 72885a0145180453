//! One Bε-tree stored in one file.
//!
//! `Tree` owns the file, the live translation table, the space allocator and this tree's share of the node
//! cache. Structure changes happen under the tree's write lock; reads share a read lock (design.md,
//! "Concurrency"). The submodules split the work:
//! - `cache`: loading, dirtying, writing and evicting nodes;
//! - `apply`: routing a batch of messages (promotion, leaf runs) and the once-per-batch rebalancing;
//! - `write`: buffers, flushing, splits and merges;
//! - `read`: point reads and basement-at-a-time range materialization;
//! - `checkpoint`: capture, write-out and completion of this tree's part of a checkpoint;
//! - `open`: reading the header and table back.

pub(crate) mod aged_write_out;
mod apply;
pub mod basement;
pub mod buffer;
mod build;
mod cache;
mod checkpoint;
mod cold_read;
pub mod cursor;
mod detached_flush;
pub mod flusher;
pub mod frames;
mod invariants;
pub mod key_filter;
pub mod key_index;
pub mod message;
pub mod mvcc;
pub mod node;
pub mod node_codec;
mod open;
pub mod options;
pub mod packed;
pub mod pivots;
mod points;
mod read;
mod reclaim;
mod space;
mod write;
mod write_back;

pub use build::BuildStats;
pub use checkpoint::TreeCapture;
pub(crate) use open::TreeContextArgs;

use crate::block::BlockLoc;
use crate::cache::CacheBudget;
use crate::health::Health;
use crate::vfs::VfsFile;
use message::{Msn, UpdateRegistry};
use node::{BlockNum, Node};
use options::TreeOptions;
use parking_lot::{Mutex, RwLock};
use space::Space;
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
    pub(crate) mvcc: Arc<mvcc::MvccState>,
    /// Where writes leave flushes for the environment's flusher thread.
    pub(crate) flushq: Arc<flusher::FlushQueue>,
    /// Set when the tree is dropped; handles still held refuse writes.
    pub(crate) dropped: std::sync::atomic::AtomicBool,
    /// Blocks written back, waiting to be handed to the disk (aged_write_out.rs).
    pub(crate) aging: aged_write_out::Aging,
    /// Which dirty nodes write-back takes as settled (design.md WBK2).
    pub(crate) settled: Mutex<write_back::Settled>,
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

    /// Current sizes and counts.
    pub fn stats(&self) -> TreeStats {
        let st = self.state.read();
        let nodes = st.nodes.lock();
        let space = self.space.lock();
        let height = nodes.get(&st.root).map_or(0, |s| s.node.height());
        TreeStats {
            file_bytes: space.end(),
            free_bytes: space.free_bytes(),
            cached_nodes: nodes.len(),
            cached_bytes: nodes.values().map(|s| s.bytes).sum(),
            dirty_nodes: nodes.values().filter(|s| s.dirty).count(),
            height,
            max_msn: st.max_msn,
            ckpt_msn: st.ckpt_msn,
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
