//! Correlated subqueries: a subquery that names columns of an enclosing query, run again for
//! each row of that query ([`Correlated`], in a tree as [`Expr::Subquery`]).
//!
//! Names: a subquery's names resolve in its own FROM first, then in each enclosing query outward
//! ([`OuterFrame`], kept by the session while a subquery is compiled or run). While the
//! enclosing expression is compiled its row is not known: the first outer name the subquery
//! reads makes the compiler build a [`Correlated`] node instead of running it. At evaluation the
//! node hands the whole outer row to the [`SubqueryRunner`] (the executor), which compiles and
//! runs the subquery with the outer names read as that row's values.
//!
//! Invariants:
//! * A node's result for an outer row is cached under the values of the outer columns its runs
//!   read ([`CorrState`]); when a run reads a column no earlier run read, the cache is emptied
//!   and that column joins the key, so a cached result is only reused for rows that agree on
//!   every column the run that made it looked at.
//! * The node reads every column of its scope ([`Correlated::outer`]), so the planner never
//!   takes it for a constant, a key bound or a condition an index can check.
//! * Without a runner (an expression evaluated where the executor does not run subqueries:
//!   ON clauses, UPDATE, DELETE, window arguments) evaluation is 1235, never a wrong value.
//! * Scalar: no row is NULL, more than one 1242. `x IN` no row is false whatever `x` is; else
//!   SQL's NULL logic (list.rs `in_list`, row_in.rs for rows); `x op ANY|ALL` as quantified.rs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlparser::ast;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{Expr, Scope};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// What the subquery's rows become.
#[derive(Clone, Debug, PartialEq)]
pub enum SubKind {
    /// `(SELECT ...)`: its one value.
    Scalar,
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { negated: bool },
    /// `items [NOT] IN (SELECT ...)`: one item, or a row; `numeric` is the single item read as
    /// a number (an ENUM's member number), used when every value of the subquery is a number.
    In {
        items: Vec<Expr>,
        numeric: Option<Box<Expr>>,
        colls: Vec<Collation>,
        negated: bool,
    },
    /// `item op ANY|ALL (SELECT ...)` (quantified.rs); `numeric` as for `In`.
    Quantified {
        item: Expr,
        numeric: Option<Box<Expr>>,
        op: crate::expr::BinOp,
        all: bool,
        coll: Collation,
    },
}

/// The results of a node's runs so far, by the values of the outer columns they read.
#[derive(Debug, Default)]
pub struct CorrState {
    /// The outer columns some run read (positions in the outer row), in the order first read.
    pub key: Vec<usize>,
    pub cache: HashMap<Vec<KeyValue>, Arc<Vec<Vec<Value>>>>,
}

/// A cache key part: a value's Debug form, which keeps its variant and exact value (1, 1.0
/// and '1' differ; values themselves are not `Hash`).
pub type KeyValue = String;

fn key_value(v: &Value) -> KeyValue {
    format!("{v:?}")
}

fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Float(_) | Value::Double(_)
    )
}

/// A correlated subquery in an expression.
pub struct Correlated {
    pub query: Arc<ast::Query>,
    pub kind: SubKind,
    /// The names of the enclosing query where the subquery was compiled.
    pub scope: Arc<Scope>,
    /// `Col(i)` for every column of `scope`: the outer row handed to each run.
    pub outer: Vec<Expr>,
    pub state: Arc<Mutex<CorrState>>,
    /// What the session needs to run it again (the CTEs in scope, the database and the views
    /// being expanded where it was compiled: `context::cte_scope::SubqueryEnv`).
    pub env: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Correlated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Correlated({}, {:?})", self.query, self.kind)
    }
}

impl Clone for Correlated {
    fn clone(&self) -> Correlated {
        Correlated {
            query: self.query.clone(),
            kind: self.kind.clone(),
            scope: self.scope.clone(),
            outer: self.outer.clone(),
            state: self.state.clone(),
            env: self.env.clone(),
        }
    }
}

impl PartialEq for Correlated {
    fn eq(&self, o: &Correlated) -> bool {
        Arc::ptr_eq(&self.state, &o.state) && self.kind == o.kind
    }
}

impl Correlated {
    /// A node for `query` compiled in `scope`; `read` are the outer columns found so far.
    pub fn new(query: &ast::Query, kind: SubKind, scope: &Scope, read: Vec<usize>) -> Correlated {
        Correlated {
            query: Arc::new(query.clone()),
            kind,
            scope: Arc::new(scope.clone()),
            outer: (0..scope.cols.len()).map(Expr::Col).collect(),
            state: Arc::new(Mutex::new(CorrState {
                key: read,
                cache: HashMap::new(),
            })),
            env: None,
        }
    }

    /// The expressions evaluated on the outer row besides the subquery (IN's left side).
    pub fn operands(&self) -> Vec<&Expr> {
        match &self.kind {
            SubKind::In { items, numeric, .. } => items.iter().chain(numeric.as_deref()).collect(),
            SubKind::Quantified { item, numeric, .. } => {
                std::iter::once(item).chain(numeric.as_deref()).collect()
            }
            _ => vec![],
        }
    }

    /// The cached rows for `outer`, if a run made them.
    pub fn cached(&self, outer: &[Value]) -> Option<Arc<Vec<Vec<Value>>>> {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.cache.get(&key_of(&st.key, outer)).cloned()
    }

