//! Window function calls: `f(...) OVER (...)` and `f(...) OVER w` become an `Expr::Win(i)` and
//! a [`WinCall`] in the compiler's [`WindowCtx`], with MariaDB's rules and errors.
//!
//! Invariants:
//! * a window call is accepted only where the compiler has a window list (a select list or
//!   ORDER BY): elsewhere 4015; inside an aggregate's or a window function's argument 4074;
//!   inside a window's PARTITION BY / ORDER BY 4016;
//! * a named window is resolved here (4009 unknown name, 4011/4012/4013 for a reference that
//!   adds what MariaDB does not allow) and the frame is the effective one (expr/window.rs);
//! * what MariaDB refuses is refused with its code (frames with ranking functions 4017, ranking
//!   without ORDER BY 4018, bad bound combinations 4014, RANGE needing one numeric key
//!   4019/4021, ROWS needing an integer 4020); what MariaDB does not compute as a window
//!   (COUNT/SUM/AVG of DISTINCT, GROUP_CONCAT, JSON_ARRAYAGG, JSON_OBJECTAGG) is its 1235 in its
//!   words, what Betula does not (other DISTINCT, FIRST/LAST, FILTER, IGNORE NULLS) is 1235,
//!   never ignored; MIN and MAX of DISTINCT are MIN and MAX;
//! * PERCENTILE_CONT, PERCENTILE_DISC and MEDIAN take their WITHIN GROUP key (MEDIAN its
//!   argument) as the window's ORDER BY and the whole partition as their frame (percentile.rs).

use sqlparser::ast;

use super::call::{agg_func, aggregate_clauses};
use super::percentile;
use super::Compiler;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::window::{Bound, Frame, FrameUnit, WinCall, WinFunc};
use crate::expr::{AggFunc, AggSpec, Expr};
use crate::types::value::Value;

/// PARTITION BY, ORDER BY and frame of a window after named windows are resolved.
struct Spec {
    partition: Vec<ast::Expr>,
    order: Vec<ast::OrderByExpr>,
    frame: Option<ast::WindowFrame>,
}

fn err(code: ErrorCode, msg: impl Into<String>) -> DbError {
    DbError::new(code, msg)
}

/// The definition named `name` in the WINDOW clause, itself resolved (`depth` stops a cycle).
fn named_spec(named: &[(String, ast::WindowSpec)], name: &str, depth: usize) -> DbResult<Spec> {
    let unknown = || {
        err(
            ErrorCode::WrongWindowSpecName,
            format!("Window specification with name '{name}' is not defined"),
        )
    };
    if depth > named.len() {
        return Err(unknown());
    }
    let (_, def) = named
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .ok_or_else(unknown)?;
    resolve_spec(named, def, depth + 1)
}

/// A window specification, with the window it names (if any) merged in as MariaDB does.
fn resolve_spec(
    named: &[(String, ast::WindowSpec)],
    s: &ast::WindowSpec,
    depth: usize,
) -> DbResult<Spec> {
    let Some(base_name) = &s.window_name else {
        return Ok(Spec {
            partition: s.partition_by.clone(),
            order: s.order_by.clone(),
            frame: s.window_frame.clone(),
        });
    };
    let base = named_spec(named, &base_name.value, depth)?;
    let n = &base_name.value;
    if !s.partition_by.is_empty() {
        return Err(err(
            ErrorCode::PartitionListInReferencingWindowSpec,
            format!(
                "Window specification referencing another one '{n}' cannot contain partition list"
            ),
        ));
    }
    if !base.order.is_empty() && !s.order_by.is_empty() {
        return Err(err(
            ErrorCode::OrderListInReferencingWindowSpec,
            format!("Referenced window specification '{n}' already contains order list"),
        ));
    }
    if base.frame.is_some() {
        return Err(err(
            ErrorCode::WindowFrameInReferencedWindowSpec,
            format!("Referenced window specification '{n}' cannot contain window frame"),
        ));
    }
    Ok(Spec {
        partition: base.partition,
        order: if s.order_by.is_empty() {
            base.order
        } else {
            s.order_by.clone()
        },
        frame: s.window_frame.clone(),
    })
}

