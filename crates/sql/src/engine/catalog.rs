//! The catalog: databases, tables (with their indexes and storage trees) and users, kept in
//! memory and persisted in the storage tree `__catalog`.
//!
//! Persistence: key `D\0<db>` → empty (a database); `T\0<db>\0<table>` → the table's
//! `SHOW CREATE TABLE` text, parsed again at start-up by the same code as user DDL, so the stored
//! form is the one users see; `U\0<user>` → `<hex SHA1(SHA1(pw)) or empty>\n<db grant>\n...`.
//!
//! Trees: the primary tree of table `t` in `db` is `db/t/PRIMARY`, a secondary index `k` is
//! `db/t/k`. Invariants: a `TableDef` is immutable once published (DDL builds a new one and
//! swaps the `Arc`); its trees exist whenever it is in the catalog; the AUTO_INCREMENT and hidden
//! row-id counters are shared by every version of the definition (they live in `Counters`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use betula_storage::{Codec, Env, TreeHandle};
use parking_lot::RwLock;

use super::dberror::{DbError, DbResult};
use crate::key_codec::{encode_key, KeyColumn};
use crate::row_codec::RowLayout;
use crate::types::{Column, IntWidth, SqlType};
use crate::value::Value;

pub const CATALOG_TREE: &str = "__catalog";

#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub columns: Vec<usize>,
    pub unique: bool,
    /// `COMMENT '...'` of the index (SHOW INDEX's Index_comment).
    pub comment: Option<String>,
}

#[derive(Debug, Default)]
pub struct Counters {
    /// Next AUTO_INCREMENT value.
    pub auto_inc: AtomicU64,
    /// Next hidden row id (tables without a primary key).
    pub row_id: AtomicU64,
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub db: String,
    pub name: String,
    pub columns: Vec<Column>,
    /// Column comments, parallel to `columns`.
    pub comments: Vec<Option<String>>,
    /// `DEFAULT CURRENT_TIMESTAMP` / `ON UPDATE CURRENT_TIMESTAMP`, parallel to `columns`.
    pub default_now: Vec<bool>,
    pub on_update_now: Vec<bool>,
    /// Primary key columns; empty = hidden row id.
    pub pk: Vec<usize>,
    pub indexes: Vec<IndexDef>,
    /// COMPRESSION / ROW_FORMAT as written, and the codec it maps to.
    pub compression: Option<String>,
    pub row_format: Option<String>,
    pub codec: Option<Codec>,
    pub comment: Option<String>,
    /// Table options kept only to be shown again (MIN_ROWS, MAX_ROWS, AVG_ROW_LENGTH, PACK_KEYS,
    /// CHECKSUM, DELAY_KEY_WRITE, KEY_BLOCK_SIZE, CONNECTION): upper-case name and the value as
    /// SHOW CREATE TABLE prints it, in MariaDB's order (see `ddl::SHOWN_OPTIONS`).
    pub options: Vec<(String, String)>,
    pub layout: RowLayout,
    pub counters: Arc<Counters>,
}

pub fn tree_name(db: &str, table: &str, index: &str) -> String {
    format!("{db}/{table}/{index}")
}

fn row_id_column() -> KeyColumn {
    KeyColumn::from_column(&Column::new(
        0,
        "__row_id",
        SqlType::Int {
            width: IntWidth::Big,
            unsigned: true,
        },
    ))
}

