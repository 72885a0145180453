//! The expression of a RANGE, LIST or HASH partitioning: checked against what MySQL allows in a
//! partition function, and printed as MariaDB prints it (`to_days(`d`)`, `` `a` MOD 3 ``).
//!
//! Allowed: columns, integer literals, unary minus, `+ - * DIV MOD %` and MySQL's list of
//! functions (ABS, CEILING, DATEDIFF, DAY, DAYOFMONTH, DAYOFWEEK, DAYOFYEAR, EXTRACT, FLOOR, HOUR,
//! MICROSECOND, MINUTE, MOD, MONTH, QUARTER, SECOND, TIME_TO_SEC, TO_DAYS, TO_SECONDS,
//! UNIX_TIMESTAMP of a TIMESTAMP column, WEEKDAY, YEAR, YEARWEEK). Anything else is 1564;
//! random, time-zone dependent or column-free expressions are 1486; a fractional literal is 1491;
//! a bare column of a type other than an integer is 1659.
//!
//! Invariant: printing is a fixed point: the printed text read again prints the same, so the
//! stored CREATE TABLE text (catalog) and SHOW CREATE TABLE agree after any number of restarts.

use sqlparser::ast::{self, BinaryOperator as B, UnaryOperator as U};

use crate::catalog::create_table::{quote_ident, quote_str};
use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;
use crate::types::SqlType;

/// A checked partition expression: its text and the columns it reads.
pub(super) struct Checked {
    pub text: String,
    pub columns: Vec<usize>,
}

const ALLOWED: &[&str] = &[
    "ABS",
    "CEILING",
    "CEIL",
    "DATEDIFF",
    "DAY",
    "DAYOFMONTH",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "FLOOR",
    "HOUR",
    "MICROSECOND",
    "MINUTE",
    "MOD",
    "MONTH",
    "QUARTER",
    "SECOND",
    "TIME_TO_SEC",
    "TO_DAYS",
    "TO_SECONDS",
    "UNIX_TIMESTAMP",
    "WEEKDAY",
    "YEAR",
    "YEARWEEK",
];

const VOLATILE: &[&str] = &[
    "RAND",
    "NOW",
    "SYSDATE",
    "CURDATE",
    "CURTIME",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "UUID",
    "UUID_SHORT",
    "CONNECTION_ID",
    "LAST_INSERT_ID",
];

fn not_allowed() -> DbError {
    DbError::new(
        ErrorCode::PartitionFunctionIsNotAllowed,
        "This partition function is not allowed",
    )
}

pub(super) fn volatile() -> DbError {
    DbError::new(
        ErrorCode::WrongExprInPartitionFuncError,
        "Constant, random or timezone-dependent expressions in (sub)partitioning function are not allowed",
    )
}

fn wrong_type() -> DbError {
    DbError::new(
        ErrorCode::PartitionFuncNotAllowedError,
        "The PARTITION function returns the wrong type",
    )
}

/// 1659 for column `name`.
pub(super) fn type_not_allowed(name: &str) -> DbError {
    DbError::new(
        ErrorCode::FieldTypeNotAllowedAsPartitionField,
        format!("Field '{name}' is of a not allowed type for this type of partitioning"),
    )
}

/// Checks `e` as the partition function of `t` and prints it.
pub(super) fn check(e: &ast::Expr, t: &TableDef) -> DbResult<Checked> {
    let mut w = Walker { t, columns: vec![] };
    let text = w.print(e, 0)?;
    if w.columns.is_empty() {
        return Err(volatile());
    }
    if let Some(c) = bare_column(e, t) {
        let col = &t.columns[c];
        if !matches!(
            col.sql_type,
            SqlType::Int { .. } | SqlType::Year | SqlType::Bit { .. }
        ) {
            return Err(type_not_allowed(&col.name));
        }
    }
    Ok(Checked {
        text,
        columns: w.columns,
    })
}

/// The column `e` is, when it is just a column (in parentheses or not).
fn bare_column(e: &ast::Expr, t: &TableDef) -> Option<usize> {
    match e {
        ast::Expr::Nested(inner) => bare_column(inner, t),
        ast::Expr::Identifier(i) => t.col_index(&i.value),
        ast::Expr::CompoundIdentifier(p) => t.col_index(&p.last()?.value),
        _ => None,
    }
}

struct Walker<'a> {
    t: &'a TableDef,
    columns: Vec<usize>,
}

/// Binding strength of an operator as MariaDB prints parentheses (higher binds tighter).
fn precedence(op: &B) -> Option<u8> {
    match op {
        B::Plus | B::Minus => Some(1),
        B::Multiply | B::MyIntegerDivide | B::Modulo => Some(2),
        _ => None,
    }
}

