//! The contract between the protocol layer and the SQL layer.
//!
//! The protocol layer owns the wire: framing, handshake, authentication,
//! command dispatch, prepared-statement ids and parameter decoding, result
//! encoding. The SQL layer implements [`Backend`] (one per server) and
//! [`Session`] (one per connection) and pushes results into a
//! [`ResultSink`]; it never sees packets.
//!
//! Decisions and invariants:
//! * **Multi-statements are split by the backend.** `Session::query` gets the
//!   whole COM_QUERY text because only the SQL parser knows where statements
//!   end (quotes, comments, `DELIMITER`-free procedure bodies). The backend
//!   runs the statements in order and reports each one's result to the sink
//!   (`begin_rows`/`row`/`end_rows` or `ok`). If statement k fails it returns
//!   the error after the results of statements < k; the protocol layer then
//!   sends them flagged MORE_RESULTS_EXISTS followed by the ERR packet, as
//!   MySQL does. When `ResultSink::multi_statements()` is false (client did
//!   not negotiate it or turned it off with COM_SET_OPTION), text containing
//!   more than one statement must be rejected with a syntax error (1064).
//! * **Results stream.** Every `row` call encodes and writes one packet
//!   immediately (through a buffered socket writer); nothing is collected.
//!   Sink methods return `Err` once the client is gone; the backend should
//!   stop producing rows and return (any error will do: the protocol layer
//!   knows the connection is dead and closes it).
//! * **Status flags.** `Session::status_flags` is read after every command
//!   and is authoritative for the final OK/EOF of a reply; the `status` in a
//!   [`Completion`] is used for intermediate results of a multi-statement.
//!   MORE_RESULTS_EXISTS is managed by the protocol layer only.
//! * **Statement ids** are allocated by the protocol layer (unique per
//!   connection, never 0) and passed to `prepare`; the backend keys its plans
//!   by them. `close_statement` is called for COM_STMT_CLOSE, for every
//!   statement on COM_RESET_CONNECTION and when the connection ends.
//! * Backend calls run on the connection's own thread; a panic in a backend
//!   ends only that connection.
//! * **KILL.** A session reports `killed()` once KILL CONNECTION (or shutdown)
//!   reached it; the protocol layer then sends the current reply and closes
//!   the connection. Closing another connection's socket is the server's
//!   part (`ShutdownHandle::close_connection`), which the backend is lent.

use super::column::ColumnDef;
use super::error::SqlError;
pub use super::response::Completion;
pub use super::statement::StatementId;
use super::status::StatusFlags;
use super::value::Value;
use betula_sql::catalog::credentials::AuthPlugin;

/// The account a connection was matched to (design.md ACC3) and what authenticates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserAuth {
    /// The account's user name (empty: anonymous) and host pattern: CURRENT_USER().
    pub account_user: String,
    pub account_host: String,
    pub plugin: AuthPlugin,
    /// The stored form of the password (`betula_sql::catalog::credentials`); empty: none.
    pub auth_string: String,
    /// REQUIRE SSL: refused on a connection that is not secure.
    pub require_ssl: bool,
}

impl UserAuth {
    /// A mysql_native_password account `'user'@'%'` with `password` (empty: none).
    pub fn native(user: &str, password: &[u8]) -> UserAuth {
        UserAuth {
            account_user: user.into(),
            account_host: "%".into(),
            plugin: AuthPlugin::Native,
            auth_string: betula_sql::catalog::credentials::auth_string(
                AuthPlugin::Native,
                password,
            ),
            require_ssl: false,
        }
    }
}

/// Everything known about a freshly authenticated connection.
#[derive(Debug, Clone)]
pub struct SessionContext {
    pub connection_id: u32,
    pub user: String,
    /// The matched account (design.md ACC3): user name and host pattern.
    pub account_user: String,
    pub account_host: String,
    /// The client's IP address, as text.
    pub client_host: String,
    /// Database from CONNECT_WITH_DB; `open_session` should fail with
    /// ER_BAD_DB_ERROR (1049, 42000) if it does not exist.
    pub database: Option<String>,
    /// Negotiated capability flags (client ∩ server; see `capabilities`).
    pub capabilities: u32,
    /// Client negotiated CLIENT_LOCAL_FILES (LOAD DATA LOCAL may be used).
    pub local_infile: bool,
    /// Collation id the client asked for in the handshake.
    pub charset: u8,
    /// Connection attributes sent by the client (`_client_name`, ...).
    pub attributes: Vec<(String, String)>,
    /// The TLS protocol version and cipher when the connection switched to TLS before
    /// authenticating (None: plain).
    pub tls: Option<super::tls::TlsInfo>,
}

/// Result of preparing a statement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreparedInfo {
    /// Number of `?` placeholders.
    pub param_count: u16,
    /// Result columns, empty when the statement returns no rows.
    pub columns: Vec<ColumnDef>,
}

/// The server-wide SQL engine.
pub trait Backend: Send + Sync + 'static {
    /// The account a client `user` from address `client_host` is matched to (design.md ACC3).
    /// `None` means no account matches (access denied).
    fn user_auth(&self, user: &str, client_host: &str) -> Option<UserAuth>;
    /// Where caching_sha2_password's RSA key pair is kept (made there once); `None`: no RSA
    /// exchange, a full authentication then needs a secure connection.
    fn rsa_key_file(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// Opens the session of an authenticated connection.
    fn open_session(&self, ctx: SessionContext) -> Result<Box<dyn Session>, SqlError>;
    /// Announced in the handshake, e.g. "8.0.35-betula-0.1.0". Clients parse
    /// the leading "X.Y.Z" to decide on features, so keep a MySQL-like prefix.
    fn server_version(&self) -> String {
        format!("8.0.35-betula-{}", env!("CARGO_PKG_VERSION"))
    }
    /// The server is stopping: interrupt what the sessions run, so they end and reply soon
    /// (called before their sockets are shut down).
    fn shutdown(&self) {}
}

