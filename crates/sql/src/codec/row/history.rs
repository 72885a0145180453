//! Evolving a row layout by an instant ALTER TABLE ([`Evolve`], docs/design.md INS1-INS3): the new
//! columns' slots, from the old layout and the old column each new column takes its values from,
//! or the reason the rows would have to be written again.
//!
//! Invariants: a slot keeps the meaning of its bytes. Its column may be renamed, moved, given
//! another default, NULL-ability or a type whose stored bytes are the same (a longer CHAR, VARCHAR
//! or VARBINARY, a larger TEXT or BLOB, the collation unchanged), or a wider integer of the same
//! signedness (a new kind: the old version's kinds go to the history). A new column takes a new
//! slot at the end; the slot of an old column no new column takes its values from is dropped. The
//! schema version grows when a slot is added, dropped or widened, and a slot that rows may lack
//! keeps the value they read when its column's default changes.

use super::{RowLayout, RowSlot};
use crate::codec::layout::row_kind;
use crate::types::{Column, SqlType};

/// At most this many slots (live and dropped) in a layout; beyond it the table is rebuilt.
pub const MAX_SLOTS: usize = 4096;
/// At most this many entries in a layout's kind history; beyond it the table is rebuilt.
pub const MAX_VERSIONS: usize = 64;

/// MariaDB's reason for a type change that needs a copy (ER_ALTER_OPERATION_NOT_SUPPORTED_REASON).
pub const TYPE_CHANGE: &str = "Cannot change column type";

/// An instant ALTER's new columns, against the old layout.
pub struct Evolve<'a> {
    pub old: &'a RowLayout,
    /// Every row holds at least the first `full` slots (the catalog's `full_columns`).
    pub full: usize,
    /// The new columns, in the table's new order.
    pub columns: &'a [Column],
    /// Per new column: the old column it takes its values from (`None`: added).
    pub origin: &'a [Option<usize>],
    /// Per new column: whether its bytes are part of a key or a partition value, so that its
    /// width may not change.
    pub keyed: &'a [bool],
}

impl Evolve<'_> {
    /// The layout after the ALTER, or MariaDB's reason why the rows must be copied.
    pub fn layout(&self) -> Result<RowLayout, &'static str> {
        let old = self.old;
        let mut slots = old.slots.clone();
        let mut order = Vec::with_capacity(self.columns.len());
        let mut kept = vec![false; old.order.len()];
        let (mut widened, mut changed) = (false, false);
        for (i, c) in self.columns.iter().enumerate() {
            let Some(j) = self.origin[i] else {
                order.push(slots.len());
                slots.push(RowSlot::live(c.clone(), Some(c.default_value())));
                changed = true;
                continue;
            };
            if j >= kept.len() || std::mem::replace(&mut kept[j], true) {
                return Err(TYPE_CHANGE);
            }
            let s = old.order[j];
            let slot = &mut slots[s];
            let Some(prev) = slot.column.as_ref() else {
                return Err(TYPE_CHANGE);
            };
            if !same_bytes(prev, c) && (self.keyed[i] || !widens_int(prev, c)) {
                return Err(TYPE_CHANGE);
            }
            if s >= self.full && slot.absent.is_none() && prev.default_value() != c.default_value()
            {
                // rows lacking the slot go on reading the default they read so far (INS3)
                slot.absent = Some(prev.default_value());
            }
            let kind = row_kind(c.sql_type);
            widened |= kind != slot.kind;
            slot.column = Some(c.clone());
            slot.kind = kind;
            order.push(s);
        }
        for (j, k) in kept.iter().enumerate() {
            if !k {
                let slot = &mut slots[old.order[j]];
                slot.column = None;
                slot.absent = None;
                changed = true;
            }
        }
        let mut history = old.history.clone();
        if widened {
            history.push((
                old.schema_version,
                old.slots.iter().map(|s| s.kind).collect(),
            ));
        }
        if slots.len() > MAX_SLOTS || history.len() > MAX_VERSIONS {
            return Err(
                "Too many instant changes of the table; rebuild it with ALTER TABLE ... FORCE",
            );
        }
        let version = old.schema_version + (changed || widened) as u32;
        Ok(RowLayout::from_parts(version, slots, order, history))
    }
}

/// Whether values of `b` are stored in exactly the bytes they had as values of `a`.
fn same_bytes(a: &Column, b: &Column) -> bool {
    if a.collation != b.collation || a.members != b.members {
        return false;
    }
    use SqlType::*;
    match (a.sql_type, b.sql_type) {
        (x, y) if x == y => true,
        (Char { len: x }, Char { len: y })
        | (VarChar { len: x }, VarChar { len: y })
        | (VarBinary { len: x }, VarBinary { len: y }) => y >= x,
        (Text(x), Text(y)) | (Blob(x), Blob(y)) => y.max_bytes() >= x.max_bytes(),
        _ => false,
    }
}

/// Whether `b` is a wider integer of `a`'s signedness (its stored width grows: a new kind).
fn widens_int(a: &Column, b: &Column) -> bool {
    match (a.sql_type, b.sql_type) {
        (
            SqlType::Int {
                width: x,
                unsigned: ux,
            },
            SqlType::Int {
                width: y,
                unsigned: uy,
            },
        ) => ux == uy && y.bytes() > x.bytes(),
        _ => false,
    }
}