/// A frame bound's offset: a non-negative number literal (1064 otherwise, as MariaDB's grammar);
/// with `typed`, ROWS needs an integer (4020), RANGE a number (4021: a string literal, which the
/// parser hands over in parentheses), without it a string is NULL.
fn bound_offset(e: &ast::Expr, unit: FrameUnit, typed: bool) -> DbResult<Value> {
    if let ast::Expr::Nested(inner) = e {
        if let ast::Expr::Value(v) = inner.as_ref() {
            if matches!(v.value, ast::Value::SingleQuotedString(_)) {
                return if typed {
                    Err(wrong_bound_type(unit))
                } else {
                    Ok(Value::Null)
                };
            }
        }
    }
    let ast::Expr::Value(v) = e else {
        return Err(DbError::syntax(e));
    };
    let ast::Value::Number(n, _) = &v.value else {
        return Err(DbError::syntax(e));
    };
    let value = super::number_literal(n)?;
    if typed && unit == FrameUnit::Rows && !matches!(value, Value::Int(_) | Value::UInt(_)) {
        return Err(wrong_bound_type(unit));
    }
    Ok(value)
}

/// 4020 / 4021: a bound of the wrong type for the frame's unit.
fn wrong_bound_type(unit: FrameUnit) -> DbError {
    match unit {
        FrameUnit::Rows => err(
            ErrorCode::WrongTypeForRowsFrame,
            "Integer is required for ROWS-type frame",
        ),
        FrameUnit::Range => err(
            ErrorCode::WrongTypeForRangeFrame,
            "Numeric datatype is required for RANGE-type frame",
        ),
    }
}

fn bound(b: &ast::WindowFrameBound, unit: FrameUnit, typed: bool) -> DbResult<Bound> {
    Ok(match b {
        ast::WindowFrameBound::CurrentRow => Bound::CurrentRow,
        ast::WindowFrameBound::Preceding(None) => Bound::UnboundedPreceding,
        ast::WindowFrameBound::Following(None) => Bound::UnboundedFollowing,
        ast::WindowFrameBound::Preceding(Some(e)) => {
            Bound::Preceding(bound_offset(e, unit, typed)?)
        }
        ast::WindowFrameBound::Following(Some(e)) => {
            Bound::Following(bound_offset(e, unit, typed)?)
        }
    })
}

/// The frame as written, checked in MariaDB's order: GROUPS and the short forms MariaDB's grammar
/// lacks are 1064, bounds in the wrong order 4014, RANGE offsets need one ORDER BY key (4019),
/// then the offsets' types (4020, 4021).
fn frame_of(f: &ast::WindowFrame, order_keys: usize) -> DbResult<Frame> {
    let unit = match f.units {
        ast::WindowFrameUnits::Rows => FrameUnit::Rows,
        ast::WindowFrameUnits::Range => FrameUnit::Range,
        ast::WindowFrameUnits::Groups => return Err(DbError::syntax("GROUPS")),
    };
    let start = bound(&f.start_bound, unit, false)?;
    let end = match &f.end_bound {
        Some(b) => bound(b, unit, false)?,
        None => {
            if matches!(start, Bound::Following(_) | Bound::UnboundedFollowing) {
                return Err(DbError::syntax(&f.start_bound));
            }
            Bound::CurrentRow
        }
    };
    let bad = matches!(start, Bound::UnboundedFollowing)
        || matches!(end, Bound::UnboundedPreceding)
        || (matches!(start, Bound::CurrentRow) && matches!(end, Bound::Preceding(_)))
        || (matches!(start, Bound::Following(_)) && matches!(end, Bound::CurrentRow));
    if bad {
        return Err(err(
            ErrorCode::BadCombinationOfWindowFrameBoundSpecs,
            "Unacceptable combination of window frame bound specifications",
        ));
    }
    let offset = |b: &Bound| matches!(b, Bound::Preceding(_) | Bound::Following(_));
    if unit == FrameUnit::Range && (offset(&start) || offset(&end)) && order_keys != 1 {
        return Err(err(
            ErrorCode::RangeFrameNeedsSimpleOrderby,
            "RANGE-type frame requires ORDER BY clause with single sort key",
        ));
    }
    let start = bound(&f.start_bound, unit, true)?;
    if let Some(b) = &f.end_bound {
        bound(b, unit, true)?;
    }
    Ok(Frame { unit, start, end })
}

/// The function of a window call named `name` and how many arguments it takes.
fn win_func(name: &str) -> Option<(WinFunc, std::ops::RangeInclusive<usize>)> {
    Some(match name {
        "ROW_NUMBER" => (WinFunc::RowNumber, 0..=0),
        "RANK" => (WinFunc::Rank, 0..=0),
        "DENSE_RANK" => (WinFunc::DenseRank, 0..=0),
        "PERCENT_RANK" => (WinFunc::PercentRank, 0..=0),
        "CUME_DIST" => (WinFunc::CumeDist, 0..=0),
        "NTILE" => (WinFunc::Ntile, 1..=1),
        // MariaDB's grammar takes no default value: LAG(v, offset, default) is 1064.
        "LAG" => (WinFunc::Lag, 1..=2),
        "LEAD" => (WinFunc::Lead, 1..=2),
        "FIRST_VALUE" => (WinFunc::FirstValue, 1..=1),
        "LAST_VALUE" => (WinFunc::LastValue, 1..=1),
        "NTH_VALUE" => (WinFunc::NthValue, 2..=2),
        // MEDIAN's argument is the key by now (percentile.rs): 0.5 is its argument.
        "PERCENTILE_CONT" | "MEDIAN" => (WinFunc::PercentileCont, 1..=1),
        "PERCENTILE_DISC" => (WinFunc::PercentileDisc, 1..=1),
        _ => return None,
    })
}

