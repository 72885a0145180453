//! A view's SELECT as MariaDB stores it (design.md VIEW1): names resolved once at CREATE VIEW
//! and printed by catalog/query_print.rs; the same resolution prints EXPLAIN EXTENDED's note
//! ([`printed_query`]). [`printed_body`] rewrites the parsed SELECT as
//! MariaDB's resolver leaves it:
//!
//! * a column is qualified by its source: `db`.`table`.`col` for a base table named without
//!   an alias, `alias`.`col`, `view`.`col`, `cte`.`col`, `derived`.`col`; a table by its
//!   database (`db`.`t`); `*` and `t.*` become the columns they stand for;
//! * every select item of a query that has names (not a subquery in an expression) is named:
//!   its alias, else the name the planner gives it (plan/item_name.rs); in the view's own
//!   SELECTs an auto name that is not a valid column name (empty, ending in a space, longer
//!   than 64 characters) is `Name_exp_<position>`, and in its first SELECT an auto name equal
//!   to an earlier one is `My_exp_<name>` (`sql_view.cc`'s make_valid_column_names and
//!   check_duplicate_names); the first SELECT of a CTE with a column list is named by it;
//! * the view's column list, if any, names its first SELECT's items (and is then not kept);
//! * GROUP BY and ORDER BY naming a select item's alias name its expression; `JOIN ... USING`
//!   and NATURAL JOIN are the ON of their equalities (none for a NATURAL JOIN without common
//!   columns, `on(1)` for a NATURAL LEFT JOIN without), and `*` over them shows each joined
//!   column once (plan/join_using.rs).
//!
//! Invariants: the session's database and statement text are as before, error or not; what
//! the rewrite does not know (RIGHT JOIN, a table function, a subquery where names are
//! resolved generically) is an error, and the caller then keeps the SELECT as written.

use sqlparser::ast::{self, Expr as E, SetExpr, TableFactor};

use super::expr_children::children;
use super::join_using::{equalities, pair_columns, shown_columns, JoinNames};
use super::view_item_names::valid_names;
use crate::catalog::expr_print::Style;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};

/// One source of a SELECT's FROM: the name a qualified column matches, how its columns are
/// qualified when printed, and its columns.
struct Source {
    name: String,
    qual: Vec<String>,
    columns: Vec<String>,
}

/// One SELECT's names: its sources and its select items' aliases.
#[derive(Default)]
struct Scope {
    sources: Vec<Source>,
    aliases: Vec<(String, ast::Expr)>,
    /// The columns `*` stands for (source, column), each joined column of a join by names once.
    star: Vec<(usize, usize)>,
}

/// What a query's select items are named.
#[derive(Clone, Copy)]
struct Naming<'a> {
    /// Its items get `AS` names (a subquery in an expression has none).
    named: bool,
    /// The view's own SELECTs (Name_exp, My_exp).
    view: bool,
    /// Names of the first SELECT's items (a CTE's column list).
    rename: Option<&'a [String]>,
}

struct Resolver<'c> {
    cx: &'c mut Context,
    db: String,
    ctes: Vec<(String, Vec<String>)>,
    /// A column of an aliased base table is `db`.`alias`.`col` (EXPLAIN EXTENDED's note), not
    /// `alias`.`col` (a view's body).
    alias_db: bool,
}

fn unknown(what: &str) -> DbError {
    DbError::unsupported(format!("printing {what} of a view"))
}

/// `query`, parsed from `text`, as view `db`.`view`'s stored SELECT: resolved as the module
/// doc says and printed in MariaDB's form.
pub fn printed_body(
    cx: &mut Context,
    (db, name): (&str, &str),
    text: &str,
    query: &ast::Query,
    columns: &[String],
) -> DbResult<String> {
    let _ = name;
    let saved_db = cx.db.replace(db.to_string());
    let saved_sql = std::mem::replace(&mut cx.cur_sql, text.to_string());
    let mut q = query.clone();
    let mut r = Resolver {
        cx,
        db: db.to_string(),
        ctes: Vec::new(),
        alias_db: false,
    };
    // A column list names the first SELECT's items (MariaDB shows no list then).
    let naming = Naming {
        named: true,
        view: true,
        rename: (!columns.is_empty()).then_some(columns),
    };
    let res = r.query(&mut q, &[], naming);
    r.cx.cur_sql = saved_sql;
    r.cx.db = saved_db;
    res?;
    let style = Style {
        omit_db: None,
        resolved: true,
        select_numbers: None,
    };
    Ok(crate::catalog::query_print::query_text(&q, &style))
}