impl TableDef {
    pub fn col_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
    pub fn primary_tree(&self) -> String {
        tree_name(&self.db, &self.name, "PRIMARY")
    }
    pub fn index_tree(&self, i: usize) -> String {
        tree_name(&self.db, &self.name, &self.indexes[i].name)
    }
    pub fn all_trees(&self) -> Vec<String> {
        let mut v = vec![self.primary_tree()];
        v.extend((0..self.indexes.len()).map(|i| self.index_tree(i)));
        v
    }
    pub fn auto_inc_col(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }
    /// Key columns of the primary key (the hidden row id if there is none).
    pub fn pk_key_columns(&self) -> Vec<KeyColumn> {
        if self.pk.is_empty() {
            vec![row_id_column()]
        } else {
            self.pk
                .iter()
                .map(|&i| KeyColumn::from_column(&self.columns[i]))
                .collect()
        }
    }
    pub fn index_key_columns(&self, i: usize) -> Vec<KeyColumn> {
        let mut v: Vec<KeyColumn> = self.indexes[i]
            .columns
            .iter()
            .map(|&c| KeyColumn::from_column(&self.columns[c]))
            .collect();
        v.extend(self.pk_key_columns());
        v
    }
    /// The primary key bytes of `row`; a table without primary key draws a new row id.
    pub fn encode_pk(&self, row: &[Value]) -> DbResult<Vec<u8>> {
        let mut out = Vec::new();
        if self.pk.is_empty() {
            let id = self.counters.row_id.fetch_add(1, Ordering::SeqCst);
            encode_key(&self.pk_key_columns(), &[Value::UInt(id)], &mut out)?;
        } else {
            let vals: Vec<Value> = self.pk.iter().map(|&i| row[i].clone()).collect();
            encode_key(&self.pk_key_columns(), &vals, &mut out)?;
        }
        Ok(out)
    }
    /// The index-column prefix of secondary index `i` for `row`.
    pub fn encode_index_prefix(&self, i: usize, row: &[Value]) -> DbResult<Vec<u8>> {
        let cols = &self.indexes[i].columns;
        let kc: Vec<KeyColumn> = cols
            .iter()
            .map(|&c| KeyColumn::from_column(&self.columns[c]))
            .collect();
        let vals: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
        let mut out = Vec::new();
        encode_key(&kc, &vals, &mut out)?;
        Ok(out)
    }
    /// The full key of `row` in secondary index `i`: index columns then primary key bytes.
    pub fn encode_index_key(&self, i: usize, row: &[Value], pk: &[u8]) -> DbResult<Vec<u8>> {
        let mut k = self.encode_index_prefix(i, row)?;
        k.extend_from_slice(pk);
        Ok(k)
    }
    /// MySQL's text for a key value in duplicate-key messages (`1-abc`).
    pub fn dup_entry(&self, cols: &[usize], row: &[Value]) -> String {
        cols.iter()
            .map(|&c| {
                row[c]
                    .to_text(Some(&self.columns[c].sql_type))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|| "NULL".into())
            })
            .collect::<Vec<_>>()
            .join("-")
    }
}

#[derive(Debug, Clone, Default)]
pub struct UserDef {
    pub name: String,
    pub password_hash: Option<[u8; 20]>,
    /// Databases the user may use (`*` = all).
    pub grants: Vec<String>,
}

impl UserDef {
    pub fn may_use(&self, db: &str) -> bool {
        self.name == "root"
            || db.eq_ignore_ascii_case("information_schema")
            || self.grants.iter().any(|g| g == "*" || g == db)
    }
    fn encode(&self) -> Vec<u8> {
        let mut s = match &self.password_hash {
            Some(h) => h.iter().map(|b| format!("{b:02x}")).collect(),
            None => String::new(),
        };
        for g in &self.grants {
            s.push('\n');
            s.push_str(g);
        }
        s.into_bytes()
    }
    fn decode(name: &str, v: &[u8]) -> UserDef {
        let s = String::from_utf8_lossy(v);
        let mut lines = s.split('\n');
        let hash = lines.next().unwrap_or("");
        let password_hash = if hash.len() == 40 {
            let mut h = [0u8; 20];
            for (i, b) in h.iter_mut().enumerate() {
                *b = u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).unwrap_or(0);
            }
            Some(h)
        } else {
            None
        };
        UserDef {
            name: name.into(),
            password_hash,
            grants: lines.map(String::from).collect(),
        }
    }
}

