//! SELECT: planning and execution of queries.
//!
//! Pipeline: FROM sources (tables, information_schema views, derived tables) joined by nested
//! loops — each table read through the access path [`range::choose_access`] picked from the
//! WHERE conjuncts (inner joins) and its ON conjuncts, evaluated against the outer row — then
//! WHERE, GROUP BY / aggregates, HAVING, projection, DISTINCT, ORDER BY, LIMIT/OFFSET.
//! UNION [ALL] concatenates (and deduplicates) its branches.
//!
//! Invariants: everything is compiled before any row is read (so ORDER BY aggregates are
//! known to the grouping step); the WHERE clause is re-checked on every row, ranges only narrow
//! the read. Rows are materialized before sorting; without ORDER BY/GROUP BY/DISTINCT the scan
//! stops as soon as OFFSET + LIMIT rows are produced.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sqlparser::ast::{self as ast, Spanned};

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::{read_rows, OutCol, Output, RowSink};
use crate::expr::aggregate::{group_key, Accumulator};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::{object_name_parts, AggFunc, AggSpec, Expr, Scope, ScopeCol};
use crate::plan::access::{choose_access_among, conjuncts, Access};
use crate::types::collation::Collation;
use crate::types::value::{sql_cmp, Value};

pub enum SrcKind {
    Table(Arc<TableDef>),
    Rows(Vec<Vec<Value>>),
}

pub struct Source {
    pub alias: String,
    pub kind: SrcKind,
    pub offset: usize,
    pub ncols: usize,
    pub left: bool,
    pub on: Option<ast::Expr>,
    pub on_c: Option<Expr>,
    pub access: Access,
    pub needed: Vec<bool>,
    /// Read the access path in descending key order (ORDER BY ... DESC served by the key).
    pub reverse: bool,
    /// USE / IGNORE / FORCE INDEX of the table reference.
    pub hints: crate::plan::hints::IndexHints,
}

impl Source {
    /// A source of rows already materialized (a derived table, VALUES, an information_schema table).
    fn rows(
        alias: String,
        rows: Vec<Vec<Value>>,
        offset: usize,
        ncols: usize,
        left: bool,
        on: Option<ast::Expr>,
    ) -> Source {
        Source {
            alias,
            kind: SrcKind::Rows(rows),
            offset,
            ncols,
            left,
            on,
            on_c: None,
            access: Access::full(),
            needed: vec![],
            reverse: false,
            hints: Default::default(),
        }
    }
}

/// Result of planning FROM.
pub struct From {
    pub sources: Vec<Source>,
    pub scope: Scope,
}

fn table_factor(
    cx: &mut Context,
    f: &ast::TableFactor,
    from: &mut From,
    left: bool,
    on: Option<ast::Expr>,
) -> DbResult<()> {
    let offset = from.scope.cols.len();
    match f {
        ast::TableFactor::Table {
            name,
            alias,
            index_hints,
            ..
        } => {
            let parts = object_name_parts(name);
            if parts.len() == 1 && parts[0].eq_ignore_ascii_case("dual") && alias.is_none() {
                return Ok(());
            }
            let (db, tname) = cx.resolve_table_name(&parts)?;
            let alias_s = alias
                .as_ref()
                .map(|a| a.name.value.clone())
                .unwrap_or_else(|| tname.clone());
            if db.eq_ignore_ascii_case("information_schema") {
                let (cols, rows) = crate::infoschema::view(cx, &tname)?;
                for c in &cols {
                    from.scope.cols.push(ScopeCol {
                        table: alias_s.clone(),
                        db: "information_schema".into(),
                        org_table: tname.to_ascii_uppercase(),
                        name: c.name.clone(),
                        ty: c.ty,
                        collation: Collation::default(),
                        flags: 0,
                        length: 0,
                        members: Default::default(),
                    });
                }
                from.sources
                    .push(Source::rows(alias_s, rows, offset, cols.len(), left, on));
                return Ok(());
            }
            cx.check_db_access(&db)?;
            let t = cx.get_table(&db, &tname)?;
            for (i, c) in t.columns.iter().enumerate() {
                let mut flags = c.protocol_flags();
                if t.pk.contains(&i) {
                    flags |= crate::types::column_flag::PRI_KEY;
                }
                from.scope.cols.push(ScopeCol {
                    table: alias_s.clone(),
                    db: db.clone(),
                    org_table: t.name.clone(),
                    name: c.name.clone(),
                    ty: Some(c.sql_type),
                    collation: c.collation,
                    flags,
                    length: c.display_length(),
                    members: c.members.clone(),
                });
            }
            let hints = crate::plan::hints::IndexHints::from_ast(&t, index_hints)?;
            from.sources.push(Source {
                hints,
                alias: alias_s,
                ncols: t.columns.len(),
                needed: vec![false; t.columns.len()],
                reverse: false,
                kind: SrcKind::Table(t),
                offset,
                left,
                on,
                on_c: None,
                access: Access::full(),
            });
        }
        ast::TableFactor::Derived {
            subquery, alias, ..
        } => {
            let Some(alias) = alias else {
                return Err(DbError::new(
                    1248,
                    "42000",
                    "Every derived table must have its own alias",
                ));
            };
            let (cols, rows) = match run_query(cx, subquery)? {
                Output::Rows { cols, rows } => (cols, rows),
                _ => (vec![], vec![]),
            };
            for c in &cols {
                from.scope.cols.push(ScopeCol {
                    table: alias.name.value.clone(),
                    db: String::new(),
                    org_table: String::new(),
                    name: c.name.clone(),
                    ty: c.ty,
                    collation: c.collation,
                    flags: 0,
                    length: c.length,
                    members: c.members.clone(),
                });
            }
            from.sources.push(Source::rows(
                alias.name.value.clone(),
                rows,
                offset,
                cols.len(),
                left,
                on,
            ));
        }
        ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } if on.is_none() && !left => {
            plan_twj(cx, table_with_joins, from)?;
        }
        other => return Err(DbError::unsupported(format!("table reference {other}"))),
    }
    Ok(())
}

