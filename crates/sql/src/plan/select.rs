//! The plan of one SELECT block: its sources and their access paths (from.rs, access.rs), the
//! filter, the projection, grouping and aggregates, HAVING, DISTINCT, ORDER BY (and whether the
//! access path's key order already gives it) and LIMIT. EXPLAIN renders this plan (explain.rs);
//! the executor runs it (exec/select.rs); a locking read takes its locks from it (locks.rs).
//!
//! Invariants: everything is compiled before any row is read (so ORDER BY aggregates are known
//! to the grouping step); the WHERE clause is re-checked on every row, access paths only narrow
//! the read; the result's column metadata ([`SelectPlan::columns`]) is fixed by the plan, not by
//! the rows.

use sqlparser::ast;

use super::covering::prefer_covering_index;
use super::from::{mark_needed, plan_access, plan_from, From, SrcKind};
use super::full_group_by::{check_grouped_items, check_ungrouped_mix};
use super::out_columns::{column_meta, literal_collation};
use super::window::{compile_item, named_windows, select_aliases};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::compile::plain_column;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::window::{WinCall, WindowCtx};
use crate::expr::{object_name_parts, AggSpec, Expr, Scope};
use crate::plan::access::conjuncts;
use crate::result::OutCol;
use crate::types::sql_mode::Modes;
use crate::types::value::Value;

/// One select-list item: the column's name and the expression computing it.
pub struct Projection {
    pub name: String,
    pub expr: Expr,
}

/// A planned SELECT block.
pub struct SelectPlan {
    /// The sources, their access paths, pushed index conditions and covering choices.
    pub from: From,
    /// WHERE, constants folded.
    pub filter: Option<Expr>,
    /// WHERE's conjuncts (what access paths and EXPLAIN's `Using where` look at).
    pub where_conj: Vec<Expr>,
    pub projection: Vec<Projection>,
    /// The result set's column metadata, one per projection.
    pub columns: Vec<OutCol>,
    pub aggregates: Vec<AggSpec>,
    /// Window function calls of the select list and ORDER BY (`Expr::Win(i)` is call `i`),
    /// computed after grouping and HAVING (exec/window.rs).
    pub windows: Vec<WinCall>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    /// ORDER BY: expression and descending.
    pub order_by: Vec<(Expr, bool)>,
    /// For each ORDER BY item that names a select-list item (by position or alias): its index.
    /// Such a key is the value the row shows, not a second evaluation (RAND() differs).
    pub order_from_projection: Vec<Option<usize>>,
    /// ORDER BY is served by the first source's key order: no sort, the scan may stop early.
    pub key_ordered: bool,
    pub distinct: bool,
    pub limit: Option<u64>,
    pub offset: u64,
}

impl SelectPlan {
    /// GROUP BY or aggregates: rows are grouped before projection.
    pub fn grouped(&self) -> bool {
        !self.group_by.is_empty() || !self.aggregates.is_empty()
    }

    /// ORDER BY that the key order does not give: the rows are sorted.
    pub fn sorted(&self) -> bool {
        !self.order_by.is_empty() && !self.key_ordered
    }

    /// The collation each ORDER BY key sorts under.
    pub fn order_collations(&self) -> Vec<crate::types::collation::Collation> {
        let scope = &self.from.scope;
        self.order_by
            .iter()
            .map(|(e, _)| scope.collation_of(e))
            .collect()
    }

    /// The collation each GROUP BY key groups under.
    pub fn group_collations(&self) -> Vec<crate::types::collation::Collation> {
        let scope = &self.from.scope;
        self.group_by
            .iter()
            .map(|e| scope.collation_of(e))
            .collect()
    }

    /// The collation each result column compares under for DISTINCT.
    pub fn projection_collations(&self) -> Vec<crate::types::collation::Collation> {
        let scope = &self.from.scope;
        self.projection
            .iter()
            .map(|p| scope.collation_of(&p.expr))
            .collect()
    }

    /// How many rows the scan must produce before it can stop (None: all).
    pub fn stop_at(&self) -> Option<u64> {
        if self.grouped() || self.distinct || self.sorted() || !self.windows.is_empty() {
            None
        } else {
            self.limit.map(|l| l.saturating_add(self.offset))
        }
    }

    /// Whether a grouped query's rows can be sent as its groups are read out (exec/select.rs
    /// `stream_groups`): nothing reorders them and every column's type is known up front.
    pub fn groups_streamable(&self) -> bool {
        self.grouped()
            && self.windows.is_empty()
            && !self.distinct
            && !self.sorted()
            && self.columns.iter().all(|c| c.ty.is_some())
    }

