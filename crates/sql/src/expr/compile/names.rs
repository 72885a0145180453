//! Names in expressions: column references (`c`, `t.c`, `db.t.c`), select-list aliases,
//! variables (`@v`, `@@v`, `@@global.v`; `` @`a.b` `` through [`quoted_user_var`]) and the niladic session functions written without
//! parentheses (CURRENT_TIMESTAMP, CURRENT_DATE, ...).
//!
//! Invariants: a column of the scope wins over an alias and over a niladic function of the same
//! name; a quoted name is always a column; variables are read once, at compile time.

use std::borrow::Cow;

use sqlparser::ast;

use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{Expr, ScopeCol};
use crate::types::collation::Collation;
use crate::types::value::Value;

fn ident_name(id: &ast::Ident) -> String {
    id.value.clone()
}

/// The parts of a possibly qualified object name, unquoted.
pub fn object_name_parts(n: &ast::ObjectName) -> Vec<String> {
    n.0.iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => i.value.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// Prefix of a user variable named by a quoted string (`` @`a.b/c` ``) as the parser's retry
/// spells it for sqlparser (parser/mariadb_forms.rs); the name's bytes follow in hex.
const QUOTED_VAR: &str = "betula_qv_";

/// A user variable's `name` (without the `@`) spelled as a plain name sqlparser reads.
pub fn quoted_user_var(name: &str) -> String {
    let mut var = String::from(QUOTED_VAR);
    for b in name.bytes() {
        var.push_str(&format!("{b:02x}"));
    }
    var
}

/// A user variable's name as written, [`quoted_user_var`]'s spelling undone (a variable literally
/// named `betula_qv_` and hex digits is read as the name they encode).
pub fn user_var_name(name: &str) -> Cow<'_, str> {
    let Some(hex) = name.strip_prefix(QUOTED_VAR) else {
        return Cow::Borrowed(name);
    };
    let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    match bytes.and_then(|b| String::from_utf8(b).ok()) {
        Some(n) if hex.len() % 2 == 0 => Cow::Owned(n),
        _ => Cow::Borrowed(name),
    }
}

