//! The whole upsert argument ([`encode_arg`], `decode_arg`): version, schema version, the
//! live columns' types, nullability and collations, the row to insert, then the program.
//!
//! Invariant: the argument is self-contained (recovery decodes it without the catalog);
//! decoding refuses trailing bytes, more than 4096 columns and assignments to unknown columns.

use super::column_types::{put_type, read_type};
use super::expr::{encode_expr, read_expr};
use super::wire::{put_varint, Rd, COLLATIONS};
use super::Assignment;
use crate::codec::row::RowLayout;
use crate::types::Column;

/// Builds the upsert argument; `None` if the program uses an unsupported expression.
pub fn encode_arg(
    layout: &RowLayout,
    insert_row: &[u8],
    program: &[Assignment],
) -> Option<Vec<u8>> {
    let mut out = vec![1u8];
    put_varint(&mut out, layout.schema_version as u64);
    let cols: Vec<&Column> = layout.live_columns().collect();
    put_varint(&mut out, cols.len() as u64);
    for c in cols {
        put_type(&mut out, c);
        out.push(c.nullable as u8);
        out.push(COLLATIONS.iter().position(|x| *x == c.collation)? as u8);
    }
    put_varint(&mut out, insert_row.len() as u64);
    out.extend_from_slice(insert_row);
    put_varint(&mut out, program.len() as u64);
    for (col, e) in program {
        put_varint(&mut out, *col as u64);
        encode_expr(&mut out, e)?;
    }
    Some(out)
}

/// A decoded argument.
pub(super) struct Decoded {
    pub(super) layout: RowLayout,
    pub(super) columns: Vec<Column>,
    pub(super) insert_row: Vec<u8>,
    pub(super) program: Vec<Assignment>,
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
    let len = r.varint()? as usize;
    let insert_row = r.take(len)?.to_vec();
    let m = r.varint()? as usize;
    let mut program = Vec::new();
    for _ in 0..m.min(4096) {
        let col = r.varint()? as usize;
        if col >= n {
            return None;
        }
        program.push((col, read_expr(&mut r, 0)?));
    }
    if r.p != arg.len() {
        return None;
    }
    Some(Decoded {
        layout: RowLayout::new(schema, columns.clone()),
        columns,
        insert_row,
        program,
    })
}