    /// Whether rows can be sent as they are read: they arrive in the result's order and every
    /// column's type is known up front.
    pub fn streamable(&self) -> bool {
        !self.grouped()
            && self.windows.is_empty()
            && !self.distinct
            && self.having.is_none()
            && !self.sorted()
            && self.columns.iter().all(|c| c.ty.is_some())
    }
}

/// Plans one SELECT block with the query's ORDER BY and LIMIT.
pub fn plan_select(
    cx: &mut Context,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
) -> DbResult<SelectPlan> {
    refuse_unsupported_clauses(sel)?;
    let mut windows = WindowCtx {
        named: named_windows(sel)?,
        select_aliases: select_aliases(sel),
        ..Default::default()
    };
    let mut from = plan_from(cx, &sel.from)?;
    compile_on_clauses(cx, &mut from)?;
    let filter = compile_where(cx, &mut from, sel.selection.as_ref())?;
    let mut where_conj = Vec::new();
    if let Some(w) = &filter {
        conjuncts(w, &mut where_conj);
    }
    let mut aggregates: Vec<AggSpec> = Vec::new();
    let projection = plan_projection(cx, &from, &sel.projection, &mut aggregates, &mut windows)?;
    let aliases: Vec<(String, Expr)> = projection
        .iter()
        .map(|p| (p.name.clone(), p.expr.clone()))
        .collect();
    let mut group_by = Vec::new();
    if let ast::GroupByExpr::Expressions(exprs, _) = &sel.group_by {
        for e in exprs {
            let place = "GROUP BY";
            group_by.push(positional(
                cx,
                &from.scope,
                e,
                &projection,
                &aliases,
                place,
            )?);
        }
    }
    let full_group_by = cx.sql_modes().has(Modes::ONLY_FULL_GROUP_BY);
    if full_group_by && !group_by.is_empty() {
        check_grouped_items(&from, &projection, &group_by)?;
    }
    let having = match &sel.having {
        Some(h) => {
            let groups: Vec<usize> = group_by.iter().filter_map(plain_column).collect();
            Some(cx.compile_having(&from.scope, h, &mut aggregates, &aliases, &groups)?)
        }
        None => None,
    };
    if group_by.iter().chain(&having).any(Expr::has_win) {
        return Err(super::window::misplaced());
    }
    let (order_by, order_from_projection) = plan_order_by(
        cx,
        &from,
        order,
        &projection,
        &aliases,
        (&mut aggregates, &mut windows),
    )?;
    let (order_by, order_from_projection) =
        implicit_group_order(order, &group_by, &windows, order_by, order_from_projection);
    if full_group_by && group_by.is_empty() && !aggregates.is_empty() {
        let read = projection.iter().map(|p| &p.expr);
        check_ungrouped_mix(&from, read.chain(order_by.iter().map(|(e, _)| e)))?;
    }
    let mut plan = SelectPlan {
        from,
        filter,
        where_conj,
        projection,
        columns: Vec::new(),
        aggregates,
        windows: windows.calls,
        group_by,
        having,
        order_by,
        order_from_projection,
        key_ordered: false,
        distinct: matches!(sel.distinct, Some(ast::Distinct::Distinct)),
        limit,
        offset,
    };
    if !plan.windows.is_empty() {
        // MariaDB counts a SELECT block with window functions each time it is planned.
        cx.count_window_functions();
    }
    mark_columns_read(&mut plan);
    choose_access_paths(cx, &mut plan);
    let literal = literal_collation(cx);
    plan.columns = plan
        .projection
        .iter()
        .map(|p| {
            column_meta(
                &plan.from.scope,
                p,
                &plan.aggregates,
                &plan.windows,
                literal,
            )
        })
        .collect();
    Ok(plan)
}

/// Compiles each source's ON clause against the sources before and including it.
fn compile_on_clauses(cx: &mut Context, from: &mut From) -> DbResult<()> {
    for i in 0..from.sources.len() {
        if let Some(on) = from.sources[i].on.clone() {
            let c = cx.compile(&from.scope, &on, "ON")?;
            mark_needed(from, &c);
            from.sources[i].on_c = Some(c);
        }
    }
    Ok(())
}

/// WHERE, with its constant parts evaluated once, not per row (fold.rs).
fn compile_where(
    cx: &mut Context,
    from: &mut From,
    selection: Option<&ast::Expr>,
) -> DbResult<Option<Expr>> {
    let Some(w) = selection else {
        return Ok(None);
    };
    let c = crate::expr::fold::fold_constants(cx.compile(&from.scope, w, "WHERE")?);
    mark_needed(from, &c);
    Ok(Some(c))
}

