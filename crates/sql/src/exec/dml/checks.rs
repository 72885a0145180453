//! Enforcing CHECK constraints on a row about to be written (catalog/check_def.rs): every
//! INSERT, UPDATE, REPLACE, ON DUPLICATE KEY UPDATE, LOAD DATA and ALTER TABLE copy checks it.
//!
//! Invariants: a constraint fails only when its value is false (NULL passes, as in MariaDB); the
//! row is the one stored (TIMESTAMPs in UTC, the constraint compiled without a time zone); a
//! failure is error 4025 in every mode, IGNORE included (as MariaDB).

use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::types::value::Value;

/// Error 4025 when `row` (of `t`) breaks one of `t`'s enforced CHECK constraints.
pub(crate) fn check_row(t: &TableDef, row: &[Value]) -> DbResult<()> {
    for c in t.checks.iter().filter(|c| c.enforced) {
        let e = c.expr(|| t.scope(&t.name))?;
        if truth(&eval(e, &EvalCtx::row(row))?) == Some(false) {
            // A column's constraint is named `table.column` in the message.
            let name = match &c.column {
                Some(col) => format!("{}.{col}", t.name),
                None => c.name.clone(),
            };
            return Err(DbError::new(
                ErrorCode::ConstraintFailed,
                format!("CONSTRAINT `{name}` failed for `{}`.`{}`", t.db, t.name),
            ));
        }
    }
    Ok(())
}
