//! CHECK constraints ([`CheckDef`]): read from CREATE TABLE (a column's `CHECK (e)` is named
//! after the column, an unnamed table constraint `CONSTRAINT_<n>` as MariaDB names them),
//! shown again by SHOW CREATE TABLE (so they are stored with the table's text), and compiled
//! once against the table's columns for the writers that enforce them (exec/dml/checks.rs).
//!
//! Invariants: a constraint's expression compiles against the table (an unknown column is 1054
//! at CREATE / ALTER time); it is compiled without a session (no variables, no subqueries, no
//! time zone: TIMESTAMPs compare as stored); `NOT ENFORCED` constraints (MySQL) are kept and
//! never checked.

use std::sync::{Arc, OnceLock};

use sqlparser::ast;

use crate::error::db_error::{DbError, DbResult};
use crate::expr::{Expr, Scope};

/// One CHECK constraint of a table.
#[derive(Clone, Debug)]
pub struct CheckDef {
    pub name: String,
    /// The column a column-level constraint is written on (shown on that column's line).
    pub column: Option<String>,
    /// The expression as SHOW CREATE TABLE prints it (identifiers in backquotes).
    pub text: String,
    pub enforced: bool,
    /// The compiled expression, made on first use.
    compiled: Arc<OnceLock<Expr>>,
}

impl CheckDef {
    pub fn new(name: &str, column: Option<&str>, expr: &ast::Expr, enforced: bool) -> CheckDef {
        let mut e = expr.clone();
        quote_identifiers(&mut e);
        CheckDef {
            name: name.to_string(),
            column: column.map(str::to_string),
            text: e.to_string(),
            enforced,
            compiled: Arc::default(),
        }
    }

    /// The same constraint not yet compiled (for another table's columns).
    pub fn uncompiled(&self) -> CheckDef {
        CheckDef {
            compiled: Arc::default(),
            ..self.clone()
        }
    }

    /// The expression compiled against the table's columns (`scope` makes them), compiled once.
    pub fn expr(&self, scope: impl FnOnce() -> Scope) -> DbResult<&Expr> {
        if let Some(e) = self.compiled.get() {
            return Ok(e);
        }
        let e = compile(&self.text, &scope())?;
        Ok(self.compiled.get_or_init(|| e))
    }
}

/// True if a constraint's text is `json_valid(`name`)` (the constraint that makes a column JSON).
pub fn is_json_valid_of(text: &str, name: &str) -> bool {
    let want = format!("json_valid(`{}`)", name.replace('`', "``"));
    text.eq_ignore_ascii_case(&want)
}

/// The CHECK constraints of a CREATE TABLE, in MariaDB's order: columns' first, then the table's.
pub fn checks_of(ct: &ast::CreateTable) -> Vec<CheckDef> {
    let mut out = Vec::new();
    for cd in &ct.columns {
        for o in &cd.options {
            if let ast::ColumnOption::Check(c) = &o.option {
                let enforced = c.enforced != Some(false);
                out.push(CheckDef::new(
                    &cd.name.value,
                    Some(&cd.name.value),
                    &c.expr,
                    enforced,
                ));
            }
        }
    }
    let mut unnamed = 0;
    for tc in &ct.constraints {
        if let ast::TableConstraint::Check(c) = tc {
            let name = match &c.name {
                Some(n) => n.value.clone(),
                None => {
                    unnamed += 1;
                    format!("CONSTRAINT_{unnamed}")
                }
            };
            out.push(CheckDef::new(
                &name,
                None,
                &c.expr,
                c.enforced != Some(false),
            ));
        }
    }
    out
}

/// Compiles a constraint's text against the table's columns, without a session.
fn compile(text: &str, scope: &Scope) -> DbResult<Expr> {
    let mut parser = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
        .try_with_sql(text)
        .map_err(|e| DbError::syntax(e.to_string()))?;
    let ast = parser
        .parse_expr()
        .map_err(|e| DbError::syntax(e.to_string()))?;
    crate::expr::compile_standalone(scope, &ast, "CHECK")
}

/// Puts the identifiers of `e` in backquotes, as MariaDB prints a constraint.
pub(crate) fn quote_identifiers(e: &mut ast::Expr) {
    use ast::Expr as E;
    let q = |i: &mut ast::Ident| i.quote_style = Some('`');
    match e {
        E::Identifier(i) => q(i),
        E::CompoundIdentifier(ids) => ids.iter_mut().for_each(q),
        E::BinaryOp { left, right, .. } => {
            quote_identifiers(left);
            quote_identifiers(right);
        }
        E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsFalse(expr)
        | E::Cast { expr, .. } => quote_identifiers(expr),
        E::Between {
            expr, low, high, ..
        } => {
            quote_identifiers(expr);
            quote_identifiers(low);
            quote_identifiers(high);
        }
        E::InList { expr, list, .. } => {
            quote_identifiers(expr);
            list.iter_mut().for_each(quote_identifiers);
        }
        E::Like { expr, pattern, .. } => {
            quote_identifiers(expr);
            quote_identifiers(pattern);
        }
        E::Function(f) => {
            if let ast::FunctionArguments::List(l) = &mut f.args {
                for a in &mut l.args {
                    if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) = a {
                        quote_identifiers(x);
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_are_named_and_shown_as_mariadb() {
        let sql = "CREATE TABLE t (a INT CHECK (a > 0), b INT, CHECK (b < a), \
                   CONSTRAINT named CHECK (b <> 5), CHECK (length(c) IN (1, 2)))";
        let Some(ast::Statement::CreateTable(ct)) = crate::parser::parse(sql).unwrap().pop() else {
            panic!()
        };
        let got: Vec<(String, Option<String>, String)> = checks_of(&ct)
            .into_iter()
            .map(|c| (c.name, c.column, c.text))
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            got,
            vec![
                (s("a"), Some(s("a")), s("`a` > 0")),
                (s("CONSTRAINT_1"), None, s("`b` < `a`")),
                (s("named"), None, s("`b` <> 5")),
                (s("CONSTRAINT_2"), None, s("length(`c`) IN (1, 2)")),
            ]
        );
    }
}