impl Compiler<'_> {
    pub(super) fn identifier(&mut self, id: &ast::Ident) -> DbResult<Expr> {
        let parts = vec![ident_name(id)];
        if id.quote_style.is_none() {
            if let Some(v) = self.variable(&parts)? {
                return Ok(v);
            }
            match id.value.to_ascii_uppercase().as_str() {
                "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "CURRENT_DATE"
                | "CURRENT_TIME" | "CURRENT_USER" | "UTC_TIMESTAMP" | "UTC_DATE"
                    if self
                        .scope
                        .resolve(None, None, &id.value, self.place)?
                        .is_none() =>
                {
                    let n = id.value.to_ascii_uppercase();
                    if let Some(v) = self.env.session_fn(&n, &[]) {
                        return Ok(Expr::Lit(v?));
                    }
                }
                _ => {}
            }
        }
        self.resolve_name(&parts)
    }

    pub(super) fn compound_identifier(&mut self, ids: &[ast::Ident]) -> DbResult<Expr> {
        let parts: Vec<String> = ids.iter().map(ident_name).collect();
        if ids[0].quote_style.is_none() {
            if let Some(v) = self.variable(&parts)? {
                return Ok(v);
            }
        }
        self.resolve_name(&parts)
    }

    fn resolve_name(&mut self, parts: &[String]) -> DbResult<Expr> {
        let name = parts.last().cloned().unwrap_or_default();
        let (db, table) = match parts.len() {
            1 => (None, None),
            2 => (None, Some(parts[0].as_str())),
            3 => (Some(parts[0].as_str()), Some(parts[1].as_str())),
            _ => return Err(DbError::bad_field(&parts.join("."), self.place)),
        };
        if let (Some(groups), Some(_)) = (self.having_groups, &self.aggs) {
            return self.having_name(parts, groups);
        }
        if let Some(i) = self.scope.resolve(db, table, &name, self.place)? {
            return Ok(self.read_in_zone(self.scope, i, Expr::Col(i)));
        }
        if parts.len() == 1 {
            if let Some((_, e)) = self
                .aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&name))
            {
                return Ok(e.clone());
            }
        }
        if parts.len() == 1 {
            if let Some(e) = self.window_alias(&name)? {
                return Ok(e);
            }
        }
        if let Some((v, col)) = self.env.outer_column(db, table, &name, self.place)? {
            return self.outer_value(v, &col);
        }
        Err(DbError::bad_field(&parts.join("."), self.place))
    }

    /// A column of an enclosing query read by a correlated subquery: its value for the row the
    /// subquery runs for, read as the column would be (a TIMESTAMP in the session's zone, text
    /// under the column's collation).
    pub(super) fn outer_value(&mut self, v: Value, col: &ScopeCol) -> DbResult<Expr> {
        if col.ty.is_some_and(|t| t.has_members()) && !col.members.is_empty() {
            // Its member number would be lost in the value.
            return Err(DbError::unsupported(
                "an ENUM or SET column of an enclosing query in a subquery",
            ));
        }
        let tz = self.env.time_zone();
        let mut e = Expr::Lit(v);
        if col.stored_utc && !tz.is_utc() {
            e = Expr::InZone(Box::new(e), tz, crate::expr::ZoneShift::ToLocal);
        }
        if col.ty.is_some_and(|t| t.is_text()) && col.collation != Collation::default() {
            e = Expr::Func(
                "__COLLATE".into(),
                vec![e, Expr::Lit(Value::Text(col.collation.name().into()))],
            );
        }
        Ok(e)
    }

    fn variable(&mut self, parts: &[String]) -> DbResult<Option<Expr>> {
        let first = &parts[0];
        if let Some(rest) = first.strip_prefix("@@") {
            let (global, name) = match (rest.to_ascii_lowercase().as_str(), parts.len()) {
                ("global", 2) => (true, parts[1].clone()),
                ("session" | "local", 2) => (false, parts[1].clone()),
                (_, 1) => (false, rest.to_string()),
                _ => return Err(DbError::syntax(parts.join("."))),
            };
            return Ok(Some(Expr::Lit(self.env.system_var(&name, global)?)));
        }
        if let Some(rest) = first.strip_prefix('@') {
            let name = if parts.len() > 1 {
                format!("{rest}.{}", parts[1..].join("."))
            } else {
                user_var_name(rest).into_owned()
            };
            return Ok(Some(self.user_var_read(&name)));
        }
        Ok(None)
    }
}

impl Compiler<'_> {
    /// A read of `@name`: its slot in a statement that assigns user variables, else its value.
    pub(super) fn user_var_read(&mut self, name: &str) -> Expr {
        match self.env.user_var_slot(name, false) {
            Some(slot) => Expr::UserVar(slot),
            None => Expr::Lit(self.env.user_var(name)),
        }
    }

    /// `@name := value` (MariaDB's assignment in an expression); `target` is the expression
    /// left of `:=`, which must be a user variable (1064 otherwise).
    pub(super) fn user_var_assignment(
        &mut self,
        target: &ast::Expr,
        value: &ast::Expr,
    ) -> DbResult<Expr> {
        let name = match target {
            ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@') => {
                user_var_name(&id.value[1..]).into_owned()
            }
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Placeholder(p) if p.starts_with('@') => {
                    user_var_name(&p[1..]).into_owned()
                }
                _ => return Err(DbError::syntax(format!(":= {value}"))),
            },
            _ => return Err(DbError::syntax(format!(":= {value}"))),
        };
        if name.starts_with('@') {
            return Err(DbError::syntax(format!(":= {value}")));
        }
        let Some(slot) = self.env.user_var_slot(&name, true) else {
            return Err(DbError::unsupported("a user variable assignment here"));
        };
        let value = self.compile(value)?;
        Ok(Expr::SetUserVar(Box::new(value), slot))
    }
}
