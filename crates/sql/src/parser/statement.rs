//! [`Statement`]: what the front end ([`crate::parser::parse_statement`]) makes of one
//! statement's text, and what the session's dispatch (session/dispatch.rs) runs.
//!
//! Invariants: a statement is plain data (no catalog lookup, no session state went into it):
//! names are kept as written (`Vec<String>` parts, resolved against the current database when
//! the statement runs), so a parsed statement can run again (prepared statements). Each variant
//! is produced by exactly one grammar: sqlparser's for [`Statement::Sql`], Betula's own (one
//! file per family in parser/) for the others.

use sqlparser::ast;

use crate::catalog::partition::TableExtras;

use crate::parser::alter::{AlterOp, IndexSpec};
use crate::parser::fast_insert::FastInsert;
use crate::parser::handler::HandlerStmt;
use crate::parser::load::LoadStmt;
use crate::parser::multi_table::MultiTable;
use crate::parser::replica::ReplicaStmt;
use crate::parser::rollup::CreateRollup;
use crate::parser::servers::ServerStmt;
use crate::parser::show::ShowStatement;
use crate::parser::users::{Credential, GrantOn, NewUser, RequireSsl, UserName};

/// One statement.
#[derive(Debug, Clone)]
pub enum Statement {
    /// What sqlparser reads: queries, INSERT / UPDATE / DELETE, CREATE TABLE, EXPLAIN, SET ...
    Sql(Box<ast::Statement>),
    /// CREATE TABLE with clauses sqlparser does not read (PARTITION BY, RETENTION: partition.rs);
    /// the rest of the statement is sqlparser's.
    CreateTableWith {
        table: Box<ast::CreateTable>,
        extras: Box<TableExtras>,
    },
    /// `EXPLAIN PARTITIONS <query>`: EXPLAIN with MariaDB's `partitions` column.
    ExplainPartitions(Box<ast::Query>),
    /// `EXPLAIN EXTENDED <query>`: EXPLAIN with MariaDB's `filtered` column and the query as the
    /// server reads it in a note; `text` is the query's own text (its spans point into it).
    ExplainExtended {
        query: Box<ast::Query>,
        text: String,
    },
    /// `ANALYZE <query>`: run the query and report what its plan read (MariaDB's ANALYZE).
    Analyze(Box<ast::Query>),
    /// `DO expr, ...` as the query `SELECT expr, ...` (do_statement.rs).
    Do(Box<ast::Query>),
    /// A literal-only INSERT / REPLACE (fast_insert.rs).
    Insert(Box<FastInsert>),
    /// LOAD DATA (load.rs).
    Load(Box<LoadStmt>),
    /// HANDLER (handler.rs).
    Handler(HandlerStmt),
    /// Multi-table UPDATE / DELETE, or single-table with modifiers (multi_table.rs).
    MultiTable(MultiTable),
    /// SHOW ..., DESCRIBE (show.rs).
    Show(ShowStatement),
    Use(String),
    /// BEGIN / START TRANSACTION.
    Begin,
    Commit,
    Rollback {
        to_savepoint: Option<String>,
    },
    Savepoint(String),
    ReleaseSavepoint(String),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        options: DatabaseOptions,
    },
    /// ALTER DATABASE [name] options (None: the current database).
    AlterDatabase {
        name: Option<String>,
        options: DatabaseOptions,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    DropTables {
        names: Vec<Vec<String>>,
        if_exists: bool,
        temporary: bool,
    },
    Truncate {
        table: Vec<String>,
    },
    /// RENAME TABLE: (from, to) pairs, renamed in order.
    RenameTables(Vec<(Vec<String>, Vec<String>)>),
    AlterTable {
        table: Vec<String>,
        ops: Vec<AlterOp>,
        online: bool,
    },
    CreateIndex {
        name: String,
        table: Vec<String>,
        spec: IndexSpec,
        unique: bool,
    },
    DropIndex {
        name: String,
        table: Vec<String>,
    },
    /// CREATE ROLLUP, a Betula extension (rollup.rs).
    CreateRollup(Box<CreateRollup>),
    DropRollup {
        name: Vec<String>,
        if_exists: bool,
    },
    /// CREATE [OR REPLACE] / ALTER VIEW (views.rs).
    CreateView(Box<crate::parser::views::ViewStmt>),
    /// DROP VIEW (views.rs).
    DropViews {
        names: Vec<Vec<String>>,
        if_exists: bool,
    },
    /// CREATE [OR REPLACE] FUNCTION / PROCEDURE (routines.rs).
    CreateRoutine(Box<crate::parser::routines::RoutineStmt>),
    /// DROP FUNCTION / PROCEDURE (routines.rs).
    DropRoutine {
        kind: crate::catalog::routine_def::RoutineKind,
        name: Vec<String>,
        if_exists: bool,
    },
    /// CALL p(args) (routines.rs).
    Call {
        name: Vec<String>,
        args: Vec<ast::Expr>,
    },
    /// CREATE / ALTER / DROP SERVER (servers.rs).
    Server(ServerStmt),
    /// CHANGE MASTER TO, START / STOP / RESET SLAVE, SHOW SLAVE STATUS (replica.rs; carried out
    /// by the server's replica through the hook the server lends the engine).
    Replica(ReplicaStmt),
    CreateUser {
        if_not_exists: bool,
        users: Vec<NewUser>,
        /// REQUIRE SSL (true) / NONE (false), if given.
        require: RequireSsl,
    },
    DropUser {
        if_exists: bool,
        users: Vec<UserName>,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<NewUser>,
        /// REQUIRE SSL (true) / NONE (false), if given.
        require: RequireSsl,
    },
    /// RENAME USER a TO b, ...
    RenameUsers(Vec<(UserName, UserName)>),
    /// SET {CHARACTER SET | CHARSET} cs (`None`: DEFAULT).
    SetCharacterSet {
        charset: Option<String>,
    },
    /// SET PASSWORD [FOR user] = ... (`user`: the session's own account when `None`).
    SetPassword {
        user: Option<UserName>,
        credential: Credential,
    },
    /// GRANT (`revoke` false) / REVOKE.
    Grant {
        on: GrantOn,
        user: UserName,
        revoke: bool,
        /// The privileges name REPLICATION SLAVE (design.md BLG5: who may dump the log).
        replication: crate::parser::users::Replication,
    },
    /// ANALYZE / OPTIMIZE / CHECK TABLE.
    Maintenance {
        op: MaintenanceOp,
        tables: Vec<Vec<String>>,
    },
    /// CHECKSUM TABLE (`quick`: QUICK).
    Checksum {
        tables: Vec<Vec<String>>,
        quick: bool,
    },
    /// CACHE INDEX ... IN cache.
    CacheIndex {
        tables: Vec<TableIndexes>,
        cache: String,
    },
    /// LOAD INDEX INTO CACHE ...
    LoadIndex {
        tables: Vec<TableIndexes>,
    },
    /// FLUSH of anything but tables and logs (privileges, status ...): a checkpoint; `status`
    /// (FLUSH STATUS) also zeroes the session's status counters.
    Flush {
        status: bool,
    },
    /// FLUSH [BINARY] LOGS, PURGE ... LOGS, RESET MASTER (binlog.rs).
    Binlog(crate::parser::binlog::BinlogStmt),
    /// FLUSH TABLES [t, ...] [WITH READ LOCK | FOR EXPORT] (locks.rs).
    FlushTables {
        tables: Vec<Vec<String>>,
        mode: FlushMode,
    },
    Checkpoint,
    /// LOCK TABLES (locks.rs).
    LockTables(Vec<TableLockSpec>),
    UnlockTables,
    /// BACKUP TO 'dir' (locks.rs).
    Backup(BackupStmt),
    /// ALTER TABLE t DISCARD TABLESPACE (`import` false) / IMPORT TABLESPACE (ddl.rs).
    Tablespace {
        table: Vec<String>,
        import: bool,
    },
    /// KILL [CONNECTION | QUERY] id: the id, and whether only the query is killed.
    Kill(u64, bool),
    /// SHUTDOWN.
    Shutdown,
}

