//! Views in the catalog: the `V\0<db>\0<view>` entries of the `__catalog` tree and the
//! in-memory map beside the tables (design.md VIEW1, VIEW2).
//!
//! Invariants: as for tables, an entry is written to the tree before the map changes; a put or a
//! delete is one write of one key, and a rename is one storage transaction that deletes the old
//! key and puts the new one, so a crash leaves exactly one of the two names.

use std::sync::Arc;

use betula_storage::{Env, TxnOptions};

use super::persist::key;
use crate::catalog::{Catalog, ViewDef};
use crate::error::db_error::DbResult;

impl Catalog {
    /// The view `db`.`name`, if there is one.
    pub fn view(&self, db: &str, name: &str) -> Option<Arc<ViewDef>> {
        self.state
            .read()
            .views
            .get(&(db.to_string(), name.to_string()))
            .cloned()
    }

    /// The views of database `db`, by name.
    pub fn views(&self, db: &str) -> Vec<Arc<ViewDef>> {
        let st = self.state.read();
        let lo = (db.to_string(), String::new());
        st.views
            .range(lo..)
            .take_while(|((d, _), _)| d == db)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Whether `db` holds a table or a view named `name` (VIEW2).
    pub fn name_taken(&self, db: &str, name: &str) -> bool {
        self.table(db, name).is_some() || self.view(db, name).is_some()
    }

    /// Creates or replaces a view (one write).
    pub fn put_view(&self, def: ViewDef) -> DbResult<Arc<ViewDef>> {
        self.tree
            .put(&key(b'V', &[&def.db, &def.name]), &def.encode())?;
        let def = Arc::new(def);
        self.write_state()
            .views
            .insert((def.db.clone(), def.name.clone()), def.clone());
        Ok(def)
    }

    /// Drops a view (one delete).
    pub fn remove_view(&self, db: &str, name: &str) -> DbResult<()> {
        self.tree.delete(&key(b'V', &[db, name]))?;
        self.write_state()
            .views
            .remove(&(db.to_string(), name.to_string()));
        Ok(())
    }

    /// Renames view `old` to `new`'s database and name in one transaction (VIEW1).
    pub fn rename_view(&self, env: &Env, old: &ViewDef, new: ViewDef) -> DbResult<()> {
        let mut txn = env.begin(TxnOptions::default())?;
        txn.delete(&self.tree, &key(b'V', &[&old.db, &old.name]))?;
        txn.put(&self.tree, &key(b'V', &[&new.db, &new.name]), &new.encode())?;
        txn.commit()?;
        let mut st = self.write_state();
        st.views.remove(&(old.db.clone(), old.name.clone()));
        st.views
            .insert((new.db.clone(), new.name.clone()), Arc::new(new));
        Ok(())
    }
}
