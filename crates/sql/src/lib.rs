//! Betula SQL layer (see docs/design.md): column types, runtime values and their MySQL conversion
//! and comparison rules, the key and row codecs that map tables onto the storage engine's
//! byte-string trees (byte layouts in docs/sql-encoding.md), the catalog, the planner and the
//! executor.

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
pub mod session;
pub mod store;
pub mod types;

pub use context::engine::{Engine, EngineConfig};
pub use context::Context;
pub use error::db_error::{DbError, DbResult};
pub use result::{OutCol, Output, RowSink};
pub use session::Session;
