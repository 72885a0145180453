//! Which elements of a WITH RECURSIVE clause are recursive, and whether MariaDB accepts their
//! recursion (its `With_clause::check_dependencies` and `check_anchors`). An element depends on
//! the elements of the clause its query names as tables (in FROM, derived tables, subqueries,
//! nested WITH clauses); it is recursive when it depends on itself through them, and mutually
//! recursive with the recursive elements it depends on that depend on it.
//!
//! Invariants:
//! 1. an anchor of an element is a branch of its top UNION naming none of the elements mutually
//!    recursive with it; a group of mutually recursive elements without any anchor is 4005 (named
//!    by its first element without one);
//! 2. for an element with an anchor, the other elements of its group must not depend on
//!    themselves through the group without it, or the recursion is 4006 (named by it);
//! 3. the checks run in the clause's order, as MariaDB's do, so the first error is its.

use sqlparser::ast::{self, Expr as E};

use super::expr_children::children;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;

/// One element of the clause as the analysis sees it.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Element {
    /// It depends on itself.
    pub recursive: bool,
    /// Its group of mutually recursive elements has another element.
    pub mutual: bool,
}

/// The elements of `with` (a WITH RECURSIVE clause), in order; 4005 / 4006 as invariants 1-2 say.
pub fn analyse(with: &ast::With) -> DbResult<Vec<Element>> {
    let names: Vec<String> = with
        .cte_tables
        .iter()
        .map(|c| c.alias.name.value.clone())
        .collect();
    // at most 64 (cte.rs refuses more, 4003): one bit per element below
    let n = names.len();
    // Per element: the dependencies of each branch of its top UNION.
    let branches: Vec<Vec<u64>> = with
        .cte_tables
        .iter()
        .map(|c| {
            let mut out = Vec::new();
            top_branches(&c.query.body, &mut |b| out.push(set_deps(b, &names)));
            out
        })
        .collect();
    let base: Vec<u64> = branches
        .iter()
        .map(|b| b.iter().fold(0, |a, d| a | d))
        .collect();
    let mut derived = base.clone();
    for w in 0..n {
        for e in 0..n {
            if derived[e] & bit(w) != 0 {
                derived[e] |= derived[w];
            }
        }
    }
    let recursive: Vec<bool> = (0..n).map(|e| derived[e] & bit(e) != 0).collect();
    let group: Vec<u64> = (0..n)
        .map(|w| {
            (0..n)
                .filter(|&e| {
                    recursive[w]
                        && recursive[e]
                        && (e == w || (derived[e] & bit(w) != 0 && derived[w] & bit(e) != 0))
                })
                .fold(0, |a, e| a | bit(e))
        })
        .collect();
    let anchored: Vec<bool> = (0..n)
        .map(|e| branches[e].iter().any(|d| d & group[e] == 0))
        .collect();
    for w in (0..n).filter(|&w| recursive[w]) {
        let others: Vec<usize> = (0..n)
            .filter(|&e| e != w && group[w] & bit(e) != 0)
            .collect();
        if !anchored[w] {
            if !others.iter().any(|&e| anchored[e]) {
                return Err(DbError::new(
                    ErrorCode::RecursiveWithoutAnchors,
                    format!("No anchors for recursive WITH element '{}'", names[w]),
                ));
            }
            continue;
        }
        // Without `w`, the rest of its group must not be recursive any more.
        let mut work: Vec<u64> = (0..n).map(|e| base[e] & group[w] & !bit(w)).collect();
        for &e in &others {
            for &el in &others {
                if work[el] & bit(e) != 0 {
                    work[el] |= work[e];
                }
            }
        }
        if others.iter().any(|&e| work[e] & bit(e) != 0) {
            return Err(DbError::new(
                ErrorCode::UnacceptableMutualRecursion,
                format!(
                    "Unacceptable mutual recursion with anchored table '{}'",
                    names[w]
                ),
            ));
        }
    }
    Ok((0..n)
        .map(|e| Element {
            recursive: recursive[e],
            mutual: group[e].count_ones() > 1,
        })
        .collect())
}

fn bit(i: usize) -> u64 {
    1u64 << i
}

/// The branches of the top UNION of `body`.
fn top_branches<'a>(body: &'a ast::SetExpr, f: &mut dyn FnMut(&'a ast::SetExpr)) {
    match body {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            left,
            right,
            ..
        } => {
            top_branches(left, f);
            top_branches(right, f);
        }
        other => f(other),
    }
}

/// The elements (bits of `names`) `q` names as tables.
fn query_deps(q: &ast::Query, names: &[String]) -> u64 {
    let inner = q.with.as_ref().map_or(0, |w| {
        w.cte_tables
            .iter()
            .fold(0, |a, c| a | query_deps(&c.query, names))
    });
    inner | set_deps(&q.body, names)
}

