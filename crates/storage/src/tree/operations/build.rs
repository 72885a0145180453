//! Bottom-up construction of a tree from a sorted stream (the bulk loader's engine half).
//!
//! Entries fill basements up to the basement size and leaves up to a fill factor of the node size; each
//! finished node is handed to a pool of compressor threads (one per core), which compress and write it
//! while the caller goes on producing rows, so memory stays at a few nodes per core. Internal
//! levels are then built over the first keys of the level below, up to `fanout` children each, until one
//! node (the root) remains. The result replaces the tree's (empty) contents in memory: every node is clean
//! and on disk, and becomes durable with the next checkpoint of the tree.
//!
//! Invariants: input keys strictly increase (checked: an unsorted or duplicate key is an error naming the
//! row); the tree must be empty (checked).

use crate::block::BlockLoc;
use crate::error::{Error, Result};
use crate::tree::in_memory::basement::Basement;
use crate::tree::in_memory::buffer::Buffer;
use crate::tree::in_memory::node::{BasementSlot, BlockNum, BufferSlot, Node};
use crate::tree::{Tree, TreeState};
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Mutex;

/// A finished node for the compressor threads, or its written place.
type Job = (BlockNum, Node);
type Done = Result<(BlockNum, BlockLoc)>;

/// Leaves are filled to this share of the node size (room for later inserts before a split).
const LEAF_FILL_PERCENT: usize = 90;

/// Figures of one build.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildStats {
    pub rows: u64,
    pub raw_bytes: u64,
    pub leaves: u64,
    pub written_bytes: u64,
}

struct Builder<'t> {
    tree: &'t Tree,
    jobs: Option<SyncSender<Job>>,
    done: Receiver<Done>,
    next_bn: BlockNum,
    table: HashMap<BlockNum, BlockLoc>,
    /// (first key, block) of each finished node of the level being built.
    level: Vec<(Vec<u8>, BlockNum)>,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    entries_bytes: usize,
    basements: Vec<Basement>,
    leaf_bytes: usize,
    stats: BuildStats,
}

impl Builder<'_> {
    /// Numbers `node` and hands it to the compressor threads (or, without them, writes it here).
    fn write(&mut self, node: Node) -> Result<BlockNum> {
        let bn = self.next_bn;
        self.next_bn += 1;
        match &self.jobs {
            Some(jobs) => {
                if jobs.send((bn, node)).is_err() {
                    return Err(Error::InvalidArgument(
                        "bulk build: compressor threads stopped".into(),
                    ));
                }
            }
            None => {
                let (loc, _) = self.tree.write_node(&node, bn)?;
                self.record(bn, loc);
            }
        }
        // Surface a failed write early.
        while let Ok(done) = self.done.try_recv() {
            let (bn, loc) = done?;
            self.record(bn, loc);
        }
        Ok(bn)
    }

    fn record(&mut self, bn: BlockNum, loc: BlockLoc) {
        self.stats.written_bytes += u64::from(loc.len);
        self.table.insert(bn, loc);
    }

    /// Waits for every handed-over node to be written.
    fn drain(&mut self) -> Result<()> {
        self.jobs = None;
        while let Ok(done) = self.done.recv() {
            let (bn, loc) = done?;
            self.record(bn, loc);
        }
        Ok(())
    }

    fn close_basement(&mut self) {
        if !self.entries.is_empty() {
            let entries = std::mem::take(&mut self.entries);
            self.basements.push(Basement::from_plain(entries));
            self.leaf_bytes += self.entries_bytes;
            self.entries_bytes = 0;
        }
    }

    fn close_leaf(&mut self) -> Result<()> {
        self.close_basement();
        if self.basements.is_empty() {
            return Ok(());
        }
        let basements = std::mem::take(&mut self.basements);
        let first = basements[0].first_key().expect("non-empty").to_vec();
        let pivots = basements[1..]
            .iter()
            .map(|b| b.first_key().expect("non-empty").to_vec())
            .collect();
        let node = Node::Leaf {
            pivots,
            basements: basements.into_iter().map(BasementSlot::new).collect(),
        };
        let bn = self.write(node)?;
        self.level.push((first, bn));
        self.leaf_bytes = 0;
        self.stats.leaves += 1;
        Ok(())
    }

    fn push(&mut self, key: Vec<u8>, value: Vec<u8>) -> Result<()> {
        let size = key.len() + value.len() + crate::tree::in_memory::basement::ENTRY_OVERHEAD;
        self.stats.rows += 1;
        self.stats.raw_bytes += (key.len() + value.len()) as u64;
        self.entries.push((key, value));
        self.entries_bytes += size;
        if self.entries_bytes >= self.tree.opts.basement_size_bytes as usize {
            self.close_basement();
            if self.leaf_bytes >= self.tree.opts.node_size_bytes as usize * LEAF_FILL_PERCENT / 100
            {
                self.close_leaf()?;
            }
        }
        Ok(())
    }

    /// Builds internal levels over `self.level` until one root remains; returns it and the height.
    fn finish(&mut self) -> Result<(BlockNum, u32)> {
        self.close_leaf()?;
        if self.level.is_empty() {
            let bn = self.write(Node::empty_leaf())?;
            return Ok((bn, 0));
        }
        let fanout = self.tree.opts.fanout as usize;
        let mut height = 0;
        while self.level.len() > 1 {
            height += 1;
            let below = std::mem::take(&mut self.level);
            // Even groups of at most `fanout` children.
            let groups = below.len().div_ceil(fanout);
            let per = below.len().div_ceil(groups);
            for chunk in below.chunks(per) {
                let node = Node::Internal {
                    height,
                    pivots: chunk[1..].iter().map(|(k, _)| k.clone()).collect(),
                    children: chunk.iter().map(|(_, bn)| *bn).collect(),
                    buffers: chunk
                        .iter()
                        .map(|_| BufferSlot::new(Buffer::default()))
                        .collect(),
                };
                let bn = self.write(node)?;
                self.level.push((chunk[0].0.clone(), bn));
            }
        }
        Ok((self.level[0].1, height))
    }
}