fn using_condition(
    from: &From,
    right_start: usize,
    cols: &[ast::ObjectName],
) -> DbResult<ast::Expr> {
    let right_alias = from
        .sources
        .last()
        .map(|s| s.alias.clone())
        .unwrap_or_default();
    let mut cond: Option<ast::Expr> = None;
    for c in cols {
        let name = object_name_parts(c).join(".");
        let left = from.scope.cols[..right_start]
            .iter()
            .find(|sc| sc.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| DbError::bad_field(&name, "from clause"))?;
        let e = ast::Expr::BinaryOp {
            left: Box::new(ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(left.table.clone()),
                ast::Ident::new(name.clone()),
            ])),
            op: ast::BinaryOperator::Eq,
            right: Box::new(ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(right_alias.clone()),
                ast::Ident::new(name.clone()),
            ])),
        };
        cond = Some(match cond {
            None => e,
            Some(p) => ast::Expr::BinaryOp {
                left: Box::new(p),
                op: ast::BinaryOperator::And,
                right: Box::new(e),
            },
        });
    }
    cond.ok_or_else(|| DbError::syntax("USING ()"))
}

fn plan_twj(cx: &mut Context, twj: &ast::TableWithJoins, from: &mut From) -> DbResult<()> {
    table_factor(cx, &twj.relation, from, false, None)?;
    for j in &twj.joins {
        use ast::JoinOperator as J;
        let (left, constraint) = match &j.join_operator {
            J::Join(c) | J::Inner(c) => (false, Some(c)),
            J::Left(c) | J::LeftOuter(c) => (true, Some(c)),
            J::CrossJoin(_) => (false, None),
            J::Right(_) | J::RightOuter(_) => {
                return Err(DbError::unsupported("RIGHT JOIN (rewrite it as LEFT JOIN)"))
            }
            other => return Err(DbError::unsupported(format!("join {other:?}"))),
        };
        let start = from.scope.cols.len();
        table_factor(cx, &j.relation, from, left, None)?;
        let on = match constraint {
            Some(ast::JoinConstraint::On(e)) => Some(e.clone()),
            Some(ast::JoinConstraint::Using(cols)) => Some(using_condition(from, start, cols)?),
            Some(ast::JoinConstraint::Natural) => return Err(DbError::unsupported("NATURAL JOIN")),
            _ => None,
        };
        if let Some(s) = from.sources.last_mut() {
            s.on = on;
        }
    }
    Ok(())
}

pub fn plan_from(cx: &mut Context, list: &[ast::TableWithJoins]) -> DbResult<From> {
    let mut from = From {
        sources: vec![],
        scope: Scope::default(),
    };
    for twj in list {
        plan_twj(cx, twj, &mut from)?;
    }
    Ok(from)
}

/// Marks the columns `e` reads in their sources' `needed` lists.
fn mark_needed(from: &mut From, e: &Expr) {
    let sources = &mut from.sources;
    e.visit_cols(&mut |c| {
        for s in sources.iter_mut() {
            if c >= s.offset && c < s.offset + s.ncols && !s.needed.is_empty() {
                s.needed[c - s.offset] = true;
            }
        }
    });
}

