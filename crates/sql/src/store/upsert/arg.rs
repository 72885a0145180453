//! The whole upsert argument ([`encode_arg`], `decode_arg`): version, schema version, the
//! live columns' types, nullability and collations, the row to insert, then the program.
//!
//! Invariant: the argument is self-contained (recovery decodes it without the catalog);
//! decoding refuses trailing bytes, more than 4096 columns and assignments to unknown columns.

use super::column_types::{put_type, read_type};
use super::expr::{encode_expr, read_expr};
use super::in_place::InPlace;
use super::wire::{put_varint, Rd, COLLATIONS};
use super::Assignment;
use crate::codec::row::RowLayout;
use crate::types::Column;

/// The argument of a blind upsert that inserts `insert_row` when the key is absent and runs
/// `program` on the row otherwise (None: the program has no encoding).
pub fn encode_arg(
    layout: &RowLayout,
    insert_row: &[u8],
    program: &[Assignment],
) -> Option<Vec<u8>> {
    Some(ArgTemplate::new(layout, program)?.arg(insert_row))
}

/// What every argument of one statement's upserts shares: the column description before the
/// inserted row and the program after it, encoded once.
pub struct ArgTemplate {
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl ArgTemplate {
    /// The template of `layout` and `program` (None: the program has no encoding).
    pub fn new(layout: &RowLayout, program: &[Assignment]) -> Option<ArgTemplate> {
        let mut head = vec![1u8];
        put_varint(&mut head, layout.schema_version as u64);
        let cols: Vec<&Column> = layout.live_columns().collect();
        put_varint(&mut head, cols.len() as u64);
        for c in cols {
            put_type(&mut head, c);
            head.push(c.nullable as u8);
            head.push(COLLATIONS.iter().position(|x| *x == c.collation)? as u8);
        }
        let mut tail = Vec::new();
        put_varint(&mut tail, program.len() as u64);
        for (col, e) in program {
            put_varint(&mut tail, *col as u64);
            encode_expr(&mut tail, e)?;
        }
        Some(ArgTemplate { head, tail })
    }

    /// The argument for one row to insert.
    pub fn arg(&self, insert_row: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head.len() + insert_row.len() + 10 + self.tail.len());
        out.extend_from_slice(&self.head);
        put_varint(&mut out, insert_row.len() as u64);
        out.extend_from_slice(insert_row);
        out.extend_from_slice(&self.tail);
        out
    }
}

/// The part of an argument that is the same for every row of a statement: the columns and the
/// program, decoded.
pub(super) struct Program {
    pub(super) layout: RowLayout,
    pub(super) columns: Vec<Column>,
    pub(super) assignments: Vec<Assignment>,
    /// The program run on the row's bytes, when it can be.
    pub(super) in_place: Option<InPlace>,
}

/// A decoded argument: its program, and where in the argument the head (version and columns,
/// `..head_end`), the row to insert and the tail (the program, after the row) lie.
pub(super) struct Decoded {
    pub(super) program: Program,
    pub(super) head_end: usize,
    pub(super) row: std::ops::Range<usize>,
}

/// Reads an argument written by [`encode_arg`]; `None` if it is not one.
pub(super) fn decode_arg(arg: &[u8]) -> Option<Decoded> {
    let mut r = Rd { b: arg, p: 0 };
    if r.u8()? != 1 {
        return None;
    }
    let schema = r.varint()? as u32;
    let n = r.varint()? as usize;
    if n > 4096 {
        return None;
    }
    let mut columns = Vec::with_capacity(n);
    for i in 0..n {
        let (t, members) = read_type(&mut r)?;
        let nullable = r.u8()? != 0;
        let coll = *COLLATIONS.get(r.u8()? as usize)?;
        let mut c = Column::new(i as u32, format!("c{i}"), t)
            .with_collation(coll)
            .with_members(members);
        c.nullable = nullable;
        columns.push(c);
    }
    let head_end = r.p;
    let len = r.varint()? as usize;
    let start = r.p;
    r.take(len)?;
    let row = start..r.p;
    let m = r.varint()? as usize;
    let mut assignments = Vec::new();
    for _ in 0..m.min(4096) {
        let col = r.varint()? as usize;
        if col >= n {
            return None;
        }
        assignments.push((col, read_expr(&mut r, 0)?));
    }
    if r.p != arg.len() {
        return None;
    }
    Some(Decoded {
        program: Program {
            layout: RowLayout::new(schema, columns.clone()),
            in_place: InPlace::of(schema, &columns, &assignments),
            columns,
            assignments,
        },
        head_end,
        row,
    })
}

/// Where the row to insert lies in `arg` if `arg` is `head` + varint length + row + `tail`.
pub(super) fn row_between(arg: &[u8], head: &[u8], tail: &[u8]) -> Option<std::ops::Range<usize>> {
    let rest = arg.strip_prefix(head)?;
    let mut r = Rd { b: rest, p: 0 };
    let len = r.varint()? as usize;
    let start = head.len() + r.p;
    let end = start.checked_add(len)?;
    (arg.get(end..)? == tail).then_some(start..end)
}
