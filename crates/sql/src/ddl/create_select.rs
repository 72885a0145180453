//! `CREATE TABLE ... [AS] SELECT`: a new table whose columns come from a query, filled with its rows.
//!
//! Owns: deriving column definitions from a result set ([`derived_column`]) and running the statement
//! ([`create_table_as`]).
//!
//! Rules (MySQL's): columns defined in the CREATE part come first; each select column whose name
//! matches none of them is appended, typed as its source column when it has one (NOT NULL kept),
//! otherwise from the values it holds (integers → BIGINT, floating point → DOUBLE, decimals →
//! DECIMAL(p,s), text → VARCHAR(n) or TEXT in the result column's collation (for text built
//! of literals, `collation_connection`), binary → VARBINARY(n) or BLOB, temporals as they are,
//! only NULLs → BINARY(0)), except integer literals, typed as MariaDB types them (`SELECT 1` →
//! `int(1) NOT NULL`, `SELECT 1 UNION SELECT 2` → `int(2) NOT NULL DEFAULT 0`); the rows are
//! then inserted by name. Invariant: the statement is all or
//! nothing — if filling the table fails, the new table is dropped again.

use sqlparser::ast;

use crate::catalog::partition::TableExtras;
use crate::context::Context;
use crate::ddl::tables::{create_table, drop_table_named};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::dml;
use crate::exec::dml::{InsertSource, InsertSpec, Slot};
use crate::expr::object_name_parts;
use crate::parser::parse;
use crate::result::{OutCol, Output};
use crate::types::column_flag;
use crate::types::value::Value;

/// Runs `CREATE TABLE ... SELECT` (`ct.query` is set).
pub fn create_table_as(
    cx: &mut Context,
    ct: &ast::CreateTable,
    extras: &TableExtras,
    q: &ast::Query,
) -> DbResult<Output> {
    let _div_zero = cx.storing_values(false);
    let (cols, rows) = match crate::exec::query::run_query(cx, q)? {
        Output::Rows { cols, rows } => (cols, rows),
        _ => {
            return Err(DbError::internal(
                "CREATE TABLE ... SELECT: the query returned no rows",
            ))
        }
    };
    let mut def = ct.clone();
    def.query = None;
    let literal = literal_int_types(&q.body);
    for (i, c) in cols.iter().enumerate() {
        let defined = def
            .columns
            .iter()
            .any(|d| d.name.value.eq_ignore_ascii_case(&c.name));
        if !defined {
            let lit = literal.as_ref().and_then(|l| l.get(i).cloned().flatten());
            def.columns
                .push(derived_column(c, rows.iter().map(|r| &r[i]), lit)?);
        }
    }
    // Two select items with one name would make two columns with one name: 1060, as in MySQL.
    for (i, a) in def.columns.iter().enumerate() {
        if def.columns[..i]
            .iter()
            .any(|b| b.name.value.eq_ignore_ascii_case(&a.name.value))
        {
            return Err(DbError::new(
                ErrorCode::DupFieldname,
                format!("Duplicate column name '{}'", a.name.value),
            ));
        }
    }
    let existed = {
        let (db, name) = cx.resolve_table_name(&object_name_parts(&ct.name))?;
        if ct.temporary {
            cx.temp.get(&db, &name).is_some()
        } else {
            cx.engine.catalog.name_taken(&db, &name)
        }
    };
    create_table(cx, &def, extras)?;
    if existed {
        // CREATE TABLE IF NOT EXISTS ... SELECT on an existing table: MySQL adds nothing (a note).
        return Ok(Output::done(0));
    }
    let n = rows.len() as u64;
    let spec = InsertSpec {
        table: object_name_parts(&ct.name),
        replace: false,
        ignore: false,
        columns: cols.iter().map(|c| c.name.clone()).collect(),
        source: InsertSource::Values(
            rows.into_iter()
                .map(|r| r.into_iter().map(Slot::Val).collect())
                .collect(),
        ),
        on_duplicate: &[],
    };
    match dml::run_insert(cx, spec) {
        Ok(_) => {
            let mut done = Output::done(n);
            if let Output::Done { info, .. } = &mut done {
                *info = format!(
                    "Records: {n}  Duplicates: 0  Warnings: {}",
                    cx.warnings.len()
                );
            }
            Ok(done)
        }
        Err(e) => {
            let _ = drop_table_named(cx, &ct.name);
            Err(e)
        }
    }
}

