//! Planning: what a query reads and how, decided before any row is read. A [`query::QueryPlan`]
//! holds [`select::SelectPlan`]s: sources bound from FROM (from.rs) with their access paths
//! (access.rs, hints.rs, index_condition.rs), filters, grouping, order and limit. EXPLAIN renders
//! a plan (explain.rs); the executor (exec/) runs the same plan; a locking read takes its locks
//! from it (locks.rs).

pub mod access;
pub mod covering;
pub mod explain;
pub mod from;
pub mod hints;
pub mod index_condition;
pub mod locks;
pub mod pruning;
pub mod query;
pub mod select;
