//! Columnar frames (file-format.md §3.5): the entries of one basement frame stored as one stream
//! per column, each in the encoding that is smallest for that frame, before the block's codec
//! compresses the result (design.md "Column encoding", COL1-COL5).
//!
//! A frame's raw bytes are a run of plain entries (§3.3); this module turns them into their columnar
//! form and back. The split follows the tree's [`ColumnLayout`], which the frame stores, so reading
//! never needs the tree's current layout or its owner's catalog. Entries the layout does not fit (a
//! version stack, a row of another schema version, a key of another shape) are stored in their plain
//! form beside the columns.
//!
//! Map: `messages.rs` the same for an internal node's message buffer (§3.6); `layout.rs` the description and the canonical parse of fields; `rows.rs` which entry bytes
//! go to which column and back; `ints.rs`, `floats.rs`, `bytes.rs` the column encodings;
//! `residuals.rs`, `bits.rs`, `rans.rs` how small integers are packed or entropy coded.
//!
//! Invariants: [`decode`] of [`encode`]'s output gives back the frame's raw bytes exactly (checked
//! by the caller against the frame's raw length and by property tests); [`decode`] never panics and
//! never allocates more than a bounded multiple of [`MAX_ROWS`] or of its input: damage is a
//! [`DecodeError`].

mod bits;
mod bytes;
mod floats;
mod ints;
pub mod layout;
pub mod messages;
mod rans;
mod residuals;
mod rows;
#[cfg(test)]
mod size_tests;
#[cfg(test)]
mod tests;

pub use layout::{ColumnLayout, FieldKind, KeyField, ValueLayout};

use crate::encoding::{varint_len, DecodeError, Decoder, Encode};
use crate::tree::in_memory::mvcc::{Cell, ENTRY_COMMITTED};
use rows::{Joined, Split};

/// Most entries one columnar frame may hold (a frame is half a basement; a decoder refuses more).
pub const MAX_ROWS: usize = 1 << 20;

/// Row kinds of the kinds column.
const ROW_COLUMNAR: i64 = 0;
const ROW_PLAIN: i64 = 1;

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

impl ColumnLayout {
    /// Whether a committed entry of `key` and `value` goes into the columns of a frame written
    /// with this layout (it parses canonically, COL1, COL3): for owners to check that their
    /// description matches what they write.
    pub fn fits(&self, key: &[u8], value: &[u8]) -> bool {
        Split::new(self).push(key, value)
    }
}

/// The columnar form of a frame's raw bytes: `prefix_len` bytes that precede its entries (frame 0's
/// basement header) and `count` plain entries. None when the layout fits none of the entries (the
/// frame is better stored as it is) or the bytes are not `count` well-formed entries.
pub fn encode(
    raw: &[u8],
    prefix_len: usize,
    count: usize,
    layout: &ColumnLayout,
) -> Option<Vec<u8>> {
    if count > MAX_ROWS || prefix_len > raw.len() {
        return None;
    }
    let mut d = Decoder::new(&raw[prefix_len..]);
    let mut split = Split::new(layout);
    let mut kinds = Vec::with_capacity(count);
    let mut plain = Vec::new();
    for _ in 0..count {
        let start = d.position();
        let key = d.bytes().ok()?;
        let body = d.position();
        let kind = d.u8().ok()?;
        if kind == ENTRY_COMMITTED {
            let value = d.bytes().ok()?;
            // A canonical plain entry: the lengths are minimal varints (Packed::parse also checks
            // the key's; the value's is checked here so the write-back reproduces it).
            let canonical = body - start == varint_len(key.len() as u64) + key.len()
                && d.position() - body == 1 + varint_len(value.len() as u64) + value.len();
            if canonical && split.push(key, value) {
                kinds.push(ROW_COLUMNAR);
                continue;
            }
        } else {
            // Step over the rest of the cell (its kind byte is read already).
            let mut rest = Decoder::new(&raw[prefix_len + body..]);
            Cell::skip(&mut rest).ok()?;
            d.take(rest.position() - 1).ok()?;
        }
        kinds.push(ROW_PLAIN);
        plain.extend_from_slice(&raw[prefix_len + start..prefix_len + d.position()]);
    }
    if d.remaining() != 0 || split.rows == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len() / 4);
    out.put_bytes(&raw[..prefix_len]);
    out.put_varint(count as u64);
    out.put_bytes(&layout.encode());
    ints::encode(&kinds, 1, false, &mut out);
    out.put_bytes(&plain);
    split.write_columns(&mut out);
    Some(out)
}

/// The frame's raw bytes (prefix and plain entries) from its columnar form.
pub fn decode(columnar: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut d = Decoder::new(columnar);
    let prefix = d.bytes()?;
    let count = d.varint()?;
    if count > MAX_ROWS as u64 {
        return Err(err(format!("columnar frame of {count} entries")));
    }
    let count = count as usize;
    let layout = ColumnLayout::decode(d.bytes()?)?;
    let kinds = ints::decode(&mut d, count, 1, false)?;
    let plain = d.bytes()?;
    let columnar_rows = kinds.iter().filter(|&&k| k == ROW_COLUMNAR).count();
    if kinds.iter().any(|&k| k != ROW_COLUMNAR && k != ROW_PLAIN) {
        return Err(err("row kind other than columnar or plain"));
    }
    let mut joined = Joined::read(&layout, &mut d, columnar_rows)?;
    d.finish()?;
    let mut out = Vec::with_capacity(prefix.len() + columnar.len() * 4);
    out.extend_from_slice(prefix);
    let mut p = Decoder::new(plain);
    let mut key = Vec::new();
    let mut value = Vec::new();
    for kind in kinds {
        if kind == ROW_PLAIN {
            let start = p.position();
            p.bytes()?;
            Cell::skip(&mut p)?;
            out.extend_from_slice(&plain[start..p.position()]);
            continue;
        }
        key.clear();
        value.clear();
        joined.write_row(&mut key, &mut value)?;
        out.put_bytes(&key);
        Cell::encode_plain(&value, &mut out);
    }
    p.finish()?;
    joined.finish()?;
    Ok(out)
}
