//! [`Compiler`]: a sqlparser expression becomes an [`Expr`] with its names resolved against a
//! [`Scope`]. `Compiler::compile_inner` only routes by kind of expression to the files here:
//!
//! | file | expressions |
//! | --- | --- |
//! | `names.rs` | column names, `@var`, `@@sysvar`, niladic CURRENT_TIMESTAMP & co. |
//! | `literal.rs` | numbers, strings, bit/hex literals, `?` parameters, `_charset'..'` |
//! | `operators.rs` | unary and binary operators, `± INTERVAL`, `IS [NOT] NULL/TRUE/FALSE` |
//! | `predicates.rs` | IN (list), BETWEEN, LIKE, CASE |
//! | `cast.rs` | CAST, CONVERT, COLLATE, `DATE '...'` |
//! | `cast_digits.rs` | the digits of `CAST(x AS DECIMAL(M,D))` / `DOUBLE(M,D)` and their limits |
//! | `subquery.rs` | IN (subquery), EXISTS, scalar subqueries, `op ANY / ALL (subquery)` |
//! | `regexp.rs` | REGEXP / RLIKE, REGEXP_INSTR / _SUBSTR / _REPLACE |
//! | `json.rs` | the JSON functions (JSON_EXTRACT, JSON_OBJECT, ...) |
//! | `call.rs` | function calls, aggregates, EXTRACT/SUBSTRING/TRIM/POSITION syntax |
//! | `window.rs` | window function calls (`OVER`), named windows, frames |
//! | `window_alias.rs` | select-list aliases named in a window's PARTITION BY / ORDER BY |
//! | `percentile.rs` | PERCENTILE_CONT, PERCENTILE_DISC, MEDIAN (window functions): shape and type checks |
//!
//! Invariants:
//! * Everything fixed for the statement is folded at compile time: parameters, `@@vars`,
//!   `@vars`, `NOW()` (statement start), `DATABASE()`, uncorrelated subqueries (run once and
//!   materialized). A correlated subquery becomes an [`Expr::Subquery`] run per row
//!   (correlated.rs); inside it, a name of an enclosing query is that row's value.
//! * Aggregates are only accepted where the compiler has an aggregate list; each becomes
//!   `Agg(i)`, evaluated by the grouping operator.
//! * A text comparison carries the collation of the column it compares (the default one
//!   otherwise), chosen here once.
//! * An ENUM/SET column read as a number (arithmetic, logic, numeric functions and casts, SUM,
//!   comparisons with numbers) is wrapped in [`Expr::Member`] and gives its member number, as in
//!   MariaDB; compared with text, or anywhere else, it gives its text.

mod call;
mod cast;
mod cast_digits;
mod charset_info;
mod compound_call;
mod division;
mod exists_query;
mod having;
pub mod hybrid;
mod json;
mod literal;
mod names;
mod operators;
pub mod percentile;
mod predicates;
mod regexp;
mod subquery;
mod window;
mod window_alias;

pub use cast::cast_target;
pub use compound_call::{COMPOUND_EXTRACT_MARK, COMPOUND_INTERVAL_MARK};
pub use having::plain_column;
pub use literal::{literal_overflows, number_literal};
pub use names::{object_name_parts, quoted_user_var, user_var_name};
pub use operators::interval_unit;

use sqlparser::ast;

use crate::error::db_error::{DbError, DbResult};
use crate::expr::{AggSpec, Expr, Scope, ZoneShift};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// What running a subquery while its enclosing expression is compiled gave.
pub enum SubqueryRun {
    /// Its rows: it is not correlated.
    Rows(Vec<Vec<Value>>),
    /// It names columns of the enclosing scope: the ones found so far (positions), and what
    /// the session needs to run it again later (the CTEs in scope).
    Correlated {
        read: Vec<usize>,
        env: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
    },
}