/// The select list: `*` and `t.*` expand to the sources' columns; aggregates are collected in
/// `aggs`.
fn plan_projection(
    cx: &mut Context,
    from: &From,
    items: &[ast::SelectItem],
    aggs: &mut Vec<AggSpec>,
    wins: &mut WindowCtx,
) -> DbResult<Vec<Projection>> {
    let mut proj = Vec::new();
    for item in items {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                let qual = match item {
                    ast::SelectItem::QualifiedWildcard(
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                        _,
                    ) => Some(object_name_parts(n).last().cloned().unwrap_or_default()),
                    _ => None,
                };
                expand_wildcard(from, qual, cx.time_zone, &mut proj)?;
            }
            ast::SelectItem::UnnamedExpr(e) => {
                let expr = compile_item(cx, &from.scope, e, (aggs, wins), &[], "SELECT")?;
                let name = super::item_name::item_name(cx, e);
                proj.push(Projection { name, expr });
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                let expr = compile_item(cx, &from.scope, expr, (aggs, wins), &[], "SELECT")?;
                let name = alias.value.clone();
                proj.push(Projection { name, expr });
            }
            other => return Err(DbError::unsupported(format!("select item {other}"))),
        }
    }
    Ok(proj)
}

/// `*` (qual None) or `t.*`: every column of the sources, or of the one named `t`.
fn expand_wildcard(
    from: &From,
    qual: Option<String>,
    tz: crate::types::time_zone::TimeZone,
    proj: &mut Vec<Projection>,
) -> DbResult<()> {
    if from.sources.is_empty() {
        return Err(DbError::new(ErrorCode::NoTablesUsed, "No tables used"));
    }
    let mut any = false;
    // `*` is the FROM's shown columns; `t.*` every column of `t`, even those a join by names
    // does not show.
    let all: Vec<usize> = match qual {
        None => from.star.clone(),
        Some(_) => (0..from.scope.cols.len()).collect(),
    };
    for i in all {
        let c = &from.scope.cols[i];
        if qual.as_ref().is_some_and(|q| *q != c.table) {
            continue;
        }
        any = true;
        proj.push(Projection {
            name: c.name.clone(),
            expr: from.scope.column_expr(i, tz),
        });
    }
    if !any {
        return Err(DbError::new(
            ErrorCode::BadTableError,
            format!("Unknown table '{}'", qual.unwrap_or_default()),
        ));
    }
    Ok(())
}

/// ORDER BY's keys (expression, descending) and, per key, the select-list item it names.
type OrderBy = (Vec<(Expr, bool)>, Vec<Option<usize>>);

/// MariaDB sorts a GROUP BY query without ORDER BY by its group keys, ascending (`ORDER BY
/// NULL` turns that off, being an ORDER BY); a block with window functions keeps the order its
/// windows leave.
fn implicit_group_order(
    order: &[ast::OrderByExpr],
    group_by: &[Expr],
    windows: &WindowCtx,
    order_by: Vec<(Expr, bool)>,
    items: Vec<Option<usize>>,
) -> OrderBy {
    if !order.is_empty() || group_by.is_empty() || !windows.calls.is_empty() {
        return (order_by, items);
    }
    let keys: Vec<(Expr, bool)> = group_by.iter().map(|g| (g.clone(), false)).collect();
    let items = vec![None; keys.len()];
    (keys, items)
}

/// ORDER BY: a position or an alias refers to the select list; anything else is an expression
/// over the sources (aggregates allowed). Returns the keys and, per key, the select-list item it
/// names.
fn plan_order_by(
    cx: &mut Context,
    from: &From,
    order: &[ast::OrderByExpr],
    proj: &[Projection],
    aliases: &[(String, Expr)],
    (aggs, wins): (&mut Vec<AggSpec>, &mut WindowCtx),
) -> DbResult<OrderBy> {
    let mut keys = Vec::new();
    let mut items = Vec::new();
    for o in order {
        let (e, item) = match &o.expr {
            ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                let e = positional(cx, &from.scope, &o.expr, proj, aliases, "ORDER BY")?;
                let ast::Value::Number(n, _) = &v.value else {
                    unreachable!("matched a number above")
                };
                (e, n.parse::<usize>().ok().map(|p| p - 1))
            }
            ast::Expr::Identifier(id) if names_select_item(from, proj, &id.value) => match proj
                .iter()
                .position(|p| p.name.eq_ignore_ascii_case(&id.value))
            {
                Some(i) => (proj[i].expr.clone(), Some(i)),
                None => (Expr::Lit(Value::Null), None),
            },
            _ => {
                let e = compile_item(cx, &from.scope, &o.expr, (aggs, wins), aliases, "ORDER BY")?;
                (e, None)
            }
        };
        keys.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
        items.push(item);
    }
    Ok((keys, items))
}

