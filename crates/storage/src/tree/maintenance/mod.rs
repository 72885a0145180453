//! Background work that keeps writers and readers fast: the flusher thread's flushes, leaf flushes
//! prepared without the write lock, write-back of dirty nodes, and the aged write-out before checkpoints.
//!
//! Invariants: each piece does exactly what a writer would do inline (the same flush, the same write),
//! so the tree is the same whichever thread did it; work prepared without the write lock is installed
//! only if nothing it read changed meanwhile (FLU2, WBK1), and is otherwise dropped; nothing here makes
//! anything durable (that is the checkpoint's job).

pub(crate) mod aged_write_out;
pub(super) mod detached_flush;
pub mod flusher;
pub(super) mod write_back;
