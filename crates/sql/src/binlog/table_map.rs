//! The TABLE_MAP event: binds a table id to a table's name and column types for the rows
//! events after it in the same group.

use super::codes::event;
use super::column_type::binlog_type;
use super::event::{put_lenenc, unsealed};
use crate::types::Column;

/// A TABLE_MAP event for `db`.`table` with `cols` under `table_id`.
pub fn table_map(
    server_id: u32,
    timestamp: u32,
    table_id: u64,
    db: &str,
    table: &str,
    cols: &[Column],
) -> Vec<u8> {
    let mut b = Vec::with_capacity(32 + 3 * cols.len());
    b.extend_from_slice(&table_id.to_le_bytes()[..6]);
    b.extend_from_slice(&1u16.to_le_bytes()); // flags: TM_BIT_LEN_EXACT_F
    for name in [db, table] {
        let n = &name.as_bytes()[..name.len().min(255)];
        b.push(n.len() as u8);
        b.extend_from_slice(n);
        b.push(0);
    }
    put_lenenc(&mut b, cols.len() as u64);
    let types: Vec<(u8, Vec<u8>)> = cols.iter().map(binlog_type).collect();
    b.extend(types.iter().map(|(t, _)| *t));
    let meta: Vec<u8> = types.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    put_lenenc(&mut b, meta.len() as u64);
    b.extend_from_slice(&meta);
    let at = b.len();
    b.resize(at + cols.len().div_ceil(8), 0);
    for (i, c) in cols.iter().enumerate() {
        if c.nullable {
            b[at + i / 8] |= 1 << (i % 8);
        }
    }
    unsealed(event::TABLE_MAP, server_id, timestamp, 0, &b)
}