/// What the compiler needs from the session.
pub trait CompileEnv {
    fn system_var(&mut self, name: &str, global: bool) -> DbResult<Value>;
    fn user_var(&mut self, name: &str) -> Value;
    /// The slot of user variable `@name` when the statement reads it as it runs: always for an
    /// assignment (`assign`), for a read when the statement assigns user variables (so a read
    /// sees the assignments of earlier rows and items); `None` where there is no session (an
    /// assignment is then refused) or for a read of a statement that assigns none (the read is
    /// then the variable's value when the statement starts).
    fn user_var_slot(&mut self, _name: &str, _assign: bool) -> Option<crate::expr::UserVarSlot> {
        None
    }
    fn param(&mut self, index: usize) -> DbResult<Value>;
    /// Runs an uncorrelated subquery to completion.
    fn subquery(&mut self, q: &ast::Query) -> DbResult<Vec<Vec<Value>>>;
    /// Runs a subquery of an expression compiled against `scope`, whose names the subquery may
    /// read (correlated.rs); where there is no session, as [`CompileEnv::subquery`].
    fn subquery_in(&mut self, q: &ast::Query, _scope: &Scope) -> DbResult<SubqueryRun> {
        self.subquery(q).map(SubqueryRun::Rows)
    }
    /// A name of an enclosing query of the subquery being compiled: its value for the row the
    /// subquery runs for, and the column. `Ok(None)`: no enclosing query has it.
    fn outer_column(
        &mut self,
        _db: Option<&str>,
        _table: Option<&str>,
        _name: &str,
        _place: &str,
    ) -> DbResult<Option<(Value, crate::expr::ScopeCol)>> {
        Ok(None)
    }
    /// How many outer names [`CompileEnv::outer_column`] has resolved so far.
    fn outer_reads(&self) -> usize {
        0
    }
    /// Those of [`CompileEnv::outer_reads`] in a query of more than one row (not
    /// [`crate::expr::Scope::one_row`]).
    fn outer_reads_many(&self) -> usize {
        self.outer_reads()
    }
    /// `DATABASE()`, `NOW()`, `USER()`, ... (functions of the session, folded to constants).
    fn session_fn(&mut self, name: &str, args: &[Value]) -> Option<DbResult<Value>>;
    /// A fresh seed for a `RAND()` of the statement; `None` where there is no session (RAND is
    /// then an unknown function).
    fn rand_seed(&mut self) -> Option<u64> {
        None
    }
    /// The connection's interrupt flag, which a `SLEEP()` of the statement waits on; `None`
    /// where there is no session (SLEEP is then an unknown function).
    fn interrupt(&self) -> Option<crate::error::interrupt::Interrupt> {
        None
    }
    /// A warning of compiling the statement (e.g. 1916 for a too long number literal); dropped
    /// where there is no session.
    fn warn(&mut self, _w: crate::error::sql_error::Warning) {}
    /// The statement's text behind `span` (a `0x` literal is told from `X'..'` by it:
    /// hybrid.rs); None where there is no session.
    fn source_text(&self, _span: sqlparser::tokenizer::Span) -> Option<String> {
        None
    }
    /// `e` as MariaDB prints it (`Item::print`: names in backquotes, functions in lower case),
    /// which some errors quote; as sqlparser prints it where there is no session.
    fn printed(&self, e: &ast::Expr) -> String {
        e.to_string()
    }
    /// The expansion of a call of the stored function `db.name` (design.md RTN6), `None` where
    /// there is no such function or no session. On success the function stays on the
    /// session's routine stack until [`CompileEnv::end_stored_function`].
    fn stored_function(
        &mut self,
        _db: Option<&str>,
        _name: &str,
        _args: &[ast::Expr],
    ) -> Option<DbResult<ast::Expr>> {
        None
    }
    /// The expansion of the last stored function [`CompileEnv::stored_function`] gave is compiled.
    fn end_stored_function(&mut self) {}
    /// The session's time zone (TIMESTAMP columns are read in it); UTC where there is no session.
    fn time_zone(&self) -> crate::types::time_zone::TimeZone {
        crate::types::time_zone::TimeZone::UTC
    }
}

/// The environment of an expression compiled outside any session (a DEFAULT, a partition
/// function): no variables, parameters, subqueries or session functions.
pub struct NoSession;

impl CompileEnv for NoSession {
    fn system_var(&mut self, n: &str, _: bool) -> DbResult<Value> {
        Err(DbError::unknown_var(n))
    }
    fn user_var(&mut self, _: &str) -> Value {
        Value::Null
    }
    fn param(&mut self, _: usize) -> DbResult<Value> {
        Err(DbError::syntax("?"))
    }
    fn subquery(&mut self, _: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
        Err(DbError::unsupported(
            "subquery in a column default, CHECK or partition expression",
        ))
    }
    fn session_fn(&mut self, _: &str, _: &[Value]) -> Option<DbResult<Value>> {
        None
    }
}

