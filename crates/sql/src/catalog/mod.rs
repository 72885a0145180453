//! The catalog: databases, tables (with their indexes and storage trees), users and foreign
//! servers, kept in memory and persisted in the storage tree `__catalog`.
//!
//! Persistence: key `D\0<db>` → its default collation and comment (database_def.rs); `T\0<db>\0<table>` → the table's
//! `SHOW CREATE TABLE` text, parsed again at start-up by the same code as user DDL, so the stored
//! form is the one users see, preceded by the header line
//! `#betula generation=<n> full_columns=<k> keys=<f>\n` when the table's trees are of
//! generation n > 0 (see below), old rows lack columns, or its key format f is not 1
//! ([`TableDef::key_format`]); `U\0<user>` → `<hex SHA1(SHA1(pw)) or empty>\n<db
//! grant>\n...`; `S\0<lower-case server name>` → name, wrapper, then option name/value pairs, each
//! a u32 little-endian length and the UTF-8 bytes ([`ServerDef`]). Entries of other kinds are
//! skipped at start-up, so an older server reads a newer catalog.
//!
//! Trees: the primary tree of table `t` in `db` is `db/t/PRIMARY`, a secondary index `k` is
//! `db/t/k` (generation 0). A table rebuild (rebuild.rs) writes its rows into trees of the next
//! generation n, `db/t/@n/PRIMARY` and `db/t/@n/k` (4 parts: no name of generation 0 can be
//! one, as names never contain `/`), then switches by writing the catalog entry once.
//! Invariants: a `TableDef` is immutable once published (DDL builds a new one and swaps the
//! `Arc`); its trees exist whenever it is in the catalog; the AUTO_INCREMENT and hidden row-id
//! counters are shared by every version of the definition (they live in `Counters`); a tree
//! whose name looks like a table's (`db/...`) but that no catalog entry names is garbage left by
//! a crash in the middle of DDL, and is dropped at start-up ([`Catalog::orphan_trees`]).
//! Temporary tables never have an entry here: a session keeps them (temp_tables.rs), their trees
//! are named `\0temp/<id>/...` ([`TableDef::temporary`]) and are not table trees in the sense
//! above.
//!
//! Map: table_def.rs (TableDef, IndexDef, Counters, tree names), table_entry.rs (a table
//! entry's header), persist.rs (the Catalog and its tree: databases and tables), users.rs
//! (UserDef), server_def.rs (ServerDef), view_def.rs (ViewDef: a view's entry `V\0<db>\0<view>`)
//! and view_store.rs (views in the catalog), routine_def.rs and routine_store.rs (stored functions
//! and procedures: `R\0<db>\0<F|P>\0<name>`); CREATE TABLE to a definition and back to text:
//! create_table (with charset_clause.rs, key_parts.rs, type_text.rs); generated columns:
//! generated_def.rs (with expr_print.rs, an expression as MariaDB prints it); index entries'
//! values: index_entry.rs; the Sequence engine's virtual tables (`seq_1_to_10`), never stored:
//! sequence_table.rs.

pub mod charset_clause;
pub mod check_def;
pub mod create_table;
pub mod expr_print;
pub mod foreign_key_def;
pub mod generated_def;
pub mod index_entry;
pub mod key_parts;
pub mod partition;
pub mod query_print;
pub mod retention;
pub mod rollup;
pub mod routine_def;
mod routine_store;
pub mod sequence_table;
pub mod type_text;

pub mod account_host;
pub mod credentials;
mod database_def;
mod hex_text;
mod persist;
mod server_def;
mod table_def;
mod table_entry;
pub mod users;
mod version;
pub mod view_def;
mod view_store;

pub use check_def::CheckDef;
pub use database_def::DatabaseDef;
pub use foreign_key_def::{FkAction, ForeignKeyDef};
pub use generated_def::GeneratedDef;
pub use persist::{Catalog, CATALOG_TREE};
pub use rollup::RollupDef;
pub use server_def::ServerDef;
pub use table_def::{
    is_table_tree, temp_tree_name, tree_name, tree_name_gen, Counters, IndexDef, TableDef,
    KEY_FORMAT, TEMP_TREE_PREFIX,
};
pub use users::UserDef;
pub use view_def::ViewDef;
