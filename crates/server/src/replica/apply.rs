//! The applier: the primary's events, in order, through one engine session (design.md RPA1-RPA7).
//! A GTID event opens a transaction (or announces a standalone statement), row events become
//! INSERT / UPDATE / DELETE statements with the row images as values (inserts as rows handed to
//! the SQL layer without text, UPDATE / DELETE as prepared statements with parameters), XID or
//! COMMIT records the GTID in `mysql.gtid_slave_pos` and commits, and a standalone QUERY (DDL)
//! runs as written. A transaction whose only change is one run of inserts into one table is
//! written as one set at its XID (RPA6).
//!
//! Invariants: RPA1 (the GTID is written in the transaction it names; a DDL's right after it);
//! RPA2 (one event at a time; nothing commits before its XID / COMMIT); RPA3 (an UPDATE or DELETE
//! changes exactly the one row its before image names, an image that does not fit the table is an
//! error); RPA4 (no statement-format DML inside a row transaction); RPA6 (queued inserts go as
//! one set only when nothing else of the transaction was written, nor will be but the position);
//! RPA7 (a DDL runs under the primary's `collation_server`). On any error the open transaction is rolled back and the error returned: the caller stops.

use std::collections::HashMap;
use std::sync::Arc;

use betula_sql::catalog::TableDef;
use betula_sql::parser::fast_insert::{FastInsert, Slot};
use betula_sql::parser::split::split_statements;
use betula_sql::types::collation::Collation;
use betula_sql::types::value::Value;
use betula_sql::{DbError, DbResult, Engine, ErrorCode, Output, Session};
use mysql_common::binlog::events::{RowsEventData, TableMapEvent};
use mysql_common::binlog::row::BinlogRow;
use mysql_common::value::Value as MyValue;

use super::plain_rows::PlainRows;
use super::position::{self, Gtid};
use super::values::{convert, convert_value};

/// Session id the applier runs under.
const SESSION_ID: u64 = u64::MAX - 3;
/// MariaDB's GTID event flag: a statement outside a transaction (DDL).
const FL_STANDALONE: u8 = 1;
/// Most rows in one INSERT statement.
const INSERT_ROWS: usize = 1000;
/// Most rows kept for a transaction's first INSERT, which goes on the set-oriented path when it
/// is the transaction's only change (RPA6); a longer run of inserts goes 1000 rows at a time.
const FIRST_INSERT_ROWS: usize = 50_000;
/// Errors of a DDL that a crash made run twice: the change is there already (MariaDB's replica
/// ignores them too, `slave_ddl_exec_mode = IDEMPOTENT`).
const ALREADY_DONE: [ErrorCode; 6] = [
    ErrorCode::DbCreateExists,
    ErrorCode::DbDropExists,
    ErrorCode::TableExistsError,
    ErrorCode::BadTableError,
    ErrorCode::DupKeyname,
    ErrorCode::CantDropFieldOrKey,
];
/// Most statements kept prepared (a table's INSERT, UPDATE and DELETE forms).
const PREPARED: usize = 512;

pub struct Applier {
    s: Session,
    /// The GTID of the event group being applied.
    gtid: Option<Gtid>,
    /// The group is a standalone statement (no transaction).
    standalone: bool,
    in_txn: bool,
    /// The open transaction has changed rows (written any statement but the queued inserts).
    changed: bool,
    /// Statements by text, prepared once (their parameters are row images' values).
    stmts: HashMap<String, u32>,
    next_stmt: u32,
    /// Inserted rows not yet written: consecutive row events of one table's inserts become one
    /// multi-row INSERT (written before anything else of the transaction happens).
    pending: Option<Pending>,
}

/// Rows waiting to be inserted into one table, with the same columns given.
struct Pending {
    t: Arc<TableDef>,
    cols: Vec<usize>,
    /// Each row's values, one per column of `cols`.
    rows: Vec<Vec<Slot>>,
}

