//! Row values stored in a table's primary tree (and in clustering indexes).
//!
//! Owns: [`RowLayout`] (the append-only list of physical column slots of a table), [`encode_row`],
//! [`decode_row`] and [`RowHeader`].
//!
//! Byte layout (format version 1, all integers little-endian):
//! ```text
//! u8       format version (1)
//! varint   schema version the row was written under (LEB128, at most 5 bytes)
//! varint   n = number of slots written (LEB128, at most 5 bytes)
//! bitmap   ceil(n/8) bytes; bit i (byte i/8, bit i%8, LSB first) set = slot i is NULL;
//!          bits >= n are zero
//! values   for each non-NULL slot in slot order:
//!            TINYINT..BIGINT 1/2/3/4/8 bytes (two's complement, or unsigned)
//!            YEAR 1 byte (0, or year - 1900)    FLOAT 4 bytes   DOUBLE 8 bytes (IEEE bits)
//!            DECIMAL(p,s) mantissa at scale s in 1/2/4/8/16/32 bytes (p <= 2/4/9/18/38/65)
//!            DATE 3 bytes (Date::packed)        TIME 6 bytes (micros + 2^47)
//!            DATETIME/TIMESTAMP DateTime::packed_for_fsp: 5 bytes (fsp 0) or 8 bytes
//!            strings and binary: varint byte length, then the bytes (text is UTF-8)
//!            ENUM the member's index (1-based; 0 = the error value '') in 1 byte (<= 255
//!              members) or 2        SET the members' bitmask (bit i = member i+1) in ceil(n/8)
//!              bytes        BIT(M) the value in ceil(M/8) bytes
//! ```
//!
//! Schema evolution without rewriting rows: slots are append-only and keep their type forever.
//! Instant ADD COLUMN appends a slot; rows written earlier have fewer slots (`n` smaller) and read
//! the new column as its default ([`crate::types::Column::default_value`]). DROP COLUMN marks the
//! slot dropped: its bytes in old rows are skipped, new rows write it as NULL (one bitmap bit).
//! Changing a column's type needs a new slot (a rewrite), not covered here.
//!
//! Invariants: decoding validates everything (version, varint lengths, slot count against the
//! layout, bitmap padding bits, every fixed width and length prefix against the remaining bytes,
//! UTF-8 of text, ENUM indexes and SET/BIT bits within the column, calendar validity of temporal values, decimal precision, no trailing bytes) and
//! returns [`SqlError::CorruptRow`] on any violation; it never panics or reads out of bounds.
//! A time-series row (DATETIME, INT, six DOUBLEs) takes 4 + 5 + 4 + 48 = 61 bytes.
//!
//! Map: this file holds the layout, the header and the ENUM/SET/BIT widths both directions
//! share; encode.rs writes rows, decode.rs reads and validates them.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

use crate::types::Column;

pub use decode::{decode_row, decode_row_header};
pub use encode::encode_row;

pub const ROW_FORMAT_V1: u8 = 1;
/// TIME is stored as microseconds plus this offset (always non-negative).
const TIME_OFFSET: i64 = 1 << 47;

/// One physical slot of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSlot {
    pub column: Column,
    pub dropped: bool,
}

/// The physical slots of a table, in the order rows store them.
#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    pub schema_version: u32,
    slots: Vec<RowSlot>,
}

impl RowLayout {
    pub fn new(schema_version: u32, columns: Vec<Column>) -> RowLayout {
        RowLayout {
            schema_version,
            slots: columns
                .into_iter()
                .map(|column| RowSlot {
                    column,
                    dropped: false,
                })
                .collect(),
        }
    }
    pub fn slots(&self) -> &[RowSlot] {
        &self.slots
    }
    /// The live columns, in slot order (the order [`encode_row`] takes and [`decode_row`] returns).
    pub fn live_columns(&self) -> impl Iterator<Item = &Column> {
        self.slots.iter().filter(|s| !s.dropped).map(|s| &s.column)
    }
    /// Instant ADD COLUMN: appends a slot and bumps the schema version.
    pub fn add_column(&mut self, column: Column) {
        self.slots.push(RowSlot {
            column,
            dropped: false,
        });
        self.schema_version += 1;
    }
    /// Instant DROP COLUMN by column id; `false` if no live column has that id.
    pub fn drop_column(&mut self, column_id: u32) -> bool {
        match self
            .slots
            .iter_mut()
            .find(|s| s.column.id == column_id && !s.dropped)
        {
            Some(s) => {
                s.dropped = true;
                self.schema_version += 1;
                true
            }
            None => false,
        }
    }
}

/// The fixed part of an encoded row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowHeader {
    pub format: u8,
    pub schema_version: u32,
    pub column_count: u32,
}

/// Bytes of an ENUM's member index: 1 for up to 255 members, else 2.
pub fn enum_width(count: u16) -> usize {
    if count <= 255 {
        1
    } else {
        2
    }
}

/// Bytes of a SET's bitmask: one per 8 members.
pub fn set_width(count: u8) -> usize {
    (count as usize).div_ceil(8).max(1)
}

/// Bytes of a BIT(M) value: (M+7)/8.
pub fn bit_width(len: u8) -> usize {
    (len as usize).div_ceil(8).max(1)
}

/// The bitmask of SET value `s` (members joined by `,`); `None` if a part is not a member.
pub fn set_bits(col: &Column, s: &str) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    let mut bits = 0u64;
    for part in s.split(',') {
        let i = col.member_index(part);
        if i == 0 {
            return None;
        }
        bits |= 1 << (i - 1);
    }
    Some(bits)
}

pub use crate::types::member_codes::set_text;
