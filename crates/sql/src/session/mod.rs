//! One client session: the statement loop ([`Session::execute`]) and prepared statements, over
//! the connection's [`Context`].
//!
//! | module | owns |
//! | --- | --- |
//! | `dispatch` | one `match` over the parsed statement, calling its executor |
//! | `show` | SHOW and DESCRIBE |
//! | `set` | SET |
//! | `transaction` | BEGIN, COMMIT, ROLLBACK, savepoints |
//! | `control` | USE, KILL, SHUTDOWN, FLUSH, CHECKPOINT |
//! | `locking` | LOCK / UNLOCK TABLES, FLUSH TABLES WITH READ LOCK, the lock checks before a statement |
//! | `backup` | BACKUP TO |
//! | `key_cache` | SET of key-cache parameters, CACHE INDEX, LOAD INDEX |
//! | `sql_prepare` | PREPARE, EXECUTE [IMMEDIATE], DEALLOCATE / DROP PREPARE in SQL |
//! | `insert_values` | an INSERT of rows given as values (the replica applier's) |
//!
//! Invariants:
//! * A statement is read once ([`crate::parser::read`]: one pass over the text) and parsed once
//!   ([`crate::parser::parse_statement`]); a prepared statement is parsed at PREPARE and each
//!   EXECUTE runs that parse with its parameters.
//! * A prepared statement's planning memo (context/plan_memo.rs) is lent to the context only
//!   while one of its binary-protocol executions runs (design.md PLC1).
//! * A statement is atomic: its changes to the write set are undone if it fails (undo mark).
//! * In autocommit mode a statement's changes are committed when it ends (transaction.rs).
//! * No input panics the session: parsing and execution run under `catch_unwind`; a panic
//!   becomes error 1105 and the statement's changes are dropped.
//! * A statement starts by forgetting a KILL QUERY sent while the connection was idle
//!   (context/interrupt.rs); a killed statement fails (1317, 1927) and is undone like any other.

pub mod backup;
pub mod binlog_admin;
mod binlog_ddl;
pub mod control;
pub mod dispatch;
mod insert_values;
pub mod key_cache;
pub mod locking;
pub mod rollup_guard;
pub mod set;
pub mod show;
mod sql_prepare;
pub mod transaction;

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sqlparser::ast;

use crate::context::metrics::StatementKind;
use crate::context::plan_memo::PlanMemo;
use crate::context::{now_utc_with_micros, Context, Engine};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::WarningLevel;
use crate::exec::query;
use crate::parser::statement::Statement;
use crate::parser::{self, split};
use crate::result::{OutCol, Output, RowSink};
use crate::types::value::Value;

/// Largest expression nesting accepted (see split::nesting_cost).
pub const MAX_NESTING: usize = 3000;

/// Nesting above which a statement runs on its own large stack segment.
const DEEP: usize = 64;

pub struct Prepared {
    /// The statement's text (placeholders numbered, executable comments expanded).
    pub sql: String,
    pub params: usize,
    parsed: Parsed,
    reads_diagnostics: bool,
    /// What planning keeps between runs (context/plan_memo.rs); lent to the context while the
    /// statement runs.
    memo: Option<Box<PlanMemo>>,
}

/// A statement parsed at PREPARE (`stmt` is `None` for a statement of Betula's own grammars
/// that did not parse: EXECUTE reads the text again and reports its error, as it did before
/// PREPARE parsed them). A deeply nested statement is copied and dropped on a large stack, as
/// it is parsed: the recursion would overflow the connection thread's.
struct Parsed {
    stmt: Option<Arc<Statement>>,
    nesting: usize,
}

impl Prepared {
    /// The text and the parse a run of this statement starts from.
    fn for_run(&self) -> (String, RunStatement) {
        let stmt = match &self.parsed.stmt {
            Some(s) => RunStatement::Prepared(s.clone()),
            None => RunStatement::No,
        };
        (self.sql.clone(), stmt)
    }
}

impl Drop for Parsed {
    fn drop(&mut self) {
        if let Some(s) = self.stmt.take() {
            if self.nesting > DEEP {
                stacker::grow(32 << 20, move || drop(s));
            }
        }
    }
}