    /// Keeps `rows` of a run over `outer` that read the outer columns marked in `read`.
    pub fn remember(
        &self,
        outer: &[Value],
        read: &[bool],
        rows: Vec<Vec<Value>>,
    ) -> Arc<Vec<Vec<Value>>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut grew = false;
        for (i, r) in read.iter().enumerate() {
            if *r && !st.key.contains(&i) {
                st.key.push(i);
                grew = true;
            }
        }
        if grew {
            st.cache.clear();
        }
        let rows = Arc::new(rows);
        let k = key_of(&st.key, outer);
        st.cache.insert(k, rows.clone());
        rows
    }
}

fn key_of(key: &[usize], outer: &[Value]) -> Vec<KeyValue> {
    key.iter()
        .map(|i| key_value(outer.get(*i).unwrap_or(&Value::Null)))
        .collect()
}

/// An enclosing query's names and, while the subquery runs for one of its rows, that row.
#[derive(Debug)]
pub struct OuterFrame {
    pub scope: Arc<Scope>,
    /// `None` while the enclosing expression is being compiled (no row yet).
    pub values: Option<Vec<Value>>,
    /// The columns of `scope` the subquery read.
    pub read: Vec<bool>,
}

/// Runs correlated subqueries for the rows being evaluated (the executor).
pub trait SubqueryRunner {
    /// The rows of `sub` for the outer row `outer`.
    fn rows(&self, sub: &Correlated, outer: &[Value]) -> DbResult<Arc<Vec<Vec<Value>>>>;
}

fn not_here() -> DbError {
    DbError::unsupported("a correlated subquery in this clause")
}

/// The value of `sub` on the row of `cx`.
pub fn eval_correlated(sub: &Correlated, cx: &EvalCtx<'_>) -> DbResult<Value> {
    let runner = cx.subq.ok_or_else(not_here)?;
    let outer = sub
        .outer
        .iter()
        .map(|e| eval(e, cx))
        .collect::<DbResult<Vec<_>>>()?;
    let rows = runner.rows(sub, &outer)?;
    match &sub.kind {
        SubKind::Scalar => scalar(&rows),
        SubKind::Exists { negated } => Ok(Value::Int((rows.is_empty() == *negated) as i64)),
        SubKind::In {
            items,
            numeric,
            colls,
            negated,
        } => in_rows(items, numeric.as_deref(), colls, *negated, &rows, cx),
        SubKind::Quantified {
            item,
            numeric,
            op,
            all,
            coll,
        } => quantified_rows(item, numeric.as_deref(), (*op, *all, *coll), &rows, cx),
    }
}

fn scalar(rows: &[Vec<Value>]) -> DbResult<Value> {
    match rows {
        [] => Ok(Value::Null),
        [r] if r.len() == 1 => Ok(r[0].clone()),
        [_] => Err(DbError::new(
            ErrorCode::OperandColumns,
            "Operand should contain 1 column(s)",
        )),
        _ => Err(DbError::new(
            ErrorCode::SubqueryNo1Row,
            "Subquery returns more than 1 row",
        )),
    }
}

fn in_rows(
    items: &[Expr],
    numeric: Option<&Expr>,
    colls: &[Collation],
    negated: bool,
    rows: &[Vec<Value>],
    cx: &EvalCtx<'_>,
) -> DbResult<Value> {
    if rows.is_empty() {
        return Ok(Value::Int(negated as i64));
    }
    // The outer side's values, as literals: the comparison below is the uncorrelated one.
    let lits = items
        .iter()
        .map(|e| eval(e, cx).map(Expr::Lit))
        .collect::<DbResult<Vec<_>>>()?;
    let e = if items.len() == 1 {
        if rows.iter().any(|r| r.len() != 1) {
            return Err(DbError::new(
                ErrorCode::OperandColumns,
                "Operand should contain 1 column(s)",
            ));
        }
        let all_numbers = rows.iter().all(|r| is_number(&r[0]));
        let a = match numeric {
            Some(n) if all_numbers => Expr::Lit(eval(n, cx)?),
            _ => lits.into_iter().next().unwrap_or(Expr::Lit(Value::Null)),
        };
        let list = rows.iter().map(|r| Expr::Lit(r[0].clone())).collect();
        Expr::InList(Box::new(a), list, negated, colls[0])
    } else {
        crate::expr::row_in::row_in(lits, colls.to_vec(), rows.to_vec(), negated)?
    };
    eval(&e, &EvalCtx::row(&[]))
}

/// `item op ANY|ALL` the one-column `rows` of a run (`numeric` as in [`in_rows`]).
fn quantified_rows(
    item: &Expr,
    numeric: Option<&Expr>,
    (op, all, coll): (crate::expr::BinOp, bool, Collation),
    rows: &[Vec<Value>],
    cx: &EvalCtx<'_>,
) -> DbResult<Value> {
    if rows.iter().any(|r| r.len() != 1) {
        return Err(DbError::new(
            ErrorCode::OperandColumns,
            "Operand should contain 1 column(s)",
        ));
    }
    let all_numbers = !rows.is_empty() && rows.iter().all(|r| is_number(&r[0]));
    let x = match numeric {
        Some(n) if all_numbers => eval(n, cx)?,
        _ => eval(item, cx)?,
    };
    let q = crate::expr::quantified::Quantified {
        left: Expr::Lit(x),
        values: rows.iter().map(|r| Expr::Lit(r[0].clone())).collect(),
        op,
        all,
        coll,
    };
    q.eval(&EvalCtx::row(&[]))
}