/// What FLUSH TABLES does besides the checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushMode {
    Plain,
    /// WITH READ LOCK: the global read lock.
    ReadLock,
    /// FOR EXPORT: read locks on the tables and their export files.
    ForExport,
}

/// One table of LOCK TABLES.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLockSpec {
    pub table: Vec<String>,
    pub alias: Option<String>,
    pub write: bool,
}

/// BACKUP TO 'dir' [INCREMENTAL FROM 'base'] [THROTTLE bytes_per_second].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupStmt {
    pub to: String,
    pub base: Option<String>,
    pub throttle: Option<u64>,
}

/// ANALYZE, OPTIMIZE or CHECK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceOp {
    Analyze,
    Optimize,
    Check,
}

impl MaintenanceOp {
    /// The name shown in the result's Op column.
    pub fn name(self) -> &'static str {
        match self {
            MaintenanceOp::Analyze => "analyze",
            MaintenanceOp::Optimize => "optimize",
            MaintenanceOp::Check => "check",
        }
    }
}

/// The options of CREATE / ALTER DATABASE, as written (the last of each kind wins).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DatabaseOptions {
    pub charset: Option<String>,
    pub collate: Option<String>,
    pub comment: Option<String>,
}

/// A table of CACHE INDEX / LOAD INDEX and the index names given for it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableIndexes {
    pub table: Vec<String>,
    pub indexes: Vec<String>,
}

impl Statement {
    /// Whether the statement commits the open transaction before it runs (DDL and account
    /// statements, as in MySQL).
    pub fn commits_implicitly(&self) -> bool {
        match self {
            Statement::Sql(s) => matches!(**s, ast::Statement::CreateTable(_)),
            Statement::CreateTableWith { .. }
            | Statement::CreateDatabase { .. }
            | Statement::AlterDatabase { .. }
            | Statement::DropDatabase { .. }
            | Statement::DropTables { .. }
            | Statement::Truncate { .. }
            | Statement::RenameTables(_)
            | Statement::AlterTable { .. }
            | Statement::Tablespace { .. }
            | Statement::CreateIndex { .. }
            | Statement::DropIndex { .. }
            | Statement::CreateRollup(_)
            | Statement::DropRollup { .. }
            | Statement::CreateView(_)
            | Statement::DropViews { .. }
            | Statement::CreateRoutine(_)
            | Statement::DropRoutine { .. }
            | Statement::Server(_)
            | Statement::CreateUser { .. }
            | Statement::DropUser { .. }
            | Statement::AlterUser { .. }
            | Statement::RenameUsers(_) => true,
            _ => false,
        }
    }
}
