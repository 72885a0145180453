//! One client session: the statement loop ([`Session::execute`]) and prepared statements, over
//! the connection's [`Context`].
//!
//! | module | owns |
//! | --- | --- |
//! | `dispatch` | one `match` over the parsed statement, calling its executor |
//! | `show` | SHOW and DESCRIBE |
//! | `set` | SET |
//! | `transaction` | BEGIN, COMMIT, ROLLBACK, savepoints |
//! | `control` | USE, KILL, FLUSH, CHECKPOINT, LOCK TABLES |
//! | `key_cache` | SET of key-cache parameters, CACHE INDEX, LOAD INDEX |
//!
//! Invariants:
//! * A statement is read once ([`crate::parser::read`]: one pass over the text) and parsed once
//!   ([`crate::parser::parse_statement`]).
//! * A statement is atomic: its changes to the write set are undone if it fails (undo mark).
//! * In autocommit mode a statement's changes are committed when it ends (transaction.rs).
//! * No input panics the session: parsing and execution run under `catch_unwind`; a panic
//!   becomes error 1105 and the statement's changes are dropped.

pub mod control;
pub mod dispatch;
pub mod key_cache;
pub mod set;
pub mod show;
pub mod transaction;

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sqlparser::ast;

use crate::context::{now_utc, Context, Engine};
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::WarningLevel;
use crate::exec::scan::{OutCol, Output, RowSink};
use crate::exec::select;
use crate::parser::statement::Statement;
use crate::parser::{self, split};
use crate::types::value::Value;

/// Largest expression nesting accepted (see split::nesting_cost).
pub const MAX_NESTING: usize = 3000;

/// Nesting above which a statement runs on its own large stack segment.
const DEEP: usize = 64;

pub struct Prepared {
    /// The statement's text (placeholders numbered, executable comments expanded).
    pub sql: String,
    pub params: usize,
}

pub struct Session {
    /// The state statements run in (every layer below the session works on it).
    pub cx: Context,
    pub prepared: HashMap<u32, Prepared>,
}

impl Deref for Session {
    type Target = Context;
    fn deref(&self) -> &Context {
        &self.cx
    }
}

impl DerefMut for Session {
    fn deref_mut(&mut self) -> &mut Context {
        &mut self.cx
    }
}

impl Engine {
    /// A new session for an authenticated connection.
    pub fn session(self: &Arc<Self>, id: u64, user: &str, host: &str) -> Session {
        Session::new(self.clone(), id, user, host)
    }
}

/// What a statement run starts from: its text and what one pass over it found.
struct Run<'a> {
    sql: &'a str,
    nesting: usize,
    reads_diagnostics: bool,
}

impl Session {
    pub fn new(engine: Arc<Engine>, id: u64, user: &str, host: &str) -> Session {
        Session {
            cx: Context::new(engine, id, user, host),
            prepared: HashMap::new(),
        }
    }

    /// Registers a prepared statement; returns its parameter count and, for queries, the
    /// result columns (planned with NULL parameters, no row read).
    pub fn prepare(&mut self, id: u32, sql: &str) -> DbResult<(usize, Vec<OutCol>)> {
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
        let src = parser::read(&numbered);
        let nesting = src.nesting;
        let text = src.text.into_owned();
        let stmt = match stacker::grow(32 << 20, || parser::parse_statement(&text)) {
            // LOAD DATA is not a prepared statement: sqlparser's grammar refuses it, as it did
            // before Betula's grammars were used at PREPARE.
            Ok(Statement::Load(_)) => {
                parser::parse(&text)?;
                None
            }
            Ok(s) => Some(s),
            // Betula's own grammars report their errors at EXECUTE, as before.
            Err(_) if parser::is_own_grammar(&text) => None,
            Err(e) => return Err(e),
        };
        let mut cols = Vec::new();
        if let Some(Statement::Sql(s)) = &stmt {
            if let ast::Statement::Query(q) = &**s {
                self.params = vec![Value::Null; n];
                self.cur_sql = text.clone();
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
        if nesting > DEEP {
            // a deeply nested statement is dropped on a large stack, as it was parsed
            stacker::grow(32 << 20, move || drop(stmt));
        }
        self.prepared.insert(
            id,
            Prepared {
                sql: text,
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
        let src = parser::read(sql);
        let run = Run {
            sql: &src.text,
            nesting: src.nesting,
            reads_diagnostics: src.reads_diagnostics,
        };
        self.run(run, params, input, sink)
    }

    /// Runs one statement: parses it, dispatches it, and keeps the session's
    /// bookkeeping (diagnostics, counters, process list, statement atomicity, autocommit).
    fn run(
        &mut self,
        run: Run<'_>,
        params: &[Value],
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        let sql = run.sql;
        self.engine
            .queries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !run.reads_diagnostics {
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
        let deep = run.nesting > DEEP;
        let nesting = run.nesting;
        let result = catch_unwind(AssertUnwindSafe(|| {
            let go = || -> DbResult<Output> {
                if nesting > MAX_NESTING {
                    return Err(DbError::new(
                        1436,
                        "HY000",
                        format!("Thread stack overrun: the statement nests expressions more than {MAX_NESTING} levels deep"),
                    ));
                }
                let stmt = parser::parse_statement(sql)?;
                dispatch::dispatch(&mut self.cx, stmt, input, sink)
            };
            if deep {
                stacker::grow(32 << 20, go)
            } else {
                go()
            }
        }))
        .unwrap_or_else(|_| {
            Err(DbError::internal(
                "internal error while executing the statement (the statement was rolled back)",
            ))
        });
        self.finish(result, mark)
    }

    /// After a statement: the counters it sets, then commit (autocommit) or undo (error).
    fn finish(&mut self, result: DbResult<Output>, mark: usize) -> DbResult<Output> {
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
}
