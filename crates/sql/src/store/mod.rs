//! The only door from the SQL layer to the storage engine: tree handles, the session's write
//! set with its row locks, and the schema lock.
//!
//! A session's changes are buffered here in a [`WriteSet`] (an overlay of puts, deletes and blind
//! upserts per tree) that the session's own reads merge over the committed trees; COMMIT writes
//! them through one storage transaction (`betula_storage::Txn`: atomic across trees, durable
//! when it returns), ROLLBACK drops them. Statement atomicity comes from an undo log of overlay
//! entries ([`WriteSet::mark`] / [`WriteSet::rollback_to`]).
//!
//! Isolation: writers lock rows, not tables. The write set owns a storage transaction from the
//! session's first change; every key put in the overlay is locked through it first (an exclusive
//! row lock held until commit or rollback), and a row read to check uniqueness or to be updated
//! is locked before it is read ([`WriteSet::lock`]), so two sessions never both decide from the
//! same committed row (no lost updates, no duplicate keys). Lock waits end after
//! `innodb_lock_wait_timeout` (1205) or on a deadlock (1213). DDL takes the [`SchemaLock`]
//! exclusively, writing sessions hold it shared until their transaction ends.
//! Readers never wait and see committed data.
//! Reads take an optional snapshot (`Option<&Txn>`, the REPEATABLE READ view of an explicit
//! transaction); without one they see the latest committed rows. Known limit: a transaction's
//! writes are held in memory until COMMIT.
//!
//! Map: trees.rs ([`Store`]: the environment and its tree handles), write_set.rs
//! ([`WriteSet`]: the overlay, its row locks and commit), scan.rs ([`Scan`]: a range read merged
//! with the overlay), merged.rs ([`Merged`]: scans of a partitioned table's trees in one key
//! order), schema_lock.rs ([`SchemaLock`]), through_log.rs (written-through changes kept for the binary log), online.rs (the writers' half of online index builds,
//! and tree births for snapshots older than a DDL), upsert/ (the blind upsert message).

mod merged;
pub mod online;
mod scan;
mod schema_lock;
mod through_log;
mod trees;
pub mod upsert;
mod write_set;

use std::sync::Arc;

use crate::error::db_error::DbError;

pub use merged::Merged;
pub use scan::Scan;
pub use schema_lock::{LockMode, SchemaLock};
pub use trees::Store;
pub use write_set::{Change, Mark, RowDiff, WriteSet};

/// Id under which the generic row upsert function is registered.
pub const UPSERT_FN: u32 = 1;

/// Shared handle type used by sessions.
pub type SharedStore = Arc<Store>;

/// 1205: lock wait timeout exceeded.
pub fn lock_timeout_error() -> DbError {
    DbError::lock_timeout()
}
