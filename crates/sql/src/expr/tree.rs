//! The compiled expression tree: [`Expr`] and the operators, casts and units it is made of, and
//! [`AggSpec`], an aggregate call the grouping operator evaluates.
//!
//! Invariants:
//! * Column references are positions in the flat row of the scope (tables side by side);
//!   `InsertValue(i)` is column `i` of the row an INSERT tried to write (`VALUES(col)`); `Agg(i)`
//!   is aggregate `i` of the compiler's aggregate list, evaluated by the grouping operator.
//! * A tree holds no names left to resolve: everything fixed for the statement (parameters,
//!   variables, session functions, uncorrelated subqueries) is already a literal.
//! * [`Expr::is_const`] is true only for a tree whose value is the same on every row (no column,
//!   aggregate or RAND): the planner and constant folding (fold.rs) evaluate such a tree once.

use std::sync::Arc;

use crate::error::interrupt::Interrupt;
use crate::expr::functions::Rng;
use crate::types::collation::Collation;
use crate::types::time_zone::TimeZone;
use crate::types::value::Value;
use crate::types::SqlType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Eq,
    NullSafeEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    /// `+ - * / DIV %`.
    pub fn is_arithmetic(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod
        )
    }
    /// `& | ^ << >>`.
    pub fn is_bitwise(self) -> bool {
        matches!(
            self,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
        )
    }
    /// `= <> < <= > >= <=>`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::NullSafeEq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    /// The compound units: the amount is text holding several fields (`'D H:M:S.f'`), read
    /// as MariaDB reads it (functions/interval_text.rs).
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

