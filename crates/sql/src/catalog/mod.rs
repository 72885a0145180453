//! The catalog: databases, tables (with their indexes and storage trees), users and foreign
//! servers, kept in memory and persisted in the storage tree `__catalog`.
//!
//! Persistence: key `D\0<db>` → empty (a database); `T\0<db>\0<table>` → the table's
//! `SHOW CREATE TABLE` text, parsed again at start-up by the same code as user DDL, so the stored
//! form is the one users see, preceded by the header line
//! `#betula generation=<n> full_columns=<k> keys=<f>\n` when the table's trees are of
//! generation n > 0 (see below), old rows lack columns, or its key format f is not 1
//! ([`TableDef::key_format`]); `U\0<user>` → `<hex SHA1(SHA1(pw)) or empty>\n<db
//! grant>\n...`; `S\0<lower-case server name>` → name, wrapper, then option name/value pairs, each
//! a u32 little-endian length and the UTF-8 bytes ([`ServerDef`]). Entries of other kinds are
//! skipped at start-up, so an older server reads a newer catalog.
//!
//! Trees: the primary tree of table `t` in `db` is `db/t/PRIMARY`, a secondary index `k` is
//! `db/t/k` (generation 0). A table rebuild (rebuild.rs) writes its rows into trees of the next
//! generation n, `db/t/@n/PRIMARY` and `db/t/@n/k` (4 parts: no name of generation 0 can be
//! one, as names never contain `/`), then switches by writing the catalog entry once.
//! Invariants: a `TableDef` is immutable once published (DDL builds a new one and swaps the
//! `Arc`); its trees exist whenever it is in the catalog; the AUTO_INCREMENT and hidden row-id
//! counters are shared by every version of the definition (they live in `Counters`); a tree
//! whose name looks like a table's (`db/...`) but that no catalog entry names is garbage left by
//! a crash in the middle of DDL, and is dropped at start-up ([`Catalog::orphan_trees`]).
//! Temporary tables never have an entry here: a session keeps them (temp_tables.rs), their trees
//! are named `\0temp/<id>/...` ([`TableDef::temporary`]) and are not table trees in the sense
//! above.

pub mod charset_clause;
pub mod create_table;
pub mod index_entry;
pub mod key_parts;
pub mod type_text;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use betula_storage::{Codec, Env, TreeHandle};
use parking_lot::RwLock;

use crate::codec::key::{encode_key, KeyColumn};
use crate::codec::row::RowLayout;
use crate::error::db_error::{DbError, DbResult};
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

pub const CATALOG_TREE: &str = "__catalog";

#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub columns: Vec<usize>,
    /// Prefix length of each column (`KEY (c(10))`, SHOW INDEX's Sub_part), parallel to
    /// `columns`: characters for text, bytes for binary types; `None` = the whole value.
    pub prefix: Vec<Option<u32>>,
    pub unique: bool,
    /// `COMMENT '...'` of the index (SHOW INDEX's Index_comment).
    pub comment: Option<String>,
    /// The index type as declared (`USING HASH` → `HASH`), kept for SHOW CREATE TABLE and
    /// SHOW INDEX ([`IndexDef::index_type`]). Every index is a B-tree whatever it says
    /// (docs/mysql-compat.md).
    pub using: Option<String>,
}