/// Chooses each table's access path from the conjuncts usable for it.
pub fn plan_access(from: &mut From, where_conj: &[Expr]) {
    let mut all_inner = true;
    for i in 0..from.sources.len() {
        let s = &from.sources[i];
        let offset = s.offset;
        all_inner &= !s.left;
        let mut conj = Vec::new();
        if let Some(on) = &s.on_c {
            conjuncts(on, &mut conj);
        }
        if all_inner {
            conj.extend(where_conj.iter().cloned());
        }
        let usable = |e: &Expr| {
            let mut ok = !e.has_agg();
            e.visit_cols(&mut |c| ok &= c < offset);
            ok
        };
        if let SrcKind::Table(t) = &s.kind {
            let mut a = choose_access_among(t, offset, &conj, &usable, &|k| s.hints.allows(k));
            if a.is_full_scan() {
                if let Some(Some(ix)) = s.hints.forced_scan() {
                    a.index = Some(ix);
                }
            }
            from.sources[i].access = a;
        }
    }
}

/// Runs the nested loop; `emit(row)` returns false to stop.
pub fn nested_loop(
    cx: &Context,
    from: &From,
    where_c: Option<&Expr>,
    emit: &mut dyn FnMut(&[Value]) -> DbResult<bool>,
) -> DbResult<()> {
    let width = from.scope.cols.len();
    let mut row = vec![Value::Null; width];
    if from.sources.is_empty() {
        if where_c.is_none_or(|w| {
            truth(&eval(w, &EvalCtx::row(&row)).unwrap_or(Value::Null)) == Some(true)
        }) {
            emit(&row)?;
        }
        return Ok(());
    }
    step(cx, from, 0, &mut row, where_c, emit)?;
    Ok(())
}

fn passes(e: Option<&Expr>, row: &[Value]) -> DbResult<bool> {
    match e {
        None => Ok(true),
        Some(e) => Ok(truth(&eval(e, &EvalCtx::row(row))?) == Some(true)),
    }
}

/// Returns false when the consumer asked to stop.
fn step(
    cx: &Context,
    from: &From,
    i: usize,
    row: &mut Vec<Value>,
    where_c: Option<&Expr>,
    emit: &mut dyn FnMut(&[Value]) -> DbResult<bool>,
) -> DbResult<bool> {
    if i == from.sources.len() {
        if passes(where_c, row)? {
            return emit(row);
        }
        return Ok(true);
    }
    let s = &from.sources[i];
    let mut matched = false;
    let mut go_on = true;
    {
        let mut visit = |vals: &[Value], row: &mut Vec<Value>| -> DbResult<bool> {
            row[s.offset..s.offset + s.ncols].clone_from_slice(&vals[..s.ncols]);
            if !passes(s.on_c.as_ref(), row)? {
                return Ok(true);
            }
            matched = true;
            step(cx, from, i + 1, row, where_c, emit)
        };
        match &s.kind {
            SrcKind::Rows(rows) => {
                for r in rows {
                    if !visit(r, row)? {
                        go_on = false;
                        break;
                    }
                }
            }
            SrcKind::Table(t) => {
                let outer = row.clone();
                let mut inner_row = row.clone();
                read_rows(
                    cx,
                    t,
                    &s.access,
                    &outer,
                    &s.needed,
                    s.reverse,
                    cx.snapshot.as_ref(),
                    &mut |_, vals| {
                        let cont = visit(&vals, &mut inner_row)?;
                        if !cont {
                            go_on = false;
                        }
                        Ok(cont)
                    },
                )?;
            }
        }
    }
    if !go_on {
        return Ok(false);
    }
    if !matched && s.left {
        for v in &mut row[s.offset..s.offset + s.ncols] {
            *v = Value::Null;
        }
        return step(cx, from, i + 1, row, where_c, emit);
    }
    Ok(true)
}