/// `e` compiled against `scope` outside any session ([`NoSession`]), with no aggregates.
pub fn compile_standalone(scope: &Scope, e: &ast::Expr, place: &'static str) -> DbResult<Expr> {
    let mut env = NoSession;
    Compiler {
        scope,
        env: &mut env,
        aggs: None,
        windows: None,
        insert_scope: None,
        aliases: &[],
        having_groups: None,
        place,
    }
    .compile(e)
}

pub struct Compiler<'a> {
    pub scope: &'a Scope,
    pub env: &'a mut dyn CompileEnv,
    /// Where aggregates go; `None` = aggregates are an error here.
    pub aggs: Option<&'a mut Vec<AggSpec>>,
    /// Where window function calls go; `None` = they are an error here (4015).
    pub windows: Option<&'a mut crate::expr::window::WindowCtx>,
    /// Columns of the INSERT row for `VALUES(col)` (ON DUPLICATE KEY UPDATE).
    pub insert_scope: Option<&'a Scope>,
    /// Select-list aliases usable by name (HAVING, ORDER BY).
    pub aliases: &'a [(String, Expr)],
    /// Compiling HAVING: the GROUP BY list's plain columns. A name outside an aggregate then
    /// resolves in the select list ([`Compiler::aliases`]) and these columns only
    /// (having.rs).
    pub having_groups: Option<&'a [usize]>,
    /// For error messages, MariaDB's name of the clause: "SELECT", "WHERE", "ORDER BY", ...
    pub place: &'static str,
}

impl<'a> Compiler<'a> {
    /// A compiler of a grouped block's expressions: aggregates go to `aggs`, select-list
    /// `aliases` are usable by name; no window calls, no HAVING rules.
    pub fn grouped(
        scope: &'a Scope,
        env: &'a mut dyn CompileEnv,
        aggs: &'a mut Vec<AggSpec>,
        aliases: &'a [(String, Expr)],
    ) -> Compiler<'a> {
        Compiler {
            scope,
            env,
            aggs: Some(aggs),
            windows: None,
            insert_scope: None,
            aliases,
            having_groups: None,
            place: "SELECT",
        }
    }
}