impl IndexDef {
    /// A secondary index over whole column values, of the default type.
    pub fn new(name: impl Into<String>, columns: Vec<usize>, unique: bool) -> IndexDef {
        let prefix = vec![None; columns.len()];
        IndexDef {
            name: name.into(),
            columns,
            prefix,
            unique,
            comment: None,
            using: None,
        }
    }
    /// SHOW INDEX's Index_type, as MariaDB's InnoDB shows it: HASH for a UNIQUE key declared
    /// USING HASH (MariaDB's hash-based unique key), BTREE otherwise (InnoDB turns a non-unique
    /// HASH index into a B-tree).
    pub fn index_type(&self) -> &str {
        match self.using.as_deref() {
            Some("HASH") if self.unique => "HASH",
            _ => "BTREE",
        }
    }
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
    /// Prefix lengths of the primary key columns, parallel to `pk` (as [`IndexDef::prefix`]).
    pub pk_prefix: Vec<Option<u32>>,
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
    /// Generation of the table's trees (0 for a table never rebuilt).
    pub generation: u64,
    /// Every row of the primary tree stores at least this many columns. Columns after them were
    /// added in place (instant ADD COLUMN): older rows lack them and read their current default,
    /// so changing such a column's default needs a rebuild.
    pub full_columns: usize,
    /// The table's default collation (`DEFAULT CHARSET=... COLLATE=...`): text columns declared
    /// without a character set or collation take it.
    pub collation: Collation,
    /// `ENGINE=` as declared when it names another engine Betula stands in for (MEMORY, MyISAM,
    /// Aria, ...), shown again by SHOW CREATE TABLE; `None` = Betula (also for InnoDB).
    pub engine: Option<String>,
    /// `Some(id)` for a temporary table (temp_tables.rs): private to the session that created
    /// it, its trees named `\0temp/<id>/...` instead of after the table.
    pub temporary: Option<u64>,
    /// Layout of the table's keys and index entries ([`KEY_FORMAT`] for tables created or
    /// rebuilt by this version; 1 for tables written before key formats existed). Format 2:
    /// ENUM/SET keys are member numbers / bitmasks, and secondary index entries carry the text
    /// of key columns whose key does not decode (index_entry.rs). Fixed for the life of the
    /// table's trees: only a rebuild (new generation) changes it.
    pub key_format: u8,
}

/// The key format new and rebuilt tables are written in (see [`TableDef::key_format`]).
pub const KEY_FORMAT: u8 = 2;

pub fn tree_name(db: &str, table: &str, index: &str) -> String {
    format!("{db}/{table}/{index}")
}

/// The tree of `index` (`PRIMARY` or a secondary index name) in generation `generation`.
pub fn tree_name_gen(db: &str, table: &str, generation: u64, index: &str) -> String {
    if generation == 0 {
        tree_name(db, table, index)
    } else {
        format!("{db}/{table}/@{generation}/{index}")
    }
}

/// Whether a tree name has the shape of a table's tree (`db/t/index` or `db/t/@n/index`), as
/// opposed to the catalog and the storage layer's own trees.
pub fn is_table_tree(name: &str) -> bool {
    !name.starts_with('\0') && name.split('/').count() >= 3
}

const HEADER: &str = "#betula ";

/// The stored value of a table entry: a header line when the generation is not 0, some
/// columns are missing from old rows or the key format is not 1
/// (`#betula generation=N full_columns=K keys=F`), then the CREATE TABLE text.
fn encode_table_entry(t: &TableDef, sql: &str) -> Vec<u8> {
    if t.generation == 0 && t.full_columns == t.columns.len() && t.key_format == 1 {
        sql.as_bytes().to_vec()
    } else {
        format!(
            "{HEADER}generation={} full_columns={} keys={}\n{sql}",
            t.generation, t.full_columns, t.key_format
        )
        .into_bytes()
    }
}

/// What a stored table entry's header says (absent pairs: `None`).
#[derive(Debug, PartialEq)]
struct EntryHeader {
    generation: u64,
    full_columns: Option<usize>,
    /// The key format; no `keys` pair means format 1 (written before formats existed).
    key_format: u8,
}

