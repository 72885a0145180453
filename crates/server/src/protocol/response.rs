//! Generic response payloads: OK, EOF and ERR packets.
//!
//! Invariants: every encoder produces a complete payload (no header);
//! an ERR always carries the `#` SQLSTATE marker (the connection requires
//! CLIENT_PROTOCOL_41); an "end of result set" is an EOF packet unless the
//! client negotiated DEPRECATE_EOF, in which case it is an OK packet with the
//! 0xFE header. ERR messages are truncated to 512 bytes at a char boundary.

use super::error::SqlError;
use super::status::StatusFlags;
use super::wire::{put_lenenc_bytes, put_lenenc_int, put_u16};

/// The outcome of a statement that produced no rows (or the tail of one that
/// did): what the OK / EOF packet reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub warnings: u16,
    /// Session status after the statement (IN_TRANS, AUTOCOMMIT...).
    pub status: StatusFlags,
    /// Human-readable info ("Rows matched: 1  Changed: 1  Warnings: 0").
    pub info: String,
}

impl Completion {
    pub fn affected(rows: u64) -> Self {
        Completion {
            affected_rows: rows,
            ..Default::default()
        }
    }
}

pub const OK_HEADER: u8 = 0x00;
pub const EOF_HEADER: u8 = 0xfe;
pub const ERR_HEADER: u8 = 0xff;

/// An OK packet; `header` is 0x00, or 0xFE when it replaces an EOF.
pub fn encode_ok(out: &mut Vec<u8>, c: &Completion, status: StatusFlags, header: u8) {
    out.push(header);
    put_lenenc_int(out, c.affected_rows);
    put_lenenc_int(out, c.last_insert_id);
    put_u16(out, status.0);
    put_u16(out, c.warnings);
    // Info is written length-encoded (as MariaDB servers do): libmariadb (mysql CLI, sysbench)
    // reads it that way and rejects a bare string; libmysqlclient-style readers take the rest
    // of the packet and so see one extra leading byte in the info text.
    if !c.info.is_empty() {
        put_lenenc_bytes(out, c.info.as_bytes());
    }
}

/// A classic EOF packet (protocol 4.1).
pub fn encode_eof(out: &mut Vec<u8>, warnings: u16, status: StatusFlags) {
    out.push(EOF_HEADER);
    put_u16(out, warnings);
    put_u16(out, status.0);
}

/// The terminator of a result set (or of column definitions in COM_FIELD_LIST).
pub fn encode_end(out: &mut Vec<u8>, deprecate_eof: bool, warnings: u16, status: StatusFlags) {
    if deprecate_eof {
        let c = Completion {
            warnings,
            ..Default::default()
        };
        encode_ok(out, &c, status, EOF_HEADER);
    } else {
        encode_eof(out, warnings, status);
    }
}

/// An ERR packet.
pub fn encode_err(out: &mut Vec<u8>, e: &SqlError) {
    out.push(ERR_HEADER);
    put_u16(out, e.code);
    out.push(b'#');
    let state = if e.sqlstate.iter().all(|b| b.is_ascii_alphanumeric()) {
        e.sqlstate
    } else {
        *b"HY000"
    };
    out.extend_from_slice(&state);
    let mut msg = e.message.as_str();
    if msg.len() > 512 {
        let mut end = 512;
        while !msg.is_char_boundary(end) {
            end -= 1;
        }
        msg = &msg[..end];
    }
    out.extend_from_slice(msg.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_and_eof_layout() {
        let mut out = Vec::new();
        let c = Completion {
            affected_rows: 3,
            last_insert_id: 300,
            warnings: 1,
            ..Default::default()
        };
        encode_ok(&mut out, &c, StatusFlags::AUTOCOMMIT, OK_HEADER);
        assert_eq!(out, [0, 3, 0xfc, 0x2c, 0x01, 2, 0, 1, 0]);
        out.clear();
        encode_end(&mut out, false, 2, StatusFlags::IN_TRANS);
        assert_eq!(out, [0xfe, 2, 0, 1, 0]);
        out.clear();
        encode_end(&mut out, true, 2, StatusFlags::IN_TRANS);
        assert_eq!(out, [0xfe, 0, 0, 1, 0, 2, 0]);
    }

    #[test]
    fn err_layout() {
        let mut out = Vec::new();
        encode_err(&mut out, &SqlError::new(1047, b"08S01", "Unknown command"));
        assert_eq!(out, b"\xff\x17\x04#08S01Unknown command");
    }
}
