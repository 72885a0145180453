//! From a record of the file to a table row: the column list with `@variables`, the SET
//! assignments, and the same defaults and coercion as INSERT (`dml::complete_row`, `coerce.rs`),
//! so loaded rows are byte-identical to inserted ones and bad values give the same errors and
//! warnings.
//!
//! Per record (MySQL's order): fields go to their columns or variables in list order; too few
//! fields is 1261 and too many 1262 (errors in strict mode, warnings otherwise; missing columns
//! take their defaults); then SET expressions are evaluated over the record's column values
//! (as read from the file) and variables; then every column is defaulted and coerced.
//! Field bytes become text in the statement's character set (latin1 maps each byte to one
//! character; utf8mb4 keeps invalid UTF-8 as bytes so that a text column reports 1366), except
//! for binary columns, which take the bytes as they are.

use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::dml::{complete_row, table_scope, Slot};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{Expr, ScopeCol};
use crate::load::fields::Record;
use crate::parser::load::{Charset, LoadStmt, SetValue, Target};
use crate::types::value::Value;

#[derive(Clone, Copy)]
enum Dest {
    Col(usize),
    Var(usize),
}

/// The per-statement plan of the conversion.
pub struct Converter {
    dests: Vec<Dest>,
    vars: Vec<String>,
    set: Vec<(usize, Option<Expr>)>,
    charset: Charset,
    binary: Vec<bool>,
    ncols: usize,
    strict: bool,
}

fn warn(warnings: &mut Vec<Warning>, e: DbError) {
    warnings.push(Warning {
        level: WarningLevel::Warning,
        code: e.code,
        message: e.message,
    });
}

impl Converter {
    pub fn new(cx: &mut Context, t: &TableDef, stmt: &LoadStmt, strict: bool) -> DbResult<Self> {
        let mut dests = Vec::new();
        let mut vars: Vec<String> = Vec::new();
        if stmt.targets.is_empty() {
            dests = (0..t.columns.len()).map(Dest::Col).collect();
        } else {
            for target in &stmt.targets {
                dests.push(match target {
                    Target::Column(n) => Dest::Col(
                        t.col_index(n)
                            .ok_or_else(|| DbError::bad_field(n, "SELECT"))?,
                    ),
                    Target::Var(v) => match vars.iter().position(|x| x == v) {
                        Some(i) => Dest::Var(i),
                        None => {
                            vars.push(v.clone());
                            Dest::Var(vars.len() - 1)
                        }
                    },
                });
            }
        }
        // SET expressions see the table's columns, then the variables as pseudo-columns `@name`.
        let mut scope = table_scope(t, &t.name);
        let mut set = Vec::new();
        let mut set_vars: Vec<String> = Vec::new();
        for (_, v) in &stmt.set {
            if let SetValue::Expr(e) = v {
                collect_vars(&e.to_string(), &mut set_vars);
            }
        }
        for v in set_vars {
            if !vars.contains(&v) {
                vars.push(v);
            }
        }
        for v in &vars {
            scope.cols.push(ScopeCol {
                table: String::new(),
                db: String::new(),
                org_table: String::new(),
                name: format!("@{v}"),
                ty: None,
                collation: crate::types::collation::Collation::default(),
                flags: 0,
                length: 0,
                members: Default::default(),
                stored_utc: false,
                json: false,
            });
        }
        for (name, v) in &stmt.set {
            let col = t
                .col_index(name)
                .ok_or_else(|| DbError::bad_field(name, "SELECT"))?;
            let e = match v {
                SetValue::Default => None,
                SetValue::Expr(e) => Some(cx.compile(&scope, e, "SELECT")?),
            };
            set.push((col, e));
        }
        // Without CHARACTER SET the file is in the database's character set (MariaDB's
        // `character_set_database`).
        let charset = stmt.charset.unwrap_or_else(|| {
            let db_charset = cx.database_collation(&t.db).charset();
            if db_charset == crate::types::charset::Charset::Latin1 {
                Charset::Latin1
            } else {
                Charset::Utf8
            }
        });
        Ok(Converter {
            dests,
            vars,
            set,
            charset,
            binary: t.columns.iter().map(|c| c.sql_type.is_binary()).collect(),
            ncols: t.columns.len(),
            strict,
        })
    }

