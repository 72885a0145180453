//! One client session: the statement loop ([`Session::execute`]) and prepared statements, over
//! the connection's [`Context`].
//!
//! Invariants:
//! * A statement is atomic: its changes to the write set are undone if it fails (undo mark).
//! * In autocommit mode a statement's changes are committed when it ends (transaction.rs).
//! * No input panics the session: execution runs under `catch_unwind`; a panic becomes error
//!   1105 and the statement's changes are dropped.

pub mod admin;
pub mod key_cache;

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sqlparser::ast::Statement;

use crate::context::{now_utc, Context, Engine};
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::WarningLevel;
use crate::exec::scan::{Output, RowSink};
use crate::exec::{dml, select};
use crate::parser::split;
use crate::types::value::Value;

/// Largest expression nesting accepted (see split::nesting_cost).
pub const MAX_NESTING: usize = 3000;

pub struct Prepared {
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

impl Session {
    pub fn new(engine: Arc<Engine>, id: u64, user: &str, host: &str) -> Session {
        Session {
            cx: Context::new(engine, id, user, host),
            prepared: HashMap::new(),
        }
    }

    /// Registers a prepared statement; returns its parameter count and, for queries, the
    /// result columns (planned with NULL parameters, no row read).
    pub fn prepare(
        &mut self,
        id: u32,
        sql: &str,
    ) -> DbResult<(usize, Vec<crate::exec::scan::OutCol>)> {
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
            && !crate::exec::multi_table::is_special(&numbered)
            && !crate::exec::handler::is_special(&numbered)
        {
            let stmts = stacker::grow(32 << 20, || crate::parser::parse(&numbered))?;
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
            expanded = crate::parser::versioned::expand(sql);
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
        if crate::load::parse::is_load(sql) {
            return crate::load::run(self, sql, input);
        }
        if let Some(f) = crate::parser::fast_insert::parse(sql) {
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
        if let Some(r) = crate::exec::handler::special(self, sql) {
            return r;
        }
        if let Some(r) = admin::special(self, sql) {
            return r;
        }
        if let Some(r) = crate::exec::multi_table::special(self, sql) {
            return r;
        }
        let stmts = crate::parser::parse(sql)?;
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
                Statement::Query(q) => select::explain(self, q),
                _ => Err(DbError::unsupported("EXPLAIN of this statement")),
            },
            Statement::Set(s) => admin::set(self, s),
            other => Err(DbError::unsupported(
                other.to_string().chars().take(60).collect::<String>(),
            )),
        }
    }
}
