//! Table definitions: [`TableDef`] (columns, keys, options, storage trees), [`IndexDef`] and the
//! [`Counters`] every version of a definition shares, and the names of a table's trees.
//!
//! Trees: the primary tree of table `t` in `db` is `db/t/PRIMARY`, a secondary index `k` is
//! `db/t/k` (generation 0). A table rebuild (rebuild.rs) writes its rows into trees of the next
//! generation n, `db/t/@n/PRIMARY` and `db/t/@n/k` (4 parts: no name of generation 0 can be
//! one, as names never contain `/`), then switches by writing the catalog entry once.
//! Invariants: a `TableDef` is immutable once published (DDL builds a new one and swaps the
//! `Arc`); the AUTO_INCREMENT and hidden row-id counters are shared by every version of the
//! definition (they live in `Counters`). Temporary tables' trees are named `\0temp/<id>/...`
//! ([`TableDef::temporary`]) and are not table trees in the sense above.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use betula_storage::{Codec, ColumnLayout, ValueLayout};

use crate::catalog::partition::{PartIds, Partitioning};
use crate::codec::key::{decode_key, encode_key, encode_key_value, KeyColumn};
use crate::codec::layout::{key_fields, row_value};
use crate::codec::row::RowLayout;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{Scope, ScopeCol};
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

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
    /// A clustering index (TokuDB's `CLUSTERING KEY`, MariaDB's `CLUSTERING=YES`): every entry
    /// carries the whole row, so reads through it never visit the primary tree (index_entry.rs,
    /// design.md CIX1-CIX4).
    pub clustering: bool,
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
            clustering: false,
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
    /// The value last written to the catalog tree (design.md "AUTO_INCREMENT counters").
    pub auto_inc_persisted: AtomicU64,
    /// `auto_inc` may have moved past `auto_inc_persisted` since the engine last looked (AIC1).
    pub auto_inc_moved: AtomicBool,
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
    /// Generated columns' expressions (`GENERATED ALWAYS AS`), parallel to `columns`
    /// (generated_def.rs, design.md GEN1-GEN3).
    pub generated: Vec<Option<crate::catalog::GeneratedDef>>,
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
    /// How rows store the columns: slots, schema version and the kinds of older versions
    /// (codec/row/, design.md INS1-INS3); plain for a table created or rebuilt.
    pub layout: RowLayout,
    pub counters: Arc<Counters>,
    /// Generation of the table's trees (0 for a table never rebuilt).
    pub generation: u64,
    /// Every row of the primary tree stores at least this many slots of `layout`. Slots after
    /// them were added in place (instant ADD COLUMN): older rows lack them and read the slot's
    /// absent value (INS3).
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
    /// CHECK constraints, enforced on every row written (check_def.rs).
    pub checks: Vec<crate::catalog::CheckDef>,
    /// FOREIGN KEY constraints of this (child) table, in the order written (foreign_key_def.rs,
    /// enforced by exec/dml/foreign_keys.rs, design.md FKC1-FKC8).
    pub foreign_keys: Vec<crate::catalog::ForeignKeyDef>,
    /// How the table is partitioned (`None`: one set of trees); each partition owns its own
    /// trees, `db/t/#<id>/<index>` (catalog/partition/, design.md "Partitioned tables").
    pub partitioning: Option<Arc<Partitioning>>,
    /// `Some` for a roll-up: the table is the GROUP BY of its base table that the engine keeps
    /// (rollup.rs, design.md RUP1-RUP6); read-only to DML.
    pub rollup: Option<Arc<crate::catalog::RollupDef>>,
    /// `RETENTION = n unit`: the server drops expired partitions of a partitioned table, or
    /// deletes the expired key range of another (retention.rs, design.md RET1-RET7).
    pub retention: Option<crate::catalog::partition::Retention>,
}

/// Rows of one partition (`None`: the table is not partitioned), by position.
pub type PartGroup = (Option<usize>, Vec<usize>);

/// The key format new and rebuilt tables are written in (see [`TableDef::key_format`]).
pub const KEY_FORMAT: u8 = 2;

pub fn tree_name(db: &str, table: &str, index: &str) -> String {
    join_tree_name(&[db, table, index])
}

/// `parts` joined by `/` (built directly: this runs several times per written row).
fn join_tree_name(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(p);
    }
    out
}