pub struct Session {
    /// The state statements run in (every layer below the session works on it).
    pub cx: Context,
    pub prepared: HashMap<u32, Prepared>,
    /// Statements prepared by `PREPARE name FROM ...` (sql_prepare.rs), by lower-case name.
    named: HashMap<String, Prepared>,
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

/// What a statement run starts from: its text and what one pass over it found, and the
/// statement if it was parsed already (prepared).
struct Run<'a> {
    sql: &'a str,
    nesting: usize,
    reads_diagnostics: bool,
    stmt: RunStatement,
}

/// The statement of a run, if it was parsed before the run.
enum RunStatement {
    /// Not yet: the run parses its text.
    No,
    /// A prepared statement (shared: it runs again).
    Prepared(Arc<Statement>),
    /// Parsed for this run only (a literal-only INSERT read by the fast parser).
    Once(Statement),
}

impl Session {
    pub fn new(engine: Arc<Engine>, id: u64, user: &str, host: &str) -> Session {
        Session {
            cx: Context::new(engine, id, user, host),
            prepared: HashMap::new(),
            named: HashMap::new(),
        }
    }

    /// Registers a prepared statement; returns its parameter count and, for queries, the
    /// result columns (planned with NULL parameters, no row read).
    pub fn prepare(&mut self, id: u32, sql: &str) -> DbResult<(usize, Vec<OutCol>)> {
        let (p, cols) = self.prepare_text(sql)?;
        let n = p.params;
        self.prepared.insert(id, p);
        Ok((n, cols))
    }

    /// Parses `sql` as a prepared statement (COM_STMT_PREPARE, and `PREPARE ... FROM` in SQL:
    /// sql_prepare.rs); returns it and, for queries, the result columns.
    fn prepare_text(&mut self, sql: &str) -> DbResult<(Prepared, Vec<OutCol>)> {
        let too_deep = || {
            DbError::new(
                ErrorCode::StackOverrunNeedMore,
                "Thread stack overrun: the statement nests expressions too deeply",
            )
        };
        if split::nesting_cost(sql) > MAX_NESTING {
            return Err(too_deep());
        }
        let (numbered, n) = split::number_placeholders(sql.trim().trim_end_matches(';'));
        if split::split_statements(&numbered).len() > 1 {
            return Err(DbError::syntax(sql));
        }
        let src = parser::read(&numbered);
        let (nesting, reads_diagnostics) = (src.nesting, src.reads_diagnostics);
        if nesting > MAX_NESTING {
            // nesting inside executable comments (their text is code)
            return Err(too_deep());
        }
        let text = src.text.into_owned();
        self.outer_frames.clear();
        let parsed = Parsed {
            stmt: match stacker::grow(32 << 20, || parser::parse_statement(&text)) {
                // LOAD DATA is not a prepared statement: sqlparser's grammar refuses it, as
                // it did before Betula's grammars were used at PREPARE.
                Ok(Statement::Load(_)) => {
                    parser::parse(&text)?;
                    None
                }
                Ok(s) => Some(Arc::new(s)),
                Err(_) if parser::is_own_grammar(&text) => None,
                Err(e) => return Err(e),
            },
            nesting,
        };
        let mut cols = Vec::new();
        if let Some(Statement::Sql(s)) = parsed.stmt.as_deref() {
            if let ast::Statement::Query(q) = &**s {
                self.params = vec![Value::Null; n];
                self.cur_sql = text.clone();
                let r = catch_unwind(AssertUnwindSafe(|| {
                    stacker::grow(32 << 20, || query::describe(self, q))
                }));
                if let Ok(Ok(c)) = r {
                    cols = c;
                }
            }
        }
        let p = Prepared {
            sql: text,
            params: n,
            parsed,
            reads_diagnostics,
            memo: Some(Box::default()),
        };
        Ok((p, cols))
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
        let Some(p) = self.prepared.get_mut(&id) else {
            return Err(DbError::new(
                ErrorCode::UnknownStmtHandler,
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"),
            ));
        };
        if p.params != params.len() {
            return Err(DbError::new(
                ErrorCode::WrongArguments,
                "Incorrect arguments to mysqld_stmt_execute",
            ));
        }
        let (sql, stmt) = p.for_run();
        let run = Run {
            sql: &sql,
            nesting: p.parsed.nesting,
            reads_diagnostics: p.reads_diagnostics,
            stmt,
        };
        // The memo is the statement's: lent to the context for this run only (PLC1).
        self.cx.plan_memo = p.memo.take();
        let out = self.run(run, params, None, sink);
        let memo = self.cx.plan_memo.take();
        if let Some(p) = self.prepared.get_mut(&id) {
            p.memo = memo;
        }
        out
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
        if let Some(cmd) = sql_prepare::parse(sql) {
            return self.sql_prepared(cmd?, input, sink);
        }
        // A literal-only INSERT (bulk ingest) needs none of what the pass over the text finds: it
        // holds no comments, executable or not, nests nothing and reads no diagnostics.
        if let Some(insert) = parser::fast_insert::parse(sql) {
            let run = Run {
                sql,
                nesting: 1,
                reads_diagnostics: false,
                stmt: RunStatement::Once(Statement::Insert(Box::new(insert))),
            };
            return self.run(run, params, input, sink);
        }
        let src = parser::read(sql);
        let run = Run {
            sql: &src.text,
            nesting: src.nesting,
            reads_diagnostics: src.reads_diagnostics,
            stmt: RunStatement::No,
        };
        self.run(run, params, input, sink)
    }

