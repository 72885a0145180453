//! `LOAD DATA [LOCAL] INFILE`: bulk loading of delimited text into a table, as one transaction.
//!
//! | module | owns |
//! | --- | --- |
//! | parser/load.rs | the statement's grammar and options |
//! | `fields` | splitting a byte stream into records and fields (MySQL's escape and quote rules) |
//! | `convert` | record → row: column list, `@variables`, SET, defaults, coercion (as INSERT) |
//! | `sorter` | external merge sort with zstd-compressed runs under the data directory |
//! | `build` | empty table: sort, then build every tree bottom-up and swap them in atomically |
//! | `merge` | non-empty table: sorted batches written through one storage transaction |
//!
//! Path choice (docs/design.md, "Bulk loading (SQL half: LOAD DATA)"): inside an explicit
//! transaction (BEGIN or autocommit=0) rows go through the session's write set like INSERT rows, so they commit or
//! roll back with the transaction. Otherwise, a table whose primary tree holds no row and that
//! has no UNIQUE secondary index is built from sorted streams (`Env::bulk_replace`: rows never
//! reach the log); any other table takes sorted batches through one storage transaction.
//!
//! Invariants: a load is atomic: an error of any kind (bad row in strict mode, duplicate key,
//! client gone, temp disk full, KILL) leaves the table exactly as it was, and a crash mid-load does
//! too (bulk_replace's swap record / the transaction's missing commit record). Outside an
//! explicit transaction the load's storage transaction holds the whole-tree lock of every tree
//! of the table from before the emptiness check to the end (other writers of the table wait;
//! readers do not), and the session holds the schema lock shared (no DDL meanwhile). Server-side files are read only under the directory configured at
//! start (`secure_file_priv`) and only by root (MySQL's FILE privilege); LOCAL needs the client's
//! opt-in (the protocol layer supplies the stream) and `local_infile` ON.
//!
//! Messages: row errors in strict mode are MySQL's (`... at row N`) followed by
//! ` (file 'F', line L)`; in non-strict mode, with IGNORE or LOCAL, they are warnings.

mod build;
pub mod convert;
pub mod fields;
mod merge;
pub mod sorter;

use std::io::Read;
use std::sync::Arc;

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::dml;
use crate::parser::load::{self, LoadStmt, OnDuplicate};
use crate::result::Output;
use crate::types::value::Value;
use convert::Converter;
use fields::{FieldReader, Record};

/// Records read between two checks for a KILL of the connection.
const KILL_CHECK_RECORDS: u64 = 1024;

/// Warnings kept per statement (the count in the reply counts them all).
const MAX_WARNINGS: usize = 65_535;

/// What a load did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub records: u64,
    pub inserted: u64,
    pub deleted: u64,
    pub skipped: u64,
}

/// Rows of the file, converted, in file order.
pub struct RowSource<'r> {
    reader: FieldReader<&'r mut dyn Read>,
    conv: Converter,
    rec: Record,
    t: Arc<TableDef>,
    file: String,
    local: bool,
    rownum: u64,
    pub first_id: Option<u64>,
    pub warnings: Vec<Warning>,
    pub warnings_dropped: u64,
    pub vars: Vec<Value>,
}

impl RowSource<'_> {
    /// The next row (record number, values); None at the end of the file.
    pub fn next_row(&mut self, cx: &mut Context) -> DbResult<Option<(u64, Vec<Value>)>> {
        let more = self.reader.next_record(&mut self.rec).map_err(|e| {
            if self.local {
                DbError::new(
                    ErrorCode::NetReadError,
                    format!(
                        "Got an error reading communication packets (LOAD DATA LOCAL '{}': {e})",
                        self.file
                    ),
                )
            } else {
                DbError::new(
                    ErrorCode::EeFileNotFound,
                    format!("Error reading file '{}' ({e})", self.file),
                )
            }
        })?;
        if !more {
            return Ok(None);
        }
        self.rownum += 1;
        if self.rownum % KILL_CHECK_RECORDS == 0 {
            cx.check_interrupted()?;
        }
        let row = self
            .conv
            .row(
                cx,
                &self.t,
                &self.rec,
                self.rownum,
                &mut self.first_id,
                &mut self.warnings,
                &mut self.vars,
            )
            .map_err(|e| self.at_line(e))?;
        if self.warnings.len() > MAX_WARNINGS {
            self.warnings_dropped += (self.warnings.len() - MAX_WARNINGS) as u64;
            self.warnings.truncate(MAX_WARNINGS);
        }
        Ok(Some((self.rownum, row)))
    }

    /// `e` with the file name and line of the current record.
    pub fn at_line(&self, mut e: DbError) -> DbError {
        e.message = format!(
            "{} (file '{}', line {})",
            e.message, self.file, self.rec.line
        );
        e
    }

    pub fn warn(&mut self, e: &DbError) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(Warning {
                level: WarningLevel::Warning,
                code: e.code,
                message: e.message.clone(),
            });
        } else {
            self.warnings_dropped += 1;
        }
    }

    /// Bytes of the file consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.reader.bytes_read()
    }
}

