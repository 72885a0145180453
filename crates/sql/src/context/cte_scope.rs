//! The common table expressions a query being planned has bound ([`CteBinding`], the stack in
//! [`Context::ctes`](super::Context)); plan/cte.rs binds and resolves them.
//!
//! Invariant: the stack holds only the bindings of the WITH clauses around what is being planned;
//! each WITH truncates it back when its query is planned, error or not.

use std::sync::{Arc, Mutex};

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
    /// WITH RECURSIVE and the query references the CTE itself, or has a CYCLE clause.
    pub recursive: bool,
    /// The columns of its `CYCLE ... RESTRICT` clause (empty: none): a row whose values of
    /// them equal a row produced before is not produced.
    pub cycle: Vec<String>,
    /// While a recursive CTE's recursive branches are planned: the table a reference to it
    /// reads (the rows the previous iteration added, filled in when the plan runs).
    pub working: Option<WorkingTable>,
    /// How much of the stack its query sees: the bindings before it (WITH), or up to the end of
    /// its clause (WITH RECURSIVE: an element may name a later one).
    pub sees: usize,
    /// A table reference named it while its WITH's query was planned (plan/cte.rs checks the
    /// others' definitions afterwards, as MariaDB prepares them).
    pub referenced: bool,
}

/// What a correlated subquery needs to be planned again where it was compiled (expr/correlated.rs'
/// `env`): the CTEs in scope, the current database and the views being expanded (a subquery in a
/// view's body names tables of the view's database, design.md VIEW3).
#[derive(Clone)]
pub struct SubqueryEnv {
    pub ctes: Vec<CteBinding>,
    pub db: Option<String>,
    pub view_chain: Vec<(String, String)>,
}

/// The working table of a recursive CTE: its columns, and the rows the executor puts there
/// before each iteration (shared by the plan nodes that read it). `None` outside the
/// iterations: reading it then (a subquery run while the CTE is planned) is 4008, never an
/// empty table.
#[derive(Clone)]
pub struct WorkingTable {
    pub name: String,
    pub cols: Vec<OutCol>,
    pub rows: Arc<Mutex<Option<Vec<Vec<Value>>>>>,
}