/// Whether ORDER BY's bare name `name` means a select-list item: an alias that is not also a
/// source column, or an item of that exact name that is not a plain column.
fn names_select_item(from: &From, proj: &[Projection], name: &str) -> bool {
    let is_alias = proj.iter().any(|p| p.name.eq_ignore_ascii_case(name))
        && from
            .scope
            .resolve(None, None, name, "ORDER BY")
            .ok()
            .flatten()
            .is_none();
    is_alias
        || proj
            .iter()
            .any(|p| p.name == name && p.expr.col_index().is_none())
}

/// Marks in each source the columns some expression of the plan reads.
fn mark_columns_read(plan: &mut SelectPlan) {
    let from = &mut plan.from;
    let exprs = plan
        .projection
        .iter()
        .map(|p| &p.expr)
        .chain(&plan.group_by)
        .chain(plan.order_by.iter().map(|(e, _)| e))
        .chain(&plan.having);
    for e in exprs {
        mark_needed(from, e);
    }
    for a in &plan.aggregates {
        for e in a.arg.iter().chain(a.order.iter().map(|(e, _)| e)) {
            mark_needed(from, e);
        }
    }
    for w in &plan.windows {
        for e in super::window::exprs(w) {
            mark_needed(from, e);
        }
    }
}

/// Each table's access path, whether the first table's key order serves ORDER BY, covering
/// indexes for full scans, and index condition pushdown.
fn choose_access_paths(cx: &Context, plan: &mut SelectPlan) {
    let unordered = !plan.grouped() && !plan.distinct && plan.windows.is_empty();
    let from = &mut plan.from;
    plan_access(from, &plan.where_conj);
    let order = &plan.order_by;
    // ORDER BY served by the key order of a single table's access path: no sort, early stop.
    let mut key_ordered = unordered && key_order(from, order);
    if prefer_covering_index(from, key_ordered) && unordered {
        key_ordered = key_order(from, order);
    }
    plan.key_ordered = key_ordered;
    crate::plan::index_condition::plan(cx, &mut plan.from, &plan.where_conj);
    plan.filter = crate::plan::implied::drop_implied(&plan.from, plan.filter.take());
}

/// Clauses sqlparser accepts that the executor does not implement: refused, never ignored (each
/// would change the result).
fn refuse_unsupported_clauses(sel: &ast::Select) -> DbResult<()> {
    if sel.into.is_some() {
        return Err(DbError::unsupported("SELECT ... INTO"));
    }
    if let ast::GroupByExpr::Expressions(_, modifiers) = &sel.group_by {
        if !modifiers.is_empty() {
            return Err(DbError::unsupported("GROUP BY ... WITH ROLLUP"));
        }
    } else {
        return Err(DbError::syntax("GROUP BY ALL"));
    }
    if sel.qualify.is_some() || sel.top.is_some() || sel.prewhere.is_some() {
        return Err(DbError::syntax(
            sel.to_string().chars().take(80).collect::<String>(),
        ));
    }
    if sel
        .select_modifiers
        .as_ref()
        .is_some_and(|m| m.sql_calc_found_rows)
    {
        return Err(DbError::unsupported("SQL_CALC_FOUND_ROWS"));
    }
    Ok(())
}

/// A LIMIT or OFFSET count: an integer literal or a `?` parameter, as MariaDB takes them
/// (an expression such as `1 + 1` is 1064 there, and here).
fn const_u64(cx: &mut Context, e: &ast::Expr) -> DbResult<u64> {
    let literal = matches!(
        e,
        ast::Expr::Value(v)
            if matches!(v.value, ast::Value::Number(..) | ast::Value::Placeholder(_))
    );
    if !literal {
        return Err(DbError::syntax(e));
    }
    let scope = Scope::default();
    let ex = cx.compile(&scope, e, "limit")?;
    let v = eval(&ex, &EvalCtx::default())?;
    match v {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        _ => Err(DbError::syntax(e)),
    }
}

pub fn limit_of(cx: &mut Context, q: &ast::Query) -> DbResult<(Option<u64>, u64)> {
    Ok(match &q.limit_clause {
        None => (None, 0),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            match limit {
                Some(l) => Some(const_u64(cx, l)?),
                None => None,
            },
            match offset {
                Some(o) => const_u64(cx, &o.value)?,
                None => 0,
            },
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(const_u64(cx, limit)?), const_u64(cx, offset)?)
        }
    })
}