/// The header of a stored table entry and its CREATE TABLE text. Unknown `key=value` pairs of
/// the header are ignored (written by a newer version); a key format this version does not know
/// is an error, as its keys would be misread.
fn decode_table_entry(v: &str) -> DbResult<(EntryHeader, &str)> {
    let mut h = EntryHeader {
        generation: 0,
        full_columns: None,
        key_format: 1,
    };
    let Some(rest) = v.strip_prefix(HEADER) else {
        return Ok((h, v));
    };
    let bad = || DbError::internal(format!("bad catalog entry: {}", &v[..v.len().min(60)]));
    let (head, sql) = rest.split_once('\n').ok_or_else(bad)?;
    for pair in head.split(' ') {
        let (k, n) = pair.split_once('=').ok_or_else(bad)?;
        match k {
            "generation" => h.generation = n.parse().map_err(|_| bad())?,
            "full_columns" => h.full_columns = Some(n.parse().map_err(|_| bad())?),
            "keys" => {
                h.key_format = n.parse().map_err(|_| bad())?;
                if !(1..=KEY_FORMAT).contains(&h.key_format) {
                    return Err(bad());
                }
            }
            _ => {}
        }
    }
    Ok((h, sql))
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
    /// The tree of `index` (`PRIMARY` or a secondary index name) in the table's generation.
    fn tree(&self, index: &str) -> String {
        match self.temporary {
            Some(id) => crate::context::temp_tables::tree_name(id, self.generation, index),
            None => tree_name_gen(&self.db, &self.name, self.generation, index),
        }
    }
    pub fn primary_tree(&self) -> String {
        self.tree("PRIMARY")
    }
    pub fn index_tree(&self, i: usize) -> String {
        self.tree(&self.indexes[i].name)
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
            (0..self.pk.len())
                .map(|p| self.key_column(None, p))
                .collect()
        }
    }
    /// Key column `pos` of the primary key (`None`) or of secondary index `ix`, with its prefix.
    pub fn key_column(&self, ix: Option<usize>, pos: usize) -> KeyColumn {
        let (cols, prefix) = match ix {
            None => (&self.pk, &self.pk_prefix),
            Some(i) => (&self.indexes[i].columns, &self.indexes[i].prefix),
        };
        let c = &self.columns[cols[pos]];
        let kc = KeyColumn::from_column(c).with_prefix(prefix.get(pos).copied().flatten());
        if self.key_format >= 2 {
            kc.by_member_code(&c.members)
        } else {
            kc
        }
    }
    /// Whether some column of the key (`None` = primary) is indexed on a prefix only.
    pub fn has_prefix(&self, ix: Option<usize>) -> bool {
        let prefix = match ix {
            None => &self.pk_prefix,
            Some(i) => &self.indexes[i].prefix,
        };
        prefix.iter().any(Option::is_some)
    }
    pub fn index_key_columns(&self, i: usize) -> Vec<KeyColumn> {
        let mut v: Vec<KeyColumn> = (0..self.indexes[i].columns.len())
            .map(|p| self.key_column(Some(i), p))
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
        let kc: Vec<KeyColumn> = (0..cols.len())
            .map(|p| self.key_column(Some(i), p))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_round_trip_their_header() {
        let mut t = crate::context::engine::test_table();
        let h = |generation, full_columns, key_format| EntryHeader {
            generation,
            full_columns,
            key_format,
        };
        let sql = "CREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=Betula";
        t.key_format = 1;
        assert_eq!(encode_table_entry(&t, sql), sql.as_bytes());
        assert_eq!(decode_table_entry(sql).unwrap(), (h(0, None, 1), sql));
        t.generation = 7;
        t.full_columns = 2;
        let v = String::from_utf8(encode_table_entry(&t, sql)).unwrap();
        assert_eq!(decode_table_entry(&v).unwrap(), (h(7, Some(2), 1), sql));
        let newer = format!("#betula generation=3 future=x full_columns=1\n{sql}");
        assert_eq!(decode_table_entry(&newer).unwrap(), (h(3, Some(1), 1), sql));
        assert!(decode_table_entry("#betula generation=x\nCREATE").is_err());
        assert!(decode_table_entry("#betula generation=3").is_err());
        // Format 2 alone needs the header; an unknown format is refused.
        t.generation = 0;
        t.full_columns = t.columns.len();
        t.key_format = KEY_FORMAT;
        let v = String::from_utf8(encode_table_entry(&t, sql)).unwrap();
        assert!(v.starts_with("#betula generation=0 full_columns=3 keys=2\n"));
        assert_eq!(decode_table_entry(&v).unwrap(), (h(0, Some(3), 2), sql));
        assert!(decode_table_entry(&format!("#betula keys=3\n{sql}")).is_err());
    }

    #[test]
    fn generation_trees_never_collide_with_generation_zero() {
        assert_eq!(tree_name_gen("d", "t", 0, "PRIMARY"), "d/t/PRIMARY");
        assert_eq!(tree_name_gen("d", "t", 2, "k"), "d/t/@2/k");
        // a table named `t` with an index named `@2` cannot exist ('/' is not allowed in names),
        // and generation 0 names have exactly three parts
        assert!(is_table_tree("d/t/PRIMARY") && is_table_tree("d/t/@2/k"));
        assert!(!is_table_tree("__catalog") && !is_table_tree("\u{0}load/5/d/t/PRIMARY"));
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

/// A foreign server definition (servers.rs), stored under its lower-case name.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDef {
    pub name: String,
    pub wrapper: String,
    /// OPTIONS as given: upper-case option name and value.
    pub options: Vec<(String, String)>,
}

impl ServerDef {
    /// Name, wrapper, then option name and value pairs, each as a u32 length and the bytes.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |s: &str| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        put(&self.name);
        put(&self.wrapper);
        for (k, v) in &self.options {
            put(k);
            put(v);
        }
        out
    }
    fn decode(mut v: &[u8]) -> Option<ServerDef> {
        let mut fields = Vec::new();
        while !v.is_empty() {
            let n = u32::from_le_bytes(v.get(..4)?.try_into().ok()?) as usize;
            fields.push(String::from_utf8_lossy(v.get(4..4 + n)?).into_owned());
            v = &v[4 + n..];
        }
        if fields.len() < 2 || fields.len() % 2 != 0 {
            return None;
        }
        let options = fields[2..]
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        Some(ServerDef {
            name: fields[0].clone(),
            wrapper: fields[1].clone(),
            options,
        })
    }
}

