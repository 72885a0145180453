//! Where a new database's and a new table's character set come from (MariaDB's inheritance
//! server → database → table → column): the session's `collation_server` for CREATE DATABASE,
//! the database's default for CREATE TABLE, and the `character_set_database` /
//! `collation_database` variables that show the current database's; the server's default set at
//! start ([`Engine::set_server_collation`]).
//!
//! Invariant: `character_set_server` and `collation_server` always name a pair that belongs
//! together (setting one sets the other), as do the two database variables.

use super::engine::Engine;
use super::Context;
use crate::types::collation::Collation;
use crate::types::value::Value;

impl Context {
    /// The collation CREATE DATABASE gives a database that names none (`collation_server`).
    pub fn server_collation(&self) -> Collation {
        self.vars
            .get("collation_server")
            .and_then(crate::expr::eval::text_of)
            .and_then(|n| Collation::from_name(&n))
            .unwrap_or_default()
    }

    /// The default collation of database `db` (utf8mb4_general_ci for information_schema).
    pub fn database_collation(&self, db: &str) -> Collation {
        self.engine
            .catalog
            .db(db)
            .map(|d| d.collation)
            .unwrap_or_default()
    }

    /// Sets `character_set_database` / `collation_database` to the current database's defaults
    /// (the server's when there is none), as MariaDB does on USE.
    pub fn refresh_database_charset(&mut self) {
        let coll = match &self.db {
            Some(db) => self.database_collation(db),
            None => self.server_collation(),
        };
        set_pair(&mut self.vars, "database", coll);
    }
}

impl Engine {
    /// Makes `coll` the server's default collation from its start (the `character_set_server` /
    /// `collation_server` settings): the global server pair, and the global database pair that a
    /// session shows while no database is selected, as MariaDB sets both from its my.cnf. The
    /// connection's variables come from the client's handshake (connection_charset.rs).
    pub fn set_server_collation(&self, coll: Collation) {
        let mut globals = self.globals.write();
        set_pair(&mut globals, "server", coll);
        set_pair(&mut globals, "database", coll);
    }
}

/// Stores `coll` in `character_set_<which>` and `collation_<which>`.
pub fn set_pair(vars: &mut std::collections::HashMap<String, Value>, which: &str, coll: Collation) {
    vars.insert(
        format!("character_set_{which}"),
        Value::Text(coll.charset().name().into()),
    );
    vars.insert(
        format!("collation_{which}"),
        Value::Text(coll.name().into()),
    );
}
