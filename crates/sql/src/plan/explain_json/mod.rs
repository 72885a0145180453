//! EXPLAIN FORMAT=JSON in MariaDB 10.11's form, described from the same [`SelectPlan`] and
//! table reads ([`source_read`]) as the tabular EXPLAIN (explain.rs), printed by writer.rs.
//!
//! The document is `{"query_block": {"select_id": 1, ...}}` around the steps the plan runs,
//! outermost first, as MariaDB nests them:
//! - `having_condition`, from the statement's text (having.rs), then
//! - `filesort` (`sort_key`): the final ORDER BY (GROUP BY's order when there is none, as
//!   MariaDB sorts groups; none for ORDER BY NULL);
//! - `duplicate_removal`: DISTINCT over window functions' results;
//! - `window_functions_computation`: the `sorts` of the window calls (window_sorts.rs), then
//!   `temporary_table`, the rows kept;
//! - `temporary_table`: GROUP BY's groups, or DISTINCT's rows without window functions;
//! - `nested_loop`: the table read: `table_name`, `access_type`, `possible_keys`, `key`,
//!   `key_length`, `used_key_parts`, `ref`, `rows`, `filtered` (100: Betula makes no estimate),
//!   `using_index`; an ORDER BY the key order does not give wraps it in `read_sorted_file`.
//!
//! Invariant: only the shapes whose document MariaDB's is known to be are described: one base
//! table that is not partitioned, read whole, without WHERE, LIMIT, subqueries or
//! joins (or no table at all, `"message": "No tables used"`). Anything else is refused (1235),
//! never printed in another form than MariaDB's.

mod having;
mod item_print;
mod keyword_list;
mod keywords;
mod window_sorts;
mod writer;
mod written;

pub use written::Written;

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::Expr;
use crate::plan::explain::source_read;
use crate::plan::from::SrcKind;
use crate::plan::select::SelectPlan;
use crate::result::Output;
use crate::types::value::Value;
use item_print::sort_key;
use writer::Json;

fn refused(what: &str) -> DbError {
    DbError::unsupported(format!("EXPLAIN FORMAT=JSON of {what}"))
}

/// EXPLAIN FORMAT=JSON of `plan` (`text`: what its statement writes that the plan does not
/// keep): one row,
/// one column named `EXPLAIN`, holding the document.
pub fn explain_json(cx: &Context, plan: &SelectPlan, text: &Written) -> DbResult<Output> {
    let doc = Json::object(vec![("query_block", query_block(cx, plan, text)?)]);
    Ok(Output::text(
        &["EXPLAIN"],
        vec![vec![Value::Text(doc.pretty())]],
    ))
}

fn query_block(cx: &Context, plan: &SelectPlan, text: &Written) -> DbResult<Json> {
    check_shape(plan)?;
    let mut members = vec![("select_id", Json::Int(1))];
    if plan.from.sources.is_empty() {
        if plan.grouped() || plan.distinct || !plan.windows.is_empty() || !plan.order_by.is_empty()
        {
            return Err(refused("this query without tables"));
        }
        members.push((
            "table",
            Json::object(vec![("message", Json::str("No tables used"))]),
        ));
        return Ok(Json::object(members));
    }
    if plan.having.is_some() {
        match &text.having {
            Some(h) if !plan.group_by.is_empty() => {
                members.push(("having_condition", Json::Str(h.clone())))
            }
            _ => return Err(refused("this HAVING")),
        }
    }
    let (name, step) = steps(cx, plan, text)?;
    members.push((name, step));
    Ok(Json::object(members))
}

/// What is described: one unpartitioned base table read whole, nothing else.
fn check_shape(plan: &SelectPlan) -> DbResult<()> {
    if plan.filter.is_some() || !plan.where_conj.is_empty() {
        return Err(refused("a query with WHERE"));
    }
    if plan.limit.is_some() || plan.offset > 0 {
        return Err(refused("a query with LIMIT"));
    }
    let exprs = plan
        .projection
        .iter()
        .map(|p| &p.expr)
        .chain(&plan.group_by)
        .chain(plan.order_by.iter().map(|(e, _)| e));
    if exprs.clone().any(Expr::has_subquery) {
        return Err(refused("a query with subqueries"));
    }
    match plan.from.sources.as_slice() {
        [] => Ok(()),
        [s] => match &s.kind {
            SrcKind::Table(t)
                if t.partitioning.is_none() && s.on_c.is_none() && s.access.is_full_scan() =>
            {
                Ok(())
            }
            _ => Err(refused("this table source")),
        },
        _ => Err(refused("a join")),
    }
}