impl IntervalUnit {
    /// The compound units with their SQL names.
    pub const COMPOUND: [(&'static str, IntervalUnit); 11] = [
        ("SECOND_MICROSECOND", IntervalUnit::SecondMicrosecond),
        ("MINUTE_MICROSECOND", IntervalUnit::MinuteMicrosecond),
        ("MINUTE_SECOND", IntervalUnit::MinuteSecond),
        ("HOUR_MICROSECOND", IntervalUnit::HourMicrosecond),
        ("HOUR_SECOND", IntervalUnit::HourSecond),
        ("HOUR_MINUTE", IntervalUnit::HourMinute),
        ("DAY_MICROSECOND", IntervalUnit::DayMicrosecond),
        ("DAY_SECOND", IntervalUnit::DaySecond),
        ("DAY_MINUTE", IntervalUnit::DayMinute),
        ("DAY_HOUR", IntervalUnit::DayHour),
        ("YEAR_MONTH", IntervalUnit::YearMonth),
    ];

    /// Whether this is a compound unit (its amount is text of several fields).
    pub fn is_compound(self) -> bool {
        use IntervalUnit as U;
        !matches!(
            self,
            U::Microsecond
                | U::Second
                | U::Minute
                | U::Hour
                | U::Day
                | U::Week
                | U::Month
                | U::Quarter
                | U::Year
        )
    }

    /// Whether an amount of this unit is a whole number of days, months or years (a DATE
    /// moved by it stays a DATE).
    pub fn is_whole_days(self) -> bool {
        use IntervalUnit as U;
        matches!(
            self,
            U::Day | U::Week | U::Month | U::Quarter | U::Year | U::YearMonth
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastTo {
    Signed,
    Unsigned,
    /// CHAR / CHAR(n): text, cut to n characters.
    Char(Option<u32>),
    /// BINARY / BINARY(n): bytes, cut or padded with 0x00 to n bytes.
    Binary(Option<u32>),
    Decimal(u8, u8),
    Double,
    Date,
    /// DATETIME(fsp): the value with its fraction cut to `fsp` digits (MariaDB's default 0).
    DateTime(u8),
    /// TIME(fsp), as DATETIME(fsp).
    Time(u8),
}

impl CastTo {
    /// SIGNED, UNSIGNED, DECIMAL, DOUBLE.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            CastTo::Signed | CastTo::Unsigned | CastTo::Decimal(..) | CastTo::Double
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(Value),
    Col(usize),
    InsertValue(usize),
    Agg(usize),
    /// Window function call `i` of the SELECT block (expr/window.rs), computed after grouping.
    Win(usize),
    Unary(UnOp, Box<Expr>),
    /// Binary operator; the collation is the one text comparisons use.
    Binary(BinOp, Box<Expr>, Box<Expr>, Collation),
    IsNull(Box<Expr>, bool),
    IsTrue(Box<Expr>, bool, bool),
    InList(Box<Expr>, Vec<Expr>, bool, Collation),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool, Collation),
    Like(Box<Expr>, Box<Expr>, bool, char, Collation),
    Case(
        Option<Box<Expr>>,
        Vec<(Expr, Expr)>,
        Option<Box<Expr>>,
        Collation,
    ),
    Cast(Box<Expr>, CastTo),
    DateAdd(Box<Expr>, Box<Expr>, IntervalUnit, bool),
    Func(String, Vec<Expr>),
    /// The member number of an ENUM value, or the bitmask of a SET value, of the column read by
    /// the inner expression, where MariaDB reads the column as a number (`k + 0`, `SUM(k)`,
    /// `k = 2`, `CAST(k AS SIGNED)`); the column's type and members.
    Member(Box<Expr>, SqlType, Arc<[String]>),
    /// `RAND()` / `RAND(seed)`: the next value of the call's own generator at each evaluation
    /// (functions/random.rs); never constant.
    Rand(Option<Box<Expr>>, Rng),
    /// The inner DATETIME value moved between UTC and the time zone (types/time_zone): a
    /// TIMESTAMP column (stored as UTC) read in the session's zone, or a value compared with one
    /// turned into UTC (TIMESTAMPs compare as stored, as in MariaDB). A value that is not a date
    /// and time passes unchanged.
    InZone(Box<Expr>, TimeZone, ZoneShift),
    /// `SLEEP(seconds)`: waits, then gives 0; a KILL of the connection ends the wait with the
    /// statement's interruption error (error/interrupt.rs). Never constant.
    Sleep(Box<Expr>, Interrupt),
    /// A correlated subquery, run for each row by the executor (correlated.rs).
    Subquery(Box<crate::expr::correlated::Correlated>),
    /// `x REGEXP p` and REGEXP_INSTR / _SUBSTR / _REPLACE, holding its compiled pattern
    /// (regexp/).
    Regexp(Box<crate::expr::regexp::RegexpCall>),
    /// A JSON function (json/).
    Json(Box<crate::expr::json::JsonCall>),
    /// `x op ANY|ALL (...)` over the rows of a subquery (quantified.rs).
    Quantified(Box<crate::expr::quantified::Quantified>),
    /// A user variable read when evaluated, in a statement that assigns user variables
    /// (user_var.rs); elsewhere `@v` compiles to its value. Never constant.
    UserVar(crate::expr::user_var::UserVarSlot),
    /// `@v := expr`: the value of `expr`, stored into `@v` as it is evaluated. Never constant.
    SetUserVar(Box<Expr>, crate::expr::user_var::UserVarSlot),
}

/// The direction of an [`Expr::InZone`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneShift {
    /// UTC to local time.
    ToLocal,
    /// Local time to UTC; a local time that happens twice gives its first instant.
    ToUtc,
}

impl Expr {
    pub fn lit(v: Value) -> Expr {
        Expr::Lit(v)
    }
    /// The column this expression reads as it is, or as a TIMESTAMP read in the session's zone
    /// (`InZone(Col, ToLocal)`): what a key, ORDER BY or an UPDATE target recognizes as a column.
    pub fn col_index(&self) -> Option<usize> {
        match self {
            Expr::Col(i) => Some(*i),
            Expr::InZone(a, _, ZoneShift::ToLocal) => match **a {
                Expr::Col(i) => Some(i),
                _ => None,
            },
            _ => None,
        }
    }
    /// Calls `f` on every column this expression reads.
    pub fn visit_cols(&self, f: &mut dyn FnMut(usize)) {
        match self {
            Expr::Col(i) => f(*i),
            Expr::Lit(_) | Expr::InsertValue(_) | Expr::Agg(_) | Expr::Win(_) => {}
            Expr::Unary(_, a)
            | Expr::IsNull(a, _)
            | Expr::IsTrue(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Member(a, _, _)
            | Expr::InZone(a, _, _) => a.visit_cols(f),
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.visit_cols(f);
                b.visit_cols(f)
            }
            Expr::InList(a, l, _, _) => {
                a.visit_cols(f);
                l.iter().for_each(|e| e.visit_cols(f))
            }
            Expr::Between(a, b, c, _, _) => {
                a.visit_cols(f);
                b.visit_cols(f);
                c.visit_cols(f)
            }
            Expr::Case(o, w, e, _) => {
                if let Some(o) = o {
                    o.visit_cols(f)
                }
                for (a, b) in w {
                    a.visit_cols(f);
                    b.visit_cols(f)
                }
                if let Some(e) = e {
                    e.visit_cols(f)
                }
            }
            Expr::Func(_, a) => a.iter().for_each(|e| e.visit_cols(f)),
            Expr::Rand(a, _) => {
                if let Some(a) = a {
                    a.visit_cols(f)
                }
            }
            Expr::Sleep(a, _) | Expr::SetUserVar(a, _) => a.visit_cols(f),
            Expr::UserVar(_) => {}
            Expr::Regexp(r) => r.args.iter().for_each(|e| e.visit_cols(f)),
            Expr::Json(j) => j.args.iter().for_each(|e| e.visit_cols(f)),
            Expr::Quantified(q) => q.operands().for_each(|e| e.visit_cols(f)),
            Expr::Subquery(s) => s
                .outer
                .iter()
                .chain(s.operands())
                .for_each(|e| e.visit_cols(f)),
        }
    }
    /// True if the expression has the same value on every row: it reads no column of the row,
    /// no aggregate, and calls no RAND.
    pub fn is_const(&self) -> bool {
        let mut c = true;
        self.visit_cols(&mut |_| c = false);
        c && !self.has_agg() && !self.has_rand()
    }
    pub fn has_agg(&self) -> bool {
        match self {
            Expr::Agg(_) | Expr::Win(_) => true,
            Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) => false,
            Expr::Unary(_, a)
            | Expr::IsNull(a, _)
            | Expr::IsTrue(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Member(a, _, _)
            | Expr::InZone(a, _, _) => a.has_agg(),
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.has_agg() || b.has_agg()
            }
            Expr::InList(a, l, _, _) => a.has_agg() || l.iter().any(|e| e.has_agg()),
            Expr::Between(a, b, c, _, _) => a.has_agg() || b.has_agg() || c.has_agg(),
            Expr::Case(o, w, e, _) => {
                o.as_ref().is_some_and(|o| o.has_agg())
                    || w.iter().any(|(a, b)| a.has_agg() || b.has_agg())
                    || e.as_ref().is_some_and(|e| e.has_agg())
            }
            Expr::Func(_, a) => a.iter().any(|e| e.has_agg()),
            Expr::Rand(a, _) => a.as_ref().is_some_and(|a| a.has_agg()),
            Expr::Sleep(a, _) | Expr::SetUserVar(a, _) => a.has_agg(),
            Expr::UserVar(_) => false,
            Expr::Subquery(s) => s.operands().iter().any(|e| e.has_agg()),
            Expr::Regexp(r) => r.args.iter().any(|e| e.has_agg()),
            Expr::Json(j) => j.args.iter().any(|e| e.has_agg()),
            Expr::Quantified(q) => q.operands().any(|e| e.has_agg()),
        }
    }
    /// True if the expression holds a correlated subquery.
    pub fn has_subquery(&self) -> bool {
        let mut found = false;
        crate::expr::fold::visit_nodes(self, &mut |e| found |= matches!(e, Expr::Subquery(_)));
        found
    }
    /// True if the expression holds a window function call.
    pub fn has_win(&self) -> bool {
        match self {
            Expr::Win(_) => true,
            Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) | Expr::Agg(_) => false,
            Expr::Unary(_, a)
            | Expr::IsNull(a, _)
            | Expr::IsTrue(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Member(a, _, _)
            | Expr::InZone(a, _, _) => a.has_win(),
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.has_win() || b.has_win()
            }
            Expr::InList(a, l, _, _) => a.has_win() || l.iter().any(|e| e.has_win()),
            Expr::Between(a, b, c, _, _) => a.has_win() || b.has_win() || c.has_win(),
            Expr::Case(o, w, e, _) => {
                o.as_ref().is_some_and(|o| o.has_win())
                    || w.iter().any(|(a, b)| a.has_win() || b.has_win())
                    || e.as_ref().is_some_and(|e| e.has_win())
            }
            Expr::Func(_, a) => a.iter().any(|e| e.has_win()),
            Expr::Rand(a, _) => a.as_ref().is_some_and(|a| a.has_win()),
            Expr::Sleep(a, _) | Expr::SetUserVar(a, _) => a.has_win(),
            Expr::UserVar(_) => false,
            Expr::Subquery(s) => s.operands().iter().any(|e| e.has_win()),
            Expr::Regexp(r) => r.args.iter().any(|e| e.has_win()),
            Expr::Json(j) => j.args.iter().any(|e| e.has_win()),
            Expr::Quantified(q) => q.operands().any(|e| e.has_win()),
        }
    }
    /// True if the expression calls RAND or SLEEP, or reads or assigns a user variable as it
    /// runs: its value (or what evaluating it does)
    /// changes from one evaluation to the next.
    pub fn has_rand(&self) -> bool {
        match self {
            Expr::Rand(..) | Expr::Sleep(..) | Expr::UserVar(_) | Expr::SetUserVar(..) => true,
            Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) | Expr::Agg(_) | Expr::Win(_) => {
                false
            }
            Expr::Unary(_, a)
            | Expr::IsNull(a, _)
            | Expr::IsTrue(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Member(a, _, _)
            | Expr::InZone(a, _, _) => a.has_rand(),
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.has_rand() || b.has_rand()
            }
            Expr::InList(a, l, _, _) => a.has_rand() || l.iter().any(|e| e.has_rand()),
            Expr::Between(a, b, c, _, _) => a.has_rand() || b.has_rand() || c.has_rand(),
            Expr::Case(o, w, e, _) => {
                o.as_ref().is_some_and(|o| o.has_rand())
                    || w.iter().any(|(a, b)| a.has_rand() || b.has_rand())
                    || e.as_ref().is_some_and(|e| e.has_rand())
            }
            Expr::Func(_, a) => a.iter().any(|e| e.has_rand()),
            Expr::Subquery(s) => s.operands().iter().any(|e| e.has_rand()),
            Expr::Regexp(r) => r.args.iter().any(|e| e.has_rand()),
            Expr::Json(j) => j.args.iter().any(|e| e.has_rand()),
            Expr::Quantified(q) => q.operands().any(|e| e.has_rand()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    Count,
    CountStar,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    /// JSON_ARRAYAGG(v) / JSON_OBJECTAGG(k, v): the group's values as one JSON array / object
    /// (aggregate.rs, json_agg.rs).
    JsonArrayAgg,
    JsonObjectAgg,
    BitAnd,
    BitOr,
    BitXor,
    /// FIRST(v, ts) / LAST(v, ts): `v` at the least / greatest `ts` (a Betula extension,
    /// aggregate.rs).
    First,
    Last,
    /// DELTA(v, ts) / RATE(v, ts): a counter's increase over the group, in all / per second,
    /// resets handled (a Betula extension, counter_rate.rs).
    Delta,
    Rate,
    /// STD, STDDEV, STDDEV_POP.
    StdPop,
    StdSamp,
    /// VARIANCE, VAR_POP.
    VarPop,
    VarSamp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggSpec {
    pub func: AggFunc,
    pub arg: Vec<Expr>,
    pub distinct: bool,
    pub separator: String,
    pub order: Vec<(Expr, bool)>,
    /// The collation of each argument (DISTINCT, MIN, MAX) and of each ORDER BY key.
    pub collations: Vec<crate::types::collation::Collation>,
    pub order_collations: Vec<crate::types::collation::Collation>,
    /// GROUP_CONCAT / JSON_ARRAYAGG `LIMIT [offset,] n`: the values skipped, then the most
    /// joined.
    pub limit: Option<(u64, u64)>,
    /// GROUP_CONCAT / JSON_ARRAYAGG: group_concat_max_len when the statement was compiled, the
    /// longest result in bytes.
    pub max_len_bytes: u64,
    /// JSON_ARRAYAGG / JSON_OBJECTAGG: how each argument enters the document.
    pub json_kinds: Vec<crate::expr::json::ArgKind>,
}
