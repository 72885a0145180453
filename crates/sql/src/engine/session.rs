//! One client session: current database, variables, transaction state, warnings, prepared
//! statements, and the statement loop ([`Session::execute`]).
//!
//! Invariants:
//! * A statement is atomic: its changes to the write set are undone if it fails (undo mark).
//! * In autocommit mode (and outside BEGIN) a statement's changes are committed when it ends
//!   and its row locks are released; inside a transaction they wait for COMMIT/ROLLBACK.
//!   DDL commits the current transaction first, as MySQL does.
//! * No input panics the session: execution runs under `catch_unwind`; a panic becomes error
//!   1105 and the statement's changes are dropped.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

use sqlparser::ast::{self as ast, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Span;

use super::dberror::{DbError, DbResult};
use super::expr::{AggSpec, CompileEnv, Compiler, Expr, Scope};
use super::rows::{Output, RowSink};
use super::store::{LockMode, WriteSet};
use super::{admin, dml, select, split, vars, Engine};
use crate::error::{Warning, WarningLevel};
use crate::temporal::DateTime;
use crate::value::Value;

/// Largest expression nesting accepted (see split::nesting_cost).
pub const MAX_NESTING: usize = 3000;

pub struct Prepared {
    pub sql: String,
    pub params: usize,
}

pub struct Session {
    pub engine: Arc<Engine>,
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub ws: WriteSet,
    pub in_txn: bool,
    holds_lock: Option<LockMode>,
    pub vars: HashMap<String, Value>,
    pub user_vars: HashMap<String, Value>,
    pub warnings: Vec<Warning>,
    pub last_insert_id: u64,
    /// FOUND_ROWS(): the rows the last result set held.
    found_rows: u64,
    /// ROW_COUNT(): the rows the last statement changed, -1 after a result set or an error.
    row_count: i64,
    pub now: DateTime,
    params: Vec<Value>,
    cur_sql: String,
    pub prepared: HashMap<u32, Prepared>,
    /// Plan only (prepare-time metadata): queries return their columns and no rows.
    pub describe_only: bool,
    /// The read view of an explicit REPEATABLE READ transaction (SELECTs read through it;
    /// INSERT/UPDATE/DELETE read the latest committed rows, as InnoDB's locking reads do).
    pub snapshot: Option<betula_storage::Txn>,
    /// Savepoints of the open transaction, oldest first: name and write-set undo mark.
    savepoints: Vec<(String, usize)>,
    /// Open HANDLER cursors (handler.rs).
    pub handlers: super::handler::Handlers,
    /// The session's temporary tables (temp_tables.rs).
    pub temp: super::temp_tables::TempTables,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.ws.clear();
        // After the write set: no buffered change refers to them any more (design.md TMP4).
        self.temp.drop_all(&self.engine.store);
        self.release_lock();
        self.engine.processes.lock().remove(&self.id);
    }
}

