//! The sorts of MariaDB's window function computation (`sql_window.cc`), for EXPLAIN
//! FORMAT=JSON's `window_functions_computation.sorts`: the calls are put in order by their
//! windows (a bubble sort by `compare_window_funcs_by_window_specs`), adjacent calls whose
//! orders are compatible (one key list a prefix of the other) share one sort, and a sort is by
//! the longest PARTITION BY + ORDER BY list of its calls. Calls without either sort by the
//! first field of the temporary table the rows are kept in.
//!
//! Invariant: keys are compared as MariaDB compares them only when they are columns (by the
//! position of the column's field in MariaDB's temporary table, then direction); a window
//! keyed by anything else, or several windows in a query with GROUP BY or ORDER BY, are
//! described only when there is one window call, and `None` refuses the rest.

use std::cmp::Ordering;

use super::item_print::{column, sort_key};
use super::keywords::explain_name;
use super::written::Written;
use crate::expr::window::{WinCall, WinFunc};
use crate::expr::Expr;
use crate::plan::select::SelectPlan;

/// MariaDB's comparison results: less, less and compatible, equal, greater and compatible,
/// greater (`CMP_LT` .. `CMP_GT`).
const LT: i8 = -2;
const LT_C: i8 = -1;
const EQ: i8 = 0;
const GT_C: i8 = 1;
const GT: i8 = 2;

/// One key: the position of the column's field in the temporary table, and descending.
type Key = (usize, bool);

/// A window as MariaDB compares it.
struct Spec {
    partition: Vec<Key>,
    order: Vec<Key>,
}

impl Spec {
    fn joined(&self) -> Vec<Key> {
        self.partition.iter().chain(&self.order).copied().collect()
    }
}

/// `compare_order_lists` over column keys.
fn compare_lists(a: &[Key], b: &[Key]) -> i8 {
    for (x, y) in a.iter().zip(b) {
        match x.0.cmp(&y.0).then(x.1.cmp(&y.1)) {
            Ordering::Less => return LT,
            Ordering::Greater => return GT,
            Ordering::Equal => {}
        }
    }
    match a.len().cmp(&b.len()) {
        Ordering::Greater => GT_C,
        Ordering::Less => LT_C,
        Ordering::Equal => EQ,
    }
}

/// `compare_window_funcs_by_window_specs` (frames of equal windows compare equal: they share a
/// sort whatever their order).
fn compare(a: &Spec, b: &Spec) -> i8 {
    let cmp = compare_lists(&a.partition, &b.partition);
    if cmp == EQ {
        return compare_lists(&a.order, &b.order);
    }
    if cmp == LT || cmp == GT {
        return cmp;
    }
    let cmp = compare_lists(&a.joined(), &b.joined());
    if (LT_C..=GT_C).contains(&cmp) {
        return if a.partition.len() < b.partition.len() {
            GT_C
        } else {
            LT_C
        };
    }
    cmp
}

