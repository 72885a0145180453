//! The SQL front end: statement text to statements.

pub mod fast_insert;
pub mod index_syntax;
pub mod split;
pub mod tokens;
pub mod versioned;

use sqlparser::ast::Statement;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use crate::error::db_error::{DbError, DbResult};

pub fn parse(sql: &str) -> DbResult<Vec<Statement>> {
    match Parser::parse_sql(&MySqlDialect {}, sql) {
        Ok(s) => Ok(s),
        // sqlparser rejects some MariaDB syntax: an index type before the column list or an index's
        // KEY_BLOCK_SIZE (index_syntax.rs), `REAL(M,D)` / `DOUBLE PRECISION(M,D)` (synonyms of
        // `DOUBLE(M,D)`), ZEROFILL and `NUMERIC UNSIGNED`; retry with them rewritten.
        Err(e) => {
            let alt = index_syntax::rewrite(sql);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = tokens::with_double_for_real_digits(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = tokens::with_numeric_modifiers_as_types(cur).or(alt);
            match alt {
                Some(alt) => Parser::parse_sql(&MySqlDialect {}, &alt)
                    .map_err(|_| DbError::parse_error(sql, e)),
                None => Err(DbError::parse_error(sql, e)),
            }
        }
    }
}