/// `query`, parsed from `text`, as MariaDB prints a query it has read (EXPLAIN EXTENDED's
/// note): resolved as the module doc says under the session's database, each select item
/// named, and each SELECT numbered (`/* select#N */`, in the text's order) when there are
/// several. A query the rewrite does not know is printed as written. Betula prints no
/// optimizer rewrites (MariaDB's `<in_optimizer>`, merged equalities, folded constants): its
/// planner keeps the query's own conditions.
pub fn printed_query(cx: &mut Context, text: &str, query: &ast::Query) -> String {
    let saved_sql = std::mem::replace(&mut cx.cur_sql, text.to_string());
    let mut q = query.clone();
    let db = cx.db.clone().unwrap_or_default();
    let mut r = Resolver {
        cx,
        db,
        ctes: Vec::new(),
        alias_db: true,
    };
    let naming = Naming {
        named: true,
        view: false,
        rename: None,
    };
    let resolved = r.query(&mut q, &[], naming).is_ok();
    r.cx.cur_sql = saved_sql;
    let q = if resolved { &q } else { query };
    let mut style = Style {
        omit_db: None,
        resolved,
        select_numbers: Some(Default::default()),
    };
    let numbered = crate::catalog::query_print::query_text(q, &style);
    if style.select_numbers.as_ref().is_some_and(|n| n.get() > 1) {
        return numbered;
    }
    style.select_numbers = None;
    crate::catalog::query_print::query_text(q, &style)
}

impl Resolver<'_> {
    /// Resolves `q` under the enclosing scopes `outer`; returns its column names.
    fn query(
        &mut self,
        q: &mut ast::Query,
        outer: &[&Scope],
        naming: Naming,
    ) -> DbResult<Vec<String>> {
        let depth = self.ctes.len();
        let res = self.query_in(q, outer, naming);
        self.ctes.truncate(depth);
        res
    }

    fn query_in(
        &mut self,
        q: &mut ast::Query,
        outer: &[&Scope],
        naming: Naming,
    ) -> DbResult<Vec<String>> {
        if let Some(w) = &mut q.with {
            for cte in &mut w.cte_tables {
                let name = cte.alias.name.value.clone();
                let list: Vec<String> = cte
                    .alias
                    .columns
                    .iter()
                    .map(|c| c.name.value.clone())
                    .collect();
                if w.recursive && !list.is_empty() {
                    self.ctes.push((name.clone(), list.clone()));
                }
                let inner = Naming {
                    named: true,
                    view: false,
                    rename: (!list.is_empty()).then_some(list.as_slice()),
                };
                let pending = (w.recursive && list.is_empty()).then(|| name.clone());
                let depth = self.ctes.len();
                let names = self.cte_body(&mut cte.query, outer, inner, pending)?;
                self.ctes.truncate(depth);
                if !w.recursive || list.is_empty() {
                    let cols = if list.is_empty() { names } else { list };
                    self.ctes.push((name, cols));
                }
            }
        }
        let mut order = q.order_by.take();
        let names = match &mut *q.body {
            SetExpr::Select(s) => self.select(s, outer, naming, true, order.as_mut()),
            body => {
                let names = self.set_expr(body, outer, naming, true, None)?;
                if order.is_some() {
                    // ORDER BY of a union names its result's columns: kept as written.
                }
                Ok(names)
            }
        };
        q.order_by = order;
        names
    }

    /// A CTE's body; a recursive one without a column list is visible to its recursive parts
    /// with its first part's names.
    fn cte_body(
        &mut self,
        q: &mut ast::Query,
        outer: &[&Scope],
        naming: Naming,
        pending: Option<String>,
    ) -> DbResult<Vec<String>> {
        if q.with.is_some() || q.order_by.is_some() {
            return self.query_in(q, outer, naming);
        }
        self.set_expr(&mut q.body, outer, naming, true, pending.as_deref())
    }

    fn set_expr(
        &mut self,
        body: &mut SetExpr,
        outer: &[&Scope],
        naming: Naming,
        first: bool,
        pending: Option<&str>,
    ) -> DbResult<Vec<String>> {
        match body {
            SetExpr::Select(s) => self.select(s, outer, naming, first, None),
            SetExpr::Query(q) => self.query(q, outer, naming),
            SetExpr::SetOperation { left, right, .. } => {
                let names = self.set_expr(left, outer, naming, first, pending)?;
                if let Some(p) = pending {
                    if !self.ctes.iter().any(|(n, _)| n == p) {
                        self.ctes.push((p.to_string(), names.clone()));
                    }
                }
                let rest = Naming {
                    rename: None,
                    ..naming
                };
                self.set_expr(right, outer, rest, false, pending)?;
                Ok(names)
            }
            _ => Err(unknown("this query form")),
        }
    }
}

