//! Items as EXPLAIN FORMAT=JSON prints them in a `sort_key` (MariaDB's `Item::print` with
//! `QT_EXPLAIN`, names unquoted where they can be): a column as `table.column`, an aggregate as
//! `sum(t1.b)` (`COUNT(*)` as `count(0)`), a window function as
//! `row_number() over ( partition by t1.a order by t1.b desc)`.
//!
//! Invariant: what is not one of these forms is not printed (`None`), and the caller refuses
//! the statement rather than print another text than MariaDB's.

use super::keywords::explain_name;
use super::written::Written;
use crate::expr::window::{WinCall, WinFunc};
use crate::expr::{AggFunc, AggSpec, Expr};
use crate::plan::select::SelectPlan;

/// The keys `keys` (expression, descending) as a filesort's sort_key: `t1.a, t1.b desc`.
pub fn sort_key(plan: &SelectPlan, text: &Written, keys: &[(Expr, bool)]) -> Option<String> {
    let mut parts = Vec::new();
    for (e, desc) in keys {
        let mut s = item(plan, text, e)?;
        if *desc {
            s.push_str(" desc");
        }
        parts.push(s);
    }
    Some(parts.join(", "))
}

/// `e` as MariaDB prints it in EXPLAIN.
pub fn item(plan: &SelectPlan, text: &Written, e: &Expr) -> Option<String> {
    match e {
        Expr::Agg(i) => aggregate(plan, plan.aggregates.get(*i)?),
        Expr::Win(i) => window(plan, text, plan.windows.get(*i)?),
        _ => column(plan, e),
    }
}

/// A column of a source as `table.column`.
pub fn column(plan: &SelectPlan, e: &Expr) -> Option<String> {
    let sc = plan.from.scope.cols.get(e.col_index()?)?;
    Some(format!(
        "{}.{}",
        explain_name(&sc.table)?,
        explain_name(&sc.name)?
    ))
}

fn aggregate(plan: &SelectPlan, a: &AggSpec) -> Option<String> {
    if !a.order.is_empty() {
        return None;
    }
    let name = match a.func {
        AggFunc::CountStar => return Some("count(0)".to_string()),
        AggFunc::Count => "count",
        AggFunc::Sum => "sum",
        AggFunc::Avg => "avg",
        AggFunc::Min => "min",
        AggFunc::Max => "max",
        _ => return None,
    };
    let [arg] = a.arg.as_slice() else {
        return None;
    };
    let distinct = if a.distinct { "distinct " } else { "" };
    Some(format!("{name}({distinct}{})", column(plan, arg)?))
}

/// A window function call: its name and arguments, then `over (` and the window's partition
/// and order lists, each item after `,` without a space (`st_select_lex::print_order`).
fn window(plan: &SelectPlan, text: &Written, w: &WinCall) -> Option<String> {
    if text.named_or_framed_windows {
        return None;
    }
    let args = match &w.func {
        WinFunc::Agg(a) => {
            let inner = aggregate(plan, a)?;
            inner[inner.find('(')? + 1..inner.len() - 1].to_string()
        }
        WinFunc::RowNumber
        | WinFunc::Rank
        | WinFunc::DenseRank
        | WinFunc::PercentRank
        | WinFunc::CumeDist => String::new(),
        _ => return None,
    };
    let list = |keys: &[(Expr, bool)]| -> Option<String> {
        let mut parts = Vec::new();
        for (e, desc) in keys {
            parts.push(format!(
                "{}{}",
                column(plan, e)?,
                if *desc { " desc" } else { "" }
            ));
        }
        Some(parts.join(","))
    };
    let mut spec = String::from("(");
    if !w.partition.is_empty() {
        let keys: Vec<(Expr, bool)> = w.partition.iter().map(|e| (e.clone(), false)).collect();
        spec.push_str(" partition by ");
        spec.push_str(&list(&keys)?);
    }
    if !w.order.is_empty() {
        spec.push_str(" order by ");
        spec.push_str(&list(&w.order)?);
    }
    spec.push(')');
    Some(format!("{}({args}) over {spec}", w.name))
}
