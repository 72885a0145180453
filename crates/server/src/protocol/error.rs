//! Error types of the protocol layer.
//!
//! * [`SqlError`] is what travels to the client inside an ERR packet: a MySQL
//!   error number, a five-character SQLSTATE and a message. Backends return it.
//! * [`ProtocolError`] is a failure of the connection itself (I/O, a malformed
//!   or oversized packet). Decoders return it for any byte input; nothing in
//!   this module tree panics on client-supplied bytes.

use std::fmt;
use std::io;

/// Well-known MySQL error numbers used by the protocol layer.
pub mod codes {
    pub const ER_CON_COUNT_ERROR: u16 = 1040;
    pub const ER_HANDSHAKE_ERROR: u16 = 1043;
    pub const ER_ACCESS_DENIED_ERROR: u16 = 1045;
    pub const ER_NO_DB_ERROR: u16 = 1046;
    pub const ER_UNKNOWN_COM_ERROR: u16 = 1047;
    pub const ER_BAD_DB_ERROR: u16 = 1049;
    pub const ER_UNKNOWN_ERROR: u16 = 1105;
    pub const ER_NET_PACKET_TOO_LARGE: u16 = 1153;
    pub const ER_NET_READ_ERROR: u16 = 1158;
    pub const ER_NET_ERROR_ON_WRITE: u16 = 1160;
    pub const ER_NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    pub const ER_NOT_SUPPORTED_YET: u16 = 1235;
    pub const ER_UNKNOWN_STMT_HANDLER: u16 = 1243;
    pub const ER_MALFORMED_PACKET: u16 = 1835;
    pub const ER_WRONG_ARGUMENTS: u16 = 1210;
    pub const ER_SERVER_SHUTDOWN: u16 = 1053;
}

/// An error reported to the client in an ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    /// MySQL error number (e.g. 1064 for a syntax error).
    pub code: u16,
    /// SQLSTATE, exactly five ASCII characters (e.g. `*b"42000"`).
    pub sqlstate: [u8; 5],
    /// Human-readable message.
    pub message: String,
}

impl SqlError {
    pub fn new(code: u16, sqlstate: &[u8; 5], message: impl Into<String>) -> Self {
        SqlError {
            code,
            sqlstate: *sqlstate,
            message: message.into(),
        }
    }

    /// ER_UNKNOWN_ERROR (1105, HY000): a generic failure.
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::new(codes::ER_UNKNOWN_ERROR, b"HY000", message)
    }

    /// ER_MALFORMED_PACKET (1835, HY000).
    pub fn malformed(what: impl fmt::Display) -> Self {
        Self::new(
            codes::ER_MALFORMED_PACKET,
            b"HY000",
            format!("Malformed communication packet: {what}"),
        )
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            String::from_utf8_lossy(&self.sqlstate),
            self.message
        )
    }
}

impl std::error::Error for SqlError {}

/// A failure of the connection or of decoding a packet.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    /// The peer closed the connection at a packet boundary.
    #[error("connection closed by peer")]
    Closed,
    /// A packet's payload exceeded the configured maximum.
    #[error("packet of {size} bytes exceeds max_allowed_packet ({max})")]
    PacketTooLarge { size: usize, max: usize },
    /// A continuation packet carried an unexpected sequence id.
    #[error("packets out of order: expected sequence {expected}, got {got}")]
    OutOfOrder { expected: u8, got: u8 },
    /// The payload does not decode.
    #[error("malformed packet: {0}")]
    Malformed(&'static str),
}

impl ProtocolError {
    /// The ERR packet to send for this error, if the connection can still carry one.
    pub fn to_sql_error(&self) -> Option<SqlError> {
        match self {
            ProtocolError::Io(_) | ProtocolError::Closed => None,
            ProtocolError::PacketTooLarge { .. } => Some(SqlError::new(
                codes::ER_NET_PACKET_TOO_LARGE,
                b"08S01",
                "Got a packet bigger than 'max_allowed_packet' bytes",
            )),
            ProtocolError::OutOfOrder { .. } => Some(SqlError::new(
                codes::ER_NET_PACKETS_OUT_OF_ORDER,
                b"08S01",
                "Got packets out of order",
            )),
            ProtocolError::Malformed(what) => Some(SqlError::malformed(what)),
        }
    }
}