    /// Runs one statement: parses it (unless prepared), dispatches it, and keeps the session's
    /// bookkeeping (diagnostics, counters, process list, statement atomicity, autocommit).
    fn run(
        &mut self,
        run: Run<'_>,
        params: &[Value],
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        let sql = run.sql;
        let began = std::time::Instant::now();
        self.engine
            .queries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !run.reads_diagnostics {
            self.warnings.clear();
        }
        crate::error::pending::clear();
        crate::expr::eval::div_zero::set(self.cx.div_zero_base());
        (self.now_utc, self.now_micros) = now_utc_with_micros();
        self.now = self.time_zone.utc_to_local(self.now_utc);
        crate::types::time_on_date::set_statement_date(self.now.date);
        self.params = params.to_vec();
        self.cur_sql = sql.to_string();
        self.assigns_user_vars = crate::parser::assigns_user_vars(sql);
        // Left over only by a statement that panicked inside a subquery (exec/subqueries.rs).
        self.outer_frames.clear();
        // Left by the previous statement (routine/): its result sets were sent, its routines ended.
        self.routine_stack.clear();
        self.routine_results.clear();
        self.undo_to = None;
        self.outer_miss = None;
        if let Some(p) = self.engine.processes.lock().get_mut(&self.id) {
            p.info = Some(sql.chars().take(100).collect());
            p.started = std::time::Instant::now();
        }
        let mark = self.ws.mark();
        // Deeply nested statements run on their own 32 MiB stack segment (mapped lazily), so
        // accepted expressions (see MAX_NESTING) cannot overflow the connection thread's stack.
        let deep = run.nesting > DEEP;
        let (nesting, stmt) = (run.nesting, run.stmt);
        // A statement that does not parse counts as `Other`.
        let mut kind = StatementKind::Other;
        let result = catch_unwind(AssertUnwindSafe(|| {
            let go = || -> DbResult<Output> {
                self.cx.interrupt.statement_starts()?;
                if nesting > MAX_NESTING {
                    return Err(DbError::new(
                        ErrorCode::StackOverrunNeedMore,
                        format!("Thread stack overrun: the statement nests expressions more than {MAX_NESTING} levels deep"),
                    ));
                }
                let stmt = match stmt {
                    RunStatement::Once(s) => s,
                    RunStatement::Prepared(s) => {
                        kind = StatementKind::of(&s);
                        return dispatch::dispatch_prepared(&mut self.cx, &s, input, sink);
                    }
                    RunStatement::No => parser::parse_statement(sql)?,
                };
                kind = StatementKind::of(&stmt);
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
        // A CALL whose statement failed keeps the earlier statements' changes (RTN4).
        let mark = self.cx.undo_to.take().unwrap_or(mark);
        let out = self.finish(result, mark);
        self.cx.engine.metrics.rows.absorb(&mut self.cx.tally);
        // After the autocommit: a statement's latency includes its commit.
        self.engine
            .metrics
            .statement(kind, began.elapsed(), out.is_err());
        out
    }

    /// After a statement: the counters it sets, then commit (autocommit) or undo (error). A
    /// statement of a connection killed meanwhile fails with 1927, whatever it did.
    fn finish(&mut self, result: DbResult<Output>, mark: crate::store::Mark) -> DbResult<Output> {
        let out = self.finish_statement(result, mark);
        // After the autocommit: the statement no longer holds off a global read lock (TLK4).
        self.engine.table_locks.end_statement(self.id);
        out
    }

    fn finish_statement(
        &mut self,
        result: DbResult<Output>,
        mark: crate::store::Mark,
    ) -> DbResult<Output> {
        if let Some(p) = self.engine.processes.lock().get_mut(&self.id) {
            p.info = None;
        }
        self.progress.clear();
        let result = match result {
            Err(e) if e.code == ErrorCode::ConnectionKilled => Err(e),
            _ if self.interrupt.connection_killed() => Err(DbError::new(
                ErrorCode::ConnectionKilled,
                "Connection was killed",
            )),
            r => r,
        };
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
        self.warnings.extend(crate::error::pending::take());
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
                if e.code == ErrorCode::LockWaitTimeout || e.code == ErrorCode::LockDeadlock {
                    // MySQL rolls back the statement on 1205, the transaction on 1213.
                    if e.code == ErrorCode::LockDeadlock {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(dir: &std::path::Path) -> Arc<Engine> {
        Engine::open_for_test(dir)
    }

    fn code(r: DbResult<impl std::fmt::Debug>) -> ErrorCode {
        r.map(|o| panic!("expected an error, got {o:?}"))
            .unwrap_err()
            .code
    }

    fn rows(out: Output) -> Vec<Vec<Value>> {
        match out {
            Output::Rows { rows, .. } => rows,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_prepared_statement_is_parsed_once_and_runs_again() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(dir.path());
        let mut s = e.session(1, "root", "localhost");
        s.execute("USE test", &[]).unwrap();
        s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)", &[])
            .unwrap();
        assert_eq!(s.prepare(1, "INSERT INTO t VALUES (?, ?)").unwrap().0, 2);
        for (id, v) in [(1, 10), (2, 20)] {
            s.execute_prepared(1, &[Value::Int(id), Value::Int(v)])
                .unwrap();
        }
        let (n, cols) = s.prepare(2, "SELECT v FROM t WHERE id = ?;").unwrap();
        assert_eq!((n, cols.len()), (1, 1));
        assert!(s.prepared[&2].parsed.stmt.is_some());
        for (id, v) in [(2, 20), (1, 10)] {
            let out = s.execute_prepared(2, &[Value::Int(id)]).unwrap();
            assert_eq!(rows(out), vec![vec![Value::Int(v)]]);
        }
        // Betula's own grammars report a syntax error at EXECUTE (as before PREPARE parsed
        // them), sqlparser's at PREPARE; LOAD DATA is not a prepared statement.
        s.prepare(3, "SHOW TABLES junk").unwrap();
        assert_eq!(code(s.execute_prepared(3, &[])), ErrorCode::ParseError);
        assert_eq!(code(s.prepare(4, "SELEC 1")), ErrorCode::ParseError);
        assert_eq!(
            code(s.prepare(5, "LOAD DATA INFILE 'f' INTO TABLE t")),
            ErrorCode::ParseError
        );
        // a prepared SHOW WARNINGS shows the previous statement's warnings
        s.prepare(6, "SHOW WARNINGS").unwrap();
        s.execute("DROP TABLE IF EXISTS nope", &[]).unwrap();
        assert_eq!(rows(s.execute_prepared(6, &[]).unwrap()).len(), 1);
        assert_eq!(
            code(s.execute_prepared(7, &[])),
            ErrorCode::UnknownStmtHandler
        );
        assert_eq!(code(s.execute_prepared(2, &[])), ErrorCode::WrongArguments);
    }

    #[test]
    fn deep_prepared_statements_are_copied_and_dropped_on_a_large_stack() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(dir.path());
        // a connection thread's stack
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let mut s = e.session(1, "root", "localhost");
                let long = format!("SELECT {}", vec!["1"; 2500].join("+"));
                s.prepare(1, &long).unwrap();
                for _ in 0..2 {
                    let out = s.execute_prepared(1, &[]).unwrap();
                    assert_eq!(rows(out), vec![vec![Value::Int(2500)]]);
                }
                s.prepare(1, &long).unwrap();
                s.prepared.remove(&1);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn nesting_hidden_in_an_executable_comment_is_refused_at_prepare() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(dir.path());
        let mut s = e.session(1, "root", "localhost");
        let huge = format!("SELECT /*!40101 {} */", vec!["1"; 100_000].join("+"));
        assert_eq!(code(s.execute(&huge, &[])), ErrorCode::StackOverrunNeedMore);
        assert_eq!(code(s.prepare(1, &huge)), ErrorCode::StackOverrunNeedMore);
    }
}
