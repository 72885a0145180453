//! An INSERT whose rows are already values ([`Session::insert_values`]): the replica applier's
//! inserts (design.md RPA6). Nothing is parsed or compiled; the statement otherwise runs as any
//! other (statement atomicity, autocommit, locks, the binary log).
//!
//! Invariants: the set-oriented path inside an explicit transaction is allowed for this one
//! statement only, and only when it is the transaction's first change (SES10); the permission
//! ends with the statement, whatever its outcome.

use super::{Run, RunStatement, Session};
use crate::parser::fast_insert::FastInsert;
use crate::parser::statement::Statement;
use crate::result::Output;
use crate::DbResult;

impl Session {
    /// Runs `ins` (its slots are values, or DEFAULT) as an INSERT statement. With
    /// `batch_in_txn`, an INSERT that is the first change of the open transaction is written on
    /// the set-oriented path (SES10): the caller must neither read nor change the table again
    /// before the transaction ends (such a read fails).
    pub fn insert_values(&mut self, ins: FastInsert, batch_in_txn: bool) -> DbResult<Output> {
        let sql = format!(
            "INSERT INTO `{}` ... ({} rows)",
            ins.table.join("`.`"),
            ins.rows.len()
        );
        let run = Run {
            sql: &sql,
            nesting: 1,
            reads_diagnostics: false,
            stmt: RunStatement::Once(Statement::Insert(Box::new(ins))),
        };
        self.cx.batch_in_txn = batch_in_txn;
        let out = self.run(run, &[], None, None);
        self.cx.batch_in_txn = false;
        out
    }
}