    /// The variables' names (lower case, without `@`).
    pub fn var_names(&self) -> &[String] {
        &self.vars
    }

    fn text(&self, bytes: &[u8], binary: bool) -> Value {
        if binary {
            return Value::Bytes(bytes.to_vec());
        }
        match self.charset {
            Charset::Latin1 => Value::Text(bytes.iter().map(|&b| b as char).collect()),
            Charset::Utf8 | Charset::Binary => match std::str::from_utf8(bytes) {
                Ok(s) => Value::Text(s.to_string()),
                Err(_) => Value::Bytes(bytes.to_vec()),
            },
        }
    }

    /// Converts record number `rownum` (1-based) to a row; `vars_out` receives the variables'
    /// values (for the session's `@variables` after the load).
    #[allow(clippy::too_many_arguments)]
    pub fn row(
        &self,
        cx: &mut Context,
        t: &TableDef,
        rec: &Record,
        rownum: u64,
        first_id: &mut Option<u64>,
        warnings: &mut Vec<Warning>,
        vars_out: &mut Vec<Value>,
    ) -> DbResult<Vec<Value>> {
        let nf = rec.fields.len();
        let nd = self.dests.len();
        if nf < nd {
            let e = DbError::new(
                ErrorCode::WarnTooFewRecords,
                format!("Row {rownum} doesn't contain data for all columns"),
            );
            if self.strict {
                return Err(e);
            }
            warn(warnings, e);
        } else if nf > nd {
            let e = DbError::new(
                ErrorCode::WarnTooManyRecords,
                format!("Row {rownum} was truncated; it contained more data than there were input columns"),
            );
            if self.strict {
                return Err(e);
            }
            warn(warnings, e);
        }
        let mut slots: Vec<Slot> = (0..self.ncols).map(|_| Slot::Unset).collect();
        vars_out.clear();
        vars_out.resize(self.vars.len(), Value::Null);
        for (i, d) in self.dests.iter().enumerate().take(nf) {
            match *d {
                Dest::Col(c) => {
                    slots[c] = Slot::Val(match rec.field(i) {
                        None => Value::Null,
                        Some(b) => self.text(b, self.binary[c]),
                    });
                }
                Dest::Var(v) => {
                    vars_out[v] = match rec.field(i) {
                        None => Value::Null,
                        Some(b) => self.text(b, false),
                    };
                }
            }
        }
        if !self.set.is_empty() {
            let mut scope_row: Vec<Value> = slots
                .iter()
                .map(|s| match s {
                    Slot::Val(v) => v.clone(),
                    _ => Value::Null,
                })
                .collect();
            scope_row.extend(vars_out.iter().cloned());
            for (col, e) in &self.set {
                slots[*col] = match e {
                    None => Slot::Default,
                    Some(e) => Slot::Val(eval(
                        e,
                        &EvalCtx {
                            row: &scope_row,
                            aggs: &[],
                            insert: &[],
                            ..Default::default()
                        },
                    )?),
                };
            }
        }
        complete_row(cx, t, slots, rownum, self.strict, first_id, warnings)
    }
}

/// Names of `` `@name` `` pseudo-columns in an expression's text.
fn collect_vars(text: &str, out: &mut Vec<String>) {
    let mut rest = text;
    while let Some(p) = rest.find("`@") {
        let after = &rest[p + 2..];
        let Some(end) = after.find('`') else { break };
        let name = after[..end].to_string();
        if !out.contains(&name) {
            out.push(name);
        }
        rest = &after[end..];
    }
}