/// A row-image column list: the table's column indexes present in the before (or after) image.
fn present(ev: &RowsEventData<'_>, before: bool, n: usize) -> Vec<usize> {
    let bits = if before {
        ev.columns_before_image()
    } else {
        ev.columns_after_image()
    };
    match bits {
        Some(b) => (0..n).filter(|&i| b.get(i).is_some_and(|x| *x)).collect(),
        None => Vec::new(),
    }
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn stop(code: ErrorCode, msg: String) -> DbError {
    DbError::new(code, msg)
}

impl Applier {
    pub fn new(engine: &Arc<Engine>) -> DbResult<Applier> {
        let mut s = engine.session(SESSION_ID, "root", "localhost");
        s.execute("SET time_zone = '+00:00'", &[])?;
        // Commits need not wait for the log sync: a crash loses a suffix of the applied
        // transactions together with their positions (RPA1), which the primary sends again.
        s.execute("SET SESSION betula_commit_sync = OFF", &[])?;
        // UPDATE counts the rows it matched, as a replica must to know it found its row.
        s.client_found_rows = true;
        position::ensure_table(&mut s)?;
        Ok(Applier {
            s,
            gtid: None,
            standalone: false,
            in_txn: false,
            changed: false,
            stmts: HashMap::new(),
            next_stmt: 1,
            pending: None,
        })
    }

    /// Runs `sql` with `params`, preparing it the first time its text is seen.
    fn run(&mut self, sql: String, params: &[Value]) -> DbResult<Output> {
        let id = match self.stmts.get(&sql) {
            Some(id) => *id,
            None => {
                if self.stmts.len() >= PREPARED {
                    for (_, id) in self.stmts.drain() {
                        self.s.prepared.remove(&id);
                    }
                }
                let id = self.next_stmt;
                self.next_stmt = self.next_stmt.wrapping_add(1).max(1);
                self.s.prepare(id, &sql)?;
                self.stmts.insert(sql, id);
                id
            }
        };
        self.s.execute_prepared(id, params)
    }

    /// The recorded position (what to ask the primary for).
    pub fn position(&mut self) -> DbResult<Vec<Gtid>> {
        position::load(&mut self.s)
    }

    /// Whether a transaction of the primary is half applied.
    pub fn in_transaction(&self) -> bool {
        self.in_txn
    }

    /// Rolls back a half-applied transaction (the replica stops or lost its primary).
    pub fn abandon(&mut self) {
        self.pending = None;
        if self.in_txn {
            let _ = self.s.execute("ROLLBACK", &[]);
        }
        self.in_txn = false;
        self.changed = false;
        self.gtid = None;
    }

    fn fail<T>(&mut self, e: DbError) -> DbResult<T> {
        self.abandon();
        Err(e)
    }

    /// MariaDB's GTID event: seq_no (8 bytes), domain (4), flags (1), little-endian.
    pub fn gtid_event(&mut self, server: u32, body: &[u8]) -> DbResult<()> {
        if body.len() < 13 {
            return self.fail(stop(ErrorCode::GetErrno, "short GTID event".into()));
        }
        if self.in_txn {
            return self.fail(stop(
                ErrorCode::GetErrno,
                "a GTID event inside a transaction".into(),
            ));
        }
        let seq = u64::from_le_bytes(body[0..8].try_into().unwrap_or_default());
        let domain = u32::from_le_bytes(body[8..12].try_into().unwrap_or_default());
        self.gtid = Some(Gtid {
            domain,
            server,
            seq,
        });
        self.standalone = body[12] & FL_STANDALONE != 0;
        self.changed = false;
        if !self.standalone {
            self.s.execute("BEGIN", &[]).or_else(|e| self.fail(e))?;
            self.in_txn = true;
        }
        Ok(())
    }

    /// XID (or a COMMIT query): records the GTID and commits.
    pub fn commit(&mut self) -> DbResult<()> {
        if !self.in_txn {
            return Ok(());
        }
        // Queued rows that are the whole transaction's change go as one set (RPA6).
        let only_change = !self.changed;
        self.write_pending(only_change).or_else(|e| self.fail(e))?;
        if let Some(g) = self.gtid {
            position::record(&mut self.s, g).or_else(|e| self.fail(e))?;
        }
        self.s.execute("COMMIT", &[]).or_else(|e| self.fail(e))?;
        self.in_txn = false;
        self.changed = false;
        self.gtid = None;
        Ok(())
    }

    /// A QUERY event: transaction control, or a statement run as written (RPA4) under the
    /// primary's `collation_server` of the event (`server`, a collation id), so that a database
    /// or table made without a character set gets the primary's (RPA7).
    pub fn query(&mut self, schema: &str, text: &str, server: Option<u16>) -> DbResult<()> {
        let head = text.trim_start().to_ascii_uppercase();
        let word = head.split_whitespace().next().unwrap_or("");
        match word {
            "BEGIN" => return Ok(()),
            "COMMIT" => return self.commit(),
            "ROLLBACK" if !head.contains(" TO ") => {
                self.abandon();
                return Ok(());
            }
            "SAVEPOINT" | "ROLLBACK" | "RELEASE" if self.in_txn => {
                self.flush().or_else(|e| self.fail(e))?;
                // Rows written after a savepoint go through the write set (RPA6).
                self.changed = true;
                self.s.execute(text, &[]).or_else(|e| self.fail(e))?;
                return Ok(());
            }
            _ => {}
        }
        if self.in_txn {
            return self.fail(stop(
                ErrorCode::GetErrno,
                format!(
                    "a statement-format event inside a transaction (the primary must log \
                     binlog_format=ROW): {text}"
                ),
            ));
        }
        // The event's default database, which need not exist (CREATE DATABASE names the one
        // it creates), as MariaDB's replica sets it.
        if schema.is_empty() || self.s.use_db(schema).is_err() {
            self.s.db = None;
        }
        if let Some(c) = server.and_then(|id| Collation::ALL.into_iter().find(|c| c.id() == id)) {
            let set = format!("SET collation_server = '{}'", c.name());
            self.s.execute(&set, &[]).or_else(|e| self.fail(e))?;
        }
        // The text as the primary's client sent it: a trailing `;` (an init file's) is allowed.
        for stmt in split_statements(text) {
            match self.s.execute(stmt, &[]) {
                Ok(_) => {}
                // Run again after a crash before its position was written (RPA1): done already.
                Err(e) if ALREADY_DONE.contains(&e.code) => {
                    super::log(&format!("DDL already applied ({}): {stmt}", e.message));
                }
                Err(e) => return self.fail(e),
            }
        }
        // The statement committed by itself: its GTID follows in a transaction of its own,
        // synced as the DDL was.
        if let Some(g) = self.gtid.take() {
            self.s.execute("SET SESSION betula_commit_sync = ON", &[])?;
            self.s.execute("BEGIN", &[])?;
            self.in_txn = true;
            position::record(&mut self.s, g).or_else(|e| self.fail(e))?;
            self.s.execute("COMMIT", &[]).or_else(|e| self.fail(e))?;
            self.in_txn = false;
            self.s
                .execute("SET SESSION betula_commit_sync = OFF", &[])?;
        }
        Ok(())
    }

    /// A rows event of the table `tme` maps.
    pub fn rows(&mut self, ev: &RowsEventData<'_>, tme: &TableMapEvent<'_>) -> DbResult<()> {
        let r = self.rows_inner(ev, tme);
        r.or_else(|e| self.fail(e))
    }

    fn rows_inner(&mut self, ev: &RowsEventData<'_>, tme: &TableMapEvent<'_>) -> DbResult<()> {
        if !self.in_txn {
            self.s.execute("BEGIN", &[])?;
            self.in_txn = true;
        }
        let (db, name) = (tme.database_name(), tme.table_name());
        let t = self.s.engine.catalog.get_table(&db, &name)?;
        let n = ev.num_columns() as usize;
        if n != t.columns.len() {
            return Err(stop(
                ErrorCode::GetErrno,
                format!(
                    "`{db}`.`{name}` has {} columns here and {n} on the primary",
                    t.columns.len()
                ),
            ));
        }
        let before = present(ev, true, n);
        let after = present(ev, false, n);
        // Inserted rows of a sensor-like table: read without the general decoder (RPA6).
        if ev.columns_before_image().is_none() {
            if let Some(plain) = PlainRows::of(tme) {
                return plain.each_insert(ev, &after, |vals| {
                    let row = converted(&t, &after, vals.iter())?;
                    self.add_insert(&t, &after, row)
                });
            }
        }
        for row in ev.rows(tme) {
            let (b, a) = row.map_err(|e| stop(ErrorCode::GetErrno, format!("row image: {e}")))?;
            match (b, a) {
                (None, Some(a)) => {
                    let row = values(&t, &after, &a, Slot::Val)?;
                    self.add_insert(&t, &after, row)?;
                }
                (Some(b), Some(a)) => {
                    self.flush()?;
                    self.changed = true;
                    let b = values(&t, &before, &b, |v| v)?;
                    let a = values(&t, &after, &a, |v| v)?;
                    self.update(&t, &before, &b, &after, a)?;
                }
                (Some(b), None) => {
                    self.flush()?;
                    self.changed = true;
                    let b = values(&t, &before, &b, |v| v)?;
                    self.delete(&t, &before, &b)?;
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// Queues an inserted row, writing the queue first when it is of another table or columns.
    fn add_insert(&mut self, t: &Arc<TableDef>, cols: &[usize], row: Vec<Slot>) -> DbResult<()> {
        let same = self
            .pending
            .as_ref()
            .is_some_and(|p| p.t.db == t.db && p.t.name == t.name && p.cols == cols);
        if !same {
            self.flush()?;
            self.pending = Some(Pending {
                t: t.clone(),
                cols: cols.to_vec(),
                rows: Vec::new(),
            });
        }
        let most = if self.changed {
            INSERT_ROWS
        } else {
            FIRST_INSERT_ROWS
        };
        let full = match self.pending.as_mut() {
            Some(p) => {
                p.rows.push(row);
                p.rows.len() >= most
            }
            None => false,
        };
        if full {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the queued inserted rows before another change of the transaction.
    fn flush(&mut self) -> DbResult<()> {
        self.write_pending(false)
    }

    /// Writes the queued inserted rows, as one set when `only_change` (they are all the
    /// transaction changes: nothing before them, and nothing after but the position, RPA6).
    fn write_pending(&mut self, only_change: bool) -> DbResult<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        if p.rows.is_empty() {
            return Ok(());
        }
        self.changed = true;
        let ins = FastInsert {
            table: vec![p.t.db.clone(), p.t.name.clone()],
            replace: false,
            ignore: false,
            columns: p
                .cols
                .iter()
                .map(|&c| p.t.columns[c].name.clone())
                .collect(),
            rows: p.rows,
            on_duplicate: Vec::new(),
        };
        self.s.insert_values(ins, only_change)?;
        Ok(())
    }

    /// `WHERE` naming the before image's row: the primary key, or every column given.
    fn key_of(t: &TableDef, cols: &[usize], vals: &[Value]) -> (String, Vec<Value>) {
        let by_pk = !t.pk.is_empty() && t.pk.iter().all(|c| cols.contains(c));
        let mut terms = Vec::new();
        let mut params = Vec::new();
        for (i, &c) in cols.iter().enumerate() {
            if by_pk && !t.pk.contains(&c) {
                continue;
            }
            // Key columns are NOT NULL: `=` finds the row through the key.
            let op = if by_pk { "=" } else { "<=>" };
            terms.push(format!("{} {op} ?", quote(&t.columns[c].name)));
            params.push(vals[i].clone());
        }
        (terms.join(" AND "), params)
    }

    fn update(
        &mut self,
        t: &TableDef,
        before: &[usize],
        b: &[Value],
        after: &[usize],
        a: Vec<Value>,
    ) -> DbResult<()> {
        let (cond, key) = Self::key_of(t, before, b);
        let set: Vec<String> = after
            .iter()
            .map(|&c| format!("{} = ?", quote(&t.columns[c].name)))
            .collect();
        let sql = format!(
            "UPDATE {}.{} SET {} WHERE {cond} LIMIT 1",
            quote(&t.db),
            quote(&t.name),
            set.join(", ")
        );
        let params: Vec<Value> = a.into_iter().chain(key).collect();
        let out = self.run(sql, &params)?;
        self.found_one(t, out)
    }

    fn delete(&mut self, t: &TableDef, before: &[usize], b: &[Value]) -> DbResult<()> {
        let (cond, key) = Self::key_of(t, before, b);
        let sql = format!(
            "DELETE FROM {}.{} WHERE {cond} LIMIT 1",
            quote(&t.db),
            quote(&t.name)
        );
        let out = self.run(sql, &key)?;
        self.found_one(t, out)
    }

    /// 1032 unless the statement matched its row.
    fn found_one(&self, t: &TableDef, out: Output) -> DbResult<()> {
        match out {
            Output::Done { affected: 1, .. } => Ok(()),
            _ => Err(stop(
                ErrorCode::KeyNotFound,
                format!("Can't find record in '{}'", t.name),
            )),
        }
    }
}

/// A row image's values, one per present column, as the table's column types take them, each
/// wrapped by `wrap`.
fn values<T>(
    t: &TableDef,
    cols: &[usize],
    row: &BinlogRow,
    wrap: impl Fn(Value) -> T,
) -> DbResult<Vec<T>> {
    let mut out = Vec::with_capacity(cols.len());
    for (i, &c) in cols.iter().enumerate() {
        let v = row
            .as_ref(i)
            .ok_or_else(|| stop(ErrorCode::GetErrno, "short row image".into()))?;
        out.push(wrap(convert(t, c, v).map_err(|m| {
            stop(ErrorCode::GetErrno, format!("`{}`.`{}`: {m}", t.db, t.name))
        })?));
    }
    Ok(out)
}

/// An inserted row's values read by `PlainRows`, one per column of `cols`, as [`values`] gives
/// them.
fn converted<'v>(
    t: &TableDef,
    cols: &[usize],
    vals: impl Iterator<Item = &'v MyValue>,
) -> DbResult<Vec<Slot>> {
    let mut out = Vec::with_capacity(cols.len());
    for (&c, v) in cols.iter().zip(vals) {
        let v = convert_value(t, c, v)
            .map_err(|m| stop(ErrorCode::GetErrno, format!("`{}`.`{}`: {m}", t.db, t.name)))?;
        out.push(Slot::Val(v));
    }
    Ok(out)
}