impl Tree {
    /// Builds this (empty) tree's contents from `rows`, which must be sorted by key with no duplicates.
    pub fn build_from_sorted(
        &self,
        rows: &mut dyn Iterator<Item = Result<(Vec<u8>, Vec<u8>)>>,
    ) -> Result<BuildStats> {
        let mut st = self.state.write();
        if !self.is_empty_locked(&st)? {
            return Err(Error::InvalidArgument(
                "bulk build needs an empty tree".into(),
            ));
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Job>(threads * 2);
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let jobs_rx = Mutex::new(jobs_rx);
        let tree: &Tree = self;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let (jobs_rx, done_tx): (&Mutex<Receiver<Job>>, Sender<Done>) =
                    (&jobs_rx, done_tx.clone());
                scope.spawn(move || loop {
                    let job = jobs_rx
                        .lock()
                        .map_err(|_| ())
                        .and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok((bn, node)) = job else { return };
                    let done = tree.write_node(&node, bn).map(|(loc, _)| (bn, loc));
                    if done_tx.send(done).is_err() {
                        return;
                    }
                });
            }
            drop(done_tx);
            tree.build_with(&mut st, rows, Some(jobs_tx), done_rx)
        })
    }

    fn build_with(
        &self,
        st: &mut TreeState,
        rows: &mut dyn Iterator<Item = Result<(Vec<u8>, Vec<u8>)>>,
        jobs: Option<SyncSender<Job>>,
        done: Receiver<Done>,
    ) -> Result<BuildStats> {
        let mut b = Builder {
            tree: self,
            jobs,
            done,
            next_bn: st.next_bn,
            table: HashMap::new(),
            level: Vec::new(),
            entries: Vec::new(),
            entries_bytes: 0,
            basements: Vec::new(),
            leaf_bytes: 0,
            stats: BuildStats::default(),
        };
        let mut last: Option<Vec<u8>> = None;
        for row in rows {
            let (k, v) = row?;
            if last.as_ref().is_some_and(|l| *l >= k) {
                return Err(Error::InvalidArgument(format!(
                    "bulk build input is not strictly sorted at row {}",
                    b.stats.rows + 1
                )));
            }
            last = Some(k.clone());
            if let Err(e) = b.push(k, v) {
                let _ = b.drain();
                return Err(e);
            }
        }
        let finished = b.finish();
        b.drain()?;
        let (root, _height) = finished?;
        self.install(st, root, b.next_bn, b.table);
        Ok(b.stats)
    }

    pub(crate) fn is_empty_locked(&self, st: &TreeState) -> Result<bool> {
        let root = self.load(st, st.root)?;
        Ok(match &*root {
            Node::Leaf { basements, .. } => {
                basements.len() == 1 && self.load_basement(st, st.root, root.clone(), 0)?.is_empty()
            }
            Node::Internal { .. } => false,
        })
    }

    /// Replaces the in-memory state with built, clean nodes.
    pub(crate) fn install(
        &self,
        st: &mut TreeState,
        root: BlockNum,
        next_bn: BlockNum,
        table: HashMap<BlockNum, BlockLoc>,
    ) {
        let old_root = st.root;
        self.delete_node(st, old_root);
        st.root = root;
        st.next_bn = next_bn;
        st.table.extend(table);
    }
}
