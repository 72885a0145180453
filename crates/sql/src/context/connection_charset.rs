//! The connection's character sets, as MariaDB keeps them: `character_set_client` (what the
//! statement text is written in), `character_set_connection` / `collation_connection` (what a
//! string literal is) and `character_set_results` (what result rows and column names are sent
//! in; NULL: sent as they are). The client's handshake sets all four from its collation id;
//! SET NAMES, SET CHARACTER SET and SET of each variable change them.
//!
//! Invariants: [`Context::charsets`] and the four variables in `Context::vars` always agree
//! (only [`Context::set_connection_charsets`] writes either); `character_set_client` and
//! `character_set_connection` are never NULL (1231, as MariaDB), `character_set_results` may be.
//! A character set MariaDB has but cannot take for a client (ucs2, utf16, utf32) is 1231; one
//! Betula does not know is 1115 (a collation 1273). Converting the text itself is the server's
//! business (crates/server/src/backend/client_charset.rs); this module only keeps the settings.

use super::Context;
use crate::catalog::charset_clause;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::charset::Charset;
use crate::types::collation::Collation;
use crate::types::value::Value;

/// The connection's character sets (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionCharsets {
    pub client: Charset,
    pub connection: Collation,
    /// None: results are sent in their own character sets (`character_set_results = NULL`).
    pub results: Option<Charset>,
}

impl Default for ConnectionCharsets {
    fn default() -> Self {
        ConnectionCharsets::of(Collation::Utf8mb4GeneralCi)
    }
}

impl ConnectionCharsets {
    /// All three character sets `coll`'s, the connection's collation `coll` (the handshake's and
    /// SET NAMES's effect).
    pub fn of(coll: Collation) -> Self {
        ConnectionCharsets {
            client: coll.charset(),
            connection: coll,
            results: Some(coll.charset()),
        }
    }

    /// The handshake's collation id; None for an id Betula does not know (the connection then
    /// keeps the server's defaults, as MariaDB does for an unknown id).
    pub fn from_handshake(id: u16) -> Option<Self> {
        Collation::ALL
            .into_iter()
            .find(|c| c.id() == id)
            .map(ConnectionCharsets::of)
    }

    /// True when text passes unchanged both ways (utf8mb4 in, utf8mb4 out: no conversion).
    pub fn is_utf8mb4(&self) -> bool {
        self.client == Charset::Utf8mb4 && self.results == Some(Charset::Utf8mb4)
    }
}

/// The value of a SET of a character-set variable: a name, a collation id, or NULL.
fn value_name(var: &str, v: &Value) -> DbResult<String> {
    match v {
        Value::Null => Err(wrong_value(var, "NULL")),
        Value::Int(_) | Value::UInt(_) => {
            let id = v.to_f64_lenient().unwrap_or(-1.0);
            Collation::ALL
                .into_iter()
                .find(|c| f64::from(c.id()) == id)
                .map(|c| {
                    if var == "collation_connection" {
                        c.name().to_string()
                    } else {
                        c.charset().name().to_string()
                    }
                })
                .ok_or_else(|| unknown_id(var, id))
        }
        other => Ok(crate::expr::eval::text_of(other).unwrap_or_default()),
    }
}

fn unknown_id(var: &str, id: f64) -> DbError {
    if var == "collation_connection" {
        DbError::new(
            ErrorCode::UnknownCollation,
            format!("Unknown collation: '{id}'"),
        )
    } else {
        DbError::new(
            ErrorCode::UnknownCharacterSet,
            format!("Unknown character set: '{id}'"),
        )
    }
}

fn wrong_value(var: &str, shown: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongValueForVar,
        format!("Variable '{var}' can't be set to the value of '{shown}'"),
    )
}

/// A character set named for the connection: MariaDB's multi-byte-only sets cannot be a
/// client's (1231), others Betula does not know are 1115.
pub fn client_charset_named(var: &str, name: &str) -> DbResult<Charset> {
    let lower = name.to_ascii_lowercase();
    if matches!(lower.as_str(), "ucs2" | "utf16" | "utf16le" | "utf32") {
        return Err(wrong_value(var, name));
    }
    charset_clause::charset_named(name)
}

