//! [`Context`]: the state a connection's statements run in: the engine it shares with every
//! other connection, its user, current database, variables, warnings, transaction (write set,
//! row locks, snapshot, savepoints), temporary tables and HANDLER cursors. Every layer below
//! the session's statement loop works on a `Context`, never on the session.
//!
//! | module | owns |
//! | --- | --- |
//! | `engine` | [`Engine`]: the state every connection shares (store, catalog, globals, process list) |
//! | `auto_inc` | persisting AUTO_INCREMENT counters before commits and DDL |
//! | `binlog_commit` | the binary log: switching it on, its variables, what commits and DDL log |
//! | `charset_defaults` | the server's and databases' default collations, their variables |
//! | `cte_scope` | the common table expressions bound while a query is planned |
//! | `interrupt` | KILL's flag, the server's hooks for KILL CONNECTION and SHUTDOWN |
//! | `transaction` | BEGIN/COMMIT/ROLLBACK, savepoints, the schema lock, row-lock helpers |
//! | `source_text` | the statement text behind a span (select items are named after it) |
//! | `session_functions` | functions whose value comes from the connection (NOW, DATABASE, ...) |
//! | `variables`, `optimizer_switch` | system variables: defaults, types, the optimizer_switch list |
//! | `plan_memo` | what a prepared statement's planning keeps between runs, and when it holds |
//! | `temp_tables` | CREATE TEMPORARY TABLE: the connection's private tables |
//! | `key_caches` | named key caches' parameters (engine-wide, kept for MariaDB scripts) |
//! | `metrics` | counters for monitoring: rows, connections, commits, statements by kind and latency |
//! | `status` | MariaDB's status counters kept per connection and summed (SHOW [GLOBAL] STATUS) |
//! | `table_locks` | LOCK TABLES, the global read lock and tables' write uses, across sessions |
//!
//! Invariant: a context registers itself in the engine's process list when it is made and
//! removes itself when dropped, after clearing its write set and dropping its temporary tables.

pub mod auto_inc;
pub mod binlog_commit;
pub mod charset_defaults;
pub mod connection_charset;
pub mod cte_scope;
pub mod engine;
pub mod handlers;
pub mod interrupt;
pub mod key_caches;
pub mod metrics;
pub mod optimizer_switch;
pub mod plan_memo;
pub mod progress;
pub mod session_functions;
pub mod source_text;
pub mod status;
pub mod table_locks;
pub mod temp_tables;
pub mod transaction;
pub mod variables;

use std::collections::HashMap;
use std::sync::Arc;

use sqlparser::ast;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::{AggSpec, Compiler, Expr, Scope};
use crate::store::{LockMode, WriteSet};
use crate::types::temporal::DateTime;
use crate::types::time_zone::TimeZone;
use crate::types::value::Value;
pub use engine::Engine;

