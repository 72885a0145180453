//! Window function calls as the compiler leaves them ([`WinCall`]): the function, its compiled
//! arguments, its window (PARTITION BY, ORDER BY and the effective frame) and the collations its
//! keys compare under. `Expr::Win(i)` in a select list or ORDER BY is call `i` of the SELECT
//! block's list; exec/window.rs computes every call for every row after WHERE, grouping and
//! HAVING, before DISTINCT, ORDER BY and LIMIT.
//!
//! Invariants:
//! * the frame is the effective one (MariaDB's defaults applied): with ORDER BY and no frame,
//!   RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW; without ORDER BY, the whole partition;
//!   a frame with only a start bound ends at CURRENT ROW;
//! * a RANGE frame with an `n PRECEDING/FOLLOWING` bound has exactly one ORDER BY key, of a
//!   numeric type, and `n` is a non-negative number; a ROWS bound's `n` is a non-negative
//!   integer (the compiler refuses anything else with MariaDB's 4019/4020/4021);
//! * the argument and key expressions are evaluated on the rows the window sees (a grouped
//!   query's groups: they may hold aggregates), never on a window function's result.

use crate::expr::{AggSpec, Expr};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// The function of a window call.
#[derive(Clone, Debug, PartialEq)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): `args[0]` is n.
    Ntile,
    /// LAG(v [, offset]) / LEAD: `args` are v and offset (MariaDB has no default argument).
    Lag,
    Lead,
    FirstValue,
    LastValue,
    /// NTH_VALUE(v, n).
    NthValue,
    /// PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY k) and MEDIAN(k): `args[0]` is p, the
    /// window's only ORDER BY key is k; the value is the whole partition's.
    PercentileCont,
    /// PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY k), as PercentileCont.
    PercentileDisc,
    /// An aggregate over the frame; the spec's arguments are evaluated per row like `args`.
    Agg(AggSpec),
}

/// ROWS or RANGE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnit {
    Rows,
    Range,
}

/// One end of a frame. `Preceding`/`Following` hold the offset: a row count for ROWS, a
/// difference of ORDER BY key values for RANGE.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(Value),
    CurrentRow,
    Following(Value),
    UnboundedFollowing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub unit: FrameUnit,
    pub start: Bound,
    pub end: Bound,
}

impl Frame {
    /// The whole partition.
    pub fn whole() -> Frame {
        Frame {
            unit: FrameUnit::Rows,
            start: Bound::UnboundedPreceding,
            end: Bound::UnboundedFollowing,
        }
    }

    /// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the default with ORDER BY).
    pub fn to_current_peers() -> Frame {
        Frame {
            unit: FrameUnit::Range,
            start: Bound::UnboundedPreceding,
            end: Bound::CurrentRow,
        }
    }
}

/// A window function call of a SELECT block.
#[derive(Clone, Debug, PartialEq)]
pub struct WinCall {
    pub func: WinFunc,
    /// The function's name in lower case, as MariaDB's messages show it.
    pub name: String,
    pub args: Vec<Expr>,
    pub partition: Vec<Expr>,
    pub partition_collations: Vec<Collation>,
    /// ORDER BY keys: expression and descending.
    pub order: Vec<(Expr, bool)>,
    pub order_collations: Vec<Collation>,
    pub frame: Frame,
}

impl WinCall {
    /// Whether `other` reads rows in the same partitions and order (one sort serves both).
    pub fn same_window(&self, other: &WinCall) -> bool {
        self.partition == other.partition && self.order == other.order
    }
}

/// What the compiler of a SELECT block's select list and ORDER BY collects: the window calls,
/// the WINDOW clause's definitions, and whether a window call is refused where the compiler is
/// (inside an aggregate's or window function's argument: 4074; inside a window's PARTITION BY or
/// ORDER BY: 4016).
#[derive(Default)]
pub struct WindowCtx {
    pub calls: Vec<WinCall>,
    /// The WINDOW clause: name and definition.
    pub named: Vec<(String, sqlparser::ast::WindowSpec)>,
    /// The select list's aliased items (alias, expression), which a window's PARTITION BY and
    /// ORDER BY may name (expr/compile/window_alias.rs).
    pub select_aliases: Vec<(String, sqlparser::ast::Expr)>,
    pub blocked: Option<crate::error::code::ErrorCode>,
}