impl Compiler<'_> {
    pub fn compile(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        // Deep expressions recurse here: grow the stack on the heap instead of overflowing.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.compile_inner(e))
    }

    fn compile_inner(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        match e {
            E::Identifier(id) => self.identifier(id),
            E::CompoundIdentifier(ids) => self.compound_identifier(ids),
            E::Value(v) => self.literal(&v.value),
            E::TypedString(ts) => self.typed_string(ts),
            E::Nested(inner) => self.compile(inner),
            E::Prefixed { prefix, value } if prefix.quote_style.is_none() => {
                self.introduced(prefix, value)
            }
            E::UnaryOp { op, expr } => self.unary(op, expr),
            E::BinaryOp { left, op, right } => self.binary(left, op, right),
            E::IsNull(_)
            | E::IsNotNull(_)
            | E::IsTrue(_)
            | E::IsNotTrue(_)
            | E::IsFalse(_)
            | E::IsNotFalse(_)
            | E::IsUnknown(_)
            | E::IsNotUnknown(_)
            | E::IsDistinctFrom(..)
            | E::IsNotDistinctFrom(..) => self.is_test(e),
            E::InList {
                expr,
                list,
                negated,
            } => self.in_list(expr, list, *negated),
            E::Between {
                expr,
                negated,
                low,
                high,
            } => self.between(expr, low, high, *negated),
            E::Like {
                negated,
                expr,
                pattern,
                escape_char,
                ..
            } => self.like(expr, pattern, escape_char.as_deref(), *negated),
            E::RLike {
                negated,
                expr,
                pattern,
                ..
            } => self.rlike(expr, pattern, *negated),
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(operand.as_deref(), conditions, else_result.as_deref()),
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => self.in_subquery(expr, subquery, *negated),
            E::Exists { subquery, negated } => self.exists(subquery, *negated),
            E::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => self.quantified(left, compare_op, right, false),
            E::AllOp {
                left,
                compare_op,
                right,
            } => self.quantified(left, compare_op, right, true),
            E::Subquery(q) => self.scalar_subquery(q),
            E::Cast { .. } | E::Convert { .. } => self.cast(e),
            E::Collate { expr, collation } => self.collate(expr, collation),
            E::Extract { .. }
            | E::Substring { .. }
            | E::Trim { .. }
            | E::Ceil { .. }
            | E::Floor { .. }
            | E::Position { .. } => self.call_syntax(e),
            E::Interval(_) => Err(DbError::syntax("INTERVAL outside DATE_ADD/DATE_SUB")),
            E::Function(f) => self.function(f),
            other => Err(DbError::unsupported(format!("expression {other}"))),
        }
    }

    /// The collation a comparison of `a` and `b` uses, as MariaDB derives it: an explicit
    /// `COLLATE` on either side (two different ones are 1267), else the first operand's own
    /// (a column's, a function's of its arguments), else the default.
    fn col_collation(&self, a: &Expr, b: &Expr) -> DbResult<Collation> {
        match (a.explicit_collation(), b.explicit_collation()) {
            (Some(x), Some(y)) if x != y => Err(DbError::new(
                crate::error::code::ErrorCode::CantAggregate2collations,
                format!(
                    "Illegal mix of collations ({},EXPLICIT) and ({},EXPLICIT) for operation '='",
                    x.name(),
                    y.name()
                ),
            )),
            (Some(x), _) | (None, Some(x)) => Ok(x),
            _ => Ok(a
                .text_collation(self.scope)
                .or_else(|| b.text_collation(self.scope))
                .unwrap_or_default()),
        }
    }

    fn sub(&mut self, e: &ast::Expr) -> DbResult<Box<Expr>> {
        Ok(Box::new(self.compile(e)?))
    }

    /// `e`, the value of column `i` of `scope`, as expressions see it: a TIMESTAMP of a table is
    /// read in the session's time zone.
    fn read_in_zone(&mut self, scope: &Scope, i: usize, e: Expr) -> Expr {
        let tz = self.env.time_zone();
        match scope.cols.get(i) {
            Some(c) if c.stored_utc && !tz.is_utc() => {
                Expr::InZone(Box::new(e), tz, crate::expr::ZoneShift::ToLocal)
            }
            _ => e,
        }
    }

    /// `e` where a number is wanted: an ENUM/SET column gives its member number.
    fn number(&self, e: Expr) -> Expr {
        self.scope.numeric(e)
    }
}

/// `v` compared with a TIMESTAMP read in zone `tz`: moved to UTC.
fn to_utc(v: Expr, tz: crate::types::time_zone::TimeZone) -> Expr {
    Expr::InZone(Box::new(v), tz, ZoneShift::ToUtc)
}

/// The operands of a comparison where one is a TIMESTAMP read in the session's zone: TIMESTAMPs
/// compare as stored (UTC), the other operand moved to UTC, as MariaDB compares them (a local
/// time that happens twice matches its first instant only).
pub(super) fn utc_operands(a: Expr, b: Expr) -> (Expr, Expr) {
    match (a, b) {
        (Expr::InZone(x, _, ZoneShift::ToLocal), Expr::InZone(y, _, ZoneShift::ToLocal)) => {
            (*x, *y)
        }
        (Expr::InZone(x, tz, ZoneShift::ToLocal), o) => (*x, to_utc(o, tz)),
        (o, Expr::InZone(y, tz, ZoneShift::ToLocal)) => (to_utc(o, tz), *y),
        (a, b) => (a, b),
    }
}

/// [`utc_operands`] for `a IN (list)` and `a BETWEEN lo AND hi`: when `a` is a TIMESTAMP read
/// in the session's zone, it compares as stored and the others move to UTC.
pub(super) fn utc_operand_list(a: Expr, others: Vec<Expr>) -> (Expr, Vec<Expr>) {
    match a {
        Expr::InZone(x, tz, ZoneShift::ToLocal) => {
            let others = others
                .into_iter()
                .map(|o| utc_operands(Expr::InZone(x.clone(), tz, ZoneShift::ToLocal), o).1)
                .collect();
            (*x, others)
        }
        a => (a, others),
    }
}