#[derive(Default)]
struct State {
    dbs: BTreeMap<String, ()>,
    tables: BTreeMap<(String, String), Arc<TableDef>>,
    users: BTreeMap<String, UserDef>,
}

pub struct Catalog {
    tree: TreeHandle,
    state: RwLock<State>,
}

fn key(kind: u8, parts: &[&str]) -> Vec<u8> {
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
        };
        if fresh {
            cat.create_db("test")?;
            cat.put_user(UserDef {
                name: "root".into(),
                password_hash: None,
                grants: vec!["*".into()],
            })?;
        }
        let entries: Vec<(Vec<u8>, Vec<u8>)> = cat
            .tree
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false,
            )
            .collect::<Result<_, _>>()?;
        {
            let mut st = cat.state.write();
            for (k, v) in entries {
                let parts: Vec<String> = k[1..]
                    .split(|b| *b == 0)
                    .skip(1)
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect();
                match (k.first(), parts.as_slice()) {
                    (Some(b'D'), [db]) => {
                        st.dbs.insert(db.clone(), ());
                    }
                    (Some(b'T'), [db, _t]) => {
                        let sql = String::from_utf8_lossy(&v);
                        let def = parse_table(db, &sql)?;
                        st.tables
                            .insert((def.db.clone(), def.name.clone()), Arc::new(def));
                    }
                    (Some(b'U'), [u]) => {
                        st.users.insert(u.clone(), UserDef::decode(u, &v));
                    }
                    _ => {}
                }
            }
        }
        Ok(cat)
    }

    pub fn databases(&self) -> Vec<String> {
        self.state.read().dbs.keys().cloned().collect()
    }
    pub fn has_db(&self, db: &str) -> bool {
        self.state.read().dbs.contains_key(db)
    }
    pub fn create_db(&self, db: &str) -> DbResult<()> {
        self.tree.put(&key(b'D', &[db]), b"")?;
        self.state.write().dbs.insert(db.into(), ());
        Ok(())
    }
    pub fn drop_db(&self, db: &str) -> DbResult<()> {
        self.tree.delete(&key(b'D', &[db]))?;
        self.state.write().dbs.remove(db);
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
    pub fn get_table(&self, db: &str, name: &str) -> DbResult<Arc<TableDef>> {
        self.table(db, name)
            .ok_or_else(|| DbError::no_table(db, name))
    }
    /// Stores (creates or replaces) a table definition with its CREATE TABLE text.
    pub fn put_table(&self, def: TableDef, sql: &str) -> DbResult<Arc<TableDef>> {
        self.tree
            .put(&key(b'T', &[&def.db, &def.name]), sql.as_bytes())?;
        let def = Arc::new(def);
        self.state
            .write()
            .tables
            .insert((def.db.clone(), def.name.clone()), def.clone());
        Ok(def)
    }
    pub fn remove_table(&self, db: &str, name: &str) -> DbResult<()> {
        self.tree.delete(&key(b'T', &[db, name]))?;
        self.state
            .write()
            .tables
            .remove(&(db.to_string(), name.to_string()));
        Ok(())
    }
    pub fn user(&self, name: &str) -> Option<UserDef> {
        self.state.read().users.get(name).cloned()
    }
    pub fn users(&self) -> Vec<UserDef> {
        self.state.read().users.values().cloned().collect()
    }
    pub fn put_user(&self, u: UserDef) -> DbResult<()> {
        self.tree.put(&key(b'U', &[&u.name]), &u.encode())?;
        self.state.write().users.insert(u.name.clone(), u);
        Ok(())
    }
    pub fn drop_user(&self, name: &str) -> DbResult<bool> {
        let existed = self.state.write().users.remove(name).is_some();
        if existed {
            self.tree.delete(&key(b'U', &[name]))?;
        }
        Ok(existed)
    }
}
