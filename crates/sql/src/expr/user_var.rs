//! A connection's user variables (`@name`) as expressions read and assign them: [`UserVars`],
//! the connection's variables (the context holds one, clones share it), and [`UserVarSlot`],
//! one variable of them that an [`crate::expr::Expr::UserVar`] reads or an
//! [`crate::expr::Expr::SetUserVar`] (`@name := expr`) assigns while rows are evaluated.
//!
//! Invariants: names are kept in lower case (MariaDB's user variables are case-insensitive); a
//! variable never set reads as NULL. An assignment is seen at once by every later read of the
//! same statement that goes through a slot, and by the connection's later statements.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::types::value::Value;

/// The user variables of one connection.
#[derive(Clone, Default)]
pub struct UserVars(Arc<Mutex<HashMap<String, Value>>>);

impl UserVars {
    /// The value of `@name` (NULL if it was never set).
    pub fn get(&self, name: &str) -> Value {
        self.0
            .lock()
            .get(&name.to_ascii_lowercase())
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Whether `@name` was ever set.
    pub fn contains(&self, name: &str) -> bool {
        self.0.lock().contains_key(&name.to_ascii_lowercase())
    }

    /// Sets `@name`.
    pub fn set(&self, name: &str, v: Value) {
        self.0.lock().insert(name.to_ascii_lowercase(), v);
    }

    /// Forgets every variable (a connection reset).
    pub fn clear(&self) {
        self.0.lock().clear();
    }

    /// The slot of `@name` in these variables.
    pub fn slot(&self, name: &str) -> UserVarSlot {
        UserVarSlot {
            name: name.to_ascii_lowercase(),
            vars: self.clone(),
        }
    }
}

/// One user variable of a connection, read or assigned while a statement runs.
#[derive(Clone)]
pub struct UserVarSlot {
    name: String,
    vars: UserVars,
}

impl UserVarSlot {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn get(&self) -> Value {
        self.vars.get(&self.name)
    }
    pub fn set(&self, v: Value) {
        self.vars.set(&self.name, v)
    }
}

impl fmt::Debug for UserVarSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.name)
    }
}

/// Two slots are the same expression when they name the same variable.
impl PartialEq for UserVarSlot {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_share_the_connections_variables() {
        let vars = UserVars::default();
        let slot = vars.slot("K");
        assert_eq!(slot.get(), Value::Null);
        slot.set(Value::Int(3));
        assert_eq!(vars.get("k"), Value::Int(3));
        vars.set("k", Value::Text("x".into()));
        assert_eq!(slot.get(), Value::Text("x".into()));
        assert!(vars.contains("K"));
    }
}
