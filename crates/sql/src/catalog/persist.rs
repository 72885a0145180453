//! The catalog in memory and its persistence in the storage tree `__catalog`: databases and
//! tables here, users (users.rs) and foreign servers (server_def.rs) through the same tree.
//!
//! Keys: `D\0<db>` → the database's defaults (database_def.rs); `T\0<db>\0<table>` → the table's `SHOW CREATE TABLE`
//! text (table_entry.rs: with a header line when needed), parsed again at start-up by the same
//! code as user DDL, so the stored form is the one users see; `U\0<user>\0<host>` (or the older
//! `U\0<user>`) → an account (users.rs); `S\0<lower-case server name>` → a server (server_def.rs); `V\0<db>\0<view>` → a
//! view's definition (view_def.rs, view_store.rs); `R\0<db>\0<F|P>\0<name>` → a stored routine
//! (routine_def.rs, routine_store.rs); `A\0<db>\0<table>` → the
//! table's next AUTO_INCREMENT value, 8 bytes little-endian (design.md AIC1-AIC4). Entries of other kinds
//! are skipped at start-up, so an older server reads a newer catalog.
//!
//! Invariants: every change is written to the tree before the in-memory maps; a table's trees
//! exist whenever it is in the catalog; a tree whose name looks like a table's (`db/...`) but
//! that no catalog entry names is garbage left by a crash in the middle of DDL, and is dropped at
//! start-up ([`Catalog::orphan_trees`]). Temporary tables never have an entry here: a session
//! keeps them (temp_tables.rs).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use betula_storage::{Durability, Env, TreeHandle, TxnOptions};
use parking_lot::RwLock;

use crate::catalog::table_entry::{decode_table_entry, encode_table_entry};
use crate::catalog::{
    is_table_tree, DatabaseDef, RollupDef, ServerDef, TableDef, UserDef, ViewDef,
};
use crate::codec::row::RowLayout;
use crate::error::db_error::{DbError, DbResult};

/// The storage tree that holds the catalog.
pub const CATALOG_TREE: &str = "__catalog";

/// The in-memory maps, a copy of the tree's entries.
#[derive(Default)]
pub(super) struct State {
    pub(super) dbs: BTreeMap<String, DatabaseDef>,
    pub(super) tables: BTreeMap<(String, String), Arc<TableDef>>,
    /// Accounts by (user, host) (design.md ACC1).
    pub(super) users: BTreeMap<(String, String), UserDef>,
    pub(super) servers: BTreeMap<String, ServerDef>,
    /// Views by (database, name) (view_store.rs, design.md VIEW1).
    pub(super) views: BTreeMap<(String, String), Arc<ViewDef>>,
    /// Stored routines (routine_store.rs, design.md RTN1).
    pub(super) routines:
        BTreeMap<super::routine_store::RoutineKey, Arc<super::routine_def::RoutineDef>>,
}

/// Databases, tables, users and servers, in memory and in the catalog tree.
pub struct Catalog {
    pub(super) tree: TreeHandle,
    pub(super) state: RwLock<State>,
    /// Counts changes of `state` (version.rs).
    pub(super) version: std::sync::atomic::AtomicU64,
    /// The foreign keys by referenced table, as of a version (foreign_key_def.rs).
    pub(super) fk_refs: parking_lot::Mutex<Option<(u64, Arc<super::foreign_key_def::RefMap>)>>,
}

/// The tree key of an entry: its kind byte, then each part after a 0 byte.
pub(super) fn key(kind: u8, parts: &[&str]) -> Vec<u8> {
    let mut k = vec![kind];
    for p in parts {
        k.push(0);
        k.extend_from_slice(p.as_bytes());
    }
    k
}

impl Catalog {
    /// Opens (creating on first start) the catalog; `parse_table` turns stored CREATE TABLE text
    /// back into a definition.
    pub fn open(
        env: &Env,
        parse_table: impl Fn(&str, &str) -> DbResult<TableDef>,
    ) -> DbResult<Catalog> {
        let fresh = !env.tree_names().iter().any(|n| n == CATALOG_TREE);
        let tree = if fresh {
            env.create_tree(CATALOG_TREE, None)?
        } else {
            env.open_tree(CATALOG_TREE)?
        };
        let cat = Catalog {
            tree,
            state: RwLock::new(State::default()),
            version: Default::default(),
            fk_refs: Default::default(),
        };
        if fresh {
            cat.put_db("test", DatabaseDef::default())?;
            cat.put_user(UserDef {
                name: "root".into(),
                host: "%".into(),
                grants: vec!["*".into()],
                ..UserDef::default()
            })?;
        }
        cat.load(parse_table)?;
        Ok(cat)
    }

