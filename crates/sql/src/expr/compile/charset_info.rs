//! CHARSET(x), COLLATION(x) and COERCIBILITY(x): what MariaDB says of an expression's text,
//! decided when the statement is compiled (they fold to a constant, as MariaDB's do).
//!
//! Invariants (MariaDB's derivations, coercibility in parentheses): an explicit `COLLATE` its
//! collation (0); a column its own collation, a binary column `binary` (2), another column
//! `binary` (5); a user variable holding text the connection's collation (2); a text literal
//! and the JSON functions the connection's collation (`collation_connection`, 4; a hex literal
//! under a single-byte character set's introducer that set's default collation), JSON_UNQUOTE
//! utf8mb4_bin; USER(), DATABASE(), VERSION() and the other session names utf8mb3 (3); a
//! byte string `binary` (4); NULL `binary` (6); numbers, dates and the functions that give them
//! `binary` (5); a function over text its text argument's collation and derivation; anything
//! else the connection's collation (4).

use sqlparser::ast;

use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::Expr;
use crate::types::collation::Collation;
use crate::types::value::Value;

/// Functions of the session that MariaDB gives utf8mb3_general_ci, coercibility 3.
const SYSTEM_NAMES: &[&str] = &[
    "USER",
    "CURRENT_USER",
    "SESSION_USER",
    "SYSTEM_USER",
    "DATABASE",
    "SCHEMA",
    "VERSION",
    "CURRENT_ROLE",
];

impl Compiler<'_> {
    /// CHARSET / COLLATION / COERCIBILITY (`name` upper case) of their one argument.
    pub(super) fn charset_info(&mut self, name: &str, args: &[ast::Expr]) -> DbResult<Expr> {
        let [arg] = args else {
            return Err(DbError::wrong_args(name));
        };
        let user_var = matches!(arg, ast::Expr::Identifier(i) if i.value.starts_with('@') && !i.value.starts_with("@@"));
        let (coll, derivation) = match system_name(arg) {
            true => (Collation::Utf8mb3GeneralCi, 3),
            false if user_var => match self.compile(arg)? {
                Expr::Lit(Value::Text(_)) | Expr::UserVar(_) => (self.connection_collation(), 2),
                Expr::Lit(Value::Bytes(_)) => (Collation::Binary, 2),
                Expr::Lit(Value::Null) => (Collation::Binary, 6),
                _ => (Collation::Binary, 5),
            },
            false => {
                let e = self.compile(arg)?;
                self.derivation(&e)
            }
        };
        Ok(Expr::Lit(match name {
            "CHARSET" => Value::Text(coll.charset().name().into()),
            "COLLATION" => Value::Text(coll.name().into()),
            _ => Value::Int(derivation),
        }))
    }

    /// `collation_connection` (a string literal's collation).
    pub(super) fn connection_collation(&mut self) -> Collation {
        self.env
            .system_var("collation_connection", false)
            .ok()
            .and_then(|v| crate::expr::eval::text_of(&v))
            .and_then(|n| Collation::from_name(&n))
            .unwrap_or_default()
    }

    /// The collation and coercibility of compiled `e` (see the module header).
    fn derivation(&mut self, e: &Expr) -> (Collation, i64) {
        if let Some(c) = e.explicit_collation() {
            return (c, 0);
        }
        match e {
            Expr::Lit(Value::Null) => (Collation::Binary, 6),
            Expr::Lit(Value::Text(_)) => (self.connection_collation(), 4),
            Expr::Lit(Value::Bytes(_)) => (Collation::Binary, 4),
            Expr::Lit(_) => (Collation::Binary, 5),
            Expr::Func(n, _) if n == crate::expr::functions::IN_CHARSET => {
                (e.text_collation(self.scope).unwrap_or_default(), 4)
            }
            Expr::UserVar(_) => (self.connection_collation(), 2),
            Expr::Json(j) => {
                let c = self.connection_collation();
                match j.func {
                    crate::expr::json::JsonFunc::Unquote => (Collation::Utf8mb4Bin, 4),
                    _ => (c, 4),
                }
            }
            _ if self.scope.gives_number(e) => (Collation::Binary, 5),
            _ => match e.text_collation(self.scope) {
                Some(c) => (c, 2),
                None if matches!(e, Expr::Col(_)) => (Collation::Binary, 5),
                None => (self.connection_collation(), 4),
            },
        }
    }
}

/// Whether `e` is a call of one of [`SYSTEM_NAMES`].
fn system_name(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Function(f) => {
            let n = f.name.to_string().to_ascii_uppercase();
            SYSTEM_NAMES.contains(&n.as_str())
        }
        _ => false,
    }
}
