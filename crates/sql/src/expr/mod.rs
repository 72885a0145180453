//! Compiled expressions and their evaluation.
//!
//! | file | owns |
//! | --- | --- |
//! | `tree.rs` | [`Expr`] and its parts ([`BinOp`], [`UnOp`], [`CastTo`], [`IntervalUnit`]), [`AggSpec`] |
//! | `scope.rs` | [`Scope`]: the columns an expression sees, name resolution |
//! | `compile/` | [`Compiler`]: sqlparser expression → [`Expr`], by kind of expression |
//! | `eval/` | [`eval::eval`]: the value of an [`Expr`] on a row; operators and casts |
//! | `functions/` | scalar functions by family, called by name; RAND's generator |
//! | `aggregate.rs` | grouping keys and aggregate accumulators |
//! | `concat.rs` | GROUP_CONCAT, JSON_ARRAYAGG, JSON_OBJECTAGG: rows' text, order, LIMIT, cut |
//! | `fold.rs` | constant folding |
//! | `row_in.rs` | `(a, b) IN (SELECT ...)` |
//! | `quantified.rs` | `x op ANY / ALL (SELECT ...)` |
//! | `regexp/` | REGEXP / RLIKE and the REGEXP_* functions (MariaDB's PCRE patterns) |
//! | `json/` | the JSON functions (MariaDB's: JSON is text) |
//! | `correlated.rs` | correlated subqueries: outer names, per-row runs and their cache |
//! | `window.rs` | window function calls ([`window::WinCall`]) and their frames |
//! | `user_var.rs` | the connection's user variables as expressions read and assign them |
//!
//! Invariant: an [`Expr`] is compiled once per statement, and holds no name left to resolve; its
//! evaluation reads only the row, the aggregates and the INSERT row of [`eval::EvalCtx`], and
//! the user variables of a statement that assigns one (`@v := expr`, user_var.rs).

pub mod aggregate;
pub mod compile;
mod concat;
pub mod correlated;
mod counter_rate;
pub mod decimals;
pub mod dialect;
pub mod eval;
pub mod fold;
pub mod functions;
pub mod json;
pub mod quantified;
pub mod regexp;
pub mod row_in;
mod scope;
mod tree;
pub mod user_var;
pub mod window;

pub use compile::hybrid::hybrid_number;
pub use compile::{
    cast_target, compile_standalone, interval_unit, literal_overflows, number_literal,
    object_name_parts, quoted_user_var, user_var_name, CompileEnv, Compiler, NoSession,
    SubqueryRun,
};
pub use concat::GROUP_CONCAT_MAX_LEN_DEFAULT;
pub use scope::{Scope, ScopeCol};
pub use tree::{AggFunc, AggSpec, BinOp, CastTo, Expr, IntervalUnit, UnOp, ZoneShift};
pub use user_var::{UserVarSlot, UserVars};
