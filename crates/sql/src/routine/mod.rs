//! Stored functions and procedures (design.md "Stored routines"): CREATE / DROP (ddl.rs), CALL
//! (call.rs), the interpreter of a body (interpreter.rs) over its variables (vars.rs), and SHOW
//! CREATE / SHOW STATUS (show.rs). The header and body grammars are the front end's
//! (parser/routines.rs, parser/routine_body.rs); the definitions are the catalog's
//! (catalog/routine_def.rs); a stored function in an expression is expanded by the planner
//! (plan/stored_function.rs).
//!
//! Invariants: this layer sits below the session, so the plain statements of a body reach the
//! session's dispatcher through the [`Dispatch`] it lends (RTN3); nothing here keeps state
//! between statements except the catalog's definitions.

pub mod call;
pub mod ddl;
pub mod interpreter;
pub mod show;
pub mod vars;

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::result::Output;

/// Runs one statement of a body as the session runs a statement it was sent (the session's
/// dispatcher, without a client file or a row sink).
pub type Dispatch = fn(&mut Context, Statement) -> DbResult<Output>;

/// A routine's database and name: `db.name`, or `name` in the current database (1046 without).
pub fn qualify(cx: &Context, name: &[String]) -> DbResult<(String, String)> {
    match name {
        [db, n] => Ok((db.clone(), n.clone())),
        [n] => Ok((cx.db.clone().ok_or_else(DbError::no_db)?, n.clone())),
        _ => Err(DbError::syntax(name.join("."))),
    }
}