/// MariaDB's types of select columns that are integer literals in every branch of the query:
/// `int(n) NOT NULL` with n the literal's length (sign included) in a single SELECT; in a UNION
/// the widest literal's digits plus one for the sign, `NOT NULL DEFAULT 0`; bigint from 11
/// characters on. `None` per column that is not such a literal, `None` overall for other query
/// shapes.
fn literal_int_types(body: &ast::SetExpr) -> Option<Vec<Option<String>>> {
    fn lengths(body: &ast::SetExpr) -> Option<Vec<Option<usize>>> {
        match body {
            ast::SetExpr::Select(sel) => Some(
                sel.projection
                    .iter()
                    .map(|item| match item {
                        ast::SelectItem::UnnamedExpr(e)
                        | ast::SelectItem::ExprWithAlias { expr: e, .. } => int_literal_len(e),
                        _ => None,
                    })
                    .collect(),
            ),
            ast::SetExpr::Query(q) => lengths(&q.body),
            ast::SetExpr::SetOperation {
                op: ast::SetOperator::Union,
                left,
                right,
                ..
            } => {
                let (l, r) = (lengths(left)?, lengths(right)?);
                Some(
                    l.iter()
                        .zip(r.iter().chain(std::iter::repeat(&None)))
                        .map(|(a, b)| Some((*a)?.max((*b)?)))
                        .collect(),
                )
            }
            _ => None,
        }
    }
    fn int_literal_len(e: &ast::Expr) -> Option<usize> {
        match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit()) => {
                    Some(n.trim_start_matches('0').len().max(1))
                }
                _ => None,
            },
            ast::Expr::UnaryOp {
                op: ast::UnaryOperator::Minus,
                expr,
            } => int_literal_len(expr).map(|n| n + 1),
            ast::Expr::Nested(e) => int_literal_len(e),
            _ => None,
        }
    }
    let union = matches!(body, ast::SetExpr::SetOperation { .. });
    let lens = lengths(body)?;
    Some(
        lens.into_iter()
            .map(|l| {
                // A UNION's column is as wide as its widest digits plus a sign.
                let n = l? + usize::from(union);
                let ty = if n < 11 { "int" } else { "bigint" };
                Some(if union {
                    format!("{ty}({n}) NOT NULL DEFAULT 0")
                } else {
                    format!("{ty}({n}) NOT NULL")
                })
            })
            .collect(),
    )
}

/// The column definition for result column `c`, whose values are `values` (`literal`: the type
/// of an integer-literal column, [`literal_int_types`]).
fn derived_column<'a>(
    c: &OutCol,
    values: impl Iterator<Item = &'a Value>,
    literal: Option<String>,
) -> DbResult<ast::ColumnDef> {
    let ty = match &c.ty {
        _ if literal.is_some() => literal.unwrap_or_default(),
        Some(t) => {
            let null = if c.flags & column_flag::NOT_NULL != 0 {
                " NOT NULL"
            } else {
                " NULL"
            };
            let mut text = if t.has_members() && !c.members.is_empty() {
                format!(
                    "{}({})",
                    t.sql_name(),
                    crate::types::quote_members(&c.members)
                )
            } else {
                t.sql_name()
            };
            // A text column keeps its character set and collation, whatever the new table's
            // default (SHOW CREATE TABLE then names them only when they differ from it).
            if t.is_text() {
                text.push_str(&format!(
                    " CHARACTER SET {} COLLATE {}",
                    c.collation.charset().name(),
                    c.collation.name()
                ));
            }
            format!("{text}{null}")
        }
        None => {
            let ty = type_of_values(values);
            // Text computed from literals is in the connection's character set (the result
            // column's collation), as MariaDB's is.
            if (ty.starts_with("varchar") || ty == "longtext") && !c.collation.is_binary_charset() {
                format!(
                    "{ty} CHARACTER SET {} COLLATE {} NULL",
                    c.collation.charset().name(),
                    c.collation.name()
                )
            } else {
                format!("{ty} NULL")
            }
        }
    };
    let text = format!("CREATE TABLE t (`{}` {ty})", c.name.replace('`', "``"));
    match parse(&text)?.into_iter().next() {
        Some(ast::Statement::CreateTable(t)) if t.columns.len() == 1 => {
            Ok(t.columns.into_iter().next().expect("one column"))
        }
        _ => Err(DbError::internal(format!(
            "cannot derive a column from {text}"
        ))),
    }
}

