//! INSERT (with IGNORE, REPLACE, ON DUPLICATE KEY UPDATE), UPDATE and DELETE.
//!
//! Every change goes through the session's write set (store.rs), which locks each row it
//! changes; rows are locked before they are read to decide a change (duplicate checks, UPDATE,
//! DELETE, REPLACE, ON DUPLICATE KEY UPDATE's read path), so concurrent writers serialize per
//! row, not per table.
//! Per row: coercion to the column types (strict unless IGNORE or non-strict sql_mode), the
//! AUTO_INCREMENT value, a point read of the primary key to detect duplicates (a known cost: a
//! Bε-tree insert would not need to read; TokuDB had the same check), a prefix scan of each
//! UNIQUE index, then blind puts/deletes of the row and of secondary index entries
//! (index key = index columns ++ primary key, empty value).
//!
//! ON DUPLICATE KEY UPDATE is sent as one blind upsert message (no read at all) when the table
//! has a primary key and no secondary index, no ON UPDATE CURRENT_TIMESTAMP column, and every
//! assignment targets a non-key column with an expression of the upsert subset (upsert.rs);
//! otherwise it reads, then updates like UPDATE. The blind path reports 1 affected row per row.
//!
//! Map: insert.rs (INSERT and REPLACE: target columns, source rows, the ON DUPLICATE KEY UPDATE
//! program), insert_batch.rs (the set-oriented path of an INSERT that is a whole transaction:
//! sorted, locked and checked as one batch, written straight through), insert_row.rs (one row against existing keys: REPLACE, IGNORE, ON DUPLICATE KEY
//! UPDATE, the blind upsert), complete.rs (defaults, AUTO_INCREMENT and coercion of an inserted
//! row), generated.rs (generated columns computed before a row is written), update.rs, delete.rs, matching.rs (the rows an UPDATE or DELETE changes, locked and
//! read again), row_changes.rs (put, delete and update of a row with its index entries, and
//! duplicate-key checks), foreign_keys.rs (FOREIGN KEY checks and cascades), view_target.rs (writes naming a view are refused).

mod checks;
mod complete;
mod delete;
pub(crate) mod foreign_keys;
mod generated;
mod insert;
mod insert_batch;
mod insert_row;
mod matching;
mod row_changes;
mod update;
pub mod view_target;

use sqlparser::ast::{self as ast};

use crate::catalog::TableDef;
use crate::expr::Scope;
use crate::types::value::Value;

pub(crate) use checks::check_row;
pub(crate) use complete::complete_row;
pub use complete::{auto_inc_after, Slot};
pub use delete::delete;
pub(crate) use generated::{compute_generated, value_for_generated};
pub use insert::{insert, run_insert, InsertSource, InsertSpec};
pub use row_changes::delete_row;
pub(crate) use row_changes::{encode, find_conflict, load, put_row, update_row};
pub use update::{explain_update, update, update_with};

/// A row with its primary key bytes.
type KeyedRow = (Vec<u8>, Vec<Value>);

/// The columns of `t` as an expression scope, the table named `alias`.
pub fn table_scope(t: &TableDef, alias: &str) -> Scope {
    t.scope(alias)
}

/// The bare keyword DEFAULT as a value (`VALUES (DEFAULT)`, `SET c = DEFAULT`).
fn is_default_kw(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}
