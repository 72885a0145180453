//! Making a tree durable and reading it back: this tree's part of a checkpoint, opening its file from the
//! newer valid header, the file's space and the places checkpoints pin, giving free space back, what a
//! backup reads and pins (`backup_pins.rs`), and filling a tree with an exported file's blocks (`adopt.rs`).
//!
//! Invariants (design.md, "Checkpoint protocol"): a place referenced by the durable checkpoint or by the
//! one in progress is never freed (CKP1); a tree header is written only after the blocks and the table it
//! names are fsynced (CKP2); a checkpoint holds the tree's lock only to copy pointers (CKP7).

pub(super) mod adopt;
pub(super) mod backup_pins;
pub(super) mod checkpoint;
pub(crate) mod open;
pub(super) mod reclaim;
pub(super) mod space;