fn const_u64(cx: &mut Context, e: &ast::Expr) -> DbResult<u64> {
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

/// The primary trees of the tables named in a locking query's FROM clauses (joins included).
pub(crate) fn locked_trees(cx: &Context, q: &ast::Query) -> DbResult<Vec<String>> {
    fn walk(cx: &Context, body: &ast::SetExpr, out: &mut Vec<String>) -> DbResult<()> {
        match body {
            ast::SetExpr::Select(sel) => {
                for twj in &sel.from {
                    let rels =
                        std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation));
                    for rel in rels {
                        if let ast::TableFactor::Table { name, .. } = rel {
                            let (db, t) = cx.resolve_table_name(&object_name_parts(name))?;
                            if let Some(def) = cx.find_table(&db, &t) {
                                out.push(def.primary_tree());
                            }
                        }
                    }
                }
            }
            ast::SetExpr::SetOperation { left, right, .. } => {
                walk(cx, left, out)?;
                walk(cx, right, out)?;
            }
            ast::SetExpr::Query(q) => walk(cx, &q.body, out)?,
            _ => {}
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(cx, &q.body, &mut out)?;
    Ok(out)
}

/// The query's ORDER BY items.
fn order_of(q: &ast::Query) -> DbResult<Vec<ast::OrderByExpr>> {
    Ok(match &q.order_by {
        Some(ob) => match &ob.kind {
            ast::OrderByKind::Expressions(v) => v.clone(),
            ast::OrderByKind::All(_) => return Err(DbError::unsupported("ORDER BY ALL")),
        },
        None => vec![],
    })
}

/// Runs a full query; a plain SELECT whose rows need no sorting, grouping or de-duplication
/// sends them to `sink` as it reads them ([`Output::Sent`]).
pub fn run_query_to(
    cx: &mut Context,
    q: &ast::Query,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    match (&*q.body, sink) {
        (ast::SetExpr::Select(sel), Some(sink)) if q.with.is_none() && q.locks.is_empty() => {
            let (limit, offset) = limit_of(cx, q)?;
            let order = order_of(q)?;
            run_select_to(cx, sel, &order, limit, offset, false, Some(sink))
        }
        _ => run_query(cx, q),
    }
}

/// EXPLAIN of a query: the rows describing the plan the query would run.
pub fn explain(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    match &*q.body {
        ast::SetExpr::Select(sel) => {
            let (limit, offset) = limit_of(cx, q)?;
            let order = order_of(q)?;
            run_select(cx, sel, &order, limit, offset, true)
        }
        _ => Err(DbError::unsupported("EXPLAIN of this query")),
    }
}

/// Runs a full query (SELECT, UNION, VALUES) and returns its result set.
pub fn run_query(cx: &mut Context, q: &ast::Query) -> DbResult<Output> {
    if q.with.is_some() {
        return Err(DbError::unsupported("WITH (common table expressions)"));
    }
    if !q.locks.is_empty() {
        // A locking read (FOR UPDATE / LOCK IN SHARE MODE) reads the latest committed rows, not
        // the transaction's snapshot, as InnoDB does, after locking what it may return.
        crate::plan::locks::lock_for_query(cx, q)?;
        let snap = cx.snapshot.take();
        let mut q2 = q.clone();
        q2.locks.clear();
        let r = run_query(cx, &q2);
        cx.snapshot = snap;
        return r;
    }
    let (limit, offset) = limit_of(cx, q)?;
    let order = order_of(q)?;
    match &*q.body {
        ast::SetExpr::Select(sel) => run_select(cx, sel, &order, limit, offset, false),
        ast::SetExpr::Query(inner) => {
            let out = run_query(cx, inner)?;
            finish_set(cx, out, &order, limit, offset)
        }
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            let l = run_set(cx, left)?;
            let r = run_set(cx, right)?;
            let (Output::Rows { cols, mut rows }, Output::Rows { cols: rc, rows: rr }) = (l, r)
            else {
                return Err(DbError::internal("UNION of non-queries"));
            };
            if cols.len() != rc.len() {
                return Err(DbError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
            rows.extend(rr);
            if !matches!(set_quantifier, ast::SetQuantifier::All) {
                let mut seen = HashSet::new();
                rows.retain(|r| seen.insert(group_key(r)));
            }
            let cols = cols
                .into_iter()
                .map(|c| OutCol {
                    ty: c.ty,
                    ..OutCol::named(&c.name, c.ty)
                })
                .collect();
            finish_set(cx, Output::Rows { cols, rows }, &order, limit, offset)
        }
        ast::SetExpr::Values(v) => {
            let scope = Scope::default();
            let mut rows = Vec::new();
            for r in &v.rows {
                let mut out = Vec::new();
                for e in &r.content {
                    let ex = cx.compile(&scope, e, "field list")?;
                    out.push(eval(&ex, &EvalCtx::default())?);
                }
                rows.push(out);
            }
            let n = rows.first().map_or(0, |r: &Vec<Value>| r.len());
            let cols = (0..n)
                .map(|i| OutCol::named(&format!("column_{i}"), None))
                .collect();
            finish_set(cx, Output::Rows { cols, rows }, &order, limit, offset)
        }
        other => Err(DbError::unsupported(format!("query {other}"))),
    }
}

fn run_set(cx: &mut Context, e: &ast::SetExpr) -> DbResult<Output> {
    match e {
        ast::SetExpr::Select(sel) => run_select(cx, sel, &[], None, 0, false),
        ast::SetExpr::Query(q) => run_query(cx, q),
        other => {
            let q = ast::Query {
                with: None,
                body: Box::new(other.clone()),
                order_by: None,
                limit_clause: None,
                fetch: None,
                locks: vec![],
                for_clause: None,
                settings: None,
                format_clause: None,
                pipe_operators: vec![],
            };
            run_query(cx, &q)
        }
    }
}

/// ORDER BY / LIMIT over an already computed result (UNION): by position or column name.
fn finish_set(
    cx: &mut Context,
    out: Output,
    order: &[ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
) -> DbResult<Output> {
    let Output::Rows { cols, mut rows } = out else {
        return Ok(out);
    };
    if !order.is_empty() {
        let scope = Scope {
            cols: cols
                .iter()
                .map(|c| ScopeCol {
                    table: String::new(),
                    db: String::new(),
                    org_table: String::new(),
                    name: c.name.clone(),
                    ty: c.ty,
                    collation: c.collation,
                    flags: 0,
                    length: c.length,
                    members: c.members.clone(),
                })
                .collect(),
        };
        let mut keys = Vec::new();
        for o in order {
            let e = match &o.expr {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        let p: usize = n.parse().unwrap_or(0);
                        if p == 0 || p > cols.len() {
                            return Err(DbError::bad_field(n, "order clause"));
                        }
                        Expr::Col(p - 1)
                    }
                    _ => cx.compile(&scope, &o.expr, "order clause")?,
                },
                _ => cx.compile(&scope, &o.expr, "order clause")?,
            };
            keys.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
        }
        sort_rows(
            &mut rows,
            |r| {
                keys.iter()
                    .map(|(e, _)| eval(e, &EvalCtx::row(r)).unwrap_or(Value::Null))
                    .collect()
            },
            &keys.iter().map(|k| k.1).collect::<Vec<_>>(),
        );
    }
    apply_limit(&mut rows, limit, offset);
    Ok(Output::Rows { cols, rows })
}

fn apply_limit(rows: &mut Vec<Vec<Value>>, limit: Option<u64>, offset: u64) {
    let off = (offset as usize).min(rows.len());
    rows.drain(..off);
    if let Some(l) = limit {
        rows.truncate(l as usize);
    }
}

pub fn cmp_values(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => sql_cmp(a, b, Collation::default()).unwrap_or(Ordering::Equal),
    }
}

