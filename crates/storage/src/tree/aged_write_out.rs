//! Aged write-out: blocks that write-back and eviction wrote at least [`WRITE_OUT_AGE`] ago, and at which
//! their nodes are still clean, are handed to the disk in the background (`VfsFile::start_write_out`,
//! Linux `sync_file_range(WRITE)`, which does not wait), so that a checkpoint's fsync finds little left
//! in the page cache and commits' log fsyncs do not queue behind all of it at once (design.md C10).
//!
//! Invariants: this makes nothing durable and changes no bytes (only when dirty pages reach the disk);
//! a block is handed over only while the tree's table maps its node to it and the node is not dirty, so
//! a place already doomed to be freed (its node changed again) is left to the page cache, where the
//! next write to the place absorbs it. The queue is bounded; what falls off it is left to the checkpoint.

use super::node::BlockNum;
use super::Tree;
use crate::block::table::BlockLoc;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a written block waits before it is handed to the disk: a node changed again within this time
/// has its place freed, and that write never reaches the disk.
pub const WRITE_OUT_AGE: Duration = Duration::from_secs(1);

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

    /// Takes the blocks written at least `age` before `now`.
    fn take_aged(&self, now: Instant, age: Duration) -> Vec<(BlockNum, BlockLoc)> {
        let mut q = self.waiting.lock();
        let n = q.partition_point(|(at, _, _)| now.duration_since(*at) >= age);
        q.drain(..n).map(|(_, bn, loc)| (bn, loc)).collect()
    }
}

impl Tree {
    /// Hands the blocks written at least `age` ago whose nodes are still clean at them to the disk;
    /// returns how many bytes it handed over.
    pub(crate) fn write_out_aged(&self, age: Duration) -> u64 {
        let aged = self.aging.take_aged(Instant::now(), age);
        if aged.is_empty() {
            return 0;
        }
        let mut live: Vec<BlockLoc> = {
            let st = self.state.read();
            let nodes = st.nodes.lock();
            aged.into_iter()
                .filter(|(bn, loc)| {
                    st.table.get(bn).is_some_and(|l| l.offset == loc.offset)
                        && !nodes.get(bn).is_some_and(|s| s.dirty)
                })
                .map(|(_, loc)| loc)
                .collect()
        };
        live.sort_unstable_by_key(|l| l.offset);
        let mut bytes = 0;
        for loc in live {
            self.file.start_write_out(loc.offset, u64::from(loc.len));
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
        t.aging.note(root, loc);
        assert_eq!(t.write_out_aged(Duration::ZERO), len, "clean and live");
        assert_eq!(t.write_out_aged(Duration::ZERO), 0, "handed over once");
        let elsewhere = BlockLoc {
            offset: loc.offset + 4096,
            ..loc
        };
        t.aging.note(root, elsewhere);
        assert_eq!(t.write_out_aged(Duration::ZERO), 0, "not the node's place");
        t.aging.note(root, loc);
        assert_eq!(t.write_out_aged(Duration::from_secs(3600)), 0, "too young");
        h.put(b"another", b"value").unwrap();
        assert!(t.state.read().nodes.lock()[&root].dirty);
        assert_eq!(
            t.write_out_aged(Duration::ZERO),
            0,
            "its node changed since"
        );
    }

    #[test]
    fn only_blocks_old_enough_are_taken_and_the_queue_stays_bounded() {
        let a = Aging::default();
        let loc = |offset| BlockLoc {
            offset,
            len: 4096,
            prefix_len: 0,
        };
        for i in 0..MAX_WAITING as u64 + 10 {
            a.note(i, loc(i * 4096));
        }
        assert_eq!(a.waiting.lock().len(), MAX_WAITING);
        let now = Instant::now();
        assert!(a.take_aged(now, Duration::from_secs(3600)).is_empty());
        let all = a.take_aged(now + Duration::from_secs(2), Duration::from_secs(1));
        assert_eq!(all.len(), MAX_WAITING);
        assert_eq!(all[0], (10, loc(10 * 4096)), "the oldest fell off");
        assert!(a.waiting.lock().is_empty());
    }
}