    /// Reads every entry of the tree into the in-memory maps.
    fn load(&self, parse_table: impl Fn(&str, &str) -> DbResult<TableDef>) -> DbResult<()> {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = self
            .tree
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false,
            )
            .collect::<Result<_, _>>()?;
        let mut st = self.write_state();
        let mut auto_incs = Vec::new();
        let mut rollups = Vec::new();
        for (k, v) in entries {
            let parts: Vec<String> = k[1..]
                .split(|b| *b == 0)
                .skip(1)
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect();
            match (k.first(), parts.as_slice()) {
                (Some(b'D'), [db]) => {
                    st.dbs.insert(db.clone(), DatabaseDef::decode(&v));
                }
                (Some(b'A'), [db, t]) => {
                    if let Ok(b) = <[u8; 8]>::try_from(v.as_slice()) {
                        auto_incs.push(((db.clone(), t.clone()), u64::from_le_bytes(b)));
                    }
                }
                (Some(b'T'), [db, _t]) => {
                    let text = String::from_utf8_lossy(&v);
                    let (h, sql) = decode_table_entry(&text)?;
                    let mut def = parse_table(db, sql)?;
                    def.generation = h.generation;
                    def.full_columns = h.full_columns.unwrap_or(def.columns.len());
                    def.key_format = h.key_format;
                    if let Some(rows) = &h.rows {
                        def.layout = RowLayout::from_text(&def.columns, rows)?;
                    }
                    if let Some(ids) = &h.parts {
                        def.set_part_ids(ids)?;
                    }
                    if let Some(r) = &h.rollup {
                        rollups.push(((def.db.clone(), def.name.clone()), r.clone()));
                    }
                    st.tables
                        .insert((def.db.clone(), def.name.clone()), Arc::new(def));
                }
                (Some(b'V'), [db, name]) => {
                    let def = ViewDef::decode(db, name, &v).ok_or_else(|| {
                        DbError::internal(format!("bad catalog entry for view {db}.{name}"))
                    })?;
                    st.views.insert((db.clone(), name.clone()), Arc::new(def));
                }
                (Some(b'R'), [db, kind, name]) => {
                    let def = super::routine_def::RoutineKind::from_letter(kind)
                        .and_then(|k| super::routine_def::RoutineDef::decode(db, k, &v))
                        .ok_or_else(|| {
                            DbError::internal(format!("bad catalog entry for routine {db}.{name}"))
                        })?;
                    st.routines
                        .insert((db.clone(), def.kind, name.clone()), Arc::new(def));
                }
                (Some(b'U'), [u]) => {
                    let def = UserDef::decode_legacy(u, &v);
                    // A new-form entry of the same account wins (ACC9).
                    st.users.entry((u.clone(), def.host.clone())).or_insert(def);
                }
                (Some(b'U'), [u, host]) => {
                    let def = UserDef::decode(u, host, &v).ok_or_else(|| {
                        DbError::internal(format!("bad catalog entry for account '{u}'@'{host}'"))
                    })?;
                    st.users.insert((u.clone(), host.clone()), def);
                }
                (Some(b'S'), [name]) => {
                    let def = ServerDef::decode(&v).ok_or_else(|| {
                        DbError::internal(format!("bad catalog entry for server {name}"))
                    })?;
                    st.servers.insert(name.clone(), def);
                }
                _ => {}
            }
        }
        // A roll-up names its base table's columns: resolved once every table is read.
        // A roll-up whose base table is gone (a crash in the middle of a DROP DATABASE) stays a
        // read-only table that no base row names, until DROP ROLLUP.
        for (name, text) in rollups {
            let mut def = RollupDef::from_text(&text)?;
            if let Some(base) = st.tables.get(&(name.0.clone(), def.base.clone())).cloned() {
                def.resolve(|c| base.col_index(c))?;
            }
            if let Some(t) = st.tables.get_mut(&name) {
                let mut t2 = (**t).clone();
                t2.rollup = Some(Arc::new(def));
                *t = Arc::new(t2);
            }
        }
        for (name, next) in auto_incs {
            if let Some(t) = st.tables.get(&name) {
                t.counters.auto_inc.store(next, Ordering::SeqCst);
                t.counters.auto_inc_persisted.store(next, Ordering::SeqCst);
            }
        }
        Ok(())
    }

    /// Writes (`Some`) or removes the persisted AUTO_INCREMENT counter of `db`.`table` in a
    /// transaction of its own that does not wait for the log sync: the next durable commit
    /// covers it, the log being written in order (design.md AIC2).
    pub fn write_auto_inc(
        &self,
        env: &Env,
        db: &str,
        table: &str,
        next: Option<u64>,
    ) -> DbResult<()> {
        let mut txn = env.begin(TxnOptions {
            durability: Some(Durability::NoSync),
            ..TxnOptions::default()
        })?;
        let k = key(b'A', &[db, table]);
        match next {
            Some(n) => txn.put(&self.tree, &k, &n.to_le_bytes())?,
            None => txn.delete(&self.tree, &k)?,
        }
        txn.commit()?;
        Ok(())
    }

    pub fn databases(&self) -> Vec<String> {
        self.state.read().dbs.keys().cloned().collect()
    }
    pub fn has_db(&self, db: &str) -> bool {
        self.state.read().dbs.contains_key(db)
    }
    /// Creates database `db`, or changes its definition (ALTER DATABASE).
    pub fn put_db(&self, db: &str, def: DatabaseDef) -> DbResult<()> {
        self.tree.put(&key(b'D', &[db]), &def.encode())?;
        self.write_state().dbs.insert(db.into(), def);
        Ok(())
    }
    /// The definition of database `db`, if it exists.
    pub fn db(&self, db: &str) -> Option<DatabaseDef> {
        self.state.read().dbs.get(db).cloned()
    }
    pub fn drop_db(&self, db: &str) -> DbResult<()> {
        self.tree.delete(&key(b'D', &[db]))?;
        self.write_state().dbs.remove(db);
        Ok(())
    }
    pub fn tables(&self, db: &str) -> Vec<Arc<TableDef>> {
        self.state
            .read()
            .tables
            .iter()
            .filter(|((d, _), _)| d == db)
            .map(|(_, t)| t.clone())
            .collect()
    }
    pub fn all_tables(&self) -> Vec<Arc<TableDef>> {
        self.state.read().tables.values().cloned().collect()
    }
    pub fn table(&self, db: &str, name: &str) -> Option<Arc<TableDef>> {
        self.state
            .read()
            .tables
            .get(&(db.to_string(), name.to_string()))
            .cloned()
    }
    /// The roll-ups of table `db`.`base` (design.md RUP1).
    pub fn rollups_of(&self, db: &str, base: &str) -> Vec<Arc<TableDef>> {
        let st = self.state.read();
        let lo = (db.to_string(), String::new());
        st.tables
            .range(lo..)
            .take_while(|((d, _), _)| d == db)
            .filter(|(_, t)| t.rollup.as_ref().is_some_and(|r| r.base == base))
            .map(|(_, t)| t.clone())
            .collect()
    }
    pub fn get_table(&self, db: &str, name: &str) -> DbResult<Arc<TableDef>> {
        self.table(db, name)
            .ok_or_else(|| DbError::no_table(db, name))
    }
    /// Stores (creates or replaces) a table definition with its CREATE TABLE text.
    pub fn put_table(&self, def: TableDef, sql: &str) -> DbResult<Arc<TableDef>> {
        self.tree.put(
            &key(b'T', &[&def.db, &def.name]),
            &encode_table_entry(&def, sql)?,
        )?;
        let def = Arc::new(def);
        self.write_state()
            .tables
            .insert((def.db.clone(), def.name.clone()), def.clone());
        Ok(def)
    }
    pub fn remove_table(&self, db: &str, name: &str) -> DbResult<()> {
        self.tree.delete(&key(b'T', &[db, name]))?;
        self.write_state()
            .tables
            .remove(&(db.to_string(), name.to_string()));
        Ok(())
    }
    /// Trees of `names` that look like a table's but that no table of the catalog owns.
    pub fn orphan_trees(&self, names: &[String]) -> Vec<String> {
        let owned: std::collections::HashSet<String> = self
            .all_tables()
            .iter()
            .flat_map(|t| t.all_trees())
            .collect();
        names
            .iter()
            .filter(|n| is_table_tree(n) && !owned.contains(*n))
            .cloned()
            .collect()
    }
}