fn sort_rows(rows: &mut Vec<Vec<Value>>, key: impl Fn(&[Value]) -> Vec<Value>, desc: &[bool]) {
    let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = rows.drain(..).map(|r| (key(&r), r)).collect();
    keyed.sort_by(|a, b| {
        for (i, d) in desc.iter().enumerate() {
            let o = cmp_values(&a.0[i], &b.0[i]);
            if o != Ordering::Equal {
                return if *d { o.reverse() } else { o };
            }
        }
        Ordering::Equal
    });
    rows.extend(keyed.into_iter().map(|(_, r)| r));
}

/// The text a select item shows as its column name.
fn item_name(cx: &Context, e: &ast::Expr) -> String {
    if let ast::Expr::Identifier(i) = e {
        return i.value.clone();
    }
    if let ast::Expr::CompoundIdentifier(ids) = e {
        if !ids[0].value.starts_with('@') {
            return ids.last().map(|i| i.value.clone()).unwrap_or_default();
        }
    }
    if let ast::Expr::Value(v) = e {
        if let ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) = &v.value {
            return s.clone();
        }
    }
    if let ast::Expr::Substring { .. } = e {
        if let Some(t) = cx.call_text(e.span()) {
            return t;
        }
    }
    cx.item_text(e.span()).unwrap_or_else(|| e.to_string())
}

struct Proj {
    name: String,
    expr: Expr,
    meta: Option<OutCol>,
}

