//! CREATE TEMPORARY TABLE: tables private to the session that created them.
//!
//! Owns: [`TempTables`] (a session's temporary tables by database and name, an overlay over the
//! catalog), the names of their trees ([`tree_name`], [`PREFIX`]), dropping them when the
//! session ends ([`TempTables::drop_all`]) and at engine start ([`orphans`]), and the session's
//! table lookup that puts the overlay first ([`Context::find_table`] and friends), so that a
//! temporary table shadows a permanent one of the same name in every statement.
//!
//! Protocol: design.md, "Temporary tables", invariants TMP1-TMP5: the reserved tree names (TMP1), the
//! definition kept in the session's memory only (TMP2), the drop of leftover trees when the engine opens
//! (TMP3), the write set cleared before the trees are dropped at session end (TMP4), and rows through the
//! session's write set and transaction, logged but not durable (TMP5).
//!
//! Divergences: DDL on a temporary table commits the open transaction and takes the schema lock
//! as DDL on a permanent table does (MariaDB does neither for CREATE/DROP TEMPORARY TABLE);
//! temporary tables are not listed by SHOW TABLES nor information_schema (as MariaDB 10.11).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::catalog::sequence_table;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::store::Store;

/// The name prefix of every temporary table's trees (TMP1).
pub use crate::catalog::{temp_tree_name as tree_name, TEMP_TREE_PREFIX as PREFIX};

/// Trees of `names` left by temporary tables of an earlier run (TMP3).
pub fn orphans(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| n.starts_with(PREFIX))
        .cloned()
        .collect()
}

/// A session's temporary tables.
#[derive(Default)]
pub struct TempTables {
    tables: BTreeMap<(String, String), Arc<TableDef>>,
    /// Counts changes of `tables` (what a prepared statement's planning memo checks: PLC2).
    generation: u64,
}

impl TempTables {
    pub fn get(&self, db: &str, name: &str) -> Option<Arc<TableDef>> {
        self.tables
            .get(&(db.to_string(), name.to_string()))
            .cloned()
    }
    /// Adds or replaces a definition (its `temporary` id set).
    pub fn put(&mut self, def: TableDef) -> Arc<TableDef> {
        debug_assert!(def.temporary.is_some());
        let def = Arc::new(def);
        self.generation += 1;
        self.tables
            .insert((def.db.clone(), def.name.clone()), def.clone());
        def
    }
    pub fn remove(&mut self, db: &str, name: &str) -> Option<Arc<TableDef>> {
        self.generation += 1;
        self.tables.remove(&(db.to_string(), name.to_string()))
    }
    /// Moves on with every change of the set of tables or of a definition.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }
    /// Forgets every table and drops its trees (TMP4: the caller cleared the write set). Errors
    /// are ignored: whatever is left is dropped at the next start (TMP3).
    pub fn drop_all(&mut self, store: &Store) {
        self.generation += 1;
        for (_, t) in std::mem::take(&mut self.tables) {
            for tree in t.all_trees() {
                let _ = store.drop_tree(&tree);
            }
        }
    }
}

impl Context {
    /// The table `db`.`name` as this session sees it: its temporary table, else the catalog's.
    pub fn find_table(&self, db: &str, name: &str) -> Option<Arc<TableDef>> {
        self.temp
            .get(db, name)
            .or_else(|| self.engine.catalog.table(db, name))
    }
    /// [`Context::find_table`], or 1146 if there is none; a permanent table is also checked against the
    /// table locks (design.md TLK1, TLK3): under LOCK TABLES it must be in the session's list (1100),
    /// otherwise the read waits while another session holds a WRITE lock on it.
    pub fn get_table(&self, db: &str, name: &str) -> DbResult<Arc<TableDef>> {
        let def = self.find_table(db, name).ok_or_else(|| {
            // A view is not a base table (design.md VIEW2); where views are read, the caller
            // looks for them first.
            // A sequence table is no table to write or describe: where it is read (FROM),
            // plan/from.rs finds it first.
            match self.engine.catalog.view(db, name) {
                Some(_) => DbError::wrong_object(db, name, "BASE TABLE"),
                None if sequence_table::parse(name).is_some() => {
                    sequence_table::refused_write(db, name)
                }
                None => DbError::no_table(db, name),
            }
        })?;
        self.check_table_lock(&def, name)?;
        Ok(def)
    }
    /// The table-lock part of [`Context::get_table`] for `def` (named `name` in the statement),
    /// which a statement does on each run, whether or not it found the definition anew.
    pub fn check_table_lock(&self, def: &TableDef, name: &str) -> DbResult<()> {
        if def.temporary.is_none() {
            let key = (def.db.clone(), def.name.clone());
            match &self.locked_tables {
                Some(list) if list.iter().any(|l| l.table == key) => {}
                Some(_) => return Err(crate::context::table_locks::not_locked(name)),
                None => {
                    let wait = self.metadata_wait();
                    self.engine.table_locks.before_read(self.id, &key, wait)?;
                }
            }
        }
        Ok(())
    }
    /// Publishes a new version of a definition: in the session's overlay for a temporary table,
    /// in the catalog (with its stored text `sql`) otherwise; its trees take its column layouts.
    pub fn store_table(&mut self, def: TableDef, sql: &str) -> DbResult<Arc<TableDef>> {
        // Its trees are written by its current layout from now on (design.md COL5).
        self.engine.store.set_column_layouts(def.column_layouts())?;
        if def.temporary.is_some() {
            Ok(self.temp.put(def))
        } else {
            // The counter first: the entry's durable write covers it (design.md AIC2, AIC3).
            self.engine.auto_inc_stored(&def)?;
            self.engine.catalog.put_table(def, sql)
        }
    }
    /// Removes a definition from where it lives (not its trees).
    pub fn forget_table(&mut self, def: &TableDef) -> DbResult<()> {
        if def.temporary.is_some() {
            self.temp.remove(&def.db, &def.name);
            Ok(())
        } else {
            self.engine.auto_inc_forgotten(def)?;
            self.engine.catalog.remove_table(&def.db, &def.name)
        }
    }
    /// A fresh id for a new temporary table's trees (TMP1).
    pub fn new_temp_id(&self) -> u64 {
        self.engine
            .temp_ids
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_trees_have_their_own_prefix() {
        assert_eq!(tree_name(7, 0, "PRIMARY"), "\u{0}temp/7/PRIMARY");
        assert_eq!(tree_name(7, 2, "k"), "\u{0}temp/7/@2/k");
        assert!(!crate::catalog::is_table_tree(&tree_name(7, 0, "k")));
        let names = vec![
            "test/t/PRIMARY".to_string(),
            tree_name(3, 0, "PRIMARY"),
            "\u{0}load/5/test/t/PRIMARY".to_string(),
        ];
        assert_eq!(orphans(&names), vec![tree_name(3, 0, "PRIMARY")]);
    }
}
