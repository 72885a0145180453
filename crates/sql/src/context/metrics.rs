//! [`ServerMetrics`]: what the SQL layer counts for monitoring (the server's metrics endpoint, SHOW
//! ENGINE BETULA STATUS): rows written and read, connections, commits, and statements by kind with
//! their latency. The storage engine's own figures are `betula_storage::EnvStats`.
//!
//! Invariants: every counter only grows (the exposition format's counters); recording takes no lock
//! (relaxed atomics), and executors add their row counts once per statement or per read, not per row,
//! so a counter costs one atomic addition per statement on the write path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use betula_storage::LatencyHistogram;
use sqlparser::ast;

use crate::parser::statement::Statement;

/// The kinds statements are counted by, in the order of [`StatementKind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    Select,
    Insert,
    Update,
    Delete,
    Load,
    Ddl,
    Transaction,
    Show,
    Set,
    Other,
}

impl StatementKind {
    pub const ALL: [StatementKind; 10] = [
        StatementKind::Select,
        StatementKind::Insert,
        StatementKind::Update,
        StatementKind::Delete,
        StatementKind::Load,
        StatementKind::Ddl,
        StatementKind::Transaction,
        StatementKind::Show,
        StatementKind::Set,
        StatementKind::Other,
    ];

    /// The kind's label in the metrics (lower case).
    pub fn name(self) -> &'static str {
        match self {
            StatementKind::Select => "select",
            StatementKind::Insert => "insert",
            StatementKind::Update => "update",
            StatementKind::Delete => "delete",
            StatementKind::Load => "load",
            StatementKind::Ddl => "ddl",
            StatementKind::Transaction => "transaction",
            StatementKind::Show => "show",
            StatementKind::Set => "set",
            StatementKind::Other => "other",
        }
    }

    /// The kind of a parsed statement.
    pub fn of(stmt: &Statement) -> StatementKind {
        use StatementKind as K;
        match stmt {
            Statement::Sql(s) => match &**s {
                ast::Statement::Query(_) => K::Select,
                ast::Statement::Insert(_) => K::Insert,
                ast::Statement::Update(_) => K::Update,
                ast::Statement::Delete(_) => K::Delete,
                ast::Statement::CreateTable(_) => K::Ddl,
                ast::Statement::Set(_) => K::Set,
                _ => K::Other,
            },
            Statement::Insert(_) => K::Insert,
            Statement::Load(_) => K::Load,
            Statement::MultiTable(
                crate::parser::multi_table::MultiTable::Delete { .. }
                | crate::parser::multi_table::MultiTable::MultiDelete { .. },
            ) => K::Delete,
            Statement::MultiTable(_) => K::Update,
            Statement::Analyze(_)
            | Statement::Do(_)
            | Statement::ExplainPartitions(_)
            | Statement::ExplainExtended { .. }
            | Statement::Handler(_) => K::Select,
            Statement::Show(_) => K::Show,
            Statement::Begin
            | Statement::Commit
            | Statement::Rollback { .. }
            | Statement::Savepoint(_)
            | Statement::ReleaseSavepoint(_) => K::Transaction,
            s if s.commits_implicitly() => K::Ddl,
            _ => K::Other,
        }
    }
}

/// Rows written and read by statements.
#[derive(Default)]
pub struct RowCounters {
    /// Rows written as new rows (INSERT, REPLACE's new row, LOAD DATA).
    pub inserted: AtomicU64,
    /// Rows changed in place (UPDATE, ON DUPLICATE KEY UPDATE after a read).
    pub updated: AtomicU64,
    /// Rows deleted (DELETE, REPLACE's old row).
    pub deleted: AtomicU64,
    /// Rows sent as blind upsert messages (ON DUPLICATE KEY UPDATE without a read: whether each
    /// inserted or updated a row is decided later, in the tree).
    pub upserted: AtomicU64,
    /// Rows read from tables by scans and point reads.
    pub read: AtomicU64,
}

/// One statement's row counts, kept in its connection's context without atomics and added to the
/// engine's [`RowCounters`] when the statement ends ([`RowCounters::absorb`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RowTally {
    pub inserted: u64,
    pub updated: u64,
    pub deleted: u64,
    pub upserted: u64,
}

impl RowCounters {
    /// Adds a statement's counts and zeroes them.
    pub fn absorb(&self, t: &mut RowTally) {
        add(&self.inserted, t.inserted);
        add(&self.updated, t.updated);
        add(&self.deleted, t.deleted);
        add(&self.upserted, t.upserted);
        *t = RowTally::default();
    }
}

/// The SQL layer's counters, one set per engine.
#[derive(Default)]
pub struct ServerMetrics {
    pub rows: RowCounters,
    /// Client connections opened (logged in) since start.
    pub connections: AtomicU64,
    /// Transactions committed and rolled back by sessions (explicit or autocommit).
    pub commits: AtomicU64,
    pub rollbacks: AtomicU64,
    /// Statements by kind ([`StatementKind::ALL`]'s order): how many and how long each took.
    statements: [LatencyHistogram; StatementKind::ALL.len()],
    /// Statements that ended with an error, by kind.
    statement_errors: [AtomicU64; StatementKind::ALL.len()],
}

/// Adds `n` to `counter` (nothing when `n` is 0: no atomic operation).
pub fn add(counter: &AtomicU64, n: u64) {
    if n > 0 {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

impl ServerMetrics {
    /// Counts a statement of `kind` that took `took` (and failed, with `failed`).
    pub fn statement(&self, kind: StatementKind, took: Duration, failed: bool) {
        let i = kind as usize;
        self.statements[i].record(took);
        if failed {
            self.statement_errors[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The latency histogram of statements of `kind`.
    pub fn statements_of(&self, kind: StatementKind) -> &LatencyHistogram {
        &self.statements[kind as usize]
    }

    /// Statements of `kind` that failed.
    pub fn errors_of(&self, kind: StatementKind) -> u64 {
        self.statement_errors[kind as usize].load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_counted_by_kind() {
        let kind = |sql: &str| StatementKind::of(&crate::parser::parse_statement(sql).unwrap());
        assert_eq!(kind("SELECT 1"), StatementKind::Select);
        assert_eq!(kind("INSERT INTO t VALUES (1)"), StatementKind::Insert);
        assert_eq!(kind("REPLACE INTO t VALUES (1)"), StatementKind::Insert);
        assert_eq!(kind("UPDATE t SET a = 1"), StatementKind::Update);
        assert_eq!(kind("DELETE FROM t"), StatementKind::Delete);
        assert_eq!(kind("BEGIN"), StatementKind::Transaction);
        assert_eq!(kind("COMMIT"), StatementKind::Transaction);
        assert_eq!(kind("CREATE TABLE t (a INT)"), StatementKind::Ddl);
        assert_eq!(kind("DROP TABLE t"), StatementKind::Ddl);
        assert_eq!(kind("SHOW TABLES"), StatementKind::Show);
        assert_eq!(kind("SET @a = 1"), StatementKind::Set);
        let m = ServerMetrics::default();
        m.statement(StatementKind::Insert, Duration::from_micros(70), false);
        m.statement(StatementKind::Insert, Duration::from_micros(70), true);
        assert_eq!(m.statements_of(StatementKind::Insert).snapshot().count, 2);
        assert_eq!(m.errors_of(StatementKind::Insert), 1);
        assert_eq!(m.statements_of(StatementKind::Select).snapshot().count, 0);
    }
}