pub struct Context {
    pub engine: Arc<Engine>,
    /// Rows the running statement wrote (added to the engine's counters when it ends).
    pub tally: metrics::RowTally,
    pub id: u64,
    pub user: String,
    pub host: String,
    /// The account the connection was matched to (design.md ACC3): its user name (empty for an
    /// anonymous account) and host pattern; CURRENT_USER() and privileges are this account's.
    pub account_user: String,
    pub account_host: String,
    pub db: Option<String>,
    pub ws: WriteSet,
    pub in_txn: bool,
    /// The running INSERT, the first change of an explicit transaction, may take the
    /// set-oriented path (design.md SES10); set for one statement by `Session::insert_values`.
    pub batch_in_txn: bool,
    pub(crate) holds_lock: Option<LockMode>,
    pub vars: HashMap<String, Value>,
    /// The connection's character sets (connection_charset.rs; mirrored in `vars`).
    pub charsets: connection_charset::ConnectionCharsets,
    pub user_vars: crate::expr::UserVars,
    /// The running statement assigns user variables (`@v := expr`): its reads of them are
    /// slots read as it runs (expr/user_var.rs), not values fixed when it is compiled.
    pub assigns_user_vars: bool,
    pub warnings: Vec<Warning>,
    pub last_insert_id: u64,
    /// FOUND_ROWS(): the rows the last result set held.
    pub found_rows: u64,
    /// ROW_COUNT(): the rows the last statement changed, -1 after a result set or an error.
    pub row_count: i64,
    /// The statement's start in the session's time zone (NOW(), CURRENT_TIMESTAMP, defaults).
    pub now: DateTime,
    /// The statement's start in UTC (UTC_TIMESTAMP(), UNIX_TIMESTAMP()).
    pub now_utc: DateTime,
    /// The client negotiated CLIENT_FOUND_ROWS: UPDATE reports the rows it matched, not the
    /// rows it changed.
    pub client_found_rows: bool,
    /// The microseconds of the statement's start within its second (NOW(6), CURTIME(3), ...);
    /// `now` and `now_utc` hold whole seconds.
    pub now_micros: u32,
    /// The session's `time_zone`, resolved (types/time_zone).
    pub time_zone: TimeZone,
    /// The statement's `?` parameter values.
    pub params: Vec<Value>,
    /// The statement's text (select items are named after it: source_text.rs).
    pub cur_sql: String,
    /// The read view of an explicit REPEATABLE READ transaction (SELECTs read through it;
    /// INSERT/UPDATE/DELETE read the latest committed rows, as InnoDB's locking reads do).
    pub snapshot: Option<betula_storage::Txn>,
    /// Savepoints of the open transaction, oldest first: name and write-set undo mark.
    pub(crate) savepoints: Vec<(String, crate::store::Mark)>,
    /// Open HANDLER cursors (handler.rs).
    pub handlers: handlers::Handlers,
    /// The session's temporary tables (temp_tables.rs).
    pub temp: crate::context::temp_tables::TempTables,
    /// The session's LOCK TABLES list while one is in effect (table_locks.rs; the engine's copy is what
    /// other sessions see).
    pub locked_tables: Option<Vec<table_locks::HeldLock>>,
    /// Export directories of FLUSH TABLES ... FOR EXPORT, removed when its locks go.
    pub export_dirs: Vec<std::path::PathBuf>,
    /// Set by KILL from another connection (interrupt.rs).
    pub interrupt: interrupt::Interrupt,
    /// The running statement's progress report (progress.rs), shared with the process list.
    pub progress: Arc<progress::Progress>,
    /// The common table expressions bound while a query is planned (plan/cte.rs).
    pub ctes: Vec<cte_scope::CteBinding>,
    /// The views being expanded while a query is planned, outermost first (plan/view.rs,
    /// design.md VIEW3, VIEW5).
    pub view_chain: Vec<(String, String)>,
    /// The running prepared statement's planning memo (plan_memo.rs); `None` for a statement
    /// run from its text.
    pub plan_memo: Option<Box<plan_memo::PlanMemo>>,
    /// While an INSERT through a view with a check option runs: the condition every row it
    /// completes must pass, and the view's database and name (exec/dml/view_target.rs).
    pub view_check: Option<(crate::expr::Expr, String, String)>,
    /// The statement (database, text) the open transaction's changes are logged as instead of
    /// rows, for changes the write set cannot show row by row (the retention's range deletes,
    /// design.md RET7); cleared when the transaction ends.
    pub binlog_statement: Option<(String, String)>,
    /// The enclosing queries of the subquery being compiled or run, innermost last
    /// (expr/correlated.rs, exec/subqueries.rs).
    pub outer_frames: Vec<crate::expr::correlated::OuterFrame>,
    /// The frame whose row a name needed while that row was not known yet (a subquery being
    /// compiled is correlated to it).
    pub outer_miss: Option<usize>,
    /// Names resolved in an enclosing query so far.
    pub outer_reads: usize,
    /// Those of them in a query of more than one row (not [`crate::expr::Scope::one_row`]).
    pub outer_reads_many: usize,
    /// While EXPLAIN plans a query: the EXPLAIN rows of each uncorrelated subquery, run once
    /// as its expression is compiled (exec/query.rs), in the order they were met; None
    /// otherwise.
    pub explained_subqueries: Option<Vec<Vec<Vec<Value>>>>,
    /// The connection's status counters (status.rs).
    pub status: status::SessionStatus,
    /// The connection's TLS parameters (None: a plain connection).
    pub tls: Option<status::TlsStatus>,
    /// The stored routines running or being expanded, outermost first (routine/, design.md
    /// RTN5).
    pub routine_stack: Vec<(crate::catalog::routine_def::RoutineKind, String, String)>,
    /// The result sets a CALL's body produced, sent before the CALL's own OK (RTN3).
    pub routine_results: Vec<crate::result::Output>,
    /// Set by a CALL whose statement failed after earlier ones kept their changes: where the
    /// session undoes the CALL to (RTN4).
    pub undo_to: Option<crate::store::Mark>,
}

