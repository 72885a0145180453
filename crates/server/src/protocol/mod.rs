//! The MySQL client/server wire protocol, implemented from the public
//! protocol documentation (no third-party protocol crate).
//!
//! Layering, bottom up: [`wire`] (primitive encodings) → [`packet`]
//! (framing) → [`handshake`]/[`auth`]/[`auth_sha2`]/[`auth_ed25519`] and `authenticate` (connection phase) →
//! [`response`]/[`column`]/[`row`]/[`binary_value`]/[`resultset`] (replies) and
//! [`statement`] (prepared statements), [`local_infile`] (LOAD DATA LOCAL), [`tls`] (the TLS
//! transport) → [`connection`] (command loop) →
//! [`server`] (listener and threads). The SQL layer plugs in through the
//! traits in [`backend`]. See docs/protocol.md for what is supported.
//!
//! Invariant for the whole tree: no byte sequence sent by a client can make
//! it panic; malformed input becomes an ERR packet or a closed connection.

pub mod auth;
pub mod auth_ed25519;
pub mod auth_sha2;
mod authenticate;
pub mod backend;
pub mod binary_value;
pub mod capabilities;
pub mod column;
pub mod command;
mod connection;
pub mod error;
pub mod handshake;
pub mod local_infile;
pub mod packet;
pub mod query_text;
pub mod response;
pub mod resultset;
pub mod row;
pub mod server;
pub mod statement;
pub mod status;
pub mod tls;
pub mod value;
pub mod wire;

pub use backend::{
    Backend, Completion, DumpRequest, EventSink, PreparedInfo, ResultSink, Session, SessionContext,
    StatementId, UserAuth,
};
pub use column::{ColumnDef, ColumnType};
pub use error::{ProtocolError, SqlError};
pub use server::{Server, ServerConfig, ServerHandle, ShutdownHandle};
pub use status::StatusFlags;
pub use tls::{TlsAcceptor, TlsConfigError, TlsFiles, TlsInfo};
pub use value::{Date, DateTime, Time, Value};
