//! Stored routines in the catalog: the `R\0<db>\0<F|P>\0<lower-case name>` entries of the
//! `__catalog` tree and the in-memory map beside the views (design.md RTN1).
//!
//! Invariants: as for views, an entry is written to the tree before the map changes, and a put
//! or a delete is one write of one key; the map is keyed like the tree (database, kind, name in
//! lower case), so a lookup by any spelling of a name finds the one routine of that name.

use std::sync::Arc;

use super::persist::key;
use crate::catalog::routine_def::{RoutineDef, RoutineKind};
use crate::catalog::Catalog;
use crate::error::db_error::DbResult;

/// A routine's map key: database, kind, lower-case name.
pub(super) type RoutineKey = (String, RoutineKind, String);

fn map_key(db: &str, kind: RoutineKind, name: &str) -> RoutineKey {
    (db.to_string(), kind, name.to_lowercase())
}

impl Catalog {
    /// The routine `db`.`name` of `kind`, if there is one (names compare case-insensitively).
    pub fn routine(&self, db: &str, kind: RoutineKind, name: &str) -> Option<Arc<RoutineDef>> {
        self.state
            .read()
            .routines
            .get(&map_key(db, kind, name))
            .cloned()
    }

    /// Every routine, by database, kind and name.
    pub fn all_routines(&self) -> Vec<Arc<RoutineDef>> {
        self.state.read().routines.values().cloned().collect()
    }

    /// The routines of database `db`.
    pub fn routines(&self, db: &str) -> Vec<Arc<RoutineDef>> {
        self.state
            .read()
            .routines
            .values()
            .filter(|r| r.db == db)
            .cloned()
            .collect()
    }

    /// Creates or replaces a routine (one write).
    pub fn put_routine(&self, def: RoutineDef) -> DbResult<Arc<RoutineDef>> {
        let [db, kind, name] = def.key_parts();
        self.tree
            .put(&key(b'R', &[&db, &kind, &name]), &def.encode())?;
        let def = Arc::new(def);
        self.write_state()
            .routines
            .insert(map_key(&def.db, def.kind, &def.name), def.clone());
        Ok(def)
    }

    /// Drops a routine (one delete).
    pub fn remove_routine(&self, db: &str, kind: RoutineKind, name: &str) -> DbResult<()> {
        let lower = name.to_lowercase();
        self.tree.delete(&key(b'R', &[db, kind.letter(), &lower]))?;
        self.write_state().routines.remove(&map_key(db, kind, name));
        Ok(())
    }
}