/// The sort keys of the window computation's sorts, in the order they run.
pub fn window_sorts(plan: &SelectPlan, text: &Written) -> Option<Vec<String>> {
    let calls = &plan.windows;
    if calls.len() == 1 {
        return Some(vec![group_key(plan, text, &calls[0])?]);
    }
    let fields = field_positions(plan)?;
    let specs: Vec<Spec> = calls
        .iter()
        .map(|w| spec(&fields, w))
        .collect::<Option<_>>()?;
    let mut order: Vec<usize> = (0..calls.len()).collect();
    // bubble_sort (sql_list.h): each pass one shorter, until a pass swaps nothing.
    let mut end = order.len();
    loop {
        let mut swapped = false;
        for i in 1..end {
            if compare(&specs[order[i - 1]], &specs[order[i]]) > 0 {
                order.swap(i - 1, i);
                swapped = true;
            }
        }
        end -= 1;
        if !swapped || end <= 1 {
            break;
        }
    }
    // order_window_funcs_by_window_specs's SORTORDER_CHANGE_FLAG splits the groups.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (n, &i) in order.iter().enumerate() {
        let change = n == 0 || {
            let (p, c) = (&specs[order[n - 1]], &specs[i]);
            let cmp = if p.partition == c.partition {
                compare_lists(&p.order, &c.order)
            } else {
                compare_lists(&p.joined(), &c.joined())
            };
            !(LT_C..=GT_C).contains(&cmp)
        };
        match groups.last_mut() {
            Some(g) if !change => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
        .iter()
        .map(|g| {
            // The first call of the longest PARTITION BY + ORDER BY list.
            let mut best = g[0];
            for &i in g {
                let len = |w: &WinCall| w.partition.len() + w.order.len();
                if len(&calls[i]) > len(&calls[best]) {
                    best = i;
                }
            }
            group_key(plan, text, &calls[best])
        })
        .collect()
}

/// The position of each column the windows sort by among the fields of MariaDB's temporary
/// table, which is what its comparison of window keys compares: the select list's columns
/// come after the columns only the windows read, and each such column (met in the windows'
/// arguments, then in their keys, PARTITION BY before ORDER BY, the same column kept once)
/// goes before those met earlier. `None` when a key is not a column, or when the query has GROUP BY or ORDER BY,
/// whose keys would be fields too.
fn field_positions(plan: &SelectPlan) -> Option<Vec<(usize, usize)>> {
    if !plan.group_by.is_empty() || !plan.order_by.is_empty() || plan.grouped() {
        return None;
    }
    let mut listed: Vec<usize> = Vec::new();
    for p in &plan.projection {
        if let Expr::Col(c) = p.expr {
            if !listed.contains(&c) {
                listed.push(c);
            }
        }
    }
    let mut hidden: Vec<usize> = Vec::new();
    // The window functions' arguments first (MariaDB splits them out of the select list
    // before it resolves the windows), then the windows' keys.
    for w in &plan.windows {
        for a in call_args(w) {
            if let Expr::Col(c) = *a {
                if !listed.contains(&c) && !hidden.contains(&c) {
                    hidden.insert(0, c);
                }
            }
        }
    }
    for w in &plan.windows {
        let keys = w.partition.iter().chain(w.order.iter().map(|(e, _)| e));
        for e in keys {
            let Expr::Col(c) = *e else {
                return None;
            };
            if !listed.contains(&c) && !hidden.contains(&c) {
                hidden.insert(0, c);
            }
        }
    }
    let order = hidden.iter().chain(&listed).copied();
    Some(order.enumerate().map(|(pos, c)| (c, pos)).collect())
}

/// A window's keys as field positions (`fields`: column and position).
fn spec(fields: &[(usize, usize)], w: &WinCall) -> Option<Spec> {
    let key = |e: &Expr, desc: bool| -> Option<Key> {
        let c = e.col_index()?;
        let pos = fields.iter().find(|(col, _)| *col == c)?.1;
        Some((pos, desc))
    };
    Some(Spec {
        partition: w
            .partition
            .iter()
            .map(|e| key(e, false))
            .collect::<Option<_>>()?,
        order: w
            .order
            .iter()
            .map(|(e, d)| key(e, *d))
            .collect::<Option<_>>()?,
    })
}

/// The sort key of a sort by window `w`'s PARTITION BY then ORDER BY.
fn group_key(plan: &SelectPlan, text: &Written, w: &WinCall) -> Option<String> {
    if w.partition.is_empty() && w.order.is_empty() {
        return first_field(plan);
    }
    let keys: Vec<(Expr, bool)> = w
        .partition
        .iter()
        .map(|e| (e.clone(), false))
        .chain(w.order.iter().cloned())
        .collect();
    if keys.iter().any(|(e, _)| e.is_const()) {
        return None;
    }
    sort_key(plan, text, &keys)
}

/// The name of the first field of MariaDB's temporary table, which a sort for windows without
/// PARTITION BY or ORDER BY is by: the columns the window functions read come first (a single
/// column is supported), then the select list's items that are not constants (a column by its
/// own name, another item by its name). Only a plain select list is described: no GROUP BY,
/// DISTINCT, ORDER BY or aggregates, whose items would also be fields.
fn first_field(plan: &SelectPlan) -> Option<String> {
    if plan.grouped() || plan.distinct || !plan.order_by.is_empty() {
        return None;
    }
    let mut read = Vec::new();
    for w in &plan.windows {
        for a in call_args(w) {
            read.push(a.col_index()?);
        }
    }
    if let Some(&c) = read.first() {
        if read.iter().any(|&r| r != c) {
            return None;
        }
        return explain_name(&plan.from.scope.cols[c].name);
    }
    let p = plan
        .projection
        .iter()
        .find(|p| !p.expr.is_const() || p.expr.has_win())?;
    match &p.expr {
        Expr::Win(_) => explain_name(&p.name),
        e if e.col_index().is_some() => {
            column(plan, e)?;
            explain_name(&plan.from.scope.cols[e.col_index()?].name)
        }
        e if e.has_win() || e.has_agg() => None,
        _ => explain_name(&p.name),
    }
}

/// The arguments of a window function call.
fn call_args(w: &WinCall) -> Vec<&Expr> {
    match &w.func {
        WinFunc::Agg(a) => a.arg.iter().collect(),
        _ => w.args.iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(partition: &[usize], order: &[(usize, bool)]) -> Spec {
        Spec {
            partition: partition.iter().map(|&c| (c, false)).collect(),
            order: order.to_vec(),
        }
    }

    #[test]
    fn key_lists_compare_as_mariadb_compares_them() {
        assert_eq!(compare_lists(&[(0, false)], &[(0, false)]), EQ);
        assert_eq!(
            compare_lists(&[(0, false), (1, false)], &[(0, false)]),
            GT_C
        );
        assert_eq!(compare_lists(&[], &[(0, false)]), LT_C);
        assert_eq!(compare_lists(&[(1, false)], &[(0, false), (2, false)]), GT);
        // the same field descending sorts after ascending
        assert_eq!(compare_lists(&[(0, true)], &[(0, false)]), GT);
    }

    #[test]
    fn windows_compare_by_partition_then_order_then_joined_keys() {
        // (PARTITION BY c ORDER BY a) after (PARTITION BY c): compatible, the longer last
        assert_eq!(compare(&spec(&[2], &[(0, false)]), &spec(&[2], &[])), GT_C);
        // PARTITION BY a ORDER BY pk against ORDER BY a: one sort serves both, the
        // partitioned window first
        assert_eq!(
            compare(&spec(&[1], &[(0, false)]), &spec(&[], &[(1, false)])),
            LT_C
        );
        // different leading keys
        assert_eq!(
            compare(&spec(&[], &[(1, false)]), &spec(&[], &[(0, false)])),
            GT
        );
    }
}