/// The narrowest of Betula's types that holds every value (NULLs aside).
fn type_of_values<'a>(values: impl Iterator<Item = &'a Value>) -> String {
    let (mut int, mut uint, mut float, mut dec, mut text, mut bytes) =
        (false, false, false, false, false, false);
    let (mut date, mut datetime, mut time) = (false, false, false);
    let (mut max_len, mut max_int_digits, mut scale) = (0usize, 1u32, 0u32);
    for v in values {
        match v {
            Value::Null => {}
            Value::Int(_) => int = true,
            Value::UInt(u) => {
                uint = true;
                int |= *u <= i64::MAX as u64;
            }
            Value::Float(_) | Value::Double(_) => float = true,
            Value::Decimal(d) => {
                dec = true;
                let s = d.to_string();
                let digits = s.trim_start_matches('-');
                let (ip, fp) = digits.split_once('.').unwrap_or((digits, ""));
                max_int_digits = max_int_digits.max(ip.len() as u32);
                scale = scale.max(fp.len() as u32);
            }
            Value::Text(s) => {
                text = true;
                max_len = max_len.max(s.chars().count());
            }
            Value::Bytes(b) => {
                bytes = true;
                max_len = max_len.max(b.len());
            }
            Value::Date(_) => date = true,
            Value::DateTime(_) => datetime = true,
            Value::Time(_) => time = true,
        }
    }
    let kinds = [int || uint, float, dec, text, bytes, date, datetime, time]
        .iter()
        .filter(|k| **k)
        .count();
    let string = |len: usize, binary: bool| match (binary, len) {
        (false, 0..=16383) => format!("varchar({})", len.max(1)),
        (false, _) => "longtext".to_string(),
        (true, 0..=65532) => format!("varbinary({})", len.max(1)),
        (true, _) => "longblob".to_string(),
    };
    if kinds == 0 {
        return "binary(0)".into();
    }
    if kinds > 1 {
        // Mixed kinds read back as text, as MySQL's union type of them is a string.
        return string(max_len.max(64), bytes);
    }
    if int || uint {
        if uint && !int {
            "bigint unsigned".into()
        } else {
            "bigint".into()
        }
    } else if float {
        "double".into()
    } else if dec {
        let p = (max_int_digits + scale).clamp(1, 65);
        format!("decimal({p},{})", scale.min(30))
    } else if text || bytes {
        string(max_len, bytes)
    } else if date {
        "date".into()
    } else if datetime {
        "datetime(6)".into()
    } else {
        "time(6)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_types_are_the_narrowest_that_hold_them() {
        assert_eq!(
            type_of_values([Value::Int(1), Value::Null].iter()),
            "bigint"
        );
        assert_eq!(
            type_of_values([Value::UInt(u64::MAX)].iter()),
            "bigint unsigned"
        );
        assert_eq!(type_of_values([Value::Double(1.5)].iter()), "double");
        assert_eq!(
            type_of_values([Value::Text("abc".into()), Value::Text("é".into())].iter()),
            "varchar(3)"
        );
        assert_eq!(
            type_of_values([Value::Bytes(vec![0; 5])].iter()),
            "varbinary(5)"
        );
        assert_eq!(type_of_values([Value::Null].iter()), "binary(0)");
        assert_eq!(
            type_of_values([Value::Int(1), Value::Text("x".into())].iter()),
            "varchar(64)"
        );
    }
}
