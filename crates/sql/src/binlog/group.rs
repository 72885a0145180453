//! Event groups as they go into the binlog tree and then the files: a transaction's
//! (GTID, then per table a TABLE_MAP and its rows events, then XID) and a DDL statement's
//! (GTID flagged standalone, QUERY).
//!
//! Row-image policy (design.md BLG4): every image is full (binlog_row_image=FULL). Images come
//! from the transaction's write set at commit, not from the statements: a changed key's before
//! image is its latest committed row (locked by the transaction, so current) and its after
//! image is what the transaction leaves, blind upserts applied. A key that ends absent after
//! being present is a DELETE_ROWS row, present after absent a WRITE_ROWS row, changed an
//! UPDATE_ROWS row; a key left as it was is not logged. Per table, deletes come first, then
//! updates, then writes, each in key order.

use std::sync::Arc;

use super::control::{self, Gtid};
use super::query::query;
use super::row_image::encode_row;
use super::rows::{rows_event, RowsKind, MAX_ROWS_BYTES};
use super::table_map::table_map;
use crate::catalog::TableDef;
use crate::error::db_error::DbResult;
use crate::types::value::Value;

/// One row a transaction changed: its table, and the row before and after (None: absent).
pub struct RowChange {
    pub table: Arc<TableDef>,
    pub before: Option<Vec<Value>>,
    pub after: Option<Vec<Value>>,
}

impl RowChange {
    fn kind(&self) -> Option<RowsKind> {
        match (&self.before, &self.after) {
            (None, Some(_)) => Some(RowsKind::Write),
            (Some(_), None) => Some(RowsKind::Delete),
            (Some(_), Some(_)) => Some(RowsKind::Update),
            (None, None) => None,
        }
    }
}

/// A transaction's group: GTID, per table its TABLE_MAP and rows events, XID.
pub fn transaction_group(
    gtid: Gtid,
    timestamp: u32,
    table_id: impl Fn(&TableDef) -> u64,
    changes: &[RowChange],
) -> DbResult<Vec<u8>> {
    let sid = gtid.server_id;
    let mut out = control::gtid(gtid, timestamp, false);
    // Tables in order of first change.
    let mut tables: Vec<&Arc<TableDef>> = Vec::new();
    for c in changes {
        if !tables.iter().any(|t| Arc::ptr_eq(t, &c.table)) {
            tables.push(&c.table);
        }
    }
    for t in tables {
        let id = table_id(t);
        out.extend(table_map(sid, timestamp, id, &t.db, &t.name, &t.columns));
        let mine: Vec<&RowChange> = changes
            .iter()
            .filter(|c| Arc::ptr_eq(&c.table, t))
            .collect();
        let kinds = [RowsKind::Delete, RowsKind::Update, RowsKind::Write];
        let present: Vec<RowsKind> = kinds
            .into_iter()
            .filter(|k| mine.iter().any(|c| c.kind() == Some(*k)))
            .collect();
        for (ki, kind) in present.iter().enumerate() {
            let last_kind = ki + 1 == present.len();
            let rows: Vec<&&RowChange> = mine.iter().filter(|c| c.kind() == Some(*kind)).collect();
            let mut images = Vec::new();
            for (ri, c) in rows.iter().enumerate() {
                for img in [&c.before, &c.after].into_iter().flatten() {
                    encode_row(&t.columns, img, &mut images)?;
                }
                let last = last_kind && ri + 1 == rows.len();
                if images.len() >= MAX_ROWS_BYTES || ri + 1 == rows.len() {
                    out.extend(rows_event(
                        sid,
                        timestamp,
                        *kind,
                        id,
                        t.columns.len(),
                        &images,
                        last,
                    ));
                    images.clear();
                }
            }
        }
    }
    out.extend(control::xid(sid, timestamp, gtid.seq));
    Ok(out)
}

/// The sql_mode DDL runs under on a replica: IGNORE_BAD_TABLE_OPTIONS (MariaDB's bit 4), so
/// Betula's own table options (COMPRESSION=...) are kept with a warning instead of refused.
const SQL_MODE: u64 = 1 << 4;

/// A DDL statement's group: GTID (standalone), QUERY.
pub fn ddl_group(
    gtid: Gtid,
    timestamp: u32,
    thread_id: u32,
    db: &str,
    sql: &str,
    collation: u16,
) -> Vec<u8> {
    let mut out = control::gtid(gtid, timestamp, true);
    out.extend(query(
        gtid.server_id,
        timestamp,
        thread_id,
        db,
        sql,
        collation,
        SQL_MODE,
    ));
    out
}
