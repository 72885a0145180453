//! `DO expr [, expr ...]`: expressions evaluated for their effects (SLEEP, GET_LOCK, user
//! variable assignments), their values discarded.
//!
//! The expressions are read by sqlparser as the select list of `SELECT <expressions>`; the
//! statement is refused (1064) unless that select list is all there is: no alias, no `*`, no
//! FROM, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, INTO or DISTINCT, none of which MariaDB's
//! `DO expr_list` accepts.

use sqlparser::ast::{self, GroupByExpr, SelectItem, SetExpr};

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::parser::tokens::Cursor;

/// Parses `DO ...` (the text starts with the keyword DO).
pub fn parse(sql: &str) -> DbResult<Statement> {
    let mut c = Cursor::new(sql);
    c.pos += 1;
    let rest = c.rest();
    if rest.trim().is_empty() {
        return Err(DbError::syntax(rest));
    }
    let query = match super::sql_statement(&format!("SELECT {rest}"))? {
        Statement::Sql(s) => match *s {
            ast::Statement::Query(q) if is_expression_list(&q) => q,
            _ => return Err(DbError::syntax(rest)),
        },
        _ => return Err(DbError::syntax(rest)),
    };
    Ok(Statement::Do(query))
}

/// The query is `SELECT e1, e2, ...` and nothing more.
fn is_expression_list(q: &ast::Query) -> bool {
    let SetExpr::Select(s) = &*q.body else {
        return false;
    };
    let no_group =
        matches!(&s.group_by, GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty());
    q.with.is_none()
        && q.order_by.is_none()
        && q.limit_clause.is_none()
        && q.locks.is_empty()
        && s.from.is_empty()
        && s.selection.is_none()
        && s.having.is_none()
        && s.distinct.is_none()
        && s.into.is_none()
        && no_group
        && s.projection
            .iter()
            .all(|p| matches!(p, SelectItem::UnnamedExpr(_)))
}