impl Walker<'_> {
    /// `e` printed inside an operator of precedence `outer` (0: no parentheses needed).
    fn print(&mut self, e: &ast::Expr, outer: u8) -> DbResult<String> {
        use ast::Expr as E;
        Ok(match e {
            E::Nested(inner) => self.print(inner, outer)?,
            E::Identifier(_) | E::CompoundIdentifier(_) => self.column(e)?,
            E::Value(v) => literal(&v.value)?,
            E::UnaryOp { op, expr } => match op {
                U::Minus => format!("-{}", self.print(expr, 3)?),
                U::Plus => self.print(expr, outer)?,
                _ => return Err(not_allowed()),
            },
            E::BinaryOp { left, op, right } => {
                let p = precedence(op).ok_or_else(not_allowed)?;
                self.binary(left, op_text(op), right, p, outer)?
            }
            E::Extract { field, expr, .. } => {
                let unit = field.to_string().to_ascii_lowercase();
                format!("extract({unit} from {})", self.print(expr, 0)?)
            }
            E::Function(f) => self.function(f, outer)?,
            E::Ceil { expr, .. } => format!("ceiling({})", self.print(expr, 0)?),
            E::Floor { expr, .. } => format!("floor({})", self.print(expr, 0)?),
            _ => return Err(not_allowed()),
        })
    }

    fn binary(
        &mut self,
        left: &ast::Expr,
        op: &str,
        right: &ast::Expr,
        p: u8,
        outer: u8,
    ) -> DbResult<String> {
        // Left-associative: a right operand of the same strength keeps its parentheses.
        let text = format!(
            "{} {op} {}",
            self.print(left, p)?,
            self.print(right, p + 1)?
        );
        Ok(if p < outer { format!("({text})") } else { text })
    }

    fn column(&mut self, e: &ast::Expr) -> DbResult<String> {
        let name = match e {
            ast::Expr::Identifier(i) => i.value.clone(),
            ast::Expr::CompoundIdentifier(p) => {
                p.last().map(|i| i.value.clone()).unwrap_or_default()
            }
            _ => return Err(not_allowed()),
        };
        let c = self.t.col_index(&name).ok_or_else(|| {
            DbError::new(
                ErrorCode::BadFieldError,
                format!("Unknown column '{name}' in 'partition function'"),
            )
        })?;
        let col = &self.t.columns[c];
        if matches!(col.sql_type, SqlType::Text(_) | SqlType::Blob(_)) {
            return Err(DbError::new(
                ErrorCode::BlobFieldInPartFuncError,
                "A BLOB field is not allowed in partition function",
            ));
        }
        if !self.columns.contains(&c) {
            self.columns.push(c);
        }
        Ok(quote_ident(&col.name))
    }

    fn function(&mut self, f: &ast::Function, outer: u8) -> DbResult<String> {
        let name = object_name_parts(&f.name)
            .last()
            .cloned()
            .unwrap_or_default()
            .to_ascii_uppercase();
        if VOLATILE.contains(&name.as_str()) {
            return Err(volatile());
        }
        if !ALLOWED.contains(&name.as_str()) {
            return Err(not_allowed());
        }
        let args = args_of(f)?;
        if name == "UNIX_TIMESTAMP" {
            let on_timestamp = args.len() == 1
                && bare_column(&args[0], self.t).is_some_and(|c| {
                    matches!(self.t.columns[c].sql_type, SqlType::Timestamp { .. })
                });
            if !on_timestamp {
                return Err(volatile());
            }
        }
        match (name.as_str(), args.as_slice()) {
            ("MOD", [a, b]) => self.binary(a, "MOD", b, 2, outer),
            ("DATEDIFF", [a, b]) => {
                if bare_column(a, self.t).is_none() || bare_column(b, self.t).is_none() {
                    return Err(volatile());
                }
                let text = format!(
                    "to_days({}) - to_days({})",
                    self.print(a, 0)?,
                    self.print(b, 0)?
                );
                Ok(if outer > 1 { format!("({text})") } else { text })
            }
            ("YEARWEEK", [a]) => Ok(format!("yearweek({},0)", self.print(a, 0)?)),
            _ => {
                let shown = match name.as_str() {
                    "DAY" => "dayofmonth".to_string(),
                    "CEIL" => "ceiling".to_string(),
                    n => n.to_ascii_lowercase(),
                };
                let mut parts = Vec::new();
                for a in &args {
                    parts.push(self.print(a, 0)?);
                }
                Ok(format!("{shown}({})", parts.join(",")))
            }
        }
    }
}

fn op_text(op: &B) -> &'static str {
    match op {
        B::Plus => "+",
        B::Minus => "-",
        B::Multiply => "*",
        B::MyIntegerDivide => "DIV",
        _ => "MOD",
    }
}

fn literal(v: &ast::Value) -> DbResult<String> {
    Ok(match v {
        ast::Value::Number(n, _) => {
            if n.contains(['.', 'e', 'E']) {
                return Err(wrong_type());
            }
            n.clone()
        }
        ast::Value::HexStringLiteral(h) => format!("0x{h}"),
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => quote_str(s),
        ast::Value::Null => "NULL".into(),
        _ => return Err(not_allowed()),
    })
}

/// The plain arguments of a call.
fn args_of(f: &ast::Function) -> DbResult<Vec<ast::Expr>> {
    match &f.args {
        ast::FunctionArguments::None => Ok(vec![]),
        ast::FunctionArguments::List(l) => l
            .args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e.clone()),
                _ => Err(not_allowed()),
            })
            .collect(),
        ast::FunctionArguments::Subquery(_) => Err(not_allowed()),
    }
}