impl Resolver<'_> {
    /// One SELECT (with the enclosing query's ORDER BY when the query is this SELECT).
    fn select(
        &mut self,
        s: &mut ast::Select,
        outer: &[&Scope],
        naming: Naming,
        first: bool,
        order: Option<&mut ast::OrderBy>,
    ) -> DbResult<Vec<String>> {
        let mut scope = Scope::default();
        for t in &mut s.from {
            let shown = self.table_with_joins(t, outer, &mut scope)?;
            scope.star.extend(shown);
        }
        let mut items = Vec::new();
        let mut names = Vec::new();
        let mut auto = Vec::new();
        let mut explicit = Vec::new();
        for item in std::mem::take(&mut s.projection) {
            match item {
                ast::SelectItem::Wildcard(_) => {
                    for &(src, c) in &scope.star {
                        let (src, c) = (&scope.sources[src], &scope.sources[src].columns[c]);
                        items.push(column(&src.qual, c));
                        names.push(c.clone());
                        auto.push(false);
                        explicit.push(false);
                    }
                }
                ast::SelectItem::QualifiedWildcard(
                    ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) => {
                    let t = n
                        .to_string()
                        .rsplit('.')
                        .next()
                        .unwrap_or_default()
                        .replace('`', "");
                    let src = scope
                        .sources
                        .iter()
                        .find(|s| s.name.eq_ignore_ascii_case(&t))
                        .ok_or_else(|| unknown("t.*"))?;
                    for c in &src.columns {
                        items.push(column(&src.qual, c));
                        names.push(c.clone());
                        auto.push(false);
                        explicit.push(false);
                    }
                }
                ast::SelectItem::UnnamedExpr(mut e) => {
                    let field = matches!(e, E::Identifier(_) | E::CompoundIdentifier(_));
                    let name = super::item_name::item_name(self.cx, &e);
                    let name = if field {
                        name
                    } else {
                        name.trim_start().to_string()
                    };
                    self.expr(&mut e, outer, &scope)?;
                    items.push(e);
                    names.push(name);
                    auto.push(!field);
                    explicit.push(false);
                }
                ast::SelectItem::ExprWithAlias { mut expr, alias } => {
                    self.expr(&mut expr, outer, &scope)?;
                    items.push(expr);
                    names.push(alias.value);
                    auto.push(false);
                    explicit.push(true);
                }
                _ => return Err(unknown("this select item")),
            }
        }
        if let Some(list) = naming.rename {
            for (n, new) in names.iter_mut().zip(list) {
                *n = new.clone();
            }
        }
        if naming.view {
            valid_names(&mut names, &auto, first);
        }
        scope.aliases = names.iter().cloned().zip(items.iter().cloned()).collect();
        // A subquery of an expression keeps only the aliases written.
        s.projection = items
            .into_iter()
            .zip(&names)
            .zip(explicit)
            .map(|((expr, n), explicit)| match naming.named || explicit {
                true => ast::SelectItem::ExprWithAlias {
                    expr,
                    alias: ast::Ident::with_quote('`', n),
                },
                false => ast::SelectItem::UnnamedExpr(expr),
            })
            .collect();
        if let Some(w) = &mut s.selection {
            self.expr(w, outer, &scope)?;
        }
        if let ast::GroupByExpr::Expressions(g, _) = &mut s.group_by {
            for e in g {
                self.grouping(e, outer, &scope, false)?;
            }
        }
        if let Some(h) = &mut s.having {
            self.expr(h, outer, &scope)?;
        }
        if let Some(ob) = order {
            if let ast::OrderByKind::Expressions(items) = &mut ob.kind {
                for o in items {
                    self.grouping(&mut o.expr, outer, &scope, true)?;
                }
            }
        }
        if !s.named_window.is_empty() {
            return Err(unknown("WINDOW"));
        }
        Ok(names)
    }

    /// A GROUP BY or ORDER BY element: a select item's alias stands for its expression
    /// (ORDER BY looks at the aliases first, GROUP BY at the sources' columns first).
    fn grouping(
        &mut self,
        e: &mut ast::Expr,
        outer: &[&Scope],
        scope: &Scope,
        alias_first: bool,
    ) -> DbResult<()> {
        if let E::Identifier(i) = e {
            let alias = scope
                .aliases
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&i.value));
            let is_column = scope.sources.iter().any(|s| has(&s.columns, &i.value));
            if let Some((_, x)) = alias {
                if alias_first || !is_column {
                    *e = x.clone();
                    return Ok(());
                }
            }
        }
        self.expr(e, outer, scope)
    }

    /// One FROM item; the columns it shows (source, column) in `*`'s order.
    fn table_with_joins(
        &mut self,
        t: &mut ast::TableWithJoins,
        outer: &[&Scope],
        scope: &mut Scope,
    ) -> DbResult<Vec<(usize, usize)>> {
        let mut shown = self.factor(&mut t.relation, outer, scope)?;
        for j in &mut t.joins {
            let right = self.factor(&mut j.relation, outer, scope)?;
            let (c, left_join) = match &mut j.join_operator {
                ast::JoinOperator::Join(c)
                | ast::JoinOperator::Inner(c)
                | ast::JoinOperator::CrossJoin(c)
                | ast::JoinOperator::StraightJoin(c) => (c, false),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (c, true),
                _ => return Err(unknown("this join")),
            };
            let names = match c {
                ast::JoinConstraint::On(e) => {
                    self.expr(e, outer, scope)?;
                    None
                }
                ast::JoinConstraint::Using(cols) => Some(JoinNames::Using(cols)),
                ast::JoinConstraint::Natural => Some(JoinNames::Natural),
                ast::JoinConstraint::None => None,
            };
            let Some(names) = names else {
                shown.extend(right);
                continue;
            };
            let (on, joined) = join_by_names(scope, (&shown, &right), names)?;
            // MariaDB prints a NATURAL LEFT JOIN without common columns `on(1)`.
            let one = || E::Value(ast::Value::Number("1".into(), false).into());
            *c = match on {
                Some(on) => ast::JoinConstraint::On(on),
                None if left_join => ast::JoinConstraint::On(one()),
                None => ast::JoinConstraint::None,
            };
            shown = joined;
        }
        Ok(shown)
    }

    /// Adds the sources of table reference `f`; the columns it shows.
    fn factor(
        &mut self,
        f: &mut TableFactor,
        outer: &[&Scope],
        scope: &mut Scope,
    ) -> DbResult<Vec<(usize, usize)>> {
        let first = scope.sources.len();
        match f {
            TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                let parts: Vec<String> = name
                    .0
                    .iter()
                    .map(|p| {
                        p.as_ident()
                            .map(|i| i.value.clone())
                            .ok_or_else(|| unknown("a table"))
                    })
                    .collect::<DbResult<_>>()?;
                let alias = alias.as_ref().map(|a| a.name.value.clone());
                if parts.len() == 1 {
                    if let Some((_, cols)) = self.ctes.iter().rev().find(|(n, _)| *n == parts[0]) {
                        let n = alias.unwrap_or_else(|| parts[0].clone());
                        scope.sources.push(Source {
                            name: n.clone(),
                            qual: vec![n],
                            columns: cols.clone(),
                        });
                        return Ok(all_columns(scope, first));
                    }
                }
                let (db, t) = match parts.as_slice() {
                    [t] => (self.db.clone(), t.clone()),
                    [d, t] => (d.clone(), t.clone()),
                    _ => return Err(unknown("a table")),
                };
                let (columns, view) = self.table_columns(&db, &t)?;
                *name = ast::ObjectName::from(vec![
                    ast::Ident::with_quote('`', &db),
                    ast::Ident::with_quote('`', &t),
                ]);
                let qual = match (&alias, view) {
                    (Some(a), false) if self.alias_db => vec![db, a.clone()],
                    (Some(a), _) => vec![a.clone()],
                    (None, true) => vec![t.clone()],
                    (None, false) => vec![db, t.clone()],
                };
                scope.sources.push(Source {
                    name: alias.unwrap_or(t),
                    qual,
                    columns,
                });
            }
            TableFactor::Derived {
                subquery,
                alias: Some(a),
                lateral: false,
                ..
            } => {
                let naming = Naming {
                    named: true,
                    view: false,
                    rename: None,
                };
                let names = self.query(subquery, outer, naming)?;
                let columns = if a.columns.is_empty() {
                    names
                } else {
                    a.columns.iter().map(|c| c.name.value.clone()).collect()
                };
                scope.sources.push(Source {
                    name: a.name.value.clone(),
                    qual: vec![a.name.value.clone()],
                    columns,
                });
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => return self.table_with_joins(table_with_joins, outer, scope),
            _ => return Err(unknown("this table reference")),
        }
        Ok(all_columns(scope, first))
    }

    /// The columns of base table or view `db`.`t`, and whether it is a view.
    fn table_columns(&mut self, db: &str, t: &str) -> DbResult<(Vec<String>, bool)> {
        if let Some(def) = self.cx.engine.catalog.table(db, t) {
            return Ok((def.columns.iter().map(|c| c.name.clone()).collect(), false));
        }
        if let Some(v) = self.cx.engine.catalog.view(db, t) {
            let (_, cols) = super::view::plan_view(self.cx, &v)?;
            return Ok((cols.into_iter().map(|c| c.name).collect(), true));
        }
        Err(unknown("this table"))
    }
}

