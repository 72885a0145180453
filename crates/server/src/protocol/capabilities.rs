//! Capability flags exchanged in the handshake, and the set this server
//! advertises.
//!
//! Invariant: the effective capabilities of a connection are always
//! `client_flags & SERVER_CAPABILITIES`; code deciding how to encode a reply
//! (EOF vs OK terminators, multi-results) consults only that intersection.

pub const CLIENT_LONG_PASSWORD: u32 = 1;
pub const CLIENT_FOUND_ROWS: u32 = 1 << 1;
pub const CLIENT_LONG_FLAG: u32 = 1 << 2;
pub const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
pub const CLIENT_NO_SCHEMA: u32 = 1 << 4;
pub const CLIENT_COMPRESS: u32 = 1 << 5;
pub const CLIENT_LOCAL_FILES: u32 = 1 << 7;
pub const CLIENT_IGNORE_SPACE: u32 = 1 << 8;
pub const CLIENT_PROTOCOL_41: u32 = 1 << 9;
pub const CLIENT_INTERACTIVE: u32 = 1 << 10;
pub const CLIENT_SSL: u32 = 1 << 11;
pub const CLIENT_IGNORE_SIGPIPE: u32 = 1 << 12;
pub const CLIENT_TRANSACTIONS: u32 = 1 << 13;
pub const CLIENT_RESERVED: u32 = 1 << 14;
pub const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
pub const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
pub const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
pub const CLIENT_PS_MULTI_RESULTS: u32 = 1 << 18;
pub const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
pub const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
pub const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
pub const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
pub const CLIENT_SESSION_TRACK: u32 = 1 << 23;
pub const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

/// Everything this server implements on every connection (CLIENT_SSL is added
/// when a certificate is configured: `handshake::greeting_capabilities`).
/// Not advertised: COMPRESS,
/// SESSION_TRACK, QUERY_ATTRIBUTES, OPTIONAL_RESULTSET_METADATA.
pub const SERVER_CAPABILITIES: u32 = CLIENT_LONG_PASSWORD
    | CLIENT_FOUND_ROWS
    | CLIENT_LONG_FLAG
    | CLIENT_CONNECT_WITH_DB
    | CLIENT_NO_SCHEMA
    | CLIENT_LOCAL_FILES
    | CLIENT_IGNORE_SPACE
    | CLIENT_PROTOCOL_41
    | CLIENT_INTERACTIVE
    | CLIENT_IGNORE_SIGPIPE
    | CLIENT_TRANSACTIONS
    | CLIENT_RESERVED
    | CLIENT_SECURE_CONNECTION
    | CLIENT_MULTI_STATEMENTS
    | CLIENT_MULTI_RESULTS
    | CLIENT_PS_MULTI_RESULTS
    | CLIENT_PLUGIN_AUTH
    | CLIENT_CONNECT_ATTRS
    | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
    | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
    | CLIENT_DEPRECATE_EOF;

/// The negotiated capabilities of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities(pub u32);

impl Capabilities {
    /// Intersects what the client asked for with what the server offers.
    pub fn negotiate(client: u32) -> Self {
        Capabilities(client & SERVER_CAPABILITIES)
    }

    pub fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }

    /// Result sets end with an OK packet (0xFE header) instead of EOF, and the
    /// EOF after column definitions is omitted.
    pub fn deprecate_eof(self) -> bool {
        self.has(CLIENT_DEPRECATE_EOF)
    }
}
