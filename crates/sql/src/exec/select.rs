//! SELECT: running a [`SelectPlan`]. The nested loop (join.rs) feeds each row that passes WHERE
//! to grouping (aggregates, then HAVING) or straight to projection; window functions
//! (window.rs) are computed over those rows or groups before projection; then DISTINCT, the
//! sort when the key order does not give ORDER BY, and LIMIT/OFFSET (sort.rs).
//!
//! Invariants: the rows are exactly the plan's (nothing is planned here); without grouping,
//! DISTINCT or a sort the scan stops as soon as OFFSET + LIMIT rows are produced, and a result
//! whose rows arrive in order with known column types is streamed to the sink as it is read.

use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::exec::external_sort::SortBudget;
use crate::exec::group_table::{add_row, GroupBudget, GroupTable};
use crate::exec::join::Join;
use crate::exec::member_sort::MemberOrder;
use crate::exec::sort::{apply_limit, dedup_keyed, sort_keyed, Keyed};
use crate::exec::subqueries::{split_where, Subqueries};
use crate::exec::window::Base;
use crate::expr::aggregate::{group_key, Accumulator};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Expr;
use crate::plan::explain::JoinStats;
use crate::plan::select::SelectPlan;
use crate::result::{Output, RowSink};
use crate::types::value::Value;

/// Runs `plan`; rows go to `sink` as they are read when the plan allows it ([`Output::Sent`]).
pub fn run_select(
    cx: &mut Context,
    plan: &SelectPlan,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    run_select_analyzed(cx, plan, sink).map(|(out, _)| out)
}