/// The query's ORDER BY items.
pub fn order_of(q: &ast::Query) -> DbResult<Vec<ast::OrderByExpr>> {
    Ok(match &q.order_by {
        Some(ob) => match &ob.kind {
            ast::OrderByKind::Expressions(v) => v.clone(),
            ast::OrderByKind::All(_) => return Err(DbError::unsupported("ORDER BY ALL")),
        },
        None => vec![],
    })
}

/// True (and the source set to read in that direction) if `order` is a prefix of the single
/// table's key order after its equality columns, all ascending or all descending.
fn key_order(from: &mut From, order: &[(Expr, bool)]) -> bool {
    if order.is_empty() || from.sources.len() != 1 {
        return false;
    }
    let s = &mut from.sources[0];
    let SrcKind::Table(t) = &s.kind else {
        return false;
    };
    if s.access.in_list.is_some() || (s.access.index.is_none() && !s.hints.allows(None)) {
        return false;
    }
    let mut key: Vec<usize> = s.access.key_cols(t);
    // Whether each key part holds the whole value (a prefix part does not give its order).
    // Whether each key part is in ORDER BY's order (a prefix part, or an ENUM/SET keyed by its
    // text, is not).
    let mut whole: Vec<bool> = (0..key.len())
        .map(|p| t.key_column(s.access.index, p).orders_as_sql())
        .collect();
    if s.access.index.is_some() {
        key.extend(t.pk.iter().copied());
        whole.extend((0..t.pk.len()).map(|p| t.key_column(None, p).orders_as_sql()));
    }
    let desc = order[0].1;
    let eq = s.access.eq.len().min(key.len());
    // Equality columns are constant: ORDER BY may name them or skip them.
    let mut k = 0;
    for (e, d) in order {
        if *d != desc {
            return false;
        }
        let Some(c) = e.col_index() else {
            return false;
        };
        loop {
            if k >= key.len() {
                return false;
            }
            if s.offset + key[k] == c {
                if !whole[k] {
                    return false;
                }
                k += 1;
                break;
            }
            if k < eq {
                k += 1;
                continue;
            }
            return false;
        }
    }
    s.reverse = desc;
    true
}

fn positional(
    cx: &mut Context,
    scope: &Scope,
    e: &ast::Expr,
    proj: &[Projection],
    aliases: &[(String, Expr)],
    place: &'static str,
) -> DbResult<Expr> {
    if let ast::Expr::Value(v) = e {
        // a position is an integer: `GROUP BY 1.5` is a constant, as in MariaDB
        let integer = |n: &str| n.bytes().all(|b| b.is_ascii_digit());
        if let ast::Value::Number(n, _) = &v.value {
            if !integer(n) {
                return cx.compile(scope, e, place);
            }
            let p: usize = n.parse().unwrap_or(0);
            if p == 0 || p > proj.len() {
                return Err(DbError::bad_field(n, place));
            }
            return Ok(proj[p - 1].expr.clone());
        }
    }
    if let ast::Expr::Identifier(id) = e {
        if scope.resolve(None, None, &id.value, place)?.is_none() {
            if let Some((_, x)) = aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
            {
                return Ok(x.clone());
            }
        }
    }
    group_expression(cx, scope, e, aliases, place)
}

/// A GROUP BY expression other than a position or a lone alias: a name no column has may be a
/// select item's alias (MariaDB looks names up in the select list there); an alias of an
/// aggregate is 1247, one of a window call compiles (and is 4015 after).
fn group_expression(
    cx: &mut Context,
    scope: &Scope,
    e: &ast::Expr,
    aliases: &[(String, Expr)],
    place: &'static str,
) -> DbResult<Expr> {
    let (grouped, plain): (Vec<_>, Vec<_>) = aliases
        .iter()
        .cloned()
        .partition(|(_, x)| x.has_agg() && !x.has_win());
    let mut aggs = Vec::new();
    let compiled = cx.compile_agg(scope, e, &mut aggs, &plain, place);
    if !aggs.is_empty() {
        // an aggregate written in GROUP BY: refused as without aliases
        return cx.compile(scope, e, place);
    }
    compiled.map_err(|err| {
        let named = grouped
            .iter()
            .find(|(a, _)| err.message == DbError::bad_field(a, place).message);
        match named {
            Some((a, _)) => DbError::new(
                ErrorCode::IllegalReference,
                format!("Reference '{a}' not supported (reference to group function)"),
            ),
            None => err,
        }
    })
}