#[derive(Default)]
struct State {
    dbs: BTreeMap<String, ()>,
    tables: BTreeMap<(String, String), Arc<TableDef>>,
    users: BTreeMap<String, UserDef>,
    servers: BTreeMap<String, ServerDef>,
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
                        let text = String::from_utf8_lossy(&v);
                        let (h, sql) = decode_table_entry(&text)?;
                        let mut def = parse_table(db, sql)?;
                        def.generation = h.generation;
                        def.full_columns = h.full_columns.unwrap_or(def.columns.len());
                        def.key_format = h.key_format;
                        st.tables
                            .insert((def.db.clone(), def.name.clone()), Arc::new(def));
                    }
                    (Some(b'U'), [u]) => {
                        st.users.insert(u.clone(), UserDef::decode(u, &v));
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
        self.tree.put(
            &key(b'T', &[&def.db, &def.name]),
            &encode_table_entry(&def, sql),
        )?;
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
    pub fn server(&self, name: &str) -> Option<ServerDef> {
        self.state.read().servers.get(&name.to_lowercase()).cloned()
    }
    pub fn put_server(&self, def: ServerDef) -> DbResult<()> {
        let name = def.name.to_lowercase();
        self.tree.put(&key(b'S', &[&name]), &def.encode())?;
        self.state.write().servers.insert(name, def);
        Ok(())
    }
    /// Removes a server definition; false if there was none.
    pub fn drop_server(&self, name: &str) -> DbResult<bool> {
        let name = name.to_lowercase();
        let existed = self.state.write().servers.remove(&name).is_some();
        if existed {
            self.tree.delete(&key(b'S', &[&name]))?;
        }
        Ok(existed)
    }
}
