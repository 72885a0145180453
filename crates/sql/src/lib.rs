//! Betula's SQL layer: from a statement's text to rows read from and written to the storage
//! engine's trees (docs/design.md, "SQL layer").
//!
//! Folders are layers, listed from the bottom; a module imports only from layers below its own
//! (`tests/layers.rs` checks it), so nothing below `session` knows about sessions.
//!
//! | layer | owns |
//! | --- | --- |
//! | `error` | `ErrorCode` (MariaDB's error numbers and SQLSTATEs), `DbError` (a code and a message as the client sees them), `SqlError`, warnings |
//! | `types` | column types, values, decimals, temporals, charsets, collations, coercion |
//! | `codec` | the bytes of keys and rows in the trees (docs/sql-encoding.md); sort run files and their temporary directories |
//! | `expr` | compiled expressions: binding names, evaluation, functions by family, aggregates |
//! | `result` | what a statement returns: result sets, row counts, result-column metadata |
//! | `catalog` | databases, tables, indexes, users; a table's definition ↔ its CREATE TABLE text |
//! | `parser` | the front end: statement text → one `Statement` |
//! | `store` | the only door to the storage engine: tree handles, write sets, row locks |
//! | `binlog` | the binary log in MariaDB's format: events, files, ordering, recovery, dump |
//! | `context` | the engine every connection shares, and one connection's state (`Context`) |
//! | `infoschema` | information_schema views computed from the catalog |
//! | `plan` | query plans (sources, access paths, filters, grouping, order, limit), EXPLAIN, locks |
//! | `exec` | running plans (sorts within `sort_buffer_size`, spilling past it) and INSERT / UPDATE / DELETE / HANDLER / CHECKSUM TABLE |
//! | `load` | LOAD DATA: field splitting, conversion, external sort, bulk builds and merges |
//! | `ddl` | CREATE / DROP / ALTER / RENAME / TRUNCATE, table rebuilds, accounts, servers |
//! | `routine` | stored functions and procedures: CREATE / DROP, CALL, the interpreter of a body, SHOW CREATE |
//! | `session` | the statement loop, prepared statements, SET, SHOW, USE, transaction control |

pub mod binlog;
pub mod catalog;
pub mod codec;
pub mod context;
pub mod ddl;
pub mod error;
pub mod exec;
pub mod expr;
pub mod infoschema;
pub mod load;
pub mod parser;
pub mod plan;
pub mod result;
pub mod routine;
pub mod session;
pub mod store;
pub mod types;

pub use context::engine::{Engine, EngineConfig};
pub use context::Context;
pub use error::code::ErrorCode;
pub use error::db_error::{DbError, DbResult};
pub use result::{OutCol, Output, RowSink};
pub use session::Session;
