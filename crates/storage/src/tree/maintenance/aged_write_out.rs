//! Aged write-out: blocks that write-back and eviction wrote at least [`WRITE_OUT_AGE`] ago, and at which
//! their nodes are still clean, are written out by the maintenance thread shortly before the next
//! checkpoint, one block at a time (`VfsFile::write_out`, Linux `sync_file_range` waiting for each), so
//! that the checkpoint's fsync finds little left in the page cache and commits' log fsyncs never queue
//! behind more than one block (design.md CKP10).
//!
//! When: [`pace`] lets the write-out start once the checkpoint is expected within the time the waiting
//! bytes take at [`WRITE_OUT_RATE`], and spreads them over the time left. Writing out earlier costs
//! bytes: a block written out and then freed before the checkpoint (its node changed again) reaches the
//! disk, where the page cache would have absorbed it (the next write to the place overwrites it).
//!
//! Invariants: this makes nothing durable and changes no bytes (only when dirty pages reach the disk);
//! a block is chosen only while the tree's table maps its node to it and the node is not dirty (should the
//! place be freed and reused before its write-out, that only writes the new node's pages early). The
//! queue is bounded; what falls off it is left to the checkpoint. Lock order: the tree's state, then the
//! queue (`note` runs under the state's write lock).

use crate::block::table::BlockLoc;
use crate::tree::in_memory::node::BlockNum;
use crate::tree::Tree;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a written block waits at least before it is written out.
pub const WRITE_OUT_AGE: Duration = Duration::from_secs(1);

/// The rate the write-out plans for: the waiting bytes are written out over the time they take at it
/// before the checkpoint (between one second and twenty).
pub const WRITE_OUT_RATE: u64 = 50 << 20;

/// Bytes written out per round of the maintenance thread, at most, and at least once it has started.
const MAX_PER_ROUND: u64 = 16 << 20;
const MIN_PER_ROUND: u64 = 1 << 20;

/// Blocks waiting, at most (about 40 KiB of memory per 1,000).
const MAX_WAITING: usize = 16_384;

/// How many bytes to write out in a round of length `round`, when `waiting` bytes wait and the next
/// checkpoint is expected in `until_checkpoint`: nothing while it is further than the waiting bytes take
/// at [`WRITE_OUT_RATE`], else an even share of them over the rounds left.
pub fn pace(waiting: u64, until_checkpoint: Duration, round: Duration) -> u64 {
    if waiting == 0 {
        return 0;
    }
    let window = Duration::from_secs_f64(waiting as f64 / WRITE_OUT_RATE as f64)
        .clamp(Duration::from_secs(1), Duration::from_secs(20));
    if until_checkpoint > window {
        return 0;
    }
    let rounds = (until_checkpoint.as_secs_f64() / round.as_secs_f64().max(1e-3)).max(1.0);
    ((waiting as f64 / rounds) as u64).clamp(MIN_PER_ROUND, MAX_PER_ROUND)
}

#[derive(Default)]
struct Waiting {
    /// (written at, node, place), oldest first.
    blocks: VecDeque<(Instant, BlockNum, BlockLoc)>,
    /// Their bytes.
    bytes: u64,
}

/// Blocks written by write-back and eviction, oldest first.
#[derive(Default)]
pub(crate) struct Aging {
    waiting: Mutex<Waiting>,
}

impl Aging {
    /// Records that node `bn` was just written at `loc` and marked clean there.
    pub(crate) fn note(&self, bn: BlockNum, loc: BlockLoc) {
        let mut w = self.waiting.lock();
        if w.blocks.len() == MAX_WAITING {
            let (_, _, old) = w.blocks.pop_front().expect("full");
            w.bytes -= u64::from(old.len);
        }
        w.blocks.push_back((Instant::now(), bn, loc));
        w.bytes += u64::from(loc.len);
    }

    /// Bytes of the blocks waiting (some of them may have been freed since).
    pub(crate) fn waiting_bytes(&self) -> u64 {
        self.waiting.lock().bytes
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
            let mut w = self.aging.waiting.lock();
            let mut live = Vec::new();
            let mut bytes = 0;
            while bytes < budget {
                match w.blocks.front() {
                    Some((at, _, _)) if now.duration_since(*at) >= age => {}
                    _ => break,
                }
                let (_, bn, loc) = w.blocks.pop_front().expect("just seen");
                w.bytes -= u64::from(loc.len);
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
    use crate::tree::in_memory::message::UpdateRegistry;
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
        let w = a.waiting.lock();
        assert_eq!(w.blocks.len(), MAX_WAITING);
        assert_eq!(w.bytes, MAX_WAITING as u64 * 4096);
        let first = &w.blocks[0];
        assert_eq!(
            (first.1, first.2),
            (10, loc(10 * 4096)),
            "the oldest fell off"
        );
    }

    #[test]
    fn write_out_starts_when_the_checkpoint_is_as_near_as_the_waiting_bytes_take() {
        let round = Duration::from_millis(50);
        let s = Duration::from_secs_f64;
        assert_eq!(pace(0, Duration::ZERO, round), 0);
        // 300 MiB take 6 s at 50 MiB/s: nothing 7 s ahead, an even share of the rounds left 6 s and 1 s
        // ahead, at most 16 MiB a round.
        let waiting = 300 << 20;
        assert_eq!(pace(waiting, s(7.0), round), 0);
        assert_eq!(pace(waiting, s(6.0), round), waiting / 120);
        assert_eq!(pace(waiting, s(1.0), round), waiting / 20);
        assert_eq!(pace(waiting, s(0.5), round), MAX_PER_ROUND);
        // A little waiting starts a second ahead, at least 1 MiB a round; a lot, twenty seconds ahead.
        assert_eq!(pace(4 << 20, s(1.1), round), 0);
        assert_eq!(pace(4 << 20, s(1.0), round), MIN_PER_ROUND);
        assert_eq!(pace(4 << 30, s(20.0), round), (4 << 30) / 400);
        assert_eq!(pace(4 << 30, s(20.5), round), 0);
        // An overdue checkpoint: the most a round may write.
        assert_eq!(pace(waiting, Duration::ZERO, round), MAX_PER_ROUND);
    }
}
