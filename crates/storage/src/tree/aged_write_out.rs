//! Aged write-out: blocks that write-back and eviction wrote at least [`WRITE_OUT_AGE`] ago, and at which
//! their nodes are still clean, are written out by the maintenance thread between checkpoints, one block
//! at a time and at most [`WRITE_OUT_PER_TICK`] per round (`VfsFile::write_out`, Linux
//! `sync_file_range` waiting for each), so that a checkpoint's fsync finds little left in the page cache
//! and commits' log fsyncs never queue behind more than one block (design.md C10).
//!
//! Invariants: this makes nothing durable and changes no bytes (only when dirty pages reach the disk);
//! a block is written out only while the tree's table maps its node to it and the node is not dirty, so
//! a place already doomed to be freed (its node changed again) is left to the page cache, where the
//! next write to the place absorbs it. The queue is bounded; what falls off it is left to the checkpoint.
//! Lock order: the tree's state, then the queue (`note` runs under the state's write lock).

use super::node::BlockNum;
use super::Tree;
use crate::block::table::BlockLoc;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a written block waits before it is handed to the disk: a node changed again within this time
/// has its place freed, and that write never reaches the disk.
pub const WRITE_OUT_AGE: Duration = Duration::from_secs(1);

/// Bytes written out per call of the maintenance thread (every 50 ms), at most: 320 MB/s.
pub const WRITE_OUT_PER_TICK: u64 = 16 << 20;

/// Blocks waiting, at most (about 40 KiB of memory per 1,000).
const MAX_WAITING: usize = 16_384;

/// Blocks written by write-back and eviction, oldest first.
#[derive(Default)]
pub(crate) struct Aging {
    waiting: Mutex<VecDeque<(Instant, BlockNum, BlockLoc)>>,
}

impl Aging {
    /// Records that node `bn` was just written at `loc` and marked clean there.
    pub(crate) fn note(&self, bn: BlockNum, loc: BlockLoc) {
        let mut q = self.waiting.lock();
        if q.len() == MAX_WAITING {
            q.pop_front();
        }
        q.push_back((Instant::now(), bn, loc));
    }
}

impl Tree {
    /// Writes out the blocks written at least `age` ago whose nodes are still clean at them, oldest first,
    /// up to `budget` bytes (the rest wait for the next call); returns the bytes written out. Each block
    /// is written out and waited for before the next (`VfsFile::write_out`), so the log's fsyncs meanwhile
    /// queue behind one block at a time, not behind everything handed over.
    pub(crate) fn write_out_aged(&self, age: Duration, budget: u64) -> u64 {
        let now = Instant::now();
        let mut live: Vec<BlockLoc> = {
            let st = self.state.read();
            let nodes = st.nodes.lock();
            let mut q = self.aging.waiting.lock();
            let mut live = Vec::new();
            let mut bytes = 0;
            while bytes < budget {
                match q.front() {
                    Some((at, _, _)) if now.duration_since(*at) >= age => {}
                    _ => break,
                }
                let (_, bn, loc) = q.pop_front().expect("just seen");
                if st.table.get(&bn).is_some_and(|l| l.offset == loc.offset)
                    && !nodes.get(&bn).is_some_and(|s| s.dirty)
                {
                    bytes += u64::from(loc.len);
                    live.push(loc);
                }
            }
            live
        };
        live.sort_unstable_by_key(|l| l.offset);
        let mut bytes = 0;
        for loc in live {
            self.file.write_out(loc.offset, u64::from(loc.len));
            bytes += u64::from(loc.len);
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Env, EnvOptions};
    use crate::tree::message::UpdateRegistry;
    use crate::vfs::SimVfs;
    use std::sync::Arc;

    #[test]
    fn only_places_where_a_clean_node_lives_are_handed_over() {
        let opts = EnvOptions {
            background: false,
            ..EnvOptions::default()
        };
        let vfs = Arc::new(SimVfs::new());
        let env = Env::open_with_vfs(vfs, "/db".as_ref(), opts, UpdateRegistry::new()).unwrap();
        let h = env.create_tree("t", None).unwrap();
        for i in 0..100u32 {
            h.put(&i.to_be_bytes(), b"value").unwrap();
        }
        env.checkpoint().unwrap();
        let t = h.tree();
        let (root, loc) = {
            let st = t.state.read();
            (st.root, st.table[&st.root])
        };
        let len = u64::from(loc.len);
        let all = u64::MAX;
        t.aging.note(root, loc);
        assert_eq!(t.write_out_aged(Duration::ZERO, all), len, "clean and live");
        assert_eq!(t.write_out_aged(Duration::ZERO, all), 0, "written out once");
        let elsewhere = BlockLoc {
            offset: loc.offset + 4096,
            ..loc
        };
        t.aging.note(root, elsewhere);
        assert_eq!(
            t.write_out_aged(Duration::ZERO, all),
            0,
            "not the node's place"
        );
        // A budget smaller than a block still lets one through per call; the rest wait their turn.
        t.aging.note(root, loc);
        t.aging.note(root, loc);
        assert_eq!(t.write_out_aged(Duration::ZERO, 1), len);
        assert_eq!(t.write_out_aged(Duration::ZERO, 1), len);
        assert_eq!(t.write_out_aged(Duration::ZERO, 1), 0);
        t.aging.note(root, loc);
        assert_eq!(
            t.write_out_aged(Duration::from_secs(3600), all),
            0,
            "too young"
        );
        h.put(b"another", b"value").unwrap();
        assert!(t.state.read().nodes.lock()[&root].dirty);
        assert_eq!(
            t.write_out_aged(Duration::ZERO, all),
            0,
            "its node changed since"
        );
    }

    #[test]
    fn the_queue_stays_bounded_by_dropping_its_oldest() {
        let a = Aging::default();
        let loc = |offset| BlockLoc {
            offset,
            len: 4096,
            prefix_len: 0,
        };
        for i in 0..MAX_WAITING as u64 + 10 {
            a.note(i, loc(i * 4096));
        }
        let q = a.waiting.lock();
        assert_eq!(q.len(), MAX_WAITING);
        assert_eq!(
            (q[0].1, q[0].2),
            (10, loc(10 * 4096)),
            "the oldest fell off"
        );
    }
}
