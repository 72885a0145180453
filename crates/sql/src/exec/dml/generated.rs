//! Computing a row's generated columns (catalog/generated_def.rs) before it is written: every
//! INSERT, REPLACE, UPDATE, ON DUPLICATE KEY UPDATE, LOAD DATA and ALTER TABLE copy calls
//! [`compute_generated`] on the completed row, before CHECK constraints and before any key or
//! index entry is encoded (design.md GEN1).
//!
//! Invariants: columns are computed in column order, so an expression sees the values of the
//! generated columns before it (and never one after it: 4029 at CREATE); a STORED value is
//! converted to the column's type as an assignment is (truncation and range per SQL mode), a
//! VIRTUAL one as MariaDB converts it when it reads it (never an error); a value given for
//! a generated column other than DEFAULT is error 1906 in strict mode and a warning otherwise
//! (as MariaDB), and the value is ignored either way.

use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::eval::{eval, EvalCtx};
use crate::types::coerce::{coerce_to_table_column, SqlMode};
use crate::types::value::Value;

/// Sets every generated column of `row` (row `rownum` of the statement, of `t`) from its
/// expression, converted to the column's type under `mode`.
pub(crate) fn compute_generated(
    t: &TableDef,
    row: &mut [Value],
    rownum: u64,
    mode: SqlMode,
    warnings: &mut Vec<Warning>,
) -> DbResult<()> {
    for (i, g) in t.generated.iter().enumerate() {
        let Some(g) = g else { continue };
        let e = g.expr(|| t.scope(&t.name))?;
        let v = eval(e, &EvalCtx::row(row))?;
        let c = &t.columns[i];
        row[i] = if g.stored {
            coerce_to_table_column(&v, c, (&t.db, &t.name), rownum, mode, warnings)?
        } else {
            // MariaDB converts a VIRTUAL value when it reads it: never an error, and its
            // warnings belong to the read, not to the write.
            let lenient = SqlMode {
                strict: false,
                ..mode
            };
            coerce_to_table_column(&v, c, (&t.db, &t.name), rownum, lenient, &mut Vec::new())?
        };
    }
    Ok(())
}

/// A value other than DEFAULT given for generated column `i` of `t`: error 1906 when `strict`,
/// else the same text as a warning.
pub(crate) fn value_for_generated(
    t: &TableDef,
    i: usize,
    strict: bool,
    warnings: &mut Vec<Warning>,
) -> DbResult<()> {
    let message = format!(
        "The value specified for generated column '{}' in table '{}' has been ignored",
        t.columns[i].name, t.name
    );
    let code = ErrorCode::WarningNonDefaultValueForGeneratedColumn;
    if strict {
        return Err(DbError::new(code, message));
    }
    warnings.push(Warning {
        level: WarningLevel::Warning,
        code,
        message,
    });
    Ok(())
}
