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
//! Schema evolution without rewriting rows (docs/design.md INS1-INS8): slots are physical positions,
//! append-only until a rebuild; the table's columns map onto the live slots in any order
//! ([`RowLayout::slot_of`]). Instant ADD COLUMN appends a slot; rows written earlier have fewer slots
//! (`n` smaller) and read the slot's absent value. DROP COLUMN marks the slot dropped: its bytes in
//! old rows are skipped, new rows write it as NULL (one bitmap bit). Widening an integer gives the slot
//! a wider kind in a new schema version; the kinds of older versions are kept in the layout's history
//! and rows are read by the kinds of their own version (history.rs).
//!
//! Invariants: decoding validates everything (version, varint lengths, slot count against the
//! layout, bitmap padding bits, every fixed width and length prefix against the remaining bytes,
//! UTF-8 of text, ENUM indexes and SET/BIT bits within the column, calendar validity of temporal values, decimal precision, no trailing bytes) and
//! returns [`SqlError::CorruptRow`] on any violation; it never panics or reads out of bounds.
//! A time-series row (DATETIME, INT, six DOUBLEs) takes 4 + 5 + 4 + 48 = 61 bytes.
//!
//! Map: this file holds the layout, the header and the ENUM/SET/BIT widths both directions
//! share; encode.rs writes rows, decode.rs reads and validates them, history.rs evolves a layout
//! and keeps the kinds of older versions, stored.rs is the layout's text in the catalog.

mod decode;
mod encode;
mod history;
mod stored;
#[cfg(test)]
mod tests;

use betula_storage::FieldKind;

use crate::types::value::Value;
use crate::types::Column;

pub use decode::{decode_row, decode_row_header, decode_row_needed};
pub use encode::encode_row;
pub use history::{Evolve, MAX_SLOTS, MAX_VERSIONS, TYPE_CHANGE};

pub const ROW_FORMAT_V1: u8 = 1;
/// TIME is stored as microseconds plus this offset (always non-negative).
const TIME_OFFSET: i64 = 1 << 47;

/// One physical slot of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSlot {
    /// The column the slot holds; `None`: the slot was dropped.
    pub column: Option<Column>,
    /// How the slot's bytes are laid out in rows of the current schema version.
    pub kind: FieldKind,
    /// What a row written before the slot existed reads; `None`: the column's current default
    /// (slots added before absent values were kept).
    pub absent: Option<Value>,
}

impl RowSlot {
    fn live(column: Column, absent: Option<Value>) -> RowSlot {
        RowSlot {
            kind: crate::codec::layout::row_kind(column.sql_type),
            column: Some(column),
            absent,
        }
    }
    pub fn dropped(&self) -> bool {
        self.column.is_none()
    }
}

/// The physical slots of a table, in the order rows store them, the slot of each column, and the
/// slot kinds of older schema versions.
#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    /// The version rows are written under now.
    pub schema_version: u32,
    slots: Vec<RowSlot>,
    /// The slot of each column, in the table's column order (each live slot exactly once).
    order: Vec<usize>,
    /// The column each slot holds (derived from `order`; `None`: dropped).
    col_of: Vec<Option<usize>>,
    /// `(upto, kinds)`: rows of versions up to `upto` (and above the previous entry's) lay out
    /// their slots by `kinds`; ascending, every `upto` below `schema_version`.
    history: Vec<(u32, Vec<FieldKind>)>,
}

impl RowLayout {
    /// The plain layout: slot i holds column i.
    pub fn new(schema_version: u32, columns: Vec<Column>) -> RowLayout {
        let order = (0..columns.len()).collect();
        let slots = columns
            .into_iter()
            .map(|c| RowSlot::live(c, None))
            .collect();
        RowLayout::from_parts(schema_version, slots, order, Vec::new())
    }
    /// A layout from its parts (history.rs, stored.rs); the caller has checked that `order`
    /// names each live slot exactly once and no dropped one.
    fn from_parts(
        schema_version: u32,
        slots: Vec<RowSlot>,
        order: Vec<usize>,
        history: Vec<(u32, Vec<FieldKind>)>,
    ) -> RowLayout {
        let mut col_of = vec![None; slots.len()];
        for (i, &s) in order.iter().enumerate() {
            col_of[s] = Some(i);
        }
        RowLayout {
            schema_version,
            slots,
            order,
            col_of,
            history,
        }
    }
    pub fn slots(&self) -> &[RowSlot] {
        &self.slots
    }
    /// The slot holding column `i` (in the table's column order).
    pub fn slot_of(&self, i: usize) -> usize {
        self.order[i]
    }
    /// The live columns, in the table's column order (the order [`encode_row`] takes and
    /// [`decode_row`] returns).
    pub fn live_columns(&self) -> impl Iterator<Item = &Column> {
        self.order
            .iter()
            .filter_map(|&s| self.slots[s].column.as_ref())
    }
    /// Whether slot i holds column i for every slot, with no dropped slot, no older kinds and no
    /// kept absent value: the layout of a table created or rebuilt (INS6).
    pub fn is_plain(&self) -> bool {
        self.history.is_empty() && self.identity() && self.slots.iter().all(|s| s.absent.is_none())
    }
    /// Whether slot i holds column i for every slot (no dropped slot).
    fn identity(&self) -> bool {
        self.slots.len() == self.order.len() && self.order.iter().enumerate().all(|(i, &s)| i == s)
    }
    /// The kinds rows of `version` lay their slots out by: `Some(None)` the current ones,
    /// `Some(Some(kinds))` older ones from the history, `None` a version newer than the layout's
    /// (INS1).
    pub fn kinds_of(&self, version: u32) -> Option<Option<&[FieldKind]>> {
        if version > self.schema_version {
            return None;
        }
        let old = self.history.iter().find(|(upto, _)| *upto >= version);
        Some(old.map(|(_, kinds)| kinds.as_slice()))
    }
    /// Instant ADD COLUMN at the end of the table's columns: appends a slot (read by older rows
    /// as the column's default now) and bumps the schema version.
    pub fn add_column(&mut self, column: Column) {
        let absent = Some(column.default_value());
        self.col_of.push(Some(self.order.len()));
        self.order.push(self.slots.len());
        self.slots.push(RowSlot::live(column, absent));
        self.schema_version += 1;
    }
    /// Instant DROP COLUMN by column id; `false` if no live column has that id.
    pub fn drop_column(&mut self, column_id: u32) -> bool {
        let Some(s) = self
            .slots
            .iter()
            .position(|s| s.column.as_ref().is_some_and(|c| c.id == column_id))
        else {
            return false;
        };
        self.slots[s].column = None;
        self.slots[s].absent = None;
        let order: Vec<usize> = self.order.iter().copied().filter(|&o| o != s).collect();
        *self = RowLayout::from_parts(
            self.schema_version + 1,
            std::mem::take(&mut self.slots),
            order,
            std::mem::take(&mut self.history),
        );
        true
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