impl Context {
    /// Makes `cs` the connection's character sets, in the struct and in the variables.
    pub fn set_connection_charsets(&mut self, cs: ConnectionCharsets) {
        self.charsets = cs;
        let t = |s: &str| Value::Text(s.to_string());
        self.vars
            .insert("character_set_client".into(), t(cs.client.name()));
        self.vars.insert(
            "character_set_connection".into(),
            t(cs.connection.charset().name()),
        );
        self.vars
            .insert("collation_connection".into(), t(cs.connection.name()));
        let results = cs.results.map_or(Value::Null, |r| t(r.name()));
        self.vars.insert("character_set_results".into(), results);
    }

    /// A session SET of one of the four variables; Ok(false) when `var` is not one of them.
    pub fn set_charset_variable(&mut self, var: &str, v: &Value) -> DbResult<bool> {
        let mut cs = self.charsets;
        match var {
            "character_set_results" if v.is_null() => cs.results = None,
            "character_set_results" => {
                cs.results = Some(client_charset_named(var, &value_name(var, v)?)?)
            }
            "character_set_client" => cs.client = client_charset_named(var, &value_name(var, v)?)?,
            "character_set_connection" => {
                cs.connection = client_charset_named(var, &value_name(var, v)?)?.default_collation()
            }
            "collation_connection" => {
                cs.connection = charset_clause::collation_named(&value_name(var, v)?)?
            }
            _ => return Ok(false),
        }
        self.set_connection_charsets(cs);
        Ok(true)
    }

    /// SET NAMES `charset` [COLLATE `collation`] (None: SET NAMES DEFAULT, the global values).
    pub fn set_names(&mut self, names: Option<(&str, Option<&str>)>) -> DbResult<()> {
        let coll = match names {
            None => {
                let g = self.engine.globals.read();
                let name = g
                    .get("collation_connection")
                    .and_then(crate::expr::eval::text_of);
                name.and_then(|n| Collation::from_name(&n))
                    .unwrap_or_default()
            }
            Some((charset, collate)) => {
                let cs = client_charset_named("character_set_client", charset)?;
                match collate {
                    None => cs.default_collation(),
                    Some(c) if c.eq_ignore_ascii_case("DEFAULT") => cs.default_collation(),
                    Some(c) => {
                        let coll = charset_clause::collation_named(c)?;
                        if coll.charset() != cs {
                            return Err(DbError::new(
                                ErrorCode::CollationCharsetMismatch,
                                format!(
                                    "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                                    coll.name(),
                                    cs.name()
                                ),
                            ));
                        }
                        coll
                    }
                }
            }
        };
        self.set_connection_charsets(ConnectionCharsets::of(coll));
        Ok(())
    }

    /// SET CHARACTER SET `charset` (None: DEFAULT): client and results `charset`, the connection
    /// the current database's (`collation_database`), as MariaDB.
    pub fn set_character_set(&mut self, charset: Option<&str>) -> DbResult<()> {
        let cs = match charset {
            Some(n) if !n.eq_ignore_ascii_case("DEFAULT") => {
                client_charset_named("character_set_client", n)?
            }
            _ => Charset::Utf8mb4,
        };
        let db = self
            .vars
            .get("collation_database")
            .and_then(crate::expr::eval::text_of)
            .and_then(|n| Collation::from_name(&n))
            .unwrap_or_default();
        self.set_connection_charsets(ConnectionCharsets {
            client: cs,
            connection: db,
            results: Some(cs),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_ids() {
        let l = ConnectionCharsets::from_handshake(8).unwrap();
        assert_eq!(l.client, Charset::Latin1);
        assert_eq!(l.results, Some(Charset::Latin1));
        assert_eq!(l.connection, Collation::Latin1SwedishCi);
        assert!(ConnectionCharsets::from_handshake(45).unwrap().is_utf8mb4());
        assert!(!ConnectionCharsets::from_handshake(33).unwrap().is_utf8mb4());
        assert_eq!(ConnectionCharsets::from_handshake(1), None);
    }

    #[test]
    fn names_refused_as_mariadb() {
        assert_eq!(
            client_charset_named("character_set_client", "ucs2")
                .unwrap_err()
                .code,
            ErrorCode::WrongValueForVar
        );
        assert_eq!(
            client_charset_named("character_set_client", "foo")
                .unwrap_err()
                .code,
            ErrorCode::UnknownCharacterSet
        );
        assert_eq!(
            value_name("character_set_client", &Value::Int(8)).unwrap(),
            "latin1"
        );
        assert_eq!(
            value_name("collation_connection", &Value::Int(48)).unwrap(),
            "latin1_general_ci"
        );
    }
}
