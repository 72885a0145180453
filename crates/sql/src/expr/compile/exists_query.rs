//! The query of an EXISTS as MariaDB reads it (`setup_wild`, and a union's ORDER BY left out
//! of a subquery whose rows are only counted): only whether it has a row matters, so
//!
//! * a `*` or `t.*` select item of each SELECT of its UNION is the constant 1 (`EXISTS (SELECT
//!   * UNION SELECT * FROM t)` is accepted, no 1096 for the first SELECT without tables);
//! * the ORDER BY of a UNION is not read (MariaDB does not resolve it: an unknown name or
//!   window there is no error); an ORDER BY of a single SELECT is kept and resolved.
//!
//! Invariant: the rewritten query has a row exactly when MariaDB's reading of the written one
//! has: the rewrite changes the values of the rows, never whether one exists (DISTINCT over a
//! `*` is the only place where their number changes, as in MariaDB).

use std::borrow::Cow;

use sqlparser::ast::{self, SetExpr};

/// `q`, the query of an EXISTS, as MariaDB reads it (the module doc).
pub(super) fn exists_query(q: &ast::Query) -> Cow<'_, ast::Query> {
    let union = matches!(&*q.body, SetExpr::SetOperation { .. });
    let order_dropped = union && q.order_by.is_some();
    if !order_dropped && !has_wildcard(&q.body) {
        return Cow::Borrowed(q);
    }
    let mut q = q.clone();
    if union {
        q.order_by = None;
    }
    constant_wildcards(&mut q.body);
    Cow::Owned(q)
}

fn has_wildcard(body: &SetExpr) -> bool {
    match body {
        SetExpr::Select(s) => s.projection.iter().any(is_wildcard),
        SetExpr::SetOperation { left, right, .. } => has_wildcard(left) || has_wildcard(right),
        _ => false,
    }
}

fn is_wildcard(item: &ast::SelectItem) -> bool {
    matches!(
        item,
        ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..)
    )
}

/// Each `*` / `t.*` item of the SELECTs of `body`'s UNION becomes 1.
fn constant_wildcards(body: &mut SetExpr) {
    match body {
        SetExpr::Select(s) => {
            for item in &mut s.projection {
                if is_wildcard(item) {
                    *item = ast::SelectItem::UnnamedExpr(ast::Expr::value(ast::Value::Number(
                        "1".to_string(),
                        false,
                    )));
                }
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            constant_wildcards(left);
            constant_wildcards(right);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let stmts =
            sqlparser::parser::Parser::parse_sql(crate::expr::dialect::dialect(), sql).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else {
            panic!("not a query: {sql}")
        };
        exists_query(q).to_string()
    }

    #[test]
    fn wildcards_are_constants_and_a_unions_order_is_dropped() {
        assert_eq!(
            rewritten("SELECT * UNION SELECT t.* FROM t ORDER BY c = ROW_NUMBER() OVER w"),
            "SELECT 1 UNION SELECT 1 FROM t"
        );
        // A single SELECT keeps its ORDER BY (MariaDB resolves it).
        assert_eq!(
            rewritten("SELECT * FROM t ORDER BY c"),
            "SELECT 1 FROM t ORDER BY c"
        );
        assert_eq!(rewritten("SELECT a FROM t"), "SELECT a FROM t");
    }
}