/// One connection's SQL state (current database, transaction, plans...).
pub trait Session: Send {
    /// The SQL text of a COM_QUERY / COM_STMT_PREPARE body, read in the client's character
    /// set (default: UTF-8, `query_text::decode`).
    fn decode_text<'a>(&self, bytes: &'a [u8]) -> std::borrow::Cow<'a, str> {
        super::query_text::decode(bytes)
    }
    /// Runs the COM_QUERY text (one or more statements, see module docs).
    fn query(&mut self, sql: &str, out: &mut dyn ResultSink) -> Result<(), SqlError>;
    /// Prepares `sql` under the protocol-assigned id `stmt`.
    fn prepare(&mut self, stmt: StatementId, sql: &str) -> Result<PreparedInfo, SqlError>;
    /// Executes a prepared statement with decoded parameters
    /// (`params.len() == param_count`). Rows go out in the binary protocol.
    fn execute(
        &mut self,
        stmt: StatementId,
        params: &[Value],
        out: &mut dyn ResultSink,
    ) -> Result<(), SqlError>;
    /// Forgets a prepared statement. Unknown ids are ignored.
    fn close_statement(&mut self, stmt: StatementId);
    /// COM_INIT_DB (`USE db`).
    fn init_db(&mut self, db: &str) -> Result<(), SqlError>;
    /// COM_FIELD_LIST: the columns of `table` (optionally filtered by a
    /// LIKE `wildcard`, empty = all). Set `ColumnDef::default` if known.
    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnDef>, SqlError>;
    /// Current session status (IN_TRANS, AUTOCOMMIT, ...).
    fn status_flags(&self) -> StatusFlags;
    /// COM_RESET_CONNECTION: roll back, drop temporary state, keep the user
    /// and current database. Prepared statements are closed by the protocol
    /// layer (via `close_statement`) before this is called.
    fn reset(&mut self) -> Result<(), SqlError> {
        Ok(())
    }
    /// Whether this connection was killed (KILL CONNECTION from any session, or server
    /// shutdown): the protocol layer closes it after the current reply.
    fn killed(&self) -> bool {
        false
    }
    /// COM_PROCESS_KILL: KILL CONNECTION `id`.
    fn process_kill(&mut self, _id: u32) -> Result<(), SqlError> {
        Err(unknown_command())
    }
    /// COM_SHUTDOWN: stop the server.
    fn shutdown_server(&mut self) -> Result<(), SqlError> {
        Err(unknown_command())
    }
    /// COM_REGISTER_SLAVE: a replica with this server id announces itself.
    fn register_replica(&mut self, _server_id: u32) -> Result<(), SqlError> {
        Err(unknown_command())
    }
    /// COM_BINLOG_DUMP: sends binary log events to `out` until the connection ends (Ok: close
    /// it; with [`DumpRequest::NON_BLOCK`], an EOF follows) or the request cannot be served.
    fn binlog_dump(
        &mut self,
        _req: &DumpRequest,
        _out: &mut dyn EventSink,
    ) -> Result<(), SqlError> {
        Err(unknown_command())
    }
}

/// A COM_BINLOG_DUMP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRequest {
    pub pos: u32,
    pub flags: u16,
    pub server_id: u32,
    /// The file to start in (empty: the first, or the GTID position the session set).
    pub file: String,
}

impl DumpRequest {
    /// BINLOG_DUMP_NON_BLOCK: stop at the end of the log with an EOF packet.
    pub const NON_BLOCK: u16 = 1;
}

/// Where a dump's events go: one packet each (`0x00` then the event).
pub trait EventSink {
    fn event(&mut self, bytes: &[u8]) -> Result<(), SqlError>;
}

/// ER_UNKNOWN_COM_ERROR, for commands a backend does not implement.
pub fn unknown_command() -> SqlError {
    SqlError::new(
        super::error::codes::ER_UNKNOWN_COM_ERROR,
        b"08S01",
        "Unknown command",
    )
}

/// Where a backend pushes the results of one command.
///
/// Call sequence per statement result: either `ok(..)` once, or
/// `begin_rows(cols)`, any number of `row(..)` with exactly `cols.len()`
/// values, then `end_rows(..)`. Several results may follow each other
/// (multi-statements, procedures). Violations return an error, never panic.
pub trait ResultSink {
    /// Starts a result set. `columns` must be non-empty.
    fn begin_rows(&mut self, columns: &[ColumnDef]) -> Result<(), SqlError>;
    /// Sends one row (text or binary protocol, as the command dictates).
    fn row(&mut self, values: &[Value]) -> Result<(), SqlError>;
    /// Ends the current result set (`warnings` and `status` are used).
    fn end_rows(&mut self, done: &Completion) -> Result<(), SqlError>;
    /// Reports a statement that returned no rows.
    fn ok(&mut self, done: &Completion) -> Result<(), SqlError>;
    /// Whether the query text may contain several statements.
    fn multi_statements(&self) -> bool;
    /// LOAD DATA LOCAL INFILE: asks the client for `filename` and returns its contents as a
    /// stream (see `local_infile`). `None` when the client did not negotiate CLIENT_LOCAL_FILES.
    /// Drop the reader before reporting the statement's result.
    fn local_infile(&mut self, _filename: &str) -> Option<Box<dyn std::io::Read + '_>> {
        None
    }
}
