//! FOREIGN KEY constraints ([`ForeignKeyDef`]) as MariaDB's InnoDB keeps them: read from CREATE
//! TABLE / ALTER TABLE ADD FOREIGN KEY, shown again by SHOW CREATE TABLE (so they are stored with
//! the table's text, persist.rs), enforced by the writers (exec/dml/foreign_keys.rs, design.md
//! FKC1-FKC8).
//!
//! Naming (as InnoDB): a constraint is named by `CONSTRAINT name`, else by the index name written
//! after FOREIGN KEY, else `<table>_ibfk_<n>` with n one above the highest such number the table
//! has. Columns are kept by name (the referenced table may not exist while
//! `foreign_key_checks = 0`). A column-level `REFERENCES` is a constraint too (keys.rs).
//!
//! Invariants: child and referenced column lists have the same length (1239); the actions are
//! the ones written, RESTRICT when none is (shown by SHOW CREATE TABLE only when not RESTRICT).

use std::collections::HashMap;
use std::sync::Arc;

use sqlparser::ast;

use crate::catalog::create_table::quote_ident;
use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;

/// What a change of a referenced row does to the rows that reference it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkAction {
    Restrict,
    NoAction,
    Cascade,
    SetNull,
    SetDefault,
}

impl FkAction {
    fn of(a: &Option<ast::ReferentialAction>) -> FkAction {
        match a {
            None | Some(ast::ReferentialAction::Restrict) => FkAction::Restrict,
            Some(ast::ReferentialAction::NoAction) => FkAction::NoAction,
            Some(ast::ReferentialAction::Cascade) => FkAction::Cascade,
            Some(ast::ReferentialAction::SetNull) => FkAction::SetNull,
            Some(ast::ReferentialAction::SetDefault) => FkAction::SetDefault,
        }
    }

    /// The rule as information_schema.REFERENTIAL_CONSTRAINTS and SHOW CREATE TABLE name it.
    pub fn text(self) -> &'static str {
        match self {
            FkAction::Restrict => "RESTRICT",
            FkAction::NoAction => "NO ACTION",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
            FkAction::SetDefault => "SET DEFAULT",
        }
    }

    /// Whether a referenced row with referencing rows may not change (RESTRICT, NO ACTION).
    pub fn restricts(self) -> bool {
        matches!(self, FkAction::Restrict | FkAction::NoAction)
    }
}

