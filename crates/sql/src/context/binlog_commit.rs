//! The binary log seen from the SQL layer: switching it on for an engine
//! ([`Engine::enable_binlog`]), the variables it shows, and what a connection logs: at COMMIT
//! its transaction's row changes (read from its write set, binlog/group.rs's policy), after a
//! DDL statement its text (design.md BLG1-BLG6).
//!
//! Invariants: a transaction's group is written into the binlog tree inside the transaction
//! itself, so the group is durable exactly when the transaction is (BLG1); every GTID reserved
//! is finished, with the group if the transaction committed and without it otherwise.

use std::sync::Arc;

use crate::binlog::group::{ddl_group, transaction_group, RowChange};
use crate::binlog::log::{group_key, TREE};
use crate::binlog::{Binlog, BinlogConfig, Gtid};
use crate::catalog::TableDef;
use crate::codec::row::decode_row;
use crate::context::{Context, Engine};
use crate::error::db_error::DbResult;
use crate::store::RowDiff;
use crate::types::value::Value;

impl Engine {
    /// Opens the binary log (recovering it) and shows its settings as variables.
    pub fn enable_binlog(&self, cfg: BinlogConfig) -> DbResult<()> {
        let log = Binlog::open(cfg.clone(), &self.config.datadir, &self.store)?;
        let base = log.path_of(&cfg.basename).display().to_string();
        let mut g = self.globals.write();
        let t = |s: &str| Value::Text(s.to_string());
        g.insert("log_bin".into(), Value::Int(1));
        g.insert("log_bin_basename".into(), t(&base));
        g.insert("log_bin_index".into(), t(&format!("{base}.index")));
        g.insert("server_id".into(), Value::UInt(cfg.server_id as u64));
        g.insert("gtid_domain_id".into(), Value::UInt(cfg.domain_id as u64));
        g.insert("max_binlog_size".into(), Value::UInt(cfg.max_size));
        g.insert(
            "binlog_expire_logs_seconds".into(),
            Value::UInt(cfg.expire_secs),
        );
        g.insert(
            "expire_logs_days".into(),
            Value::Double(cfg.expire_secs as f64 / 86_400.0),
        );
        g.insert(
            "binlog_checksum".into(),
            t(if cfg.checksum { "CRC32" } else { "NONE" }),
        );
        // MariaDB's version form: a MariaDB replica uses GTIDs only with a primary >= 10.
        g.insert("version".into(), t(&cfg.version));
        drop(g);
        let _ = self.binlog.set(log);
        Ok(())
    }

    /// The binary log, if `log_bin` is on.
    pub fn binlog(&self) -> Option<&Arc<Binlog>> {
        self.binlog.get()
    }

    /// @@gtid_binlog_pos / @@gtid_current_pos: the last GTID of each domain logged.
    pub fn gtid_pos_text(&self) -> String {
        let list: Vec<String> = self
            .binlog()
            .map(|b| b.gtid_pos())
            .unwrap_or_default()
            .iter()
            .map(Gtid::to_string)
            .collect();
        list.join(",")
    }
}

/// `(db, table)` of a table's primary tree name (`db/t/PRIMARY`, `db/t/@n/PRIMARY`,
/// `db/t/#id/PRIMARY`); None for index trees and internal trees.
fn primary_tree_table(tree: &str) -> Option<(&str, &str)> {
    if tree.starts_with('\0') || !tree.ends_with("/PRIMARY") {
        return None;
    }
    let mut it = tree.split('/');
    Some((it.next()?, it.next()?))
}

fn now_secs() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

impl Context {
    /// The row changes of this transaction, decoded (BLG4).
    fn binlog_changes(&self) -> DbResult<Vec<RowChange>> {
        let diffs: Vec<RowDiff> = self
            .ws
            .row_diffs(&self.engine.store, |t| primary_tree_table(t).is_some())?;
        // Diffs come in tree order: one catalog lookup per tree.
        let mut last: Option<(String, Arc<TableDef>)> = None;
        let mut out = Vec::with_capacity(diffs.len());
        for d in diffs {
            let t = match &last {
                Some((tree, t)) if *tree == d.tree => t.clone(),
                _ => {
                    let Some((db, name)) = primary_tree_table(&d.tree) else {
                        continue;
                    };
                    let t = self.engine.catalog.get_table(db, name)?;
                    last = Some((d.tree.clone(), t.clone()));
                    t
                }
            };
            let decode = |v: &Option<Vec<u8>>| -> DbResult<Option<Vec<Value>>> {
                Ok(match v {
                    Some(b) => Some(decode_row(&t.layout, b)?),
                    None => None,
                })
            };
            out.push(RowChange {
                before: decode(&d.before)?,
                after: decode(&d.after)?,
                table: t.clone(),
            });
        }
        Ok(out)
    }

    /// Before a commit: reserves a GTID and builds the transaction's group (None: no binary
    /// log, or nothing to log). The caller writes `(TREE, key, group)` in the transaction and
    /// then calls [`Context::binlog_finish`].
    pub(crate) fn binlog_prepare(&self) -> DbResult<Option<(u64, Vec<u8>)>> {
        let Some(log) = self.engine.binlog() else {
            return Ok(None);
        };
        if self.int_var("sql_log_bin") == 0 {
            return Ok(None);
        }
        if let Some((db, sql)) = &self.binlog_statement {
            // RET7: in the transaction itself, so the statement is durable exactly when it is.
            let gtid = log.reserve();
            let collation = crate::types::collation::Collation::Utf8mb4GeneralCi.id();
            let g = ddl_group(gtid, now_secs(), self.id as u32, db, sql, collation);
            return Ok(Some((gtid.seq, g)));
        }
        let changes = self.binlog_changes()?;
        if changes.is_empty() {
            return Ok(None);
        }
        let gtid = log.reserve();
        match transaction_group(gtid, now_secs(), |t| log.table_id(&t.db, &t.name), &changes) {
            Ok(g) => Ok(Some((gtid.seq, g))),
            Err(e) => {
                log.finish(gtid.seq, None)?;
                Err(e)
            }
        }
    }

    /// After a commit (or its failure): hands the group to the log.
    pub(crate) fn binlog_finish(&self, seq: u64, group: Option<Vec<u8>>) -> DbResult<()> {
        match self.engine.binlog() {
            Some(log) => log.finish(seq, group),
            None => Ok(()),
        }
    }

    /// The tree entry a prepared group is written as.
    pub(crate) fn binlog_entry(seq: u64, group: &[u8]) -> (&'static str, Vec<u8>, Vec<u8>) {
        (TREE, group_key(seq), group.to_vec())
    }

    /// Logs a DDL statement that succeeded: `sql` run in database `db` (empty: none).
    pub fn binlog_ddl(&self, db: &str, sql: &str) -> DbResult<()> {
        let Some(log) = self.engine.binlog() else {
            return Ok(());
        };
        if self.int_var("sql_log_bin") == 0 {
            return Ok(());
        }
        let gtid = log.reserve();
        let collation = crate::types::collation::Collation::Utf8mb4GeneralCi.id();
        let group = ddl_group(gtid, now_secs(), self.id as u32, db, sql, collation);
        let r = log.tree().write_batch(vec![(
            group_key(gtid.seq),
            betula_storage::Op::Put(group.clone()),
        )]);
        match r {
            Ok(()) => log.finish(gtid.seq, Some(group)),
            Err(e) => {
                log.finish(gtid.seq, None)?;
                Err(e.into())
            }
        }
    }
}
