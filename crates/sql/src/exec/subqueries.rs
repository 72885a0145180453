//! Running correlated subqueries (expr/correlated.rs) for a session: the frames of enclosing
//! queries on [`Context::outer_frames`], the lookup of outer names in them, and [`Subqueries`],
//! the runner the SELECT executor gives the expressions it evaluates.
//!
//! Invariants:
//! * A frame is pushed for exactly one subquery run and popped after it, error or not.
//! * A name resolves in the innermost frame that has it; while that frame's row is not known
//!   (its expression is being compiled), the lookup fails and records the frame in
//!   [`Context::outer_miss`], which makes the subquery at that depth correlated.
//! * A run reads the CTEs that were in scope where the subquery was compiled.

use std::cell::RefCell;
use std::sync::Arc;

use sqlparser::ast;

use crate::context::cte_scope::SubqueryEnv;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::correlated::{Correlated, OuterFrame, SubqueryRunner};
use crate::expr::{BinOp, CompileEnv, Expr, Scope, ScopeCol, SubqueryRun};
use crate::plan::access::conjuncts;
use crate::types::value::Value;

impl Context {
    /// `q` run as a subquery of an expression compiled against `scope` (CompileEnv).
    pub(super) fn subquery_of_scope(
        &mut self,
        q: &ast::Query,
        scope: &Scope,
    ) -> DbResult<SubqueryRun> {
        if scope.cols.is_empty() {
            return self.subquery(q).map(SubqueryRun::Rows);
        }
        let depth = self.outer_frames.len();
        self.outer_frames.push(OuterFrame {
            scope: Arc::new(scope.clone()),
            values: None,
            read: vec![false; scope.cols.len()],
        });
        self.outer_miss = None;
        let r = self.subquery(q);
        let frame = self.outer_frames.drain(depth..).next();
        match r {
            Err(_) if self.outer_miss == Some(depth) => {
                self.outer_miss = None;
                let read = frame.map_or_else(Vec::new, |f| {
                    (0..f.read.len()).filter(|i| f.read[*i]).collect()
                });
                let env: Arc<dyn std::any::Any + Send + Sync> = Arc::new(SubqueryEnv {
                    ctes: self.ctes.clone(),
                    db: self.db.clone(),
                    view_chain: self.view_chain.clone(),
                });
                Ok(SubqueryRun::Correlated {
                    read,
                    env: Some(env),
                })
            }
            r => r.map(SubqueryRun::Rows),
        }
    }

    /// A name of an enclosing query (CompileEnv::outer_column).
    pub(super) fn outer_name(
        &mut self,
        db: Option<&str>,
        table: Option<&str>,
        name: &str,
        place: &str,
    ) -> DbResult<Option<(Value, ScopeCol)>> {
        for depth in (0..self.outer_frames.len()).rev() {
            let f = &mut self.outer_frames[depth];
            let Some(i) = f.scope.resolve(db, table, name, place)? else {
                continue;
            };
            f.read[i] = true;
            let col = f.scope.cols[i].clone();
            return match &f.values {
                Some(v) => {
                    self.outer_reads += 1;
                    self.outer_reads_many += usize::from(!f.scope.one_row);
                    Ok(Some((v.get(i).cloned().unwrap_or(Value::Null), col)))
                }
                None => {
                    self.outer_miss = Some(depth);
                    let full = [db, table, Some(name)]
                        .iter()
                        .flatten()
                        .copied()
                        .collect::<Vec<_>>()
                        .join(".");
                    Err(DbError::bad_field(&full, place))
                }
            };
        }
        Ok(None)
    }
}

/// Runs the correlated subqueries of the expressions a SELECT evaluates once its scan is over
/// (the scan holds the context while it reads).
pub struct Subqueries<'c>(RefCell<&'c mut Context>);

impl<'c> Subqueries<'c> {
    pub fn new(cx: &'c mut Context) -> Subqueries<'c> {
        Subqueries(RefCell::new(cx))
    }
}

impl SubqueryRunner for Subqueries<'_> {
    fn rows(&self, sub: &Correlated, outer: &[Value]) -> DbResult<Arc<Vec<Vec<Value>>>> {
        if let Some(rows) = sub.cached(outer) {
            return Ok(rows);
        }
        let mut cx = self
            .0
            .try_borrow_mut()
            .map_err(|_| DbError::internal("a correlated subquery ran inside itself"))?;
        let saved = sub
            .env
            .as_ref()
            .and_then(|e| e.downcast_ref::<SubqueryEnv>())
            .map(|env| SubqueryEnv {
                ctes: std::mem::replace(&mut cx.ctes, env.ctes.clone()),
                db: std::mem::replace(&mut cx.db, env.db.clone()),
                view_chain: std::mem::replace(&mut cx.view_chain, env.view_chain.clone()),
            });
        let depth = cx.outer_frames.len();
        cx.outer_frames.push(OuterFrame {
            scope: sub.scope.clone(),
            values: Some(outer.to_vec()),
            read: vec![false; sub.scope.cols.len()],
        });
        let r = cx.subquery(&sub.query);
        let frame = cx.outer_frames.drain(depth..).next();
        if let Some(env) = saved {
            cx.ctes = env.ctes;
            cx.db = env.db;
            cx.view_chain = env.view_chain;
        }
        let rows = r?;
        let read = frame.map(|f| f.read).unwrap_or_default();
        Ok(sub.remember(outer, &read, rows))
    }
}

/// A WHERE split for a scan that cannot run subqueries: the conjunction of the conjuncts
/// without a correlated subquery (checked while reading), and the others (checked afterwards
/// with a [`Subqueries`] runner).
pub fn split_where(filter: Option<&Expr>) -> (Option<Expr>, Vec<Expr>) {
    let mut conj = Vec::new();
    if let Some(f) = filter {
        conjuncts(f, &mut conj);
    }
    let (post, pre): (Vec<Expr>, Vec<Expr>) = conj.into_iter().partition(Expr::has_subquery);
    let pre = pre
        .into_iter()
        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b), Default::default()));
    (pre, post)
}