/// One FOREIGN KEY constraint of a (child) table.
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKeyDef {
    pub name: String,
    /// The index name written after FOREIGN KEY (names the index made for the constraint).
    pub index_name: Option<String>,
    /// The child table's columns, in order.
    pub columns: Vec<String>,
    /// The referenced (parent) table.
    pub ref_db: String,
    pub ref_table: String,
    /// The referenced columns, parallel to `columns`.
    pub ref_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

impl ForeignKeyDef {
    /// The constraint of `fk` in table `table` of `db`; `name` when the statement gave none.
    pub fn from_ast(
        db: &str,
        fk: &ast::ForeignKeyConstraint,
        name: impl FnOnce() -> String,
    ) -> DbResult<ForeignKeyDef> {
        let given = fk.name.as_ref().or(fk.index_name.as_ref());
        let name = given.map(|n| n.value.clone()).unwrap_or_else(name);
        if fk.columns.len() != fk.referred_columns.len() {
            return Err(DbError::new(
                ErrorCode::WrongFkDef,
                format!(
                    "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
                    given.map_or("foreign key without name".to_string(), |n| n.value.clone())
                ),
            ));
        }
        let parts = object_name_parts(&fk.foreign_table);
        let (ref_db, ref_table) = match parts.as_slice() {
            [t] => (db.to_string(), t.clone()),
            [d, t] => (d.clone(), t.clone()),
            _ => return Err(DbError::syntax(fk.foreign_table.to_string())),
        };
        Ok(ForeignKeyDef {
            name,
            index_name: fk
                .index_name
                .as_ref()
                .or(fk.name.as_ref())
                .map(|n| n.value.clone()),
            columns: fk.columns.iter().map(|c| c.value.clone()).collect(),
            ref_db,
            ref_table,
            ref_columns: fk
                .referred_columns
                .iter()
                .map(|c| c.value.clone())
                .collect(),
            on_delete: FkAction::of(&fk.on_delete),
            on_update: FkAction::of(&fk.on_update),
        })
    }

    /// `FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE` as SHOW CREATE TABLE prints
    /// it in table `db` (the referenced table qualified when in another database).
    pub fn clause(&self, db: &str) -> String {
        let list = |v: &[String]| {
            v.iter()
                .map(|c| quote_ident(c))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let table = if self.ref_db == db {
            quote_ident(&self.ref_table)
        } else {
            format!(
                "{}.{}",
                quote_ident(&self.ref_db),
                quote_ident(&self.ref_table)
            )
        };
        let mut s = format!(
            "FOREIGN KEY ({}) REFERENCES {table} ({})",
            list(&self.columns),
            list(&self.ref_columns)
        );
        if self.on_delete != FkAction::Restrict {
            s.push_str(&format!(" ON DELETE {}", self.on_delete.text()));
        }
        if self.on_update != FkAction::Restrict {
            s.push_str(&format!(" ON UPDATE {}", self.on_update.text()));
        }
        s
    }

    /// The constraint line of SHOW CREATE TABLE (without indentation).
    pub fn line(&self, db: &str) -> String {
        format!("CONSTRAINT {} {}", quote_ident(&self.name), self.clause(db))
    }

    /// Whether the constraint references `db`.`table`.
    pub fn references(&self, db: &str, table: &str) -> bool {
        self.ref_db == db && self.ref_table == table
    }
}

/// The next generated name of a table's constraint: `<table>_ibfk_<n>`, n one above the highest
/// number of that form among `taken` (InnoDB's rule).
pub fn generated_name(table: &str, taken: &[String]) -> String {
    let prefix = format!("{table}_ibfk_");
    let max = taken
        .iter()
        .filter_map(|n| n.strip_prefix(&prefix))
        .filter_map(|n| n.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    format!("{prefix}{}", max + 1)
}

/// Foreign keys by the (database, table) they reference, with their child tables.
pub(super) type RefMap = HashMap<(String, String), Vec<(Arc<TableDef>, ForeignKeyDef)>>;

impl crate::catalog::Catalog {
    /// Every foreign key of another table or of `db`.`table` itself that references
    /// `db`.`table`, with its (child) table. Every deleted or updated row asks, so the answer
    /// comes from a map built once per catalog version.
    pub fn referencing(&self, db: &str, table: &str) -> Vec<(Arc<TableDef>, ForeignKeyDef)> {
        let version = self.version();
        let mut cache = self.fk_refs.lock();
        let map = match &*cache {
            Some((v, map)) if *v == version => map.clone(),
            _ => {
                let mut map = RefMap::new();
                for t in self.state.read().tables.values() {
                    for fk in &t.foreign_keys {
                        map.entry((fk.ref_db.clone(), fk.ref_table.clone()))
                            .or_default()
                            .push((t.clone(), fk.clone()));
                    }
                }
                // InnoDB visits a table's referencing constraints in the order of their ids
                // (`db/name`): the first one found is the one an error names.
                for v in map.values_mut() {
                    v.sort_by_key(|(t, fk)| format!("{}/{}", t.db, fk.name));
                }
                let map = Arc::new(map);
                *cache = Some((version, map.clone()));
                map
            }
        };
        drop(cache);
        map.get(&(db.to_string(), table.to_string()))
            .cloned()
            .unwrap_or_default()
    }
}

/// The key of `t` whose first columns are `cols`, whole (no prefix): `Some(None)` for the
/// primary key (preferred), `Some(Some(i))` for secondary index `i`, `None` when there is none.
/// The key a foreign key's lookups go through, in the parent and in the child (design.md FKC2).
pub fn parent_key(t: &TableDef, cols: &[usize]) -> Option<Option<usize>> {
    let starts = |key: &[usize], prefix: &[Option<u32>]| {
        key.len() >= cols.len()
            && key[..cols.len()] == *cols
            && prefix[..cols.len()].iter().all(Option::is_none)
    };
    if !cols.is_empty() && starts(&t.pk, &t.pk_prefix) {
        return Some(None);
    }
    t.indexes
        .iter()
        .position(|ix| starts(&ix.columns, &ix.prefix))
        .map(Some)
}
