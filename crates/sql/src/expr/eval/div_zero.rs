//! What a division by zero (`/`, DIV, MOD, `%` by a zero divisor) gives in the running
//! statement, as MariaDB's ERROR_FOR_DIVISION_BY_ZERO decides it: NULL; NULL with warning 1365
//! (the mode set); or error 1365 (the mode set in strict mode, while INSERT, REPLACE, UPDATE or
//! CREATE TABLE ... SELECT evaluate values, without IGNORE).
//!
//! Invariants: the choice is per connection thread ([`set`] when a statement starts, [`scoped`]
//! for the part of a statement that stores values, restoring the previous choice when dropped);
//! every operator and function that divides reports a zero divisor through [`divided_by_zero`],
//! once per evaluation, so a statement has one warning per row that divided by zero.

use std::cell::Cell;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::types::value::Value;

/// What a division by zero gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDivZero {
    /// NULL, silently (ERROR_FOR_DIVISION_BY_ZERO not set).
    Null,
    /// NULL with warning 1365.
    Warn,
    /// Error 1365: the statement stops.
    Fail,
}

thread_local! {
    static MODE: Cell<OnDivZero> = const { Cell::new(OnDivZero::Null) };
}

/// Sets the choice for what runs next on this thread.
pub fn set(mode: OnDivZero) {
    MODE.with(|m| m.set(mode));
}

/// The current choice.
pub fn current() -> OnDivZero {
    MODE.with(|m| m.get())
}

/// Restores the choice it replaced when dropped.
pub struct Scoped(OnDivZero);

impl Drop for Scoped {
    fn drop(&mut self) {
        set(self.0);
    }
}

/// Sets `mode` until the returned guard is dropped.
#[must_use]
pub fn scoped(mode: OnDivZero) -> Scoped {
    let prev = current();
    set(mode);
    Scoped(prev)
}

fn error() -> DbError {
    DbError::new(ErrorCode::DivisionByZero, "Division by 0")
}

/// The value of a division by zero: NULL, or the current choice's warning or error.
pub fn divided_by_zero() -> DbResult<Value> {
    match current() {
        OnDivZero::Null => {}
        OnDivZero::Warn => crate::error::pending::push(Warning {
            level: WarningLevel::Warning,
            code: ErrorCode::DivisionByZero,
            message: "Division by 0".into(),
        }),
        OnDivZero::Fail => return Err(error()),
    }
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_decides_null_warning_or_error_and_scopes_restore_it() {
        set(OnDivZero::Null);
        crate::error::pending::clear();
        assert_eq!(divided_by_zero().unwrap(), Value::Null);
        assert!(crate::error::pending::take().is_empty());
        {
            let _g = scoped(OnDivZero::Warn);
            assert_eq!(divided_by_zero().unwrap(), Value::Null);
            {
                let _f = scoped(OnDivZero::Fail);
                assert_eq!(
                    divided_by_zero().unwrap_err().code,
                    ErrorCode::DivisionByZero
                );
            }
            assert_eq!(current(), OnDivZero::Warn);
        }
        assert_eq!(current(), OnDivZero::Null);
        let w = crate::error::pending::take();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, ErrorCode::DivisionByZero);
    }
}
