//! Functions accepted by name but not evaluated: UUID_SHORT compiles (it is a known name) and
//! fails with 1305 when a row evaluates it.

use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["UUID_SHORT"];

pub(super) fn call(name: &str, _a: &[Value]) -> DbResult<Value> {
    Err(DbError::no_function(&name.to_ascii_lowercase()))
}
