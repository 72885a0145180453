//! The interpreter of a routine's body ([`Step`]s, parser/routine_body.rs): control flow, local
//! variables, and the plain statements of the body run through the session's dispatcher
//! (design.md RTN3, RTN4).
//!
//! Invariants:
//! * A step's outcome is a [`Flow`]: the next step, leaving or iterating a label, or returning;
//!   a label's step consumes the LEAVE / ITERATE naming it, so one never escapes the routine
//!   (the parser checked every label, RTN2).
//! * A block's variables live until its END ([`Vars::truncate`]), whatever way it ends.
//! * Each plain statement runs as the same statement sent alone would (the dispatcher), with the
//!   variables visible; in autocommit mode it commits when it ends; when it fails its own changes
//!   are undone and [`Context::undo_to`] tells the session to keep the earlier ones.
//! * A result set of the body is kept on [`Context::routine_results`] in order, for the client.
//! * Every step first checks the connection's interrupt flag, so KILL QUERY stops any loop.

use sqlparser::ast;

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::eval::truth;
use crate::parser::routine_body::{LoopKind, Step, Target};
use crate::parser::statement::Statement;
use crate::result::Output;
use crate::routine::vars::Vars;
use crate::routine::Dispatch;
use crate::types::value::Value;

/// What a step leaves the interpreter to do.
#[derive(Debug)]
pub enum Flow {
    Next,
    Leave(String),
    Iterate(String),
    Return(Value),
}

/// One running body.
pub struct Interpreter {
    pub vars: Vars,
    dispatch: Dispatch,
}

impl Interpreter {
    pub fn new(vars: Vars, dispatch: Dispatch) -> Interpreter {
        Interpreter { vars, dispatch }
    }

