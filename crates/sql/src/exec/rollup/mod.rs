//! Roll-up tables at run time (docs/time-series.md, design.md RUP1-RUP6): the partial aggregates
//! of base rows and their merge (fold.rs), and the maintenance of a base table's roll-ups as its
//! rows change (maintain.rs). The DDL (ddl/rollup.rs) builds a roll-up's first rows with the
//! same fold.
//!
//! Map: fold.rs (a base row's group row, merging two of them, the merge as an upsert program, a
//! group row's key and bytes), maintain.rs (rows added: blind upserts; rows removed: counts and
//! sums taken back, MIN / MAX recomputed from the base table when needed).

pub mod fold;
pub mod maintain;

pub use maintain::{batch_changes, of, row_added, row_changed, row_removed};