/// [`run_select`], also returning what the join read from each source.
pub fn run_select_analyzed(
    cx: &mut Context,
    plan: &SelectPlan,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<(Output, JoinStats)> {
    if let Some(sink) = sink {
        if plan.streamable() && !correlated(plan) {
            sink.columns(&plan.columns)?;
            return stream_rows(cx, plan, sink);
        }
        if plan.groups_streamable() && !correlated(plan) {
            sink.columns(&plan.columns)?;
            return stream_groups(cx, plan, sink);
        }
    }
    let members = MemberOrder::new(&plan.from, &plan.order_by);
    let (mut out_rows, stats) = if !plan.windows.is_empty() {
        windowed_rows(cx, plan, &members)?
    } else if plan.grouped() {
        grouped_rows(cx, plan, &members)?
    } else {
        plain_rows(cx, plan, &members)?
    };
    if plan.distinct {
        dedup_keyed(&mut out_rows, &plan.projection_collations());
    }
    if plan.sorted() {
        let desc: Vec<bool> = plan.order_by.iter().map(|(_, d)| *d).collect();
        let colls = plan.order_collations();
        out_rows = sort_keyed(cx, out_rows, &desc, &colls, plan.limit, plan.offset)?;
    }
    let mut rows: Vec<Vec<Value>> = out_rows.into_iter().map(|(_, v)| v).collect();
    apply_limit(&mut rows, plan.limit, plan.offset);
    let out = Output::Rows {
        cols: plan.columns.clone(),
        rows,
    };
    Ok((out, stats))
}

/// The projected row and its sort keys, for a row (or group) in evaluation context `ecx`.
fn project(plan: &SelectPlan, members: &MemberOrder, ecx: &EvalCtx<'_>) -> DbResult<Keyed> {
    let vals = plan
        .projection
        .iter()
        .map(|p| eval(&p.expr, ecx))
        .collect::<DbResult<Vec<_>>>()?;
    let mut keys = Vec::with_capacity(plan.order_by.len());
    for ((e, _), item) in plan.order_by.iter().zip(&plan.order_from_projection) {
        keys.push(match item {
            Some(i) => vals[*i].clone(),
            None => eval(e, ecx)?,
        });
    }
    members.apply(&mut keys);
    Ok((keys, vals))
}

/// Rows of a query without grouping (HAVING then applies to each row, as in MySQL).
fn plain_rows(
    cx: &mut Context,
    plan: &SelectPlan,
    members: &MemberOrder,
) -> DbResult<(Vec<Keyed>, JoinStats)> {
    let stop_at = plan.stop_at();
    let mut out = Vec::new();
    let mut produced = 0u64;
    let stats = each_row(cx, plan, &mut |ecx| {
        if let Some(h) = &plan.having {
            if truth(&eval(h, ecx)?) != Some(true) {
                return Ok(true);
            }
        }
        out.push(project(plan, members, ecx)?);
        produced += 1;
        Ok(stop_at.is_none_or(|s| produced < s))
    })?;
    Ok((out, stats))
}

/// Rows of a grouped query: one per group that passes HAVING (one for an aggregate over no
/// rows without GROUP BY).
fn grouped_rows(
    cx: &mut Context,
    plan: &SelectPlan,
    members: &MemberOrder,
) -> DbResult<(Vec<Keyed>, JoinStats)> {
    let mut out = Vec::new();
    let stats = each_group(cx, plan, &mut |g, sub| {
        out.push(project(plan, members, &group_ctx(&g, sub))?);
        Ok(true)
    })?;
    Ok((out, stats))
}

/// The evaluation context of group `g`.
fn group_ctx<'a>(g: &'a Base, sub: &'a Subqueries) -> EvalCtx<'a> {
    EvalCtx {
        row: &g.row,
        aggs: &g.aggs,
        subq: Some(sub),
        ..Default::default()
    }
}

/// Sends a grouped query's rows to `sink` as its groups are read out of the group table,
/// skipping OFFSET and stopping after LIMIT (no sort, DISTINCT or window reorders them), so the
/// result set is not held.
fn stream_groups(
    cx: &mut Context,
    plan: &SelectPlan,
    sink: &mut dyn RowSink,
) -> DbResult<(Output, JoinStats)> {
    let members = MemberOrder::new(&plan.from, &plan.order_by);
    let (limit, offset) = (plan.limit, plan.offset);
    let (mut sent, mut skipped) = (0u64, 0u64);
    let stats = each_group(cx, plan, &mut |g, sub| {
        if limit.is_some_and(|l| sent >= l) {
            return Ok(false);
        }
        if skipped < offset {
            skipped += 1;
            return Ok(true);
        }
        let (_, vals) = project(plan, &members, &group_ctx(&g, sub))?;
        sink.row(&vals)?;
        sent += 1;
        Ok(limit.is_none_or(|l| sent < l))
    })?;
    Ok((Output::Sent { rows: sent }, stats))
}

/// The groups of a grouped query that pass HAVING: each group's first row (non-aggregated
/// columns read from it) and its aggregate values.
fn grouped_bases(cx: &mut Context, plan: &SelectPlan) -> DbResult<(Vec<Base>, JoinStats)> {
    let mut out = Vec::new();
    let stats = each_group(cx, plan, &mut |g, _| {
        out.push(g);
        Ok(true)
    })?;
    Ok((out, stats))
}

/// Runs the grouping of `plan` and calls `emit` (false: stop) with each group that passes HAVING,
/// in the order of the groups' first rows, and an evaluation context for it. GROUP BY's groups
/// are held in a [`GroupTable`], which spills past the session's temporary-table budget.
fn each_group(
    cx: &mut Context,
    plan: &SelectPlan,
    emit: &mut dyn FnMut(Base, &Subqueries) -> DbResult<bool>,
) -> DbResult<JoinStats> {
    let aggs = &plan.aggregates;
    if plan.group_by.is_empty() {
        // One group: no key to build or look up per row.
        let mut state: Option<(Vec<Value>, Vec<Accumulator>)> = None;
        let stats = each_row(cx, plan, &mut |ecx| {
            let (_, accs) = state.get_or_insert_with(|| {
                (
                    ecx.row.to_vec(),
                    aggs.iter().map(Accumulator::new).collect(),
                )
            });
            add_row(accs, aggs, ecx)?;
            Ok(true)
        })?;
        let (row, accs) = state.unwrap_or_else(|| {
            let row = vec![Value::Null; plan.from.scope.cols.len()];
            (row, aggs.iter().map(Accumulator::new).collect())
        });
        let aggv = accs
            .into_iter()
            .zip(aggs)
            .map(|(a, s)| a.finish(s))
            .collect();
        let sub = Subqueries::new(cx);
        having_then(plan, Base { row, aggs: aggv }, &sub, emit)?;
        return Ok(stats);
    }
    let group_colls = plan.group_collations();
    let mut table = GroupTable::new(aggs, GroupBudget::of(cx));
    let mut kv = Vec::with_capacity(plan.group_by.len());
    let stats = each_row(cx, plan, &mut |ecx| {
        kv.clear();
        for g in &plan.group_by {
            kv.push(eval(g, ecx)?);
        }
        table.add(&group_key(&kv, &group_colls), ecx)?;
        Ok(true)
    })?;
    cx.count_tmp_table(table.spilled());
    let sub = Subqueries::new(cx);
    for g in table.finish(Some(&sub))? {
        if !having_then(plan, g?, &sub, emit)? {
            break;
        }
    }
    Ok(stats)
}

/// Calls `emit` with group `g` if it passes HAVING; false: stop.
fn having_then(
    plan: &SelectPlan,
    g: Base,
    sub: &Subqueries,
    emit: &mut dyn FnMut(Base, &Subqueries) -> DbResult<bool>,
) -> DbResult<bool> {
    if let Some(h) = &plan.having {
        let ecx = EvalCtx {
            row: &g.row,
            aggs: &g.aggs,
            subq: Some(sub),
            ..Default::default()
        };
        if truth(&eval(h, &ecx)?) != Some(true) {
            return Ok(true);
        }
    }
    emit(g, sub)
}

/// Rows of a query with window functions: the rows (or groups) that pass WHERE and HAVING,
/// each projected with its window values, in the order the last window left them.
fn windowed_rows(
    cx: &mut Context,
    plan: &SelectPlan,
    members: &MemberOrder,
) -> DbResult<(Vec<Keyed>, JoinStats)> {
    let (bases, stats) = if plan.grouped() {
        grouped_bases(cx, plan)?
    } else {
        let mut bases = Vec::new();
        let stats = each_row(cx, plan, &mut |ecx| {
            if let Some(h) = &plan.having {
                if truth(&eval(h, ecx)?) != Some(true) {
                    return Ok(true);
                }
            }
            bases.push(Base {
                row: ecx.row.to_vec(),
                aggs: vec![],
            });
            Ok(true)
        })?;
        (bases, stats)
    };
    let budget = SortBudget::of(cx);
    let (values, order, sorts) = crate::exec::window::compute(&plan.windows, &bases, &budget)?;
    cx.count_sorts(sorts);
    let sub = Subqueries::new(cx);
    let mut out = Vec::with_capacity(bases.len());
    for i in order {
        let ecx = EvalCtx {
            row: &bases[i].row,
            aggs: &bases[i].aggs,
            wins: &values[i],
            subq: Some(&sub),
            ..Default::default()
        };
        out.push(project(plan, members, &ecx)?);
    }
    Ok((out, stats))
}

/// Runs the nested loop of `plan` and calls `emit` (false: stop) with each row that passes
/// WHERE. When the plan holds correlated subqueries, the loop first collects the rows that pass
/// the other WHERE conjuncts; then, with the context free to run subqueries, each row is checked
/// against the rest and handed to `emit` with a runner ([`Subqueries`]).
fn each_row(
    cx: &mut Context,
    plan: &SelectPlan,
    emit: &mut dyn FnMut(&EvalCtx<'_>) -> DbResult<bool>,
) -> DbResult<JoinStats> {
    if !correlated(plan) {
        let mut join = Join::new(cx, &plan.from)?;
        join.run(plan.filter.as_ref(), &mut |row| emit(&EvalCtx::row(row)))?;
        return Ok(join.stats().clone());
    }
    let (pre, post) = split_where(plan.filter.as_ref());
    let mut rows = Vec::new();
    let stats = {
        let mut join = Join::new(cx, &plan.from)?;
        join.run(pre.as_ref(), &mut |row| {
            rows.push(row.to_vec());
            Ok(true)
        })?;
        join.stats().clone()
    };
    let sub = Subqueries::new(cx);
    'rows: for row in &rows {
        let ecx = EvalCtx {
            row,
            subq: Some(&sub),
            ..Default::default()
        };
        for c in &post {
            if truth(&eval(c, &ecx)?) != Some(true) {
                continue 'rows;
            }
        }
        if !emit(&ecx)? {
            break;
        }
    }
    Ok(stats)
}

/// Whether an expression the SELECT evaluates per row or group holds a correlated subquery.
fn correlated(plan: &SelectPlan) -> bool {
    let aggs = plan
        .aggregates
        .iter()
        .flat_map(|a| a.arg.iter().chain(a.order.iter().map(|(e, _)| e)));
    plan.filter
        .iter()
        .chain(plan.projection.iter().map(|p| &p.expr))
        .chain(&plan.group_by)
        .chain(&plan.having)
        .chain(plan.order_by.iter().map(|(e, _)| e))
        .chain(aggs)
        .any(Expr::has_subquery)
}

/// Sends the projected rows to `sink` as the nested loop produces them, skipping OFFSET and
/// stopping after LIMIT (the plan guarantees they arrive in the result's order).
fn stream_rows(
    cx: &mut Context,
    plan: &SelectPlan,
    sink: &mut dyn RowSink,
) -> DbResult<(Output, JoinStats)> {
    let (limit, offset) = (plan.limit, plan.offset);
    if limit == Some(0) {
        return Ok((Output::Sent { rows: 0 }, JoinStats::default()));
    }
    let mut sent = 0u64;
    let mut skipped = 0u64;
    let mut vals = Vec::with_capacity(plan.projection.len());
    let mut join = Join::new(cx, &plan.from)?;
    join.run(plan.filter.as_ref(), &mut |row| {
        if skipped < offset {
            skipped += 1;
            return Ok(true);
        }
        let ecx = EvalCtx::row(row);
        vals.clear();
        for p in &plan.projection {
            vals.push(eval(&p.expr, &ecx)?);
        }
        sink.row(&vals)?;
        sent += 1;
        Ok(limit.is_none_or(|l| sent < l))
    })?;
    Ok((Output::Sent { rows: sent }, join.stats().clone()))
}
