//! Planning: access paths, hints, index condition pushdown, locks, EXPLAIN.

pub mod access;
pub mod explain;
pub mod hints;
pub mod index_condition;
pub mod locks;