fn set_deps(e: &ast::SetExpr, names: &[String]) -> u64 {
    match e {
        ast::SetExpr::Select(s) => {
            let mut deps = s.from.iter().fold(0, |a, t| a | twj_deps(t, names));
            let mut exprs: Vec<ast::Expr> = s
                .projection
                .iter()
                .filter_map(|i| match i {
                    ast::SelectItem::UnnamedExpr(e)
                    | ast::SelectItem::ExprWithAlias { expr: e, .. } => Some(e.clone()),
                    _ => None,
                })
                .collect();
            exprs.extend(s.selection.iter().cloned());
            exprs.extend(s.having.iter().cloned());
            for t in &s.from {
                for j in &t.joins {
                    if let Some(ast::JoinConstraint::On(e)) = constraint(&j.join_operator) {
                        exprs.push(e.clone());
                    }
                }
            }
            for e in &mut exprs {
                deps |= expr_deps(e, names);
            }
            deps
        }
        ast::SetExpr::Query(q) => query_deps(q, names),
        ast::SetExpr::SetOperation { left, right, .. } => {
            set_deps(left, names) | set_deps(right, names)
        }
        _ => 0,
    }
}

fn constraint(op: &ast::JoinOperator) -> Option<&ast::JoinConstraint> {
    use ast::JoinOperator as J;
    match op {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c) => Some(c),
        _ => None,
    }
}

fn twj_deps(t: &ast::TableWithJoins, names: &[String]) -> u64 {
    t.joins
        .iter()
        .fold(factor_deps(&t.relation, names), |a, j| {
            a | factor_deps(&j.relation, names)
        })
}

fn factor_deps(f: &ast::TableFactor, names: &[String]) -> u64 {
    match f {
        ast::TableFactor::Table { name, .. } => {
            let parts = object_name_parts(name);
            match parts.as_slice() {
                [one] => names
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(one))
                    .map_or(0, bit),
                _ => 0,
            }
        }
        ast::TableFactor::Derived { subquery, .. } => query_deps(subquery, names),
        ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } => twj_deps(table_with_joins, names),
        _ => 0,
    }
}

/// The elements the subqueries of `e` name.
fn expr_deps(e: &mut ast::Expr, names: &[String]) -> u64 {
    match e {
        E::Subquery(q) | E::Exists { subquery: q, .. } => query_deps(q, names),
        E::InSubquery { expr, subquery, .. } => {
            expr_deps(expr, names) | query_deps(subquery, names)
        }
        E::Function(f) => match &mut f.args {
            ast::FunctionArguments::List(l) => l
                .args
                .iter_mut()
                .filter_map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Some(x),
                    _ => None,
                })
                .fold(0, |acc, x| acc | expr_deps(x, names)),
            ast::FunctionArguments::Subquery(q) => query_deps(q, names),
            ast::FunctionArguments::None => 0,
        },
        other => children(other).map_or(0, |kids| {
            kids.into_iter().fold(0, |a, k| a | expr_deps(k, names))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_of(sql: &str) -> ast::With {
        let stmts =
            sqlparser::parser::Parser::parse_sql(crate::expr::dialect::dialect(), sql).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else {
            panic!("not a query")
        };
        q.with.clone().unwrap()
    }

    fn message(sql: &str) -> String {
        analyse(&with_of(sql)).unwrap_err().message
    }

    #[test]
    fn a_forward_reference_is_not_recursion() {
        let w = with_of("WITH RECURSIVE s(a) AS (SELECT t.a + 10 FROM t), t(a) AS (SELECT a FROM t1) SELECT * FROM s");
        assert_eq!(analyse(&w).unwrap(), vec![Element::default(); 2]);
    }

    #[test]
    fn direct_recursion_needs_an_anchor() {
        let w = with_of(
            "WITH RECURSIVE r AS (SELECT 1 UNION SELECT a + 1 FROM r WHERE a < 3) SELECT * FROM r",
        );
        let e = analyse(&w).unwrap();
        assert!(e[0].recursive && !e[0].mutual);
        assert_eq!(
            message("WITH RECURSIVE r AS (SELECT a FROM r UNION SELECT a FROM r) SELECT * FROM r"),
            "No anchors for recursive WITH element 'r'"
        );
    }

    #[test]
    fn mutual_recursion_through_an_unanchored_element_is_refused() {
        // MariaDB's cte_recursive: r's only way back to itself is through t, the anchored one,
        // except r's own self reference.
        let sql = "WITH RECURSIVE t AS (SELECT * FROM t1 WHERE t1.b >= 'c' UNION SELECT * FROM r),
                   r AS (SELECT * FROM t UNION SELECT t1.* FROM t1, r WHERE r.a + 1 = t1.a)
                   SELECT * FROM r";
        assert_eq!(
            message(sql),
            "Unacceptable mutual recursion with anchored table 't'"
        );
        let ok = "WITH RECURSIVE a AS (SELECT 1 x UNION SELECT x FROM b WHERE x < 3),
                  b AS (SELECT x + 1 x FROM a) SELECT * FROM a";
        let e = analyse(&with_of(ok)).unwrap();
        assert!(e.iter().all(|e| e.recursive && e.mutual));
    }

    #[test]
    fn a_reference_in_a_subquery_counts() {
        let w = with_of(
            "WITH RECURSIVE r AS (SELECT 1 a UNION SELECT a + 1 FROM t1 WHERE a IN (SELECT a FROM r)) SELECT * FROM r",
        );
        assert!(analyse(&w).unwrap()[0].recursive);
    }
}
