//! The write-ahead log: record format, group-commit writer and recovery reader (file-format.md §4).

pub mod reader;
pub mod record;
#[cfg(test)]
mod recycle_tests;
pub mod spare;
#[cfg(test)]
mod spare_tests;
pub mod syncer;
pub mod writer;

pub use record::Record;
pub use writer::Wal;

use crate::tree::in_memory::message::Msn;

/// File name of the segment whose first record has `first_lsn`.
pub fn segment_name(first_lsn: Msn) -> String {
    format!("{first_lsn:020}.wal")
}

/// File name under which the obsolete segment `first_lsn` waits to be reused (design.md SEG1); recovery
/// never reads it.
pub fn free_segment_name(first_lsn: Msn) -> String {
    format!("free-{first_lsn:020}.wal")
}

/// Whether `name` is a file waiting in the pool for reuse: an obsolete segment ([`free_segment_name`]) or a
/// spare ([`spare::spare_segment_name`]).
pub fn is_free_segment_name(name: &str) -> bool {
    spare::is_spare_segment_name(name)
        || name
            .strip_prefix("free-")
            .and_then(parse_segment_name)
            .is_some()
}

/// The first LSN encoded in a segment file name.
pub fn parse_segment_name(name: &str) -> Option<Msn> {
    let digits = name.strip_suffix(".wal")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
