//! The JSON column type as MariaDB 10.11 has it: an alias of LONGTEXT, in utf8mb4_bin unless
//! the column names a collation, with a column CHECK `json_valid(col)` unless the column
//! writes a CHECK of its own. SHOW CREATE TABLE and information_schema then show the
//! LONGTEXT column and its constraint, as MariaDB's do; inserting text that is not JSON fails
//! the constraint (4025).
//!
//! Invariant: a CREATE TABLE without a JSON column is passed on untouched (borrowed).

use std::borrow::Cow;

use sqlparser::ast::{self, ColumnOption, ColumnOptionDef, CreateTable, DataType};

use crate::error::db_error::{DbError, DbResult};

/// `ct` with each JSON column written as MariaDB stores it.
pub(super) fn json_as_longtext(ct: &CreateTable) -> DbResult<Cow<'_, CreateTable>> {
    if !ct.columns.iter().any(|c| c.data_type == DataType::JSON) {
        return Ok(Cow::Borrowed(ct));
    }
    let mut ct = ct.clone();
    for cd in ct
        .columns
        .iter_mut()
        .filter(|c| c.data_type == DataType::JSON)
    {
        cd.data_type = DataType::LongText;
        let has = |f: fn(&ColumnOption) -> bool| cd.options.iter().any(|o| f(&o.option));
        let collated = has(|o| matches!(o, ColumnOption::Collation(_)));
        let checked = has(|o| matches!(o, ColumnOption::Check(_)));
        if !collated {
            let bin = ast::ObjectName::from(vec![ast::Ident::new("utf8mb4_bin")]);
            cd.options.insert(
                0,
                ColumnOptionDef {
                    name: None,
                    option: ColumnOption::Collation(bin),
                },
            );
        }
        if !checked {
            let expr = json_valid_call(&cd.name.value)?;
            cd.options.push(ColumnOptionDef {
                name: None,
                option: ColumnOption::Check(ast::CheckConstraint {
                    name: None,
                    expr: Box::new(expr),
                    no_inherit: false,
                    enforced: None,
                }),
            });
        }
    }
    Ok(Cow::Owned(ct))
}

/// `json_valid(`name`)`.
fn json_valid_call(name: &str) -> DbResult<ast::Expr> {
    let text = format!("json_valid(`{}`)", name.replace('`', "``"));
    sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| DbError::syntax(e.to_string()))
}
