//! MariaDB's binary log numbers in one place: event type codes, column type codes, header and
//! event flags, fixed sizes. Encoders and (later) decoders name these, never the numbers.

/// Every binlog file starts with these four bytes.
pub const MAGIC: &[u8; 4] = b"\xfebin";
/// Binlog format version written in the FORMAT_DESCRIPTION event.
pub const BINLOG_VERSION: u16 = 4;
/// Length of the common event header.
pub const HEADER_LEN: usize = 19;
/// Length of the CRC32 trailer of an event when checksums are on.
pub const CHECKSUM_LEN: usize = 4;
/// Position of the first event (after [`MAGIC`]).
pub const FIRST_EVENT_POS: u64 = 4;

/// Event type codes (the header's type byte).
pub mod event {
    pub const QUERY: u8 = 2;
    pub const STOP: u8 = 3;
    pub const ROTATE: u8 = 4;
    pub const FORMAT_DESCRIPTION: u8 = 15;
    pub const XID: u8 = 16;
    pub const TABLE_MAP: u8 = 19;
    pub const WRITE_ROWS_V1: u8 = 23;
    pub const UPDATE_ROWS_V1: u8 = 24;
    pub const DELETE_ROWS_V1: u8 = 25;
    pub const HEARTBEAT: u8 = 27;
    pub const ANNOTATE_ROWS: u8 = 160;
    pub const BINLOG_CHECKPOINT: u8 = 161;
    pub const GTID: u8 = 162;
    pub const GTID_LIST: u8 = 163;

    /// The name SHOW BINLOG EVENTS gives an event type.
    pub fn name(t: u8) -> &'static str {
        match t {
            QUERY => "Query",
            STOP => "Stop",
            ROTATE => "Rotate",
            FORMAT_DESCRIPTION => "Format_desc",
            XID => "Xid",
            TABLE_MAP => "Table_map",
            WRITE_ROWS_V1 => "Write_rows_v1",
            UPDATE_ROWS_V1 => "Update_rows_v1",
            DELETE_ROWS_V1 => "Delete_rows_v1",
            HEARTBEAT => "Heartbeat",
            ANNOTATE_ROWS => "Annotate_rows",
            BINLOG_CHECKPOINT => "Binlog_checkpoint",
            GTID => "Gtid",
            GTID_LIST => "Gtid_list",
            _ => "Unknown",
        }
    }
}

/// Header flags (the header's last two bytes).
pub mod header_flag {
    /// LOG_EVENT_SUPPRESS_USE_F: the QUERY event's text does not depend on the default database.
    pub const SUPPRESS_USE: u16 = 0x0008;
    /// LOG_EVENT_ARTIFICIAL_F: an event made up by the dump thread (the first fake ROTATE).
    pub const ARTIFICIAL: u16 = 0x0020;
}

/// Flags of the GTID event's flags byte.
pub mod gtid_flag {
    /// FL_STANDALONE: a DDL statement with no BEGIN/COMMIT around it.
    pub const STANDALONE: u8 = 0x01;
    /// FL_TRANSACTIONAL: every change of the group is in a transactional engine.
    pub const TRANSACTIONAL: u8 = 0x04;
    /// FL_ALLOW_PARALLEL: a parallel replica may run the group optimistically.
    pub const ALLOW_PARALLEL: u8 = 0x08;
    /// FL_DDL: the group is a DDL statement.
    pub const DDL: u8 = 0x20;
}

/// Rows event flags (post-header).
pub const ROWS_STMT_END: u16 = 0x0001;

/// Checksum algorithm byte of the FORMAT_DESCRIPTION event.
pub const CHECKSUM_OFF: u8 = 0;
pub const CHECKSUM_CRC32: u8 = 1;

/// Column type codes of TABLE_MAP events: the protocol's `enum_field_types`.
pub use crate::types::type_code as column;

/// Post-header lengths MariaDB 10.11's FORMAT_DESCRIPTION event announces, one per event type
/// from 1 (index 0) to 171: a replica sizes each event's fixed part by this table.
pub const POST_HEADER_LENGTHS: [u8; 171] = {
    let mut t = [0u8; 171];
    // Types 1..=35 (MySQL's range), as MariaDB 10.11 writes them.
    let low: [u8; 35] = [
        56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 0xe4, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0,
        0, 10, 10, 10, 0, 0, 0,
    ];
    let mut i = 0;
    while i < low.len() {
        t[i] = low[i];
        i += 1;
    }
    // Types 39..=41 (MySQL's partial-update rows events MariaDB can read).
    t[38] = 10;
    t[39] = 10;
    t[40] = 10;
    // MariaDB's own types 160..=171.
    let high: [u8; 12] = [0, 4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10];
    let mut j = 0;
    while j < high.len() {
        t[159 + j] = high[j];
        j += 1;
    }
    t
};