/// For the protocol layer: the file name to request from the client when `sql` is a LOAD DATA
/// LOCAL that can run (local_infile ON, table present and accessible); None otherwise (the
/// statement then runs without a stream and reports its own error).
pub fn local_request(cx: &Context, sql: &str) -> Option<String> {
    if !load::is_load(sql) {
        return None;
    }
    let stmt = load::parse(sql).ok()?;
    let enabled = cx
        .vars
        .get("local_infile")
        .and_then(|v| v.to_f64_lenient())
        .unwrap_or(1.0)
        != 0.0;
    if !stmt.local || !enabled {
        return None;
    }
    let (db, name) = cx.resolve_table_name(&stmt.table).ok()?;
    cx.check_db_access(&db).ok()?;
    cx.get_table(&db, &name).ok()?;
    Some(stmt.file)
}

/// Opens a server-side file after the `secure_file_priv` and privilege checks.
fn open_server_file(cx: &Context, name: &str) -> DbResult<std::fs::File> {
    let refused = || {
        DbError::new(
            ErrorCode::OptionPreventsStatement,
            "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement",
        )
    };
    let Some(dir) = cx.engine.secure_file_priv.read().clone() else {
        return Err(refused());
    };
    if cx.user != "root" {
        return Err(DbError::new(
            ErrorCode::AccessDeniedError,
            format!("Access denied for user '{}'@'{}' (LOAD DATA INFILE needs the FILE privilege, which only root has)", cx.user, cx.host),
        ));
    }
    let path = std::path::Path::new(name);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    let not_found = |e: std::io::Error| {
        DbError::new(
            ErrorCode::EeFileNotFound,
            format!("File '{}' not found ({e})", path.display()),
        )
    };
    let real = path.canonicalize().map_err(not_found)?;
    let real_dir = dir.canonicalize().map_err(not_found)?;
    if !real.starts_with(&real_dir) {
        return Err(refused());
    }
    std::fs::File::open(&real).map_err(not_found)
}

/// Runs a LOAD DATA statement; `local` is the client's file for LOAD DATA LOCAL (None when the
/// client did not offer it).
pub fn run(cx: &mut Context, stmt: &LoadStmt, local: Option<&mut dyn Read>) -> DbResult<Output> {
    let (db, name) = cx.resolve_table_name(&stmt.table)?;
    cx.check_db_access(&db)?;
    crate::exec::dml::view_target::resolve_target(
        cx,
        &db,
        &name,
        crate::exec::dml::view_target::WriteKind::Load,
    )?;
    // The schema lock before the definition is read: no DDL publishes another one until the
    // transaction ends (design.md SES3, OIX1).
    cx.begin_write()?;
    let t = cx.get_table(&db, &name)?;
    let mut file;
    let input: &mut dyn Read = if stmt.local {
        let enabled = cx
            .vars
            .get("local_infile")
            .and_then(|v| v.to_f64_lenient())
            .unwrap_or(1.0)
            != 0.0;
        match local {
            Some(r) if enabled => r,
            _ => {
                return Err(DbError::new(
                    ErrorCode::ClientLocalFilesDisabled,
                    "Loading local data is disabled; this must be enabled on both the client and server sides",
                ))
            }
        }
    } else {
        file = open_server_file(cx, &stmt.file)?;
        &mut file
    };
    execute(cx, stmt, t, input)
}