    pub fn steps(&mut self, cx: &mut Context, steps: &[Step]) -> DbResult<Flow> {
        for s in steps {
            match self.step(cx, s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    /// `steps` as a scope of their own: variables they declare end with them.
    fn scoped(&mut self, cx: &mut Context, steps: &[Step]) -> DbResult<Flow> {
        let n = self.vars.len();
        let r = self.steps(cx, steps);
        self.vars.truncate(n);
        r
    }

    fn step(&mut self, cx: &mut Context, s: &Step) -> DbResult<Flow> {
        cx.check_interrupted()?;
        match s {
            Step::Statement(st, text) => self.statement(cx, st, text).map(|_| Flow::Next),
            Step::SelectInto { query, targets } => {
                self.select_into(cx, query, targets).map(|_| Flow::Next)
            }
            Step::Declare { names, ty, default } => {
                let v = match default {
                    Some(e) => self.vars.eval(cx, e)?,
                    None => Value::Null,
                };
                for n in names {
                    self.vars.declare(cx, n, ty, v.clone())?;
                }
                Ok(Flow::Next)
            }
            Step::SetVars(pairs) => {
                for (name, e) in pairs {
                    let v = self.vars.eval(cx, e)?;
                    self.vars.set(cx, name, &v)?;
                }
                Ok(Flow::Next)
            }
            Step::If { arms, otherwise } => {
                for (cond, body) in arms {
                    if self.holds(cx, cond)? {
                        return self.scoped(cx, body);
                    }
                }
                match otherwise {
                    Some(body) => self.scoped(cx, body),
                    None => Ok(Flow::Next),
                }
            }
            Step::Case {
                operand,
                arms,
                otherwise,
            } => self.case(cx, operand.as_ref(), arms, otherwise.as_deref()),
            Step::Block { label, steps } => match self.scoped(cx, steps)? {
                Flow::Leave(l) if label.as_ref().is_some_and(|b| b.eq_ignore_ascii_case(&l)) => {
                    Ok(Flow::Next)
                }
                other => Ok(other),
            },
            Step::Loop { label, kind, body } => self.run_loop(cx, label.as_deref(), kind, body),
            Step::Leave(l) => Ok(Flow::Leave(l.clone())),
            Step::Iterate(l) => Ok(Flow::Iterate(l.clone())),
            Step::Return(e) => Ok(Flow::Return(self.vars.eval(cx, e)?)),
        }
    }

    fn holds(&self, cx: &mut Context, cond: &ast::Expr) -> DbResult<bool> {
        Ok(truth(&self.vars.eval(cx, cond)?) == Some(true))
    }

    fn case(
        &mut self,
        cx: &mut Context,
        operand: Option<&ast::Expr>,
        arms: &[(ast::Expr, Vec<Step>)],
        otherwise: Option<&[Step]>,
    ) -> DbResult<Flow> {
        for (when, body) in arms {
            let cond = match operand {
                Some(op) => ast::Expr::BinaryOp {
                    left: Box::new(ast::Expr::Nested(Box::new(op.clone()))),
                    op: ast::BinaryOperator::Eq,
                    right: Box::new(ast::Expr::Nested(Box::new(when.clone()))),
                },
                None => when.clone(),
            };
            if self.holds(cx, &cond)? {
                return self.scoped(cx, body);
            }
        }
        match otherwise {
            Some(body) => self.scoped(cx, body),
            None => Err(DbError::new(
                ErrorCode::SpCaseNotFound,
                "Case not found for CASE statement",
            )),
        }
    }

    fn run_loop(
        &mut self,
        cx: &mut Context,
        label: Option<&str>,
        kind: &LoopKind,
        body: &[Step],
    ) -> DbResult<Flow> {
        let ours = |l: &str| label.is_some_and(|m| m.eq_ignore_ascii_case(l));
        loop {
            cx.check_interrupted()?;
            if let LoopKind::While(cond) = kind {
                if !self.holds(cx, cond)? {
                    return Ok(Flow::Next);
                }
            }
            match self.scoped(cx, body)? {
                Flow::Next => {}
                Flow::Iterate(l) if ours(&l) => continue,
                Flow::Leave(l) if ours(&l) => return Ok(Flow::Next),
                other => return Ok(other),
            }
            if let LoopKind::Repeat(cond) = kind {
                if self.holds(cx, cond)? {
                    return Ok(Flow::Next);
                }
            }
        }
    }

    /// A plain statement of the body (RTN3, RTN4).
    fn statement(&mut self, cx: &mut Context, st: &Statement, text: &str) -> DbResult<()> {
        let mark = cx.ws.mark();
        let dispatch = self.dispatch;
        // The statement's own text while it runs: its result columns are named from it.
        let caller_sql = std::mem::replace(&mut cx.cur_sql, text.to_string());
        let r = self.vars.visible(cx, |cx| dispatch(cx, st.clone()));
        cx.cur_sql = caller_sql;
        match r {
            Ok(out) => {
                if matches!(out, Output::Rows { .. }) {
                    cx.routine_results.push(out);
                }
                if !cx.in_txn && cx.autocommit() {
                    cx.commit()?;
                }
                Ok(())
            }
            Err(e) => {
                cx.ws.rollback_to(mark);
                cx.undo_to = Some(cx.ws.mark());
                Err(e)
            }
        }
    }

    /// SELECT ... INTO: the one row's values into the targets (no row: warning 1329, the
    /// targets keep their values; more than one: 1172).
    fn select_into(
        &mut self,
        cx: &mut Context,
        query: &ast::Query,
        targets: &[Target],
    ) -> DbResult<()> {
        let out = self
            .vars
            .visible(cx, |cx| crate::exec::query::run_query(cx, query))?;
        let Output::Rows { mut rows, .. } = out else {
            return Err(DbError::internal("SELECT ... INTO gave no rows"));
        };
        if rows.len() > 1 {
            return Err(DbError::new(
                ErrorCode::TooManyRows,
                "Result consisted of more than one row",
            ));
        }
        let Some(row) = rows.pop() else {
            cx.warnings.push(Warning {
                level: WarningLevel::Warning,
                code: ErrorCode::SpFetchNoData,
                message: "No data - zero rows fetched, selected, or processed".into(),
            });
            return Ok(());
        };
        if row.len() != targets.len() {
            return Err(DbError::new(
                ErrorCode::WrongNumberOfColumnsInSelect,
                "The used SELECT statements have a different number of columns",
            ));
        }
        for (t, v) in targets.iter().zip(row) {
            match t {
                Target::Local(name) => self.vars.set(cx, name, &v)?,
                Target::User(name) => cx.user_vars.set(&name.to_lowercase(), v),
            }
        }
        Ok(())
    }
}
