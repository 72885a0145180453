//! The common table expressions a query being planned has bound ([`CteBinding`], the stack in
//! [`Context::ctes`](super::Context)); plan/cte.rs binds and resolves them.
//!
//! Invariant: the stack holds only the bindings of the WITH clauses around what is being planned;
//! each WITH truncates it back when its query is planned, error or not.

use std::sync::Arc;

use sqlparser::ast;

use crate::result::OutCol;
use crate::types::value::Value;

/// A CTE bound on the stack.
#[derive(Clone)]
pub struct CteBinding {
    pub name: String,
    /// The column list after the name (empty: the query's own names).
    pub columns: Vec<String>,
    pub query: Arc<ast::Query>,
    /// WITH RECURSIVE and the query references the CTE itself.
    pub recursive: bool,
    /// While a recursive CTE is computed: the rows the previous iteration added.
    pub working: Option<Arc<Materialized>>,
}

/// Rows with their columns.
pub struct Materialized {
    pub cols: Vec<OutCol>,
    pub rows: Vec<Vec<Value>>,
}