/// Runs one SELECT block. With `explain`, returns the EXPLAIN rows instead.
pub fn run_select(
    cx: &mut Context,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
    explain: bool,
) -> DbResult<Output> {
    run_select_to(cx, sel, order, limit, offset, explain, None)
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
    if !sel.named_window.is_empty() {
        return Err(DbError::unsupported("window functions"));
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

/// [`run_select`], sending the rows to `sink` as they are read when nothing needs them all first.
fn run_select_to(
    cx: &mut Context,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
    explain: bool,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    refuse_unsupported_clauses(sel)?;
    let mut from = plan_from(cx, &sel.from)?;
    // Compile ON conditions and WHERE.
    for i in 0..from.sources.len() {
        if let Some(on) = from.sources[i].on.clone() {
            let c = cx.compile(&from.scope, &on, "on clause")?;
            mark_needed(&mut from, &c);
            from.sources[i].on_c = Some(c);
        }
    }
    // Constant parts evaluated once, not per row (fold.rs).
    let where_c = match &sel.selection {
        Some(w) => Some(crate::expr::fold::fold_constants(cx.compile(
            &from.scope,
            w,
            "where clause",
        )?)),
        None => None,
    };
    let mut where_conj = Vec::new();
    if let Some(w) = &where_c {
        mark_needed(&mut from, w);
        conjuncts(w, &mut where_conj);
    }
    // Projection.
    let mut aggs: Vec<AggSpec> = Vec::new();
    let mut proj: Vec<Proj> = Vec::new();
    for item in &sel.projection {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                let qual = match item {
                    ast::SelectItem::QualifiedWildcard(
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                        _,
                    ) => Some(object_name_parts(n).last().cloned().unwrap_or_default()),
                    _ => None,
                };
                if from.sources.is_empty() {
                    return Err(DbError::new(1096, "HY000", "No tables used"));
                }
                let mut any = false;
                for (i, c) in from.scope.cols.iter().enumerate() {
                    if qual.as_ref().is_some_and(|q| *q != c.table) {
                        continue;
                    }
                    any = true;
                    proj.push(Proj {
                        name: c.name.clone(),
                        expr: Expr::Col(i),
                        meta: None,
                    });
                }
                if !any {
                    return Err(DbError::new(
                        1051,
                        "42S02",
                        format!("Unknown table '{}'", qual.unwrap_or_default()),
                    ));
                }
            }
            ast::SelectItem::UnnamedExpr(e) => {
                let c = cx.compile_agg(&from.scope, e, &mut aggs, &[], "field list")?;
                proj.push(Proj {
                    name: item_name(cx, e),
                    expr: c,
                    meta: None,
                });
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                let c = cx.compile_agg(&from.scope, expr, &mut aggs, &[], "field list")?;
                proj.push(Proj {
                    name: alias.value.clone(),
                    expr: c,
                    meta: None,
                });
            }
            other => return Err(DbError::unsupported(format!("select item {other}"))),
        }
    }
    let aliases: Vec<(String, Expr)> = proj
        .iter()
        .map(|p| (p.name.clone(), p.expr.clone()))
        .collect();
    // GROUP BY.
    let mut group: Vec<Expr> = Vec::new();
    if let ast::GroupByExpr::Expressions(exprs, _) = &sel.group_by {
        for e in exprs {
            group.push(positional(
                cx,
                &from.scope,
                e,
                &proj,
                &aliases,
                "group statement",
            )?);
        }
    }
    let having = match &sel.having {
        Some(h) => Some(cx.compile_agg(&from.scope, h, &mut aggs, &aliases, "having clause")?),
        None => None,
    };
    // ORDER BY: positions and aliases refer to the select list.
    let mut order_c: Vec<(Expr, bool)> = Vec::new();
    for o in order {
        let e = match &o.expr {
            ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                positional(cx, &from.scope, &o.expr, &proj, &aliases, "order clause")?
            }
            ast::Expr::Identifier(id)
                if proj.iter().any(|p| p.name.eq_ignore_ascii_case(&id.value))
                    && from
                        .scope
                        .resolve(None, None, &id.value, "order clause")
                        .ok()
                        .flatten()
                        .is_none()
                    || proj
                        .iter()
                        .any(|p| p.name == id.value && !matches!(p.expr, Expr::Col(_))) =>
            {
                proj.iter()
                    .find(|p| p.name.eq_ignore_ascii_case(&id.value))
                    .map(|p| p.expr.clone())
                    .unwrap_or(Expr::Lit(Value::Null))
            }
            _ => cx.compile_agg(&from.scope, &o.expr, &mut aggs, &aliases, "order clause")?,
        };
        order_c.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
    }
    for p in &proj {
        mark_needed(&mut from, &p.expr);
    }
    for g in &group {
        mark_needed(&mut from, g);
    }
    for (e, _) in &order_c {
        mark_needed(&mut from, e);
    }
    if let Some(h) = &having {
        mark_needed(&mut from, h);
    }
    for a in &aggs {
        for e in a.arg.iter().chain(a.order.iter().map(|(e, _)| e)) {
            mark_needed(&mut from, e);
        }
    }
    plan_access(&mut from, &where_conj);
    let grouped_q = !group.is_empty() || !aggs.is_empty();
    let distinct_q = matches!(sel.distinct, Some(ast::Distinct::Distinct));
    // ORDER BY served by the key order of a single table's access path: no sort, early stop.
    let mut key_ordered = !grouped_q && !distinct_q && key_order(&mut from, &order_c);
    if crate::plan::explain::prefer_covering_index(&mut from, key_ordered)
        && !grouped_q
        && !distinct_q
    {
        key_ordered = key_order(&mut from, &order_c);
    }
    crate::plan::index_condition::plan(cx, &mut from, &where_conj);
    if explain {
        let shape = crate::plan::explain::Shape {
            where_conj: &where_conj,
            grouped: grouped_q,
            distinct: distinct_q,
            sorted: !order_c.is_empty() && !key_ordered,
            key_ordered,
        };
        return Ok(crate::plan::explain::rows(cx, &from, &shape));
    }
    if cx.describe_only {
        for p in &mut proj {
            p.meta = Some(column_meta(&from.scope, p, &aggs));
        }
        let cols = proj.into_iter().filter_map(|p| p.meta).collect();
        return Ok(Output::Rows { cols, rows: vec![] });
    }
    let grouped = !group.is_empty() || !aggs.is_empty();
    let distinct = matches!(sel.distinct, Some(ast::Distinct::Distinct));
    let stop_at = if grouped || distinct || (!order_c.is_empty() && !key_ordered) {
        None
    } else {
        limit.map(|l| l.saturating_add(offset))
    };
    if let Some(sink) = sink {
        let streamable =
            !grouped && !distinct && having.is_none() && (order_c.is_empty() || key_ordered);
        let cols: Vec<OutCol> = proj
            .iter()
            .map(|p| column_meta(&from.scope, p, &aggs))
            .collect();
        if streamable && cols.iter().all(|c| c.ty.is_some()) {
            sink.columns(&cols)?;
            return stream_rows(cx, &from, where_c.as_ref(), &proj, limit, offset, sink);
        }
    }
    // Scan.
    let members = crate::exec::member_sort::MemberOrder::new(&from, &order_c);
    let mut out_rows: Vec<(Vec<Value>, Vec<Value>)> = Vec::new(); // (sort keys, projected)
    if grouped {
        let mut groups: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut states: Vec<(Vec<Value>, Vec<Accumulator>)> = Vec::new();
        {
            let cx_ref: &Context = cx;
            nested_loop(cx_ref, &from, where_c.as_ref(), &mut |row| {
                let cx = EvalCtx::row(row);
                let mut kv = Vec::with_capacity(group.len());
                for g in &group {
                    kv.push(eval(g, &cx)?);
                }
                let key = group_key(&kv);
                let idx = match groups.get(&key) {
                    Some(i) => *i,
                    None => {
                        states.push((row.to_vec(), aggs.iter().map(Accumulator::new).collect()));
                        groups.insert(key, states.len() - 1);
                        states.len() - 1
                    }
                };
                for (acc, spec) in states[idx].1.iter_mut().zip(&aggs) {
                    acc.add(spec, &cx)?;
                }
                Ok(true)
            })?;
        }
        if states.is_empty() && group.is_empty() {
            states.push((
                vec![Value::Null; from.scope.cols.len()],
                aggs.iter().map(Accumulator::new).collect(),
            ));
        }
        for (first, accs) in states {
            let aggv: Vec<Value> = accs
                .into_iter()
                .zip(&aggs)
                .map(|(a, s)| a.finish(s))
                .collect();
            let cx = EvalCtx {
                row: &first,
                aggs: &aggv,
                insert: &[],
            };
            if let Some(h) = &having {
                if truth(&eval(h, &cx)?) != Some(true) {
                    continue;
                }
            }
            let vals = proj
                .iter()
                .map(|p| eval(&p.expr, &cx))
                .collect::<DbResult<Vec<_>>>()?;
            let mut keys = order_c
                .iter()
                .map(|(e, _)| eval(e, &cx))
                .collect::<DbResult<Vec<_>>>()?;
            members.apply(&mut keys);
            out_rows.push((keys, vals));
        }
    } else {
        let cx_ref: &Context = cx;
        let mut produced = 0u64;
        nested_loop(cx_ref, &from, where_c.as_ref(), &mut |row| {
            let cx = EvalCtx::row(row);
            if let Some(h) = &having {
                if truth(&eval(h, &cx)?) != Some(true) {
                    return Ok(true);
                }
            }
            let vals = proj
                .iter()
                .map(|p| eval(&p.expr, &cx))
                .collect::<DbResult<Vec<_>>>()?;
            let mut keys = order_c
                .iter()
                .map(|(e, _)| eval(e, &cx))
                .collect::<DbResult<Vec<_>>>()?;
            members.apply(&mut keys);
            out_rows.push((keys, vals));
            produced += 1;
            Ok(stop_at.is_none_or(|s| produced < s))
        })?;
    }
    if distinct {
        let mut seen = HashSet::new();
        out_rows.retain(|(_, v)| seen.insert(group_key(v)));
    }
    if !order_c.is_empty() && !key_ordered {
        out_rows.sort_by(|a, b| {
            for (i, (_, d)) in order_c.iter().enumerate() {
                let o = cmp_values(&a.0[i], &b.0[i]);
                if o != Ordering::Equal {
                    return if *d { o.reverse() } else { o };
                }
            }
            Ordering::Equal
        });
    }
    let mut rows: Vec<Vec<Value>> = out_rows.into_iter().map(|(_, v)| v).collect();
    apply_limit(&mut rows, limit, offset);
    for p in &mut proj {
        p.meta = Some(column_meta(&from.scope, p, &aggs));
    }
    let cols = proj.into_iter().filter_map(|p| p.meta).collect();
    Ok(Output::Rows { cols, rows })
}