pub fn parse(sql: &str) -> DbResult<Vec<Statement>> {
    match Parser::parse_sql(&MySqlDialect {}, sql) {
        Ok(s) => Ok(s),
        // sqlparser rejects some MariaDB syntax: an index type before the column list or an index's
        // KEY_BLOCK_SIZE (index_syntax.rs), `REAL(M,D)` / `DOUBLE PRECISION(M,D)` (synonyms of
        // `DOUBLE(M,D)`), ZEROFILL and `NUMERIC UNSIGNED`; retry with them rewritten.
        Err(e) => {
            let alt = super::index_syntax::rewrite(sql);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = super::tokens::with_double_for_real_digits(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = super::tokens::with_numeric_modifiers_as_types(cur).or(alt);
            match alt {
                Some(alt) => Parser::parse_sql(&MySqlDialect {}, &alt)
                    .map_err(|_| DbError::parse_error(sql, e)),
                None => Err(DbError::parse_error(sql, e)),
            }
        }
    }
}

fn now_utc() -> DateTime {
    let us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    super::functions::from_unix_micros(us - us % 1_000_000).unwrap_or(DateTime::ZERO)
}

impl Session {
    pub fn new(engine: Arc<Engine>, id: u64, user: &str, host: &str) -> Session {
        let vars = engine.globals.read().clone();
        engine.processes.lock().insert(
            id,
            super::ProcInfo {
                user: user.into(),
                host: host.into(),
                db: None,
                info: None,
                started: std::time::Instant::now(),
            },
        );
        Session {
            engine,
            id,
            user: user.into(),
            host: host.into(),
            db: None,
            ws: WriteSet::default(),
            in_txn: false,
            holds_lock: None,
            vars,
            user_vars: HashMap::new(),
            warnings: Vec::new(),
            last_insert_id: 0,
            found_rows: 0,
            row_count: -1,
            now: now_utc(),
            params: Vec::new(),
            cur_sql: String::new(),
            prepared: HashMap::new(),
            describe_only: false,
            snapshot: None,
            savepoints: Vec::new(),
            handlers: Default::default(),
            temp: Default::default(),
        }
    }

    pub fn autocommit(&self) -> bool {
        self.vars
            .get("autocommit")
            .and_then(|v| v.to_f64_lenient())
            .unwrap_or(1.0)
            != 0.0
    }
    pub fn strict(&self) -> bool {
        self.vars
            .get("sql_mode")
            .and_then(super::eval::text_of)
            .is_some_and(|m| m.to_ascii_uppercase().contains("STRICT_"))
    }
    /// True if `sql_mode` contains `mode` (e.g. NO_AUTO_VALUE_ON_ZERO).
    pub fn sql_mode_has(&self, mode: &str) -> bool {
        self.vars
            .get("sql_mode")
            .and_then(super::eval::text_of)
            .is_some_and(|m| m.to_ascii_uppercase().split(',').any(|x| x.trim() == mode))
    }
    /// A numeric session variable (0 if unset or not a number).
    pub fn int_var(&self, name: &str) -> u64 {
        self.vars
            .get(name)
            .and_then(|v| v.to_f64_lenient())
            .map_or(0, |f| f.max(0.0) as u64)
    }
    /// IN_TRANS for the status flags.
    pub fn in_transaction(&self) -> bool {
        self.in_txn || !self.ws.is_empty()
    }

    pub fn use_db(&mut self, db: &str) -> DbResult<()> {
        if !db.eq_ignore_ascii_case("information_schema") && !self.engine.catalog.has_db(db) {
            return Err(DbError::bad_db(db));
        }
        self.check_db_access(db)?;
        self.db = Some(if db.eq_ignore_ascii_case("information_schema") {
            "information_schema".into()
        } else {
            db.to_string()
        });
        if let Some(p) = self.engine.processes.lock().get_mut(&self.id) {
            p.db = self.db.clone();
        }
        Ok(())
    }

    pub fn check_db_access(&self, db: &str) -> DbResult<()> {
        match self.engine.catalog.user(&self.user) {
            Some(u) if u.may_use(db) => Ok(()),
            _ => Err(DbError::access_denied_db(&self.user, &self.host, db)),
        }
    }

    pub fn resolve_table_name(&self, parts: &[String]) -> DbResult<(String, String)> {
        match parts {
            [t] => match &self.db {
                Some(d) => Ok((d.clone(), t.clone())),
                None => Err(DbError::no_db()),
            },
            [d, t] => {
                let d = if d.eq_ignore_ascii_case("information_schema") {
                    "information_schema".to_string()
                } else {
                    d.clone()
                };
                Ok((d, t.clone()))
            }
            _ => Err(DbError::syntax(parts.join("."))),
        }
    }

    fn lock_wait_timeout(&self) -> Duration {
        let secs = self
            .vars
            .get("innodb_lock_wait_timeout")
            .and_then(|v| v.to_f64_lenient())
            .unwrap_or(50.0)
            .clamp(0.0, 1e6);
        Duration::from_secs_f64(secs)
    }

    fn take_schema_lock(&mut self, mode: LockMode) -> DbResult<()> {
        if self.holds_lock == Some(LockMode::Exclusive) || self.holds_lock == Some(mode) {
            return Ok(());
        }
        let timeout = self.lock_wait_timeout();
        if !self
            .engine
            .store
            .schema_lock
            .acquire(self.id, mode, timeout)
        {
            return Err(DbError::lock_timeout());
        }
        self.holds_lock = Some(mode);
        Ok(())
    }

    /// Prepares to change rows: the schema lock shared (no DDL meanwhile) and the storage
    /// transaction that takes the row locks (waits up to innodb_lock_wait_timeout, then 1205).
    pub fn begin_write(&mut self) -> DbResult<()> {
        self.take_schema_lock(LockMode::Shared)?;
        let timeout = self.lock_wait_timeout();
        self.ws.begin(&self.engine.store, timeout)
    }

    /// Prepares to change a table's definition: the schema lock exclusive (waits for writing
    /// transactions to end).
    pub fn begin_ddl(&mut self) -> DbResult<()> {
        self.take_schema_lock(LockMode::Exclusive)
    }

    /// Whether statements run inside a transaction (BEGIN, or autocommit off).
    pub fn in_explicit_or_implicit_txn(&self) -> bool {
        self.in_txn || !self.autocommit()
    }

    /// Locks every key of each tree, present or future, until the transaction ends (a locking
    /// read that no narrower lock covers: locking_read.rs).
    pub fn lock_trees(&mut self, trees: &[String]) -> DbResult<()> {
        self.begin_write()?;
        for t in trees {
            self.ws.lock_tree(&self.engine.store, t)?;
        }
        Ok(())
    }

    /// Locks the key ranges `[lo, hi)` (hi None: to the end) of `tree` until the transaction ends.
    pub fn lock_key_ranges(
        &mut self,
        tree: &str,
        ranges: &[(Vec<u8>, Option<Vec<u8>>)],
    ) -> DbResult<()> {
        self.begin_write()?;
        for (lo, hi) in ranges {
            self.ws
                .lock_range(&self.engine.store, tree, lo, hi.as_deref())?;
        }
        Ok(())
    }
    fn release_lock(&mut self) {
        if self.holds_lock.take().is_some() {
            self.engine.store.schema_lock.release(self.id);
        }
    }

    /// Starts an explicit transaction (BEGIN / START TRANSACTION).
    pub fn begin(&mut self) -> DbResult<()> {
        self.implicit_commit()?;
        self.in_txn = true;
        let rc = self
            .vars
            .get("transaction_isolation")
            .and_then(super::eval::text_of)
            .is_some_and(|v| v.to_ascii_uppercase().starts_with("READ-"));
        if !rc {
            let opts = betula_storage::TxnOptions {
                isolation: betula_storage::Isolation::RepeatableRead,
                ..Default::default()
            };
            self.snapshot = Some(self.engine.store.env().begin(opts)?);
        }
        Ok(())
    }

    fn end_snapshot(&mut self) {
        if let Some(t) = self.snapshot.take() {
            let _ = t.rollback();
        }
    }

    pub fn commit(&mut self) -> DbResult<()> {
        self.savepoints.clear();
        self.end_snapshot();
        let sync = ["betula_commit_sync", "tokudb_commit_sync"]
            .iter()
            .all(|v| !matches!(self.vars.get(*v), Some(crate::value::Value::Int(0))));
        let r = self.ws.flush(&self.engine.store, sync);
        if r.is_err() {
            self.ws.clear();
        }
        self.in_txn = false;
        self.release_lock();
        r
    }
    /// SAVEPOINT: marks the transaction's changes so far (a savepoint of the same name moves here).
    pub fn savepoint(&mut self, name: &str) {
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.savepoints.push((name.to_string(), self.ws.mark()));
    }

    fn find_savepoint(&self, name: &str) -> DbResult<usize> {
        self.savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| DbError::new(1305, "42000", format!("SAVEPOINT {name} does not exist")))
    }

    /// ROLLBACK TO SAVEPOINT: undoes the changes made after it and forgets later savepoints. As in
    /// InnoDB, row locks taken after the savepoint stay held until the transaction ends.
    pub fn rollback_to_savepoint(&mut self, name: &str) -> DbResult<()> {
        let i = self.find_savepoint(name)?;
        let mark = self.savepoints[i].1;
        self.savepoints.truncate(i + 1);
        self.ws.rollback_to(mark);
        Ok(())
    }

    /// RELEASE SAVEPOINT: forgets it and every later one (the changes stay).
    pub fn release_savepoint(&mut self, name: &str) -> DbResult<()> {
        let i = self.find_savepoint(name)?;
        self.savepoints.truncate(i);
        Ok(())
    }

    pub fn rollback(&mut self) {
        self.savepoints.clear();
        self.end_snapshot();
        self.ws.clear();
        self.in_txn = false;
        self.release_lock();
    }

    /// The original text of a span of the current statement.
    pub fn source_text(&self, span: Span) -> Option<String> {
        if span.start.line == 0 {
            return None;
        }
        let offset = |line: u64, col: u64| -> Option<usize> {
            let mut off = 0usize;
            for (i, l) in self.cur_sql.split_inclusive('\n').enumerate() {
                if i as u64 + 1 == line {
                    let by: usize = l.chars().take(col as usize - 1).map(char::len_utf8).sum();
                    return Some(off + by);
                }
                off += l.len();
            }
            None
        };
        let s = offset(span.start.line, span.start.column)?;
        let e = offset(span.end.line, span.end.column)?;
        self.cur_sql.get(s..e).map(|x| x.trim().to_string())
    }

    /// The text of a select item starting at `span.start`: up to the next top-level `,`, `)`
    /// closing an enclosing parenthesis, or clause keyword (FROM, AS, WHERE, ...).
    pub fn item_text(&self, span: Span) -> Option<String> {
        self.item_text_at(span, false)
    }

    /// [`Session::item_text`] of a call whose span starts at its first argument (sqlparser's
    /// `SUBSTRING(s, 1, 2)` spans from `s`): the text from the function name before `(`.
    pub fn call_text(&self, span: Span) -> Option<String> {
        self.item_text_at(span, true)
    }

    fn item_text_at(&self, span: Span, from_call: bool) -> Option<String> {
        if span.start.line == 0 {
            return None;
        }
        let mut off = 0usize;
        for (i, l) in self.cur_sql.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == span.start.line {
                off += l
                    .chars()
                    .take(span.start.column as usize - 1)
                    .map(char::len_utf8)
                    .sum::<usize>();
                break;
            }
            off += l.len();
        }
        if from_call {
            let head = self.cur_sql.get(..off)?.trim_end();
            let head = head.strip_suffix('(')?.trim_end();
            let word = head
                .bytes()
                .rev()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if word == 0 {
                return None;
            }
            off = head.len() - word;
        }
        let text = self.cur_sql.get(off..)?;
        const STOP: &[&str] = &[
            "FROM", "AS", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTO", "FOR",
            "WINDOW", "LOCK",
        ];
        let bytes = text.as_bytes();
        let mut depth = 0i32;
        let mut quote: Option<u8> = None;
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if let Some(q) = quote {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b',' | b';' if depth == 0 => break,
                c if depth == 0
                    && c.is_ascii_alphabetic()
                    && (i == 0
                        || !bytes[i - 1].is_ascii_alphanumeric()
                            && bytes[i - 1] != b'_'
                            && bytes[i - 1] != b'@') =>
                {
                    let end = bytes[i..]
                        .iter()
                        .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                        .map_or(bytes.len(), |p| i + p);
                    let word = text[i..end].to_ascii_uppercase();
                    if i > 0 && STOP.contains(&word.as_str()) {
                        break;
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        let t = text[..i].trim();
        (!t.is_empty()).then(|| t.to_string())
    }

    pub fn compile(&mut self, scope: &Scope, e: &ast::Expr, place: &'static str) -> DbResult<Expr> {
        let mut c = Compiler {
            scope,
            env: self,
            aggs: None,
            insert_scope: None,
            aliases: &[],
            place,
        };
        c.compile(e)
    }
    pub fn compile_agg(
        &mut self,
        scope: &Scope,
        e: &ast::Expr,
        aggs: &mut Vec<AggSpec>,
        aliases: &[(String, Expr)],
        place: &'static str,
    ) -> DbResult<Expr> {
        let mut c = Compiler {
            scope,
            env: self,
            aggs: Some(aggs),
            insert_scope: None,
            aliases,
            place,
        };
        c.compile(e)
    }
    pub fn compile_insert(&mut self, scope: &Scope, e: &ast::Expr) -> DbResult<Expr> {
        let mut c = Compiler {
            scope,
            env: self,
            aggs: None,
            insert_scope: Some(scope),
            aliases: &[],
            place: "field list",
        };
        c.compile(e)
    }

    pub fn warn(&mut self, code: u16, message: impl Into<String>) {
        self.warnings.push(Warning {
            level: WarningLevel::Warning,
            code,
            message: message.into(),
        });
    }

    /// Registers a prepared statement; returns its parameter count and, for queries, the
    /// result columns (planned with NULL parameters, no row read).
    pub fn prepare(&mut self, id: u32, sql: &str) -> DbResult<(usize, Vec<super::OutCol>)> {
        if split::nesting_cost(sql) > MAX_NESTING {
            return Err(DbError::new(
                1436,
                "HY000",
                "Thread stack overrun: the statement nests expressions too deeply",
            ));
        }
        let (numbered, n) = split::number_placeholders(sql.trim().trim_end_matches(';'));
        if split::split_statements(&numbered).len() > 1 {
            return Err(DbError::syntax(sql));
        }
        // Syntax check now for statements sqlparser handles.
        let mut cols = Vec::new();
        if !admin::is_special(&numbered)
            && !super::multi_table::is_special(&numbered)
            && !super::handler::is_special(&numbered)
        {
            let stmts = stacker::grow(32 << 20, || parse(&numbered))?;
            if let Some(Statement::Query(q)) = stmts.first() {
                self.params = vec![Value::Null; n];
                self.cur_sql = numbered.clone();
                self.describe_only = true;
                let r = catch_unwind(AssertUnwindSafe(|| {
                    stacker::grow(32 << 20, || select::run_query(self, q))
                }));
                self.describe_only = false;
                if let Ok(Ok(Output::Rows { cols: c, .. })) = r {
                    cols = c;
                }
            }
        }
        self.prepared.insert(
            id,
            Prepared {
                sql: numbered,
                params: n,
            },
        );
        Ok((n, cols))
    }

    pub fn execute_prepared(&mut self, id: u32, params: &[Value]) -> DbResult<Output> {
        self.execute_prepared_to(id, params, None)
    }

    /// Runs a prepared statement; a query may send its rows to `sink` as it reads them
    /// ([`Output::Sent`]).
    pub fn execute_prepared_to(
        &mut self,
        id: u32,
        params: &[Value],
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        let Some(p) = self.prepared.get(&id) else {
            return Err(DbError::new(
                1243,
                "HY000",
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"),
            ));
        };
        if p.params != params.len() {
            return Err(DbError::new(
                1210,
                "HY000",
                "Incorrect arguments to mysqld_stmt_execute",
            ));
        }
        let sql = p.sql.clone();
        self.execute_inner(&sql, params, None, sink)
    }

    /// Runs one statement (text without the trailing `;`).
    pub fn execute(&mut self, sql: &str, params: &[Value]) -> DbResult<Output> {
        self.execute_with_input(sql, params, None)
    }

    /// Runs one statement; `input` is the client's file for LOAD DATA LOCAL INFILE.
    pub fn execute_with_input(
        &mut self,
        sql: &str,
        params: &[Value],
        input: Option<&mut dyn std::io::Read>,
    ) -> DbResult<Output> {
        self.execute_inner(sql, params, input, None)
    }

    /// Runs one statement; a query may send its rows to `sink` as it reads them instead of
    /// returning them ([`Output::Sent`]), so a large result never sits in memory.
    pub fn execute_to(
        &mut self,
        sql: &str,
        params: &[Value],
        sink: &mut dyn RowSink,
    ) -> DbResult<Output> {
        self.execute_inner(sql, params, None, Some(sink))
    }

    fn execute_inner(
        &mut self,
        sql: &str,
        params: &[Value],
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        let expanded;
        let sql = if sql.contains("/*!") || sql.contains("/*M!") {
            expanded = super::versioned::expand(sql);
            expanded.as_str()
        } else {
            sql
        };
        self.engine
            .queries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let is_show_warnings = {
            let l = sql.trim_start().to_ascii_lowercase();
            l.starts_with("show warnings")
                || l.starts_with("show errors")
                || l.contains("@@warning_count")
                || l.contains("@@error_count")
        };
        if !is_show_warnings {
            self.warnings.clear();
        }
        self.now = now_utc();
        self.params = params.to_vec();
        self.cur_sql = sql.to_string();
        if let Some(p) = self.engine.processes.lock().get_mut(&self.id) {
            p.info = Some(sql.chars().take(100).collect());
            p.started = std::time::Instant::now();
        }
        let mark = self.ws.mark();
        // Deeply nested statements run on their own 32 MiB stack segment (mapped lazily), so
        // accepted expressions (see MAX_NESTING) cannot overflow the connection thread's stack.
        let deep = split::nesting_cost(sql) > 64;
        let result = catch_unwind(AssertUnwindSafe(|| {
            if deep {
                stacker::grow(32 << 20, || self.dispatch(sql, input, sink))
            } else {
                self.dispatch(sql, input, sink)
            }
        }))
        .unwrap_or_else(|_| {
            Err(DbError::internal(
                "internal error while executing the statement (the statement was rolled back)",
            ))
        });
        if let Some(p) = self.engine.processes.lock().get_mut(&self.id) {
            p.info = None;
        }
        match &result {
            Ok(Output::Rows { rows, .. }) => {
                self.found_rows = rows.len() as u64;
                self.row_count = -1;
            }
            Ok(Output::Sent { rows }) => {
                self.found_rows = *rows;
                self.row_count = -1;
            }
            Ok(Output::Done { affected, .. }) => self.row_count = *affected as i64,
            Err(_) => self.row_count = -1,
        }
        if self.int_var("sql_notes") == 0 {
            self.warnings.retain(|w| w.level != WarningLevel::Note);
        }
        match result {
            Ok(out) => {
                if !self.in_txn && self.autocommit() {
                    self.commit()?;
                }
                Ok(out)
            }
            Err(e) => {
                self.ws.rollback_to(mark);
                if e.code == 1205 || e.code == 1213 {
                    // MySQL rolls back the statement on 1205, the transaction on 1213.
                    if e.code == 1213 {
                        self.rollback();
                    }
                }
                if !self.in_txn && self.autocommit() {
                    self.rollback();
                }
                Err(e)
            }
        }
    }

    fn dispatch(
        &mut self,
        sql: &str,
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        if split::nesting_cost(sql) > MAX_NESTING {
            return Err(DbError::new(
                1436,
                "HY000",
                format!("Thread stack overrun: the statement nests expressions more than {MAX_NESTING} levels deep"),
            ));
        }
        if super::load::parse::is_load(sql) {
            return super::load::run(self, sql, input);
        }
        if let Some(f) = super::fast_insert::parse(sql) {
            return dml::run_insert(
                self,
                dml::InsertSpec {
                    table: f.table,
                    replace: f.replace,
                    ignore: f.ignore,
                    columns: f.columns,
                    source: dml::InsertSource::Values(f.rows),
                    on_duplicate: &f.on_duplicate,
                },
            );
        }
        if let Some(r) = super::handler::special(self, sql) {
            return r;
        }
        if let Some(r) = admin::special(self, sql) {
            return r;
        }
        if let Some(r) = super::multi_table::special(self, sql) {
            return r;
        }
        let stmts = parse(sql)?;
        let stmt = match stmts.as_slice() {
            [s] => s,
            [] => return Err(DbError::new(1065, "42000", "Query was empty")),
            _ => return Err(DbError::syntax(sql)),
        };
        match stmt {
            Statement::Query(q) => select::run_query_to(self, q, sink),
            Statement::Insert(i) => dml::insert(self, i),
            Statement::Update(u) => dml::update(self, u),
            Statement::Delete(d) => dml::delete(self, d),
            Statement::CreateTable(ct) => {
                self.implicit_commit()?;
                admin::create_table(self, ct)
            }
            Statement::Explain { statement, .. } => match &**statement {
                Statement::Query(q) => match &*q.body {
                    ast::SetExpr::Select(sel) => {
                        let (limit, offset) = select::limit_of(self, q)?;
                        let order = match q.order_by.as_ref().map(|o| &o.kind) {
                            Some(ast::OrderByKind::Expressions(v)) => v.as_slice(),
                            _ => &[],
                        };
                        select::run_select(self, sel, order, limit, offset, true)
                    }
                    _ => Err(DbError::unsupported("EXPLAIN of this query")),
                },
                _ => Err(DbError::unsupported("EXPLAIN of this statement")),
            },
            Statement::Set(s) => admin::set(self, s),
            other => Err(DbError::unsupported(
                other.to_string().chars().take(60).collect::<String>(),
            )),
        }
    }

    /// DDL and other statements that commit the current transaction first.
    pub fn implicit_commit(&mut self) -> DbResult<()> {
        if self.in_transaction() {
            self.commit()?;
        }
        Ok(())
    }

    pub(crate) fn sysvar_value(&self, name: &str, global: bool) -> Option<Value> {
        let n = name.to_ascii_lowercase();
        match n.as_str() {
            "warning_count" => return Some(Value::Int(self.warnings.len() as i64)),
            "error_count" => return Some(Value::Int(0)),
            "last_insert_id" | "identity" => return Some(Value::UInt(self.last_insert_id)),
            "pseudo_thread_id" => return Some(Value::Int(self.id as i64)),
            "timestamp" => {
                return Some(Value::Int(self.now.unix_micros().unwrap_or(0) / 1_000_000))
            }
            _ => {}
        }
        if global {
            self.engine.globals.read().get(&n).cloned()
        } else {
            self.vars.get(&n).cloned()
        }
    }
}

impl CompileEnv for Session {
    fn warn(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn system_var(&mut self, name: &str, global: bool) -> DbResult<Value> {
        self.sysvar_value(name, global)
            .ok_or_else(|| DbError::unknown_var(name))
    }
    fn user_var(&mut self, name: &str) -> Value {
        self.user_vars
            .get(&name.to_ascii_lowercase())
            .cloned()
            .unwrap_or(Value::Null)
    }
    fn param(&mut self, index: usize) -> DbResult<Value> {
        self.params
            .get(index)
            .cloned()
            .ok_or_else(|| DbError::syntax("?"))
    }
    fn subquery(&mut self, q: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
        let saved = std::mem::take(&mut self.cur_sql);
        let r = select::run_query(self, q);
        self.cur_sql = saved;
        match r? {
            Output::Rows { rows, .. } => Ok(rows),
            _ => Ok(vec![]),
        }
    }
    fn session_fn(&mut self, name: &str, args: &[Value]) -> Option<DbResult<Value>> {
        let t = |s: String| Some(Ok(Value::Text(s)));
        match (name, args.len()) {
            ("DATABASE" | "SCHEMA", 0) => {
                Some(Ok(self.db.clone().map(Value::Text).unwrap_or(Value::Null)))
            }
            ("VERSION", 0) => t(vars::version()),
            ("CONNECTION_ID", 0) => Some(Ok(Value::UInt(self.id))),
            ("LAST_INSERT_ID", 0) => Some(Ok(Value::UInt(self.last_insert_id))),
            ("LAST_INSERT_ID", 1) => {
                let v = args[0].to_f64_lenient().unwrap_or(0.0) as u64;
                self.last_insert_id = v;
                Some(Ok(Value::UInt(v)))
            }
            ("USER" | "SESSION_USER" | "SYSTEM_USER", 0) => {
                t(format!("{}@{}", self.user, self.host))
            }
            ("CURRENT_USER", 0) => t(format!("{}@%", self.user)),
            (
                "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
                | "UTC_TIMESTAMP",
                0,
            ) => Some(Ok(Value::DateTime(self.now))),
            ("NOW" | "CURRENT_TIMESTAMP" | "SYSDATE", 1) => Some(Ok(Value::DateTime(self.now))),
            ("CURDATE" | "CURRENT_DATE" | "UTC_DATE", 0) => Some(Ok(Value::Date(self.now.date))),
            ("CURTIME" | "CURRENT_TIME" | "UTC_TIME", 0) => Some(Ok(
                crate::temporal::Time::from_micros(self.now.micros as i64)
                    .map(Value::Time)
                    .unwrap_or(Value::Null),
            )),
            ("UNIX_TIMESTAMP", 0) => Some(Ok(Value::Int(
                self.now.unix_micros().unwrap_or(0) / 1_000_000,
            ))),
            ("FOUND_ROWS", 0) => Some(Ok(Value::UInt(self.found_rows))),
            ("ROW_COUNT", 0) => Some(Ok(Value::Int(self.row_count))),
            ("RAND", _) => {
                let x = (self
                    .now
                    .micros
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(self.id))
                    >> 11;
                Some(Ok(Value::Double((x % 1_000_000) as f64 / 1e6)))
            }
            ("UUID", 0) => t(format!(
                "{:08x}-{:04x}-1{:03x}-8000-{:012x}",
                self.now.micros as u32,
                self.id as u16,
                (self.now.micros >> 32) as u16 & 0xfff,
                self.engine
                    .queries
                    .load(std::sync::atomic::Ordering::Relaxed)
            )),
            _ => None,
        }
    }
}