impl Drop for Context {
    fn drop(&mut self) {
        self.ws.clear();
        // After the write set: no buffered change refers to them any more (design.md TMP4).
        self.temp.drop_all(&self.engine.store);
        self.release_lock();
        self.remove_exports();
        self.engine.table_locks.end_session(self.id);
        self.engine.processes.lock().remove(&self.id);
    }
}

/// The current time, truncated to whole seconds (NOW() and CURRENT_TIMESTAMP without a precision).
pub fn now_utc() -> DateTime {
    now_utc_with_micros().0
}

/// The current UTC time in whole seconds, and the microseconds within that second.
pub fn now_utc_with_micros() -> (DateTime, u32) {
    let us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    let whole = crate::expr::functions::from_unix_micros(us - us % 1_000_000);
    (whole.unwrap_or(DateTime::ZERO), (us % 1_000_000) as u32)
}

impl Context {
    pub fn new(engine: Arc<Engine>, id: u64, user: &str, host: &str) -> Context {
        let vars = engine.globals.read().clone();
        let time_zone = vars
            .get("time_zone")
            .and_then(crate::expr::eval::text_of)
            .and_then(|z| TimeZone::parse(&z))
            .unwrap_or_default();
        let now = now_utc();
        let interrupt = interrupt::Interrupt::default();
        let progress = Arc::new(progress::Progress::default());
        engine.processes.lock().insert(
            id,
            crate::context::engine::ProcInfo {
                user: user.into(),
                host: host.into(),
                db: None,
                info: None,
                started: std::time::Instant::now(),
                interrupt: interrupt.clone(),
                progress: progress.clone(),
            },
        );
        let mut cx = Context {
            engine,
            tally: Default::default(),
            id,
            user: user.into(),
            host: host.into(),
            account_user: user.into(),
            account_host: "%".into(),
            db: None,
            ws: WriteSet::with_cancel(interrupt.wait_cancel()),
            in_txn: false,
            batch_in_txn: false,
            holds_lock: None,
            vars,
            charsets: Default::default(),
            user_vars: Default::default(),
            assigns_user_vars: false,
            warnings: Vec::new(),
            last_insert_id: 0,
            found_rows: 0,
            row_count: -1,
            now: time_zone.utc_to_local(now),
            now_utc: now,
            now_micros: 0,
            client_found_rows: false,
            time_zone,
            params: Vec::new(),
            cur_sql: String::new(),
            snapshot: None,
            savepoints: Vec::new(),
            handlers: Default::default(),
            temp: Default::default(),
            locked_tables: None,
            export_dirs: Vec::new(),
            interrupt,
            progress,
            ctes: Vec::new(),
            view_chain: Vec::new(),
            plan_memo: None,
            view_check: None,
            binlog_statement: None,
            outer_frames: Vec::new(),
            outer_miss: None,
            outer_reads: 0,
            outer_reads_many: 0,
            explained_subqueries: None,
            status: Default::default(),
            tls: None,
            routine_stack: Vec::new(),
            routine_results: Vec::new(),
            undo_to: None,
        };
        cx.refresh_database_charset();
        cx.set_connection_charsets(Default::default());
        cx
    }