/// The outermost step of the plan, with the steps it runs on nested in it.
fn steps(cx: &Context, plan: &SelectPlan, text: &Written) -> DbResult<(&'static str, Json)> {
    let no_order = plan
        .order_by
        .iter()
        .all(|(e, _)| matches!(e, Expr::Lit(Value::Null)));
    let final_sort = if !plan.order_by.is_empty() {
        (!no_order).then(|| plan.order_by.clone())
    } else if !plan.group_by.is_empty() {
        Some(plan.group_by.iter().map(|e| (e.clone(), false)).collect())
    } else {
        None
    };
    let table = || table(cx, plan);
    let nested = |t: Json| Json::object(vec![("nested_loop", Json::Array(vec![t]))]);
    let temporary = |t: Json| ("temporary_table", nested(t));
    let (name, inner) = if !plan.windows.is_empty() {
        if plan.key_ordered || (plan.grouped() && plan.group_by.is_empty()) {
            return Err(refused("this use of window functions"));
        }
        let sorts = window_sorts::window_sorts(plan, text)
            .ok_or_else(|| refused("these window functions"))?;
        let sorts = sorts
            .into_iter()
            .map(|k| {
                let fs = Json::object(vec![("sort_key", Json::Str(k))]);
                Json::object(vec![("filesort", fs)])
            })
            .collect();
        let (t, tt) = temporary(table()?);
        let wf = Json::object(vec![("sorts", Json::Array(sorts)), (t, tt)]);
        let step = ("window_functions_computation", wf);
        if plan.distinct {
            ("duplicate_removal", Json::object(vec![step]))
        } else {
            step
        }
    } else if !plan.group_by.is_empty() {
        if plan.distinct || plan.key_ordered {
            return Err(refused("this GROUP BY"));
        }
        temporary(table()?)
    } else if plan.grouped() {
        if plan.distinct || !plan.order_by.is_empty() {
            return Err(refused("this aggregate query"));
        }
        return Ok(("nested_loop", Json::Array(vec![table()?])));
    } else if plan.distinct {
        if !plan.order_by.is_empty() {
            return Err(refused("DISTINCT with ORDER BY"));
        }
        temporary(table()?)
    } else if plan.sorted() && !no_order {
        let key = sort_key(plan, text, &plan.order_by).ok_or_else(|| refused("this ORDER BY"))?;
        let Json::Object(mut t) = table()? else {
            unreachable!("a table entry is an object")
        };
        let read = t
            .pop()
            .map(|(_, v)| v)
            .ok_or_else(|| refused("this table"))?;
        let fs = Json::object(vec![("sort_key", Json::Str(key)), ("table", read)]);
        let rsf = Json::object(vec![("filesort", fs)]);
        let entry = Json::object(vec![("read_sorted_file", rsf)]);
        return Ok(("nested_loop", Json::Array(vec![entry])));
    } else {
        return Ok(("nested_loop", Json::Array(vec![table()?])));
    };
    match final_sort {
        Some(keys) if !plan.windows.is_empty() || !plan.group_by.is_empty() => {
            let key = sort_key(plan, text, &keys).ok_or_else(|| refused("this ORDER BY"))?;
            let fs = Json::object(vec![("sort_key", Json::Str(key)), (name, inner)]);
            Ok(("filesort", fs))
        }
        _ => Ok((name, inner)),
    }
}

/// `{"table": {...}}`: how the plan's one table is read.
fn table(cx: &Context, plan: &SelectPlan) -> DbResult<Json> {
    let s = &plan.from.sources[0];
    let SrcKind::Table(t) = &s.kind else {
        return Err(refused("this table source"));
    };
    let r = source_read(cx, plan, 0, s);
    if r.using_where || r.index_condition {
        return Err(refused("a table read with conditions"));
    }
    let list = |v: &str| Json::Array(v.split(',').map(Json::str).collect());
    let mut m = vec![
        ("table_name", Json::str(&s.alias)),
        ("access_type", Json::str(&r.access_type)),
    ];
    if let Some(p) = &r.possible_keys {
        m.push(("possible_keys", list(p)));
    }
    if let Some(k) = &r.key {
        m.push(("key", Json::str(k)));
        let len = r.key_len.unwrap_or(0).to_string();
        m.push(("key_length", Json::Str(len)));
        let parts = r.key_parts.iter();
        let names = parts.map(|&c| Json::str(&t.columns[c].name)).collect();
        m.push(("used_key_parts", Json::Array(names)));
    }
    if let Some(refs) = &r.refs {
        m.push(("ref", list(refs)));
    }
    let rows = r.rows.ok_or_else(|| refused("this table source"))?;
    m.push(("rows", Json::Int(rows as i64)));
    m.push(("filtered", Json::Int(100)));
    if r.using_index {
        m.push(("using_index", Json::Bool(true)));
    }
    Ok(Json::object(vec![("table", Json::object(m))]))
}
