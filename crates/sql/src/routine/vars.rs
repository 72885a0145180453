//! A running routine's parameters and local variables: typed slots, assignment with the
//! conversion a column of the same type applies, and the frame through which the body's
//! statements read them (design.md RTN3).
//!
//! Invariants: every value held was converted to its variable's type (as a column of that type
//! stores it, under the session's sql_mode); a name resolves to its innermost declaration (a
//! block's variables are dropped at its END, [`Vars::truncate`]); the frame pushed for a
//! statement is popped after it, error or not.

use std::sync::Arc;

use sqlparser::ast;

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::correlated::OuterFrame;
use crate::expr::{Scope, ScopeCol};
use crate::parser::routines::type_column;
use crate::result::Output;
use crate::types::coerce::coerce_to_column;
use crate::types::value::Value;
use crate::types::Column;

/// One variable: its column (name, type, collation) and value.
struct Var {
    col: Column,
    value: Value,
}

/// The variables in scope, outermost first.
#[derive(Default)]
pub struct Vars {
    vars: Vec<Var>,
}

impl Vars {
    /// Declares `name` of type `ty` holding `value` (converted; NULL when `None`).
    pub fn declare(
        &mut self,
        cx: &mut Context,
        name: &str,
        ty: &str,
        value: Value,
    ) -> DbResult<()> {
        let mut col = type_column(name, ty)?;
        col.nullable = true;
        col.name = name.to_string();
        let value = convert(cx, &col, &value)?;
        self.vars.push(Var { col, value });
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Drops the variables declared after the first `n` (a block ended).
    pub fn truncate(&mut self, n: usize) {
        self.vars.truncate(n);
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.vars
            .iter()
            .rposition(|v| v.col.name.eq_ignore_ascii_case(name))
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.find(name).map(|i| &self.vars[i].value)
    }

    /// Assigns `value` to `name`, converted to its type.
    pub fn set(&mut self, cx: &mut Context, name: &str, value: &Value) -> DbResult<()> {
        let i = self.find(name).ok_or_else(|| {
            DbError::new(
                ErrorCode::SpUndeclaredVar,
                format!("Undeclared variable: {name}"),
            )
        })?;
        self.vars[i].value = convert(cx, &self.vars[i].col, value)?;
        Ok(())
    }

    /// The frame the body's statements read the variables through: the innermost of each name.
    fn frame(&self) -> OuterFrame {
        let mut cols: Vec<ScopeCol> = Vec::new();
        let mut values = Vec::new();
        for (i, v) in self.vars.iter().enumerate() {
            if self.find(&v.col.name) != Some(i) {
                continue;
            }
            cols.push(ScopeCol {
                table: String::new(),
                db: String::new(),
                org_table: String::new(),
                name: v.col.name.clone(),
                ty: Some(v.col.sql_type),
                collation: v.col.collation,
                flags: 0,
                length: v.col.display_length(),
                members: v.col.members.clone(),
                stored_utc: false,
                json: false,
            });
            values.push(v.value.clone());
        }
        let n = cols.len();
        OuterFrame {
            scope: Arc::new(Scope {
                cols,
                one_row: false,
                qualified_only: Vec::new(),
            }),
            values: Some(values),
            read: vec![false; n],
        }
    }

    /// Runs `f` with the variables visible to the statements it runs.
    pub fn visible<T>(
        &self,
        cx: &mut Context,
        f: impl FnOnce(&mut Context) -> DbResult<T>,
    ) -> DbResult<T> {
        let depth = cx.outer_frames.len();
        cx.outer_frames.push(self.frame());
        let r = f(cx);
        cx.outer_frames.truncate(depth);
        r
    }

    /// The value of `e` with the variables visible (`SELECT e`).
    pub fn eval(&self, cx: &mut Context, e: &ast::Expr) -> DbResult<Value> {
        let q = select_of(e);
        let caller_sql = std::mem::replace(&mut cx.cur_sql, format!("SELECT {e}"));
        let out = self.visible(cx, |cx| crate::exec::query::run_query(cx, &q));
        cx.cur_sql = caller_sql;
        let out = out?;
        match out {
            Output::Rows { mut rows, .. } => Ok(rows
                .pop()
                .and_then(|mut r| (!r.is_empty()).then(|| r.swap_remove(0)))
                .unwrap_or(Value::Null)),
            _ => Err(DbError::internal("an expression gave no row")),
        }
    }
}

/// `SELECT e` as a query.
fn select_of(e: &ast::Expr) -> ast::Query {
    let text = format!("SELECT {e}");
    match crate::parser::parse(&text).ok().and_then(|mut v| v.pop()) {
        Some(ast::Statement::Query(q)) => *q,
        _ => unreachable_query(),
    }
}

/// `SELECT NULL`, for an expression whose text does not read back (never expected).
fn unreachable_query() -> ast::Query {
    match crate::parser::parse("SELECT NULL")
        .ok()
        .and_then(|mut v| v.pop())
    {
        Some(ast::Statement::Query(q)) => *q,
        _ => panic!("SELECT NULL parses"),
    }
}

/// `v` converted to `col`'s type under the session's sql_mode (warnings to the session).
pub fn convert(cx: &mut Context, col: &Column, v: &Value) -> DbResult<Value> {
    let mode = cx.coerce_mode(cx.strict());
    let mut warnings = Vec::new();
    let r = coerce_to_column(v, col, 1, mode, &mut warnings);
    cx.warnings.extend(warnings);
    Ok(r?)
}