/// Every column of the sources from `first` on, as `*` shows them.
fn all_columns(scope: &Scope, first: usize) -> Vec<(usize, usize)> {
    let sources = scope.sources[first..].iter().enumerate();
    sources
        .flat_map(|(k, s)| (0..s.columns.len()).map(move |c| (first + k, c)))
        .collect()
}

fn has(columns: &[String], name: &str) -> bool {
    columns.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// The column `col` of a source qualified by `qual`.
fn column(qual: &[String], col: &str) -> ast::Expr {
    let mut ids: Vec<ast::Ident> = qual
        .iter()
        .map(|q| ast::Ident::with_quote('`', q))
        .collect();
    ids.push(ast::Ident::with_quote('`', col));
    E::CompoundIdentifier(ids)
}

/// A join operand's column: (source, column).
type ColumnAt = (usize, usize);
/// A join by names (plan/join_using.rs) of operands showing `first` and `second`: the ON of
/// its equalities (None when it joins no column) and the columns it shows.
fn join_by_names(
    scope: &Scope,
    (first, second): (&[ColumnAt], &[ColumnAt]),
    names: JoinNames,
) -> DbResult<(Option<ast::Expr>, Vec<ColumnAt>)> {
    let name = |&(s, c): &ColumnAt| scope.sources[s].columns[c].as_str();
    let col = |&(s, c): &ColumnAt| column(&scope.sources[s].qual, &scope.sources[s].columns[c]);
    let first_names: Vec<&str> = first.iter().map(name).collect();
    let second_names: Vec<&str> = second.iter().map(name).collect();
    let pairs = pair_columns(&first_names, &second_names, names)?;
    let on = equalities(
        pairs
            .iter()
            .map(|&(a, b)| (col(&first[a]), col(&second[b]))),
    );
    let shown = shown_columns(first, second, &pairs);
    Ok((on, shown))
}

impl Resolver<'_> {
    /// Qualifies the column names of `e`, innermost scope first (`scope`, then `outer` from
    /// the nearest); a name no source has is left as written (a select item's alias: in HAVING
    /// MariaDB prints it so).
    fn expr(&mut self, e: &mut ast::Expr, outer: &[&Scope], scope: &Scope) -> DbResult<()> {
        let mut scopes: Vec<&Scope> = outer.to_vec();
        scopes.push(scope);
        self.walk(e, &scopes)
    }

    fn walk(&mut self, e: &mut ast::Expr, scopes: &[&Scope]) -> DbResult<()> {
        match e {
            E::Identifier(_) | E::CompoundIdentifier(_) => {
                qualify(e, scopes);
                Ok(())
            }
            E::Subquery(q) | E::Exists { subquery: q, .. } => self.subquery(q, scopes),
            E::InSubquery { expr, subquery, .. } => {
                self.walk(expr, scopes)?;
                self.subquery(subquery, scopes)
            }
            E::Function(f) => {
                if f.filter.is_some() || !f.within_group.is_empty() {
                    return Err(unknown("this call"));
                }
                if let ast::FunctionArguments::List(l) = &mut f.args {
                    if !l.clauses.is_empty() {
                        return Err(unknown("this call"));
                    }
                    for a in &mut l.args {
                        match a {
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                                self.walk(x, scopes)?
                            }
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => {}
                            _ => return Err(unknown("this call")),
                        }
                    }
                }
                match &mut f.over {
                    None => Ok(()),
                    Some(ast::WindowType::WindowSpec(w)) => {
                        for x in &mut w.partition_by {
                            self.walk(x, scopes)?;
                        }
                        for o in &mut w.order_by {
                            self.walk(&mut o.expr, scopes)?;
                        }
                        Ok(())
                    }
                    Some(_) => Err(unknown("a named window")),
                }
            }
            other => {
                let kids = children(other).ok_or_else(|| unknown("this expression"))?;
                for k in kids {
                    self.walk(k, scopes)?;
                }
                Ok(())
            }
        }
    }

    /// A subquery of an expression: its items keep only the names written.
    fn subquery(&mut self, q: &mut ast::Query, scopes: &[&Scope]) -> DbResult<()> {
        let naming = Naming {
            named: false,
            view: false,
            rename: None,
        };
        self.query(q, scopes, naming).map(|_| ())
    }
}

/// `x`, a column name, qualified by the first scope (innermost first) whose source has it.
fn qualify(x: &mut ast::Expr, scopes: &[&Scope]) {
    match x {
        E::Identifier(i) if i.quote_style.is_some() || !i.value.starts_with('@') => {
            for scope in scopes.iter().rev() {
                if let Some(s) = scope.sources.iter().find(|s| has(&s.columns, &i.value)) {
                    *x = column(&s.qual, &i.value);
                    return;
                }
            }
        }
        E::CompoundIdentifier(ids) if ids.len() == 2 => {
            for scope in scopes.iter().rev() {
                if let Some(s) = scope
                    .sources
                    .iter()
                    .find(|s| s.name == ids[0].value && has(&s.columns, &ids[1].value))
                {
                    *x = column(&s.qual, &ids[1].value);
                    return;
                }
            }
        }
        _ => {}
    }
}
