//! Running a recursive CTE's plan ([`RecursivePlan`], plan/cte.rs): the anchors' rows, then
//! iterations of the recursive branches over the working table.
//!
//! Invariants:
//! * before each iteration the working table holds exactly the rows the previous one added
//!   (the anchors' rows before the first); the result is every row added, in the order added;
//! * with UNION (DISTINCT) a row equal to one already produced is dropped, so a cycle ends;
//! * with a CYCLE clause a row whose CYCLE columns equal those of a row already produced
//!   (NULLs equal, as MariaDB's) is dropped too, anchors' rows included;
//! * outside the iterations the working table holds no rows (`None`): reading it is 4008;
//! * at most `max_recursive_iterations` iterations run (MariaDB's default 1000); stopping there
//!   with rows still to process adds warning 1931, as MariaDB, and returns what was produced.

use std::collections::HashSet;

use crate::context::cte_scope::WorkingTable;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::query::run_plan;
use crate::expr::aggregate::group_key;
use crate::plan::query::{QueryPlan, RecursivePlan};
use crate::result::Output;
use crate::types::value::Value;

/// The rows of recursive CTE `r`.
pub fn run_recursive(cx: &mut Context, r: &RecursivePlan) -> DbResult<Vec<Vec<Value>>> {
    let res = iterate(cx, r);
    *r.working.rows.lock().unwrap_or_else(|p| p.into_inner()) = None;
    res
}

/// The rows a working-table reference reads: the previous iteration's, or 4008 outside the
/// iterations (the CTE read from a subquery run while its query was planned).
pub fn working_rows(w: &WorkingTable) -> DbResult<Vec<Vec<Value>>> {
    match &*w.rows.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(rows) => Ok(rows.clone()),
        None => Err(DbError::new(
            ErrorCode::NotStandardCompliantRecursive,
            format!(
                "Restrictions imposed on recursive definitions are violated for table '{}'",
                w.name
            ),
        )),
    }
}

fn iterate(cx: &mut Context, r: &RecursivePlan) -> DbResult<Vec<Vec<Value>>> {
    let (mut seen, mut seen_cycle) = (HashSet::new(), HashSet::new());
    let distinct = r.distinct;
    let mut keep = |rows: Vec<Vec<Value>>, out: &mut Vec<Vec<Value>>| {
        for row in rows {
            if distinct && !seen.insert(group_key(&row, &[])) {
                continue;
            }
            if !r.cycle.is_empty() {
                let key: Vec<Value> = r.cycle.iter().map(|&i| row[i].clone()).collect();
                if !seen_cycle.insert(group_key(&key, &[])) {
                    continue;
                }
            }
            out.push(row);
        }
    };
    let mut result = Vec::new();
    for a in &r.anchors {
        keep(rows_of(cx, a)?, &mut result);
    }
    let max = max_iterations(cx);
    let mut added = result.clone();
    let mut iterations = 0u64;
    while !added.is_empty() {
        if iterations >= max {
            cx.warn(
                ErrorCode::QueryResultIncomplete,
                format!(
                    "Query execution was interrupted. The query exceeded \
                     max_recursive_iterations = {max}. The query result may be incomplete"
                ),
            );
            break;
        }
        iterations += 1;
        *r.working.rows.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(std::mem::take(&mut added));
        for step in &r.steps {
            let rows = rows_of(cx, step)?;
            keep(rows, &mut added);
        }
        cx.check_interrupted()?;
        result.extend(added.iter().cloned());
    }
    Ok(result)
}

fn rows_of(cx: &mut Context, plan: &QueryPlan) -> DbResult<Vec<Vec<Value>>> {
    Ok(match run_plan(cx, plan, None)? {
        Output::Rows { rows, .. } => rows,
        _ => Vec::new(),
    })
}

/// `max_recursive_iterations` (MariaDB's default 1000).
fn max_iterations(cx: &Context) -> u64 {
    match cx.vars.get("max_recursive_iterations") {
        Some(Value::Int(i)) => (*i).max(0) as u64,
        Some(Value::UInt(u)) => *u,
        _ => 1000,
    }
}
