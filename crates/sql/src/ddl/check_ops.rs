//! ALTER TABLE's CHECK constraint operations: ADD [CONSTRAINT [name]] CHECK (e) and DROP
//! CONSTRAINT / CHECK name, applied to the new definition.
//!
//! Invariants: constraint names are unique in a table (1826, case-insensitive); an unnamed
//! constraint takes the first free `CONSTRAINT_<n>`; a new constraint compiles against the new
//! columns and makes the ALTER rebuild the table, so every existing row is checked (4025 stops
//! it); DROP of a name no CHECK has drops nothing (it may be a foreign key's, which Betula does
//! not keep).

use sqlparser::ast;

use crate::catalog::{CheckDef, TableDef};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// Applies the dropped then the added constraints to `new`.
pub fn apply(
    new: &mut TableDef,
    added: &[(Option<String>, String)],
    dropped: &[(String, bool)],
) -> DbResult<()> {
    for (name, _) in dropped {
        new.checks.retain(|c| !c.name.eq_ignore_ascii_case(name));
    }
    for (name, text) in added {
        let expr = parse_expr(text)?;
        let name = match name {
            Some(n) => n.clone(),
            None => (1..)
                .map(|n| format!("CONSTRAINT_{n}"))
                .find(|n| !new.checks.iter().any(|c| c.name.eq_ignore_ascii_case(n)))
                .unwrap_or_default(),
        };
        if new
            .checks
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&name))
        {
            return Err(DbError::new(
                ErrorCode::DupConstraintName,
                format!("Duplicate CHECK constraint name '{name}'"),
            ));
        }
        let check = CheckDef::new(&name, None, &expr, true);
        check.expr(|| new.scope(&new.name))?;
        new.checks.push(check);
    }
    Ok(())
}

/// The CHECK constraints of columns added or redefined (ADD / CHANGE / MODIFY COLUMN): a
/// redefined column's old constraints go, the new definition's come (each compiled against the
/// new columns).
pub fn apply_column_checks(
    new: &mut TableDef,
    columns: &[(Option<String>, Vec<CheckDef>)],
) -> DbResult<()> {
    for (old_name, checks) in columns {
        if let Some(old_name) = old_name {
            new.checks.retain(|c| {
                !c.column
                    .as_deref()
                    .is_some_and(|col| col.eq_ignore_ascii_case(old_name))
            });
        }
        for c in checks {
            let c = c.uncompiled();
            new.checks.retain(|o| !o.name.eq_ignore_ascii_case(&c.name));
            c.expr(|| new.scope(&new.name))?;
            new.checks.push(c);
        }
    }
    Ok(())
}

/// Whether `new` has a constraint `old` did not (by name and text).
pub fn adds_checks(old: &TableDef, new: &TableDef) -> bool {
    new.checks.iter().any(|c| {
        !old.checks
            .iter()
            .any(|o| o.name == c.name && o.text == c.text)
    })
}

fn parse_expr(text: &str) -> DbResult<ast::Expr> {
    sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map(|e| match e {
            ast::Expr::Nested(inner) => *inner,
            e => e,
        })
        .map_err(|_| DbError::syntax(text))
}