/// The load itself, over any byte stream (also used by `betula import`).
pub fn execute(
    cx: &mut Context,
    stmt: &LoadStmt,
    t: Arc<TableDef>,
    input: &mut dyn Read,
) -> DbResult<Output> {
    // IGNORE (and LOCAL, which implies it) turns data errors into warnings, as in MySQL.
    let strict = cx.strict() && stmt.on_duplicate != OnDuplicate::Ignore;
    let conv = Converter::new(cx, &t, stmt, strict)?;
    let mut src = RowSource {
        reader: FieldReader::new(input, stmt.format.clone()),
        conv,
        rec: Record::default(),
        t: t.clone(),
        file: stmt.file.clone(),
        local: stmt.local,
        rownum: 0,
        first_id: None,
        warnings: Vec::new(),
        warnings_dropped: 0,
        vars: Vec::new(),
    };
    for _ in 0..stmt.ignore_lines {
        if !src.reader.next_record(&mut src.rec).map_err(|e| {
            DbError::new(
                ErrorCode::EeFileNotFound,
                format!("Error reading file '{}' ({e})", stmt.file),
            )
        })? {
            break;
        }
    }
    cx.begin_write()?;
    let budget = cx
        .vars
        .get("betula_load_memory")
        .and_then(|v| v.to_f64_lenient())
        .unwrap_or(256.0 * 1048576.0)
        .clamp(1048576.0, 1e15) as usize;
    // A partitioned table's rows go row by row to their partitions (docs/mysql-compat.md); with
    // the binary log on, every row goes through the write set so that it is logged (BLG4).
    // A table with foreign keys to check takes that path too (design.md FKC6).
    let in_txn = cx.in_txn
        || !cx.autocommit()
        || t.partitioning.is_some()
        || cx.engine.binlog().is_some()
        || crate::exec::dml::foreign_keys::involved(cx, &t);
    let counts = if in_txn {
        through_write_set(cx, &t, &mut src, stmt.on_duplicate)?
    } else {
        let txn = merge::begin_locked(cx, &t)?;
        if build::eligible(cx, &t, &txn)? {
            let counts = build::load(cx, &t, &mut src, stmt.on_duplicate, budget)?;
            txn.commit()?; // wrote nothing: releases the tree locks
            counts
        } else {
            merge::load(cx, &t, &mut src, stmt.on_duplicate, budget, txn)?
        }
    };
    for (name, v) in src.conv.var_names().iter().zip(src.vars.iter()) {
        cx.user_vars.set(name, v.clone());
    }
    if let Some(id) = src.first_id {
        cx.last_insert_id = id;
    }
    let nwarn = src.warnings.len() as u64 + src.warnings_dropped;
    cx.warnings.extend(std::mem::take(&mut src.warnings));
    cx.tally.inserted += counts.inserted;
    cx.tally.deleted += counts.deleted;
    Ok(Output::Done {
        affected: counts.inserted + counts.deleted,
        last_insert_id: src.first_id.unwrap_or(0),
        info: format!(
            "Records: {}  Deleted: {}  Skipped: {}  Warnings: {nwarn}",
            counts.records, counts.deleted, counts.skipped
        ),
    })
}

/// Inside an explicit transaction: row by row through the write set, as INSERT does.
fn through_write_set(
    cx: &mut Context,
    t: &TableDef,
    src: &mut RowSource<'_>,
    on_dup: OnDuplicate,
) -> DbResult<Counts> {
    let mut c = Counts::default();
    while let Some((_, row)) = src.next_row(cx)? {
        c.records += 1;
        let pk = t.encode_pk(&row)?;
        let mut skip = false;
        while let Some(conflict) = dml::find_conflict(cx, t, &row, &pk, true, None)? {
            match on_dup {
                OnDuplicate::Replace => match dml::load(cx, t, &conflict.pk)? {
                    Some(old) => {
                        dml::delete_row(cx, t, &conflict.pk, &old)?;
                        c.deleted += 1;
                    }
                    None => break,
                },
                OnDuplicate::Ignore => {
                    let e = DbError::duplicate(&t.dup_entry(&conflict.cols, &row), &conflict.key);
                    src.warn(&e);
                    c.skipped += 1;
                    skip = true;
                    break;
                }
                OnDuplicate::Error => {
                    let e = DbError::duplicate(&t.dup_entry(&conflict.cols, &row), &conflict.key);
                    return Err(src.at_line(e));
                }
            }
        }
        if !skip {
            dml::put_row(cx, t, &pk, &row)?;
            c.inserted += 1;
        }
    }
    Ok(c)
}

/// The durability a session's commit asks for (betula_commit_sync / tokudb_commit_sync).
pub(crate) fn commit_durability(cx: &Context) -> Option<betula_storage::Durability> {
    let sync = ["betula_commit_sync", "tokudb_commit_sync"]
        .iter()
        .all(|v| !matches!(cx.vars.get(*v), Some(Value::Int(0))));
    (!sync).then_some(betula_storage::Durability::NoSync)
}