impl Compiler<'_> {
    /// `f(...) OVER ...`: registers the call and returns `Expr::Win(i)`.
    pub(super) fn window_call(&mut self, f: &ast::Function, name: &str) -> DbResult<Expr> {
        let Some(over) = &f.over else {
            return Err(DbError::internal("window_call without OVER"));
        };
        match self.windows.as_ref().map(|w| w.blocked) {
            None => {
                return Err(err(
                    ErrorCode::WrongPlacementOfWindowFunction,
                    "Window function is allowed only in SELECT list and ORDER BY clause",
                ))
            }
            Some(Some(ErrorCode::WindowFunctionInWindowSpec)) => {
                return Err(err(
                    ErrorCode::WindowFunctionInWindowSpec,
                    "Window function is not allowed in window specification",
                ))
            }
            Some(Some(code)) => {
                return Err(err(
                    code,
                    "Window functions can not be used as arguments to group functions.",
                ))
            }
            Some(None) => {}
        }
        let inverse = percentile::inverse_distribution(name);
        if f.filter.is_some()
            || f.null_treatment.is_some()
            || (!f.within_group.is_empty() && inverse.is_none())
        {
            return Err(DbError::unsupported(format!(
                "{name} with FILTER / IGNORE NULLS / WITHIN GROUP as window function"
            )));
        }
        let mut spec = {
            let named = &self.windows.as_ref().expect("checked above").named;
            match over {
                ast::WindowType::NamedWindow(id) => named_spec(named, &id.value, 0)?,
                ast::WindowType::WindowSpec(s) => resolve_spec(named, s, 0)?,
            }
        };
        let (mut args, distinct, star) = self.args(f)?;
        if inverse.is_some() {
            percentile::reshape(name, f, &mut args, &mut spec.order);
        }
        let func = self.window_func(f, name, args.len(), distinct, star)?;
        let blocked = ErrorCode::SumFuncWithWindowFuncAsArg;
        let numbers = matches!(&func, WinFunc::Agg(s) if reads_numbers(s.func));
        let args = self.compile_blocked(&args, blocked, numbers)?;
        let func = match func {
            WinFunc::Agg(mut spec) => {
                spec.collations = args.iter().map(|e| self.scope.collation_of(e)).collect();
                spec.arg = args.clone();
                WinFunc::Agg(spec)
            }
            other => other,
        };
        let in_spec = ErrorCode::WindowFunctionInWindowSpec;
        let partition = self.compile_blocked(&spec.partition, in_spec, false)?;
        let order_exprs: Vec<ast::Expr> = spec
            .order
            .iter()
            .map(|o| {
                self.window_order_alias(&o.expr)
                    .unwrap_or_else(|| o.expr.clone())
            })
            .collect();
        let order_keys = self.compile_blocked(&order_exprs, in_spec, false)?;
        let order: Vec<(Expr, bool)> = order_keys
            .into_iter()
            .zip(&spec.order)
            .map(|(e, o)| (e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))))
            .collect();
        let lower = match &inverse {
            Some(f) => percentile::message_name(f).to_string(),
            None => name.to_ascii_lowercase(),
        };
        if let (Some(arg), Some((key, _))) = (args.first(), order.first()) {
            if inverse.is_some() {
                percentile::check_types(self.scope, &func, arg, key)?;
            }
        }
        let frame = effective_frame(&func, &lower, spec.frame.as_ref(), order.len())?;
        let call = WinCall {
            partition_collations: partition
                .iter()
                .map(|e| self.scope.collation_of(e))
                .collect(),
            order_collations: order
                .iter()
                .map(|(e, _)| self.scope.collation_of(e))
                .collect(),
            func,
            name: lower,
            args,
            partition,
            order,
            frame,
        };
        let w = self.windows.as_mut().expect("checked above");
        w.calls.push(call);
        Ok(Expr::Win(w.calls.len() - 1))
    }

    /// The window function `name` with `n` arguments, or 1235/1305/1582 as MariaDB refuses it.
    fn window_func(
        &mut self,
        f: &ast::Function,
        name: &str,
        n: usize,
        distinct: bool,
        star: bool,
    ) -> DbResult<WinFunc> {
        if let Some(agg) = agg_func(name) {
            // MariaDB's own refusals, in its words; MIN and MAX of distinct values are MIN and MAX.
            if matches!(
                agg,
                AggFunc::GroupConcat | AggFunc::JsonArrayAgg | AggFunc::JsonObjectAgg
            ) {
                return Err(DbError::unsupported_by_mariadb(format!(
                    "{name}() aggregate as window function"
                )));
            }
            if distinct && matches!(agg, AggFunc::Count | AggFunc::Sum | AggFunc::Avg) {
                return Err(DbError::unsupported_by_mariadb(format!(
                    "{name}(DISTINCT) aggregate as window function"
                )));
            }
            if distinct && !matches!(agg, AggFunc::Min | AggFunc::Max) {
                return Err(DbError::unsupported(format!(
                    "{name}(DISTINCT) aggregate as window function"
                )));
            }
            if matches!(
                agg,
                AggFunc::First | AggFunc::Last | AggFunc::Delta | AggFunc::Rate
            ) {
                return Err(DbError::unsupported(format!(
                    "{name}() aggregate as window function"
                )));
            }
            let func = if agg == AggFunc::Count && star {
                AggFunc::CountStar
            } else {
                agg
            };
            if (func == AggFunc::CountStar) != (n == 0) || n > 1 {
                return Err(DbError::syntax(format!("{name}(")));
            }
            let (separator, _) = aggregate_clauses(f);
            return Ok(WinFunc::Agg(AggSpec {
                func,
                arg: vec![],
                distinct: false,
                separator,
                order: vec![],
                collations: vec![],
                order_collations: vec![],
                limit: None,
                max_len_bytes: 0,
                json_kinds: vec![],
            }));
        }
        match win_func(name) {
            Some((func, arity)) if arity.contains(&n) && !distinct && !star => Ok(func),
            Some((WinFunc::Lag | WinFunc::Lead, _)) => Err(DbError::syntax(format!("{name}("))),
            Some(_) => Err(DbError::wrong_args(name)),
            None => Err(DbError::unsupported(format!(
                "{} as window function",
                name.to_ascii_lowercase()
            ))),
        }
    }

    /// `exprs` compiled with window calls refused (`code`); aggregate arguments that read numbers
    /// read an ENUM/SET as its member number.
    fn compile_blocked(
        &mut self,
        exprs: &[ast::Expr],
        code: ErrorCode,
        numbers: bool,
    ) -> DbResult<Vec<Expr>> {
        let w = self.windows.as_mut().expect("window list present");
        let saved = w.blocked.replace(code);
        let res = exprs
            .iter()
            .map(|e| {
                let c = self.compile(e)?;
                Ok(if numbers { self.number(c) } else { c })
            })
            .collect::<DbResult<Vec<_>>>();
        if let Some(w) = self.windows.as_mut() {
            w.blocked = saved;
        }
        res
    }
}

