//! SHOW CREATE VIEW's short form of a stored view SELECT (design.md VIEW1): MariaDB leaves the
//! database out of `db`.`t` and `db`.`t`.`col` when the current database is the view's and
//! every table the SELECT names is in it; VIEW_DEFINITION keeps the full stored form.
//!
//! Invariant: the short form is printed from the stored text re-parsed, never stored.

use sqlparser::ast::{self, Expr as E, SetExpr, TableFactor};

use super::expr_children::children;
use crate::catalog::expr_print::Style;

/// The SELECT SHOW CREATE VIEW shows for `view` with `current_db` the session's database:
/// the stored text printed again, without the view's database in names when that is the
/// current one and every table the SELECT names is in it (MariaDB's compact form).
pub fn shown_body(view: &crate::catalog::ViewDef, current_db: Option<&str>) -> String {
    let Ok(q) = crate::parser::views::parse_select(&view.select) else {
        return view.select.clone();
    };
    let compact = current_db == Some(view.db.as_str()) && only_tables_of(&q, &view.db);
    let style = Style {
        omit_db: compact.then(|| view.db.clone()),
        resolved: true,
        select_numbers: None,
    };
    crate::catalog::query_print::query_text(&q, &style)
}

/// Whether every table `q` names with a database is in `db`.
fn only_tables_of(q: &ast::Query, db: &str) -> bool {
    let mut q = q.clone();
    let mut dbs = Vec::new();
    table_dbs(&mut q, &mut dbs);
    dbs.iter().all(|d| d == db)
}

/// The databases of the tables `q` names with one (anywhere: CTEs, derived tables, subqueries).
fn table_dbs(q: &mut ast::Query, out: &mut Vec<String>) {
    if let Some(w) = &mut q.with {
        for c in &mut w.cte_tables {
            table_dbs(&mut c.query, out);
        }
    }
    set_dbs(&mut q.body, out);
}

fn set_dbs(body: &mut SetExpr, out: &mut Vec<String>) {
    match body {
        SetExpr::Select(s) => {
            for t in &mut s.from {
                factor_dbs(&mut t.relation, out);
                for j in &mut t.joins {
                    factor_dbs(&mut j.relation, out);
                    if let ast::JoinOperator::Join(ast::JoinConstraint::On(e))
                    | ast::JoinOperator::Inner(ast::JoinConstraint::On(e))
                    | ast::JoinOperator::Left(ast::JoinConstraint::On(e))
                    | ast::JoinOperator::LeftOuter(ast::JoinConstraint::On(e)) =
                        &mut j.join_operator
                    {
                        expr_dbs(e, out);
                    }
                }
            }
            for item in &mut s.projection {
                if let ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } = item
                {
                    expr_dbs(e, out);
                }
            }
            for e in s.selection.iter_mut().chain(s.having.iter_mut()) {
                expr_dbs(e, out);
            }
        }
        SetExpr::Query(q) => table_dbs(q, out),
        SetExpr::SetOperation { left, right, .. } => {
            set_dbs(left, out);
            set_dbs(right, out);
        }
        _ => {}
    }
}

fn factor_dbs(f: &mut TableFactor, out: &mut Vec<String>) {
    match f {
        TableFactor::Table { name, .. } if name.0.len() == 2 => {
            if let Some(i) = name.0[0].as_ident() {
                out.push(i.value.clone());
            }
        }
        TableFactor::Derived { subquery, .. } => table_dbs(subquery, out),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            factor_dbs(&mut table_with_joins.relation, out);
            for j in &mut table_with_joins.joins {
                factor_dbs(&mut j.relation, out);
            }
        }
        _ => {}
    }
}

fn expr_dbs(e: &mut ast::Expr, out: &mut Vec<String>) {
    match e {
        E::Subquery(q) | E::Exists { subquery: q, .. } => table_dbs(q, out),
        E::InSubquery { expr, subquery, .. } => {
            expr_dbs(expr, out);
            table_dbs(subquery, out);
        }
        E::Function(f) => {
            if let ast::FunctionArguments::List(l) = &mut f.args {
                for a in &mut l.args {
                    if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) = a {
                        expr_dbs(x, out);
                    }
                }
            }
        }
        other => {
            for k in children(other).unwrap_or_default() {
                expr_dbs(k, out);
            }
        }
    }
}