/// Sends the projected rows the nested loop produces to `sink`, skipping `offset` and stopping
/// after `limit` (the rows arrive in the order the result needs).
fn stream_rows(
    cx: &Context,
    from: &From,
    where_c: Option<&Expr>,
    proj: &[Proj],
    limit: Option<u64>,
    offset: u64,
    sink: &mut dyn RowSink,
) -> DbResult<Output> {
    let mut sent = 0u64;
    if limit == Some(0) {
        return Ok(Output::Sent { rows: 0 });
    }
    let mut skipped = 0u64;
    let mut vals = Vec::with_capacity(proj.len());
    nested_loop(cx, from, where_c, &mut |row| {
        if skipped < offset {
            skipped += 1;
            return Ok(true);
        }
        let cx = EvalCtx::row(row);
        vals.clear();
        for p in proj {
            vals.push(eval(&p.expr, &cx)?);
        }
        sink.row(&vals)?;
        sent += 1;
        Ok(limit.is_none_or(|l| sent < l))
    })?;
    Ok(Output::Sent { rows: sent })
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
        let Expr::Col(c) = e else { return false };
        loop {
            if k >= key.len() {
                return false;
            }
            if s.offset + key[k] == *c {
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
    proj: &[Proj],
    aliases: &[(String, Expr)],
    place: &'static str,
) -> DbResult<Expr> {
    if let ast::Expr::Value(v) = e {
        if let ast::Value::Number(n, _) = &v.value {
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
    cx.compile(scope, e, place)
}

fn column_meta(scope: &Scope, p: &Proj, aggs: &[AggSpec]) -> OutCol {
    match &p.expr {
        Expr::Col(i) => {
            let c = &scope.cols[*i];
            OutCol {
                name: p.name.clone(),
                table: c.table.clone(),
                org_table: c.org_table.clone(),
                db: c.db.clone(),
                ty: c.ty,
                flags: c.flags,
                collation: c.collation,
                length: c.length,
                members: c.members.clone(),
            }
        }
        Expr::Agg(i) if matches!(aggs[*i].func, AggFunc::Count | AggFunc::CountStar) => {
            OutCol::named(
                &p.name,
                Some(crate::types::SqlType::Int {
                    width: crate::types::IntWidth::Big,
                    unsigned: false,
                }),
            )
        }
        Expr::Agg(i) if matches!(aggs[*i].func, AggFunc::Min | AggFunc::Max) => {
            match aggs[*i].arg.first() {
                Some(Expr::Col(c)) => OutCol {
                    name: p.name.clone(),
                    ty: scope.cols[*c].ty,
                    collation: scope.cols[*c].collation,
                    length: scope.cols[*c].length,
                    members: scope.cols[*c].members.clone(),
                    ..Default::default()
                },
                _ => OutCol::named(&p.name, None),
            }
        }
        _ => OutCol::named(&p.name, None),
    }
}
