//! The write-ahead log: record format, group-commit writer and recovery reader (file-format.md §4).

pub mod reader;
pub mod record;
pub mod syncer;
pub mod writer;

pub use record::Record;
pub use writer::Wal;

use crate::tree::message::Msn;

/// File name of the segment whose first record has `first_lsn`.
pub fn segment_name(first_lsn: Msn) -> String {
    format!("{first_lsn:020}.wal")
}

/// The first LSN encoded in a segment file name.
pub fn parse_segment_name(name: &str) -> Option<Msn> {
    let digits = name.strip_suffix(".wal")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
