//! WRITE_ROWS, UPDATE_ROWS and DELETE_ROWS events (version 1, what MariaDB 10.11 writes) with
//! full row images (binlog_row_image=FULL): every column present in every image.
//!
//! Invariant: one rows event holds rows of one table and at most [`MAX_ROWS_BYTES`] of
//! images (a larger change is split into several events; the last of the group carries
//! STMT_END_F), so no event outgrows a replica's max_allowed_packet.

use super::codes::{event, ROWS_STMT_END};
use super::event::{put_lenenc, unsealed};

/// Row image bytes at which a rows event is closed and the next one started.
pub const MAX_ROWS_BYTES: usize = 256 << 10;

/// Which rows event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsKind {
    Write,
    Update,
    Delete,
}

impl RowsKind {
    pub fn type_code(self) -> u8 {
        match self {
            RowsKind::Write => event::WRITE_ROWS_V1,
            RowsKind::Update => event::UPDATE_ROWS_V1,
            RowsKind::Delete => event::DELETE_ROWS_V1,
        }
    }
}

/// A rows event over `ncols` columns whose row images (already encoded, one after another;
/// an update's before image followed by its after image) are `images`.
pub fn rows_event(
    server_id: u32,
    timestamp: u32,
    kind: RowsKind,
    table_id: u64,
    ncols: usize,
    images: &[u8],
    last: bool,
) -> Vec<u8> {
    let mut b = Vec::with_capacity(16 + images.len());
    b.extend_from_slice(&table_id.to_le_bytes()[..6]);
    b.extend_from_slice(&(if last { ROWS_STMT_END } else { 0 }).to_le_bytes());
    put_lenenc(&mut b, ncols as u64);
    let all = |b: &mut Vec<u8>| {
        let at = b.len();
        b.resize(at + ncols.div_ceil(8), 0);
        for i in 0..ncols {
            b[at + i / 8] |= 1 << (i % 8);
        }
    };
    all(&mut b);
    if kind == RowsKind::Update {
        all(&mut b);
    }
    b.extend_from_slice(images);
    unsealed(kind.type_code(), server_id, timestamp, 0, &b)
}