    /// Removes the export directories of this session's FLUSH TABLES ... FOR EXPORT (best effort: one
    /// that cannot be removed is replaced by the next export of its table).
    pub fn remove_exports(&mut self) {
        for dir in self.export_dirs.drain(..) {
            let _ = std::fs::remove_dir_all(dir);
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
        self.sql_modes().strict()
    }

    /// Division by zero while a statement stores values (INSERT, REPLACE, UPDATE, CREATE TABLE
    /// ... SELECT), until the guard drops: error 1365 in strict mode with
    /// ERROR_FOR_DIVISION_BY_ZERO unless IGNORE, else as the statement began (expr/eval/div_zero.rs).
    #[must_use]
    pub fn storing_values(&self, ignore: bool) -> crate::expr::eval::div_zero::Scoped {
        use crate::expr::eval::div_zero::{current, scoped, OnDivZero};
        use crate::types::sql_mode::Modes;
        let m = self.sql_modes();
        if !ignore && m.strict() && m.has(Modes::ERROR_FOR_DIVISION_BY_ZERO) {
            scoped(OnDivZero::Fail)
        } else {
            scoped(current())
        }
    }

    /// What a division by zero gives in a statement that stores nothing: NULL, with warning
    /// 1365 under ERROR_FOR_DIVISION_BY_ZERO.
    pub fn div_zero_base(&self) -> crate::expr::eval::div_zero::OnDivZero {
        use crate::expr::eval::div_zero::OnDivZero;
        if self
            .sql_modes()
            .has(crate::types::sql_mode::Modes::ERROR_FOR_DIVISION_BY_ZERO)
        {
            OnDivZero::Warn
        } else {
            OnDivZero::Null
        }
    }

    /// How values are converted for storing: strict or not (IGNORE turns it off), the session's
    /// time zone and `sql_mode`.
    pub fn coerce_mode(&self, strict: bool) -> crate::types::coerce::SqlMode {
        crate::types::coerce::SqlMode::session(strict, self.time_zone, self.sql_modes())
    }

    /// The session's `sql_mode` (types/sql_mode.rs).
    pub fn sql_modes(&self) -> crate::types::sql_mode::Modes {
        match self.vars.get("sql_mode") {
            Some(Value::Text(t)) => crate::types::sql_mode::Modes::of_text(t),
            _ => crate::types::sql_mode::Modes::default(),
        }
    }

    /// A numeric session variable (0 if unset or not a number).
    pub fn int_var(&self, name: &str) -> u64 {
        self.vars
            .get(name)
            .and_then(|v| v.to_f64_lenient())
            .map_or(0, |f| f.max(0.0) as u64)
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
        self.refresh_database_charset();
        Ok(())
    }

    pub fn check_db_access(&self, db: &str) -> DbResult<()> {
        if self.account_user == "root" {
            return Ok(());
        }
        match self.account() {
            Some(u) if u.may_use(db) => Ok(()),
            _ => Err(DbError::access_denied_db(&self.user, &self.host, db)),
        }
    }

    /// The session's account (design.md ACC3), as the catalog has it now.
    pub fn account(&self) -> Option<crate::catalog::UserDef> {
        self.engine
            .catalog
            .user(&self.account_user, &self.account_host)
    }

    /// Privileges Betula has only for root (see docs/mysql-compat.md): 1227 naming `what`
    /// for anyone else.
    pub fn need_root(&self, what: &str) -> DbResult<()> {
        if self.account_user == "root" {
            Ok(())
        } else {
            Err(DbError::new(
                ErrorCode::SpecificAccessDeniedError,
                format!("Access denied; you need (at least one of) the {what} privilege(s) for this operation"),
            ))
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

    pub fn note(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.warnings.push(Warning {
            level: WarningLevel::Note,
            code,
            message: message.into(),
        });
    }

    pub fn warn(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.warnings.push(Warning {
            level: WarningLevel::Warning,
            code,
            message: message.into(),
        });
    }

    pub(crate) fn sysvar_value(&self, name: &str, global: bool) -> Option<Value> {
        let n = name.to_ascii_lowercase();
        match n.as_str() {
            "warning_count" => return Some(Value::Int(self.warnings.len() as i64)),
            "error_count" => return Some(Value::Int(0)),
            "last_insert_id" | "identity" => return Some(Value::UInt(self.last_insert_id)),
            "pseudo_thread_id" => return Some(Value::Int(self.id as i64)),
            "gtid_binlog_pos" | "gtid_current_pos" => {
                return Some(Value::Text(self.engine.gtid_pos_text()))
            }
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

    pub fn compile(&mut self, scope: &Scope, e: &ast::Expr, place: &'static str) -> DbResult<Expr> {
        let mut c = Compiler {
            scope,
            env: self,
            aggs: None,
            windows: None,
            insert_scope: None,
            aliases: &[],
            having_groups: None,
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
        Compiler {
            place,
            ..Compiler::grouped(scope, self, aggs, aliases)
        }
        .compile(e)
    }

    /// HAVING `e`: names outside aggregates resolve in the select list (`aliases`) and the
    /// GROUP BY list's plain columns `groups`, as MariaDB resolves them (expr/compile/having.rs).
    pub fn compile_having(
        &mut self,
        scope: &Scope,
        e: &ast::Expr,
        aggs: &mut Vec<AggSpec>,
        aliases: &[(String, Expr)],
        groups: &[usize],
    ) -> DbResult<Expr> {
        Compiler {
            having_groups: Some(groups),
            place: "HAVING",
            ..Compiler::grouped(scope, self, aggs, aliases)
        }
        .compile(e)
    }

    pub fn compile_insert(&mut self, scope: &Scope, e: &ast::Expr) -> DbResult<Expr> {
        let mut c = Compiler {
            scope,
            env: self,
            aggs: None,
            windows: None,
            insert_scope: Some(scope),
            aliases: &[],
            having_groups: None,
            place: "SELECT",
        };
        c.compile(e)
    }
}