/// The tree of `index` (`PRIMARY` or a secondary index name) in generation `generation`.
pub fn tree_name_gen(db: &str, table: &str, generation: u64, index: &str) -> String {
    if generation == 0 {
        tree_name(db, table, index)
    } else {
        join_tree_name(&[db, table, &format!("@{generation}"), index])
    }
}

/// Whether a tree name has the shape of a table's tree (`db/t/index` or `db/t/@n/index`), as
/// opposed to the catalog and the storage layer's own trees.
pub fn is_table_tree(name: &str) -> bool {
    !name.starts_with('\0') && name.split('/').count() >= 3
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
            Some(id) => temp_tree_name(id, self.generation, index),
            None => tree_name_gen(&self.db, &self.name, self.generation, index),
        }
    }
    /// The tree of `index` in partition `part` (`None`: the table's own trees, which a
    /// partitioned table does not have).
    fn tree_in(&self, part: Option<usize>, index: &str) -> String {
        match (part, &self.partitioning) {
            (Some(p), Some(parts)) => {
                let id = format!("#{}", parts.parts[p].id);
                join_tree_name(&[&self.db, &self.name, &id, index])
            }
            _ => self.tree(index),
        }
    }
    /// The primary tree of a table that is not partitioned (of a partitioned one: a name no tree
    /// has, so a read that forgot the partitions fails instead of finding nothing).
    pub fn primary_tree(&self) -> String {
        self.tree("PRIMARY")
    }
    pub fn index_tree(&self, i: usize) -> String {
        self.tree(&self.indexes[i].name)
    }
    /// The primary tree of partition `part` (`None`: the table is not partitioned).
    pub fn primary_tree_of(&self, part: Option<usize>) -> String {
        self.tree_in(part, "PRIMARY")
    }
    /// Secondary index `i`'s tree in partition `part`.
    pub fn index_tree_of(&self, part: Option<usize>, i: usize) -> String {
        self.tree_in(part, &self.indexes[i].name)
    }
    /// Every partition (`[None]` for a table that is not partitioned).
    pub fn parts(&self) -> Vec<Option<usize>> {
        match &self.partitioning {
            Some(p) => (0..p.parts.len()).map(Some).collect(),
            None => vec![None],
        }
    }
    /// The trees of partition `part`: primary first, then each index's.
    pub fn trees_of(&self, part: Option<usize>) -> Vec<String> {
        let mut v = vec![self.primary_tree_of(part)];
        v.extend((0..self.indexes.len()).map(|i| self.index_tree_of(part, i)));
        v
    }
    pub fn all_trees(&self) -> Vec<String> {
        self.parts()
            .into_iter()
            .flat_map(|p| self.trees_of(p))
            .collect()
    }
    /// The partition `row` is stored in (design.md PRT1; `None`: the table is not partitioned).
    /// The one door from the write path to partitions: its trees are then
    /// [`TableDef::primary_tree_of`] and [`TableDef::index_tree_of`].
    pub fn part_of_row(&self, row: &[Value]) -> DbResult<Option<usize>> {
        match &self.partitioning {
            Some(p) => Ok(Some(p.part_of(row)?)),
            None => Ok(None),
        }
    }
    /// The rows at positions `order` grouped by partition (each group keeping `order`'s order;
    /// one group, `None`, for a table that is not partitioned), and the rows no partition takes
    /// with their error (1526), which are in no group.
    pub fn group_by_part(
        &self,
        rows: &[Vec<Value>],
        order: &[usize],
    ) -> (Vec<PartGroup>, Vec<(usize, DbError)>) {
        let Some(p) = &self.partitioning else {
            return (vec![(None, order.to_vec())], Vec::new());
        };
        let mut groups: Vec<Vec<usize>> = vec![Vec::new(); p.parts.len()];
        let mut failed = Vec::new();
        for &i in order {
            match p.part_of(&rows[i]) {
                Ok(part) => groups[part].push(i),
                Err(e) => failed.push((i, e)),
            }
        }
        let groups = groups
            .into_iter()
            .enumerate()
            .filter(|(_, g)| !g.is_empty())
            .map(|(part, g)| (Some(part), g))
            .collect();
        (groups, failed)
    }
    /// The columns the partition function reads (none for a table that is not partitioned).
    pub fn partition_columns(&self) -> &[usize] {
        self.partitioning.as_ref().map_or(&[], |p| &p.columns)
    }
    /// The partitions the row with primary key bytes `pk` may be in: the one its key gives when
    /// the key decodes to every column of the partition function (PRT2), else all of them.
    pub fn parts_of_pk(&self, pk: &[u8]) -> DbResult<Vec<Option<usize>>> {
        let Some(p) = &self.partitioning else {
            return Ok(vec![None]);
        };
        if !self.pk.is_empty() {
            let vals = decode_key(&self.pk_key_columns(), pk)?;
            let mut row = vec![Value::Null; self.columns.len()];
            for (i, v) in vals.into_iter().enumerate() {
                if let Some(v) = v {
                    row[self.pk[i]] = v;
                } else if p.columns.contains(&self.pk[i]) {
                    return Ok(self.parts());
                }
            }
            if p.columns.iter().all(|c| self.pk.contains(c)) {
                return Ok(vec![Some(p.part_of(&row)?)]);
            }
        }
        Ok(self.parts())
    }
    /// Gives the partitions the ids the catalog stored for them (catalog header `parts=`).
    pub fn set_part_ids(&mut self, ids: &PartIds) -> DbResult<()> {
        let Some(p) = self.partitioning.as_mut() else {
            return Ok(());
        };
        Arc::make_mut(p).set_ids(ids)
    }
    /// The partitions' ids as the catalog header stores them.
    pub fn part_ids(&self) -> Option<PartIds> {
        self.partitioning.as_ref().map(|p| PartIds {
            ids: p.parts.iter().map(|d| d.id).collect(),
            next: p.next_id,
        })
    }
    /// The table's columns as an expression scope, the table named `alias` (TIMESTAMPs are
    /// marked as stored in UTC).
    /// True if column `name` is JSON: its own CHECK is `json_valid(name)` (as MariaDB tells a
    /// JSON column, whether written JSON or LONGTEXT with that constraint).
    pub fn is_json_column(&self, name: &str) -> bool {
        self.checks.iter().any(|c| {
            c.column
                .as_deref()
                .is_some_and(|col| col.eq_ignore_ascii_case(name))
                && crate::catalog::check_def::is_json_valid_of(&c.text, name)
        })
    }

    pub fn scope(&self, alias: &str) -> Scope {
        Scope {
            cols: self
                .columns
                .iter()
                .map(|c| ScopeCol {
                    table: alias.to_string(),
                    db: self.db.clone(),
                    org_table: self.name.clone(),
                    name: c.name.clone(),
                    ty: Some(c.sql_type),
                    collation: c.collation,
                    flags: c.protocol_flags(),
                    length: c.display_length(),
                    members: c.members.clone(),
                    stored_utc: c.sql_type.is_timestamp(),
                    json: self.is_json_column(&c.name),
                })
                .collect(),
            one_row: false,
            qualified_only: Vec::new(),
        }
    }
    /// Each tree of the table with the layout of its keys and values (codec/layout.rs, design.md
    /// COL5): the primary tree and clustering indexes hold rows; other secondary index values
    /// depend on the key format and are described as opaque.
    pub fn column_layouts(&self) -> Vec<(String, ColumnLayout)> {
        let primary = ColumnLayout {
            key: key_fields(&self.pk_key_columns()),
            value: row_value(&self.layout),
        };
        let mut v = Vec::new();
        for part in self.parts() {
            v.push((self.primary_tree_of(part), primary.clone()));
            v.extend((0..self.indexes.len()).map(|i| {
                let key = key_fields(&self.index_key_columns(i));
                // A clustering index's values are rows (index_entry.rs), other entries opaque.
                let value = if self.indexes[i].clustering {
                    primary.value.clone()
                } else {
                    ValueLayout::Opaque
                };
                (self.index_tree_of(part, i), ColumnLayout { key, value })
            }));
        }
        v
    }
    /// Whether some column is generated (writes compute it: exec/dml/generated.rs).
    pub fn has_generated(&self) -> bool {
        self.generated.iter().any(Option::is_some)
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
            for (p, &c) in self.pk.iter().enumerate() {
                encode_key_value(&self.key_column(None, p), &row[c], &mut out)?;
            }
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

/// The name prefix of every temporary table's trees (design.md TMP1).
pub const TEMP_TREE_PREFIX: &str = "\u{0}temp/";

/// The tree of `index` (`PRIMARY` or a secondary index's name) of temporary table `id` in
/// generation `generation`.
pub fn temp_tree_name(id: u64, generation: u64, index: &str) -> String {
    if generation == 0 {
        format!("{TEMP_TREE_PREFIX}{id}/{index}")
    } else {
        format!("{TEMP_TREE_PREFIX}{id}/@{generation}/{index}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