/// SUM, AVG, BIT_AND, BIT_OR and the deviations read an ENUM/SET as its member number.
fn reads_numbers(f: AggFunc) -> bool {
    !matches!(
        f,
        AggFunc::Count | AggFunc::CountStar | AggFunc::Min | AggFunc::Max
    )
}

/// The frame the call computes over: MariaDB's default where none is written; ranking
/// functions take none (4017) and need ORDER BY (4018).
fn effective_frame(
    func: &WinFunc,
    name: &str,
    written: Option<&ast::WindowFrame>,
    order_keys: usize,
) -> DbResult<Frame> {
    let ranking = matches!(
        func,
        WinFunc::Rank | WinFunc::DenseRank | WinFunc::PercentRank | WinFunc::CumeDist
    );
    if matches!(func, WinFunc::PercentileCont | WinFunc::PercentileDisc) {
        // The value is the whole partition's (the grammar allows no frame).
        return Ok(Frame::whole());
    }
    let needs_order = ranking || matches!(func, WinFunc::Lag | WinFunc::Lead);
    let no_frame = ranking || matches!(func, WinFunc::RowNumber | WinFunc::Ntile);
    if needs_order && order_keys == 0 {
        return Err(err(
            ErrorCode::NoOrderListInWindowSpec,
            format!("No order list in window specification for '{name}'"),
        ));
    }
    if no_frame && written.is_some() {
        return Err(err(
            ErrorCode::NotAllowedWindowFrame,
            format!("Window frame is not allowed with '{name}'"),
        ));
    }
    match written {
        Some(f) => frame_of(f, order_keys),
        None if order_keys > 0 => Ok(Frame::to_current_peers()),
        None => Ok(Frame::whole()),
    }
}
