//! A table definition under ALTER TABLE: the old definition's columns and keys, edited by name,
//! remembering where each column's values come from.
//!
//! Owns: [`Draft`] (columns with their origin, the primary key and the secondary indexes by
//! column name), the edits ALTER TABLE makes to it, and [`Draft::finish`], which turns it into a
//! new [`TableDef`] validated by the same code as CREATE TABLE (the draft is rendered as CREATE
//! TABLE text and parsed again), plus the column origins and the indexes that keep their tree.
//!
//! Invariants: `origin` of a column is the old column whose values it takes (converted to the
//! new type), or `None` for a column the statement adds (its rows get its default); column names
//! are unique (case-insensitively) at every step; an index whose columns all disappear is
//! dropped, one that loses some keeps the others (MySQL's rule); keys refer to columns by name,
//! so reordering and renaming columns keeps them right.

use crate::catalog::create_table::render_create;
use crate::catalog::{create_table, key_parts, ForeignKeyDef, IndexDef, TableDef};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::collation::Collation;

pub use crate::parser::alter::{IndexSpec, Place};
use crate::types::value::Value;
use crate::types::Column;
use sqlparser::ast;

#[derive(Clone, Debug)]
pub struct DraftColumn {
    pub col: Column,
    pub comment: Option<String>,
    pub default_now: bool,
    pub on_update_now: bool,
    /// `GENERATED ALWAYS AS (e)`: its values are computed, never taken from `origin`.
    pub generated: Option<crate::catalog::GeneratedDef>,
    pub origin: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct DraftIndex {
    pub name: String,
    pub columns: Vec<String>,
    /// Prefix lengths, parallel to `columns` (as [`IndexDef::prefix`]).
    pub prefix: Vec<Option<u32>>,
    pub unique: bool,
    pub comment: Option<String>,
    /// USING BTREE / HASH as declared.
    pub using: Option<String>,
    /// A clustering index (entries carry the row).
    pub clustering: bool,
    /// The old index this one is, unchanged (its tree can be kept).
    pub origin: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct Draft {
    /// The table's name, for error messages.
    pub table: String,
    pub columns: Vec<DraftColumn>,
    pub pk: Vec<String>,
    /// Prefix lengths of the primary key columns, parallel to `pk`.
    pub pk_prefix: Vec<Option<u32>>,
    pub indexes: Vec<DraftIndex>,
    /// FOREIGN KEY constraints (columns by name: foreign_key_ops.rs edits them).
    pub foreign_keys: Vec<ForeignKeyDef>,
}

/// The new definition and how it relates to the old one.
pub struct Finished {
    pub def: TableDef,
    /// Per new column: the old column it takes its values from.
    pub origin: Vec<Option<usize>>,
    /// Per new index: the old index whose tree it keeps.
    pub index_origin: Vec<Option<usize>>,
}

fn eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Removes column `name` from a key's columns and their parallel prefix lengths.
fn remove_part(cols: &mut Vec<String>, prefix: &mut Vec<Option<u32>>, name: &str) {
    prefix.resize(cols.len(), None);
    let keep: Vec<bool> = cols.iter().map(|c| !eq(c, name)).collect();
    let mut k = keep.iter();
    cols.retain(|_| *k.next().unwrap_or(&true));
    let mut k = keep.iter();
    prefix.retain(|_| *k.next().unwrap_or(&true));
}

/// A column definition parsed alone (`name type options`), with what it declares inline.
pub struct ParsedColumn {
    pub column: DraftColumn,
    pub primary: bool,
    pub unique: bool,
    /// The column's own CHECK constraints (a JSON column's `json_valid(col)` among them).
    pub checks: Vec<crate::catalog::CheckDef>,
}

/// Parses one column definition as CREATE TABLE would in a table whose default collation is
/// `collation` (a text column without CHARACTER SET / COLLATE takes it).
pub fn parse_column(
    cx: &mut Context,
    db: &str,
    text: &str,
    collation: Collation,
) -> DbResult<ParsedColumn> {
    let clause = crate::catalog::charset_clause::table_clause(collation);
    let probe = format!("CREATE TABLE __probe ({text}) {clause}");
    let stmts = crate::parser::parse(&probe).map_err(|mut e| {
        // the `near '...'` text ends with the probe's closing parenthesis and table clause, not the
        // user's column text
        if e.code == ErrorCode::ParseError {
            e.message = e
                .message
                .replace(&format!(") {clause}' at line "), "' at line ");
        }
        e
    })?;
    let Some(ast::Statement::CreateTable(ct)) = stmts.first() else {
        return Err(DbError::syntax(text));
    };
    if ct.columns.len() != 1 || !ct.constraints.is_empty() {
        return Err(DbError::syntax(text));
    }
    // A generated column's expression reads other columns: it is kept aside here and checked
    // with the whole table (`Draft::finish`).
    let mut ct = ct.clone();
    let generated = crate::catalog::generated_def::generated_option(&ct.columns[0])
        .map(|(e, stored)| crate::catalog::GeneratedDef::new(e, stored));
    if generated.is_some() {
        crate::catalog::generated_def::refuse_options(&ct.columns[0])?;
    }
    ct.columns[0]
        .options
        .retain(|o| !matches!(o.option, ast::ColumnOption::Generated { .. }));
    let ct = &ct;
    let mut notes = Vec::new();
    let one = create_table::table_from_create_mode(
        db,
        ct,
        &Default::default(),
        collation,
        cx.strict(),
        &mut notes,
    )?;
    cx.warnings.extend(notes);
    let mut col = one.columns[0].clone();
    col.id = 0;
    Ok(ParsedColumn {
        column: DraftColumn {
            col,
            comment: one.comments[0].clone(),
            default_now: one.default_now[0],
            on_update_now: one.on_update_now[0],
            generated,
            origin: None,
        },
        primary: !one.pk.is_empty(),
        unique: one.indexes.iter().any(|i| i.unique),
        checks: one.checks,
    })
}

/// MariaDB cannot turn a VIRTUAL column into a stored or plain one or back (1907); a STORED
/// column may become plain and a plain one STORED.
fn check_generated_kinds(old: &TableDef, new: &TableDef, columns: &[DraftColumn]) -> DbResult<()> {
    let virtual_ = |t: &TableDef, i: usize| t.generated[i].as_ref().map(|g| !g.stored);
    for (i, c) in columns.iter().enumerate() {
        let Some(j) = c.origin else { continue };
        let (was, is) = (virtual_(old, j), virtual_(new, i));
        if was != is && (was == Some(true) || is == Some(true)) {
            return Err(DbError::new(
                ErrorCode::UnsupportedActionOnGeneratedColumn,
                "This is not yet supported for generated columns",
            ));
        }
    }
    Ok(())
}

impl Draft {
    pub fn of(t: &TableDef) -> Draft {
        let name = |i: &usize| t.columns[*i].name.clone();
        Draft {
            table: t.name.clone(),
            columns: t
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| DraftColumn {
                    col: c.clone(),
                    comment: t.comments[i].clone(),
                    default_now: t.default_now[i],
                    on_update_now: t.on_update_now[i],
                    generated: t.generated[i].clone(),
                    origin: Some(i),
                })
                .collect(),
            pk: t.pk.iter().map(name).collect(),
            pk_prefix: t.pk_prefix.clone(),
            indexes: t
                .indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| DraftIndex {
                    name: ix.name.clone(),
                    columns: ix.columns.iter().map(name).collect(),
                    prefix: ix.prefix.clone(),
                    unique: ix.unique,
                    comment: ix.comment.clone(),
                    using: ix.using.clone(),
                    clustering: ix.clustering,
                    origin: Some(i),
                })
                .collect(),
            foreign_keys: t.foreign_keys.clone(),
        }
    }

    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| eq(&c.col.name, name))
    }

    fn find(&self, name: &str) -> DbResult<usize> {
        self.position(name)
            .ok_or_else(|| DbError::bad_field(name, &self.table))
    }

    fn column_mut(&mut self, name: &str) -> DbResult<&mut DraftColumn> {
        let i = self.find(name)?;
        Ok(&mut self.columns[i])
    }

    fn insert_at(&mut self, c: DraftColumn, place: &Place) -> DbResult<()> {
        let at = match place {
            Place::Last => self.columns.len(),
            Place::First => 0,
            Place::After(a) => self.find(a)? + 1,
        };
        self.columns.insert(at, c);
        Ok(())
    }

    /// ADD COLUMN.
    pub fn add_column(&mut self, p: ParsedColumn, place: &Place) -> DbResult<()> {
        let name = p.column.col.name.clone();
        if self.position(&name).is_some() {
            return Err(DbError::dup_field(&name));
        }
        self.insert_at(p.column, place)?;
        self.inline_keys(&name, p.primary, p.unique)
    }

    fn inline_keys(&mut self, name: &str, primary: bool, unique: bool) -> DbResult<()> {
        if primary {
            self.add_primary(vec![name.to_string()], vec![None])?;
        }
        if unique {
            self.add_index(None, IndexSpec::of(vec![name.to_string()]), true)?;
        }
        Ok(())
    }

    /// CHANGE old new-definition / MODIFY definition: the column keeps its values (converted).
    pub fn change_column(&mut self, old: &str, p: ParsedColumn, place: &Place) -> DbResult<()> {
        let i = self.find(old)?;
        let new_name = p.column.col.name.clone();
        if !eq(old, &new_name) && self.position(&new_name).is_some() {
            return Err(DbError::dup_field(&new_name));
        }
        let mut c = self.columns.remove(i);
        let origin = c.origin;
        c = DraftColumn { origin, ..p.column };
        if *place == Place::Last {
            self.columns.insert(i, c);
        } else {
            self.insert_at(c, place)?;
        }
        self.rename_in_keys(old, &new_name);
        self.inline_keys(&new_name, p.primary, p.unique)
    }

    /// Column `old` renamed `new` in the primary key, the indexes and the foreign keys.
    fn rename_in_keys(&mut self, old: &str, new: &str) {
        for n in self
            .pk
            .iter_mut()
            .chain(self.indexes.iter_mut().flat_map(|ix| ix.columns.iter_mut()))
            .chain(
                self.foreign_keys
                    .iter_mut()
                    .flat_map(|fk| fk.columns.iter_mut()),
            )
        {
            if eq(n, old) {
                *n = new.to_string();
            }
        }
    }

    /// RENAME COLUMN a TO b.
    pub fn rename_column(&mut self, from: &str, to: &str) -> DbResult<()> {
        if !eq(from, to) && self.position(to).is_some() {
            return Err(DbError::dup_field(to));
        }
        self.column_mut(from)?.col.name = to.to_string();
        self.rename_in_keys(from, to);
        Ok(())
    }

    /// DROP COLUMN: also removes it from every key; a key left without columns goes.
    /// `Ok(false)`: no such column (the caller decides between IF EXISTS's note and error 1091).
    pub fn drop_column(&mut self, name: &str) -> DbResult<bool> {
        let Some(i) = self.position(name) else {
            return Ok(false);
        };
        if let Some(fk) = self
            .foreign_keys
            .iter()
            .find(|fk| fk.columns.iter().any(|c| eq(c, name)))
        {
            // MariaDB names the index the constraint needs.
            let index = self
                .indexes
                .iter()
                .find(|ix| ix.columns.first().is_some_and(|c| eq(c, &fk.columns[0])))
                .map_or(fk.name.clone(), |ix| ix.name.clone());
            return Err(DbError::new(
                ErrorCode::DropIndexFk,
                format!("Cannot drop index '{index}': needed in a foreign key constraint"),
            ));
        }
        if self.columns.len() == 1 {
            return Err(DbError::new(
                ErrorCode::CantRemoveAllFields,
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        self.columns.remove(i);
        remove_part(&mut self.pk, &mut self.pk_prefix, name);
        for ix in &mut self.indexes {
            if ix.columns.iter().any(|c| eq(c, name)) {
                remove_part(&mut ix.columns, &mut ix.prefix, name);
                ix.origin = None;
            }
        }
        self.indexes.retain(|ix| !ix.columns.is_empty());
        Ok(true)
    }

    /// ALTER COLUMN c SET DEFAULT v / DROP DEFAULT (`value` None); `now`: DEFAULT CURRENT_TIMESTAMP.
    pub fn set_default(&mut self, name: &str, value: Option<Value>, now: bool) -> DbResult<()> {
        let c = self.column_mut(name)?;
        c.col.default = value;
        c.default_now = now;
        Ok(())
    }

    pub fn add_primary(&mut self, cols: Vec<String>, prefix: Vec<Option<u32>>) -> DbResult<()> {
        if !self.pk.is_empty() {
            return Err(DbError::new(
                ErrorCode::MultiplePriKey,
                "Multiple primary key defined",
            ));
        }
        for (p, c) in cols.iter().enumerate() {
            self.known(c)?;
            let col = &self.columns[self.find(c)?].col;
            key_parts::check_lob_part(col, prefix.get(p).copied().flatten())?;
        }
        self.pk = cols;
        self.pk_prefix = prefix;
        Ok(())
    }

    fn known(&self, c: &str) -> DbResult<()> {
        if self.position(c).is_none() {
            return Err(DbError::new(
                ErrorCode::KeyColumnDoesNotExits,
                format!("Key column '{c}' doesn't exist in table"),
            ));
        }
        Ok(())
    }

    pub fn drop_primary(&mut self) -> DbResult<()> {
        if self.pk.is_empty() {
            return Err(DbError::cant_drop_key("PRIMARY"));
        }
        self.pk.clear();
        self.pk_prefix.clear();
        Ok(())
    }

    /// ADD [UNIQUE] INDEX: an unnamed index is named after its first column (`_2`, `_3` on
    /// clashes, as MySQL does).
    pub fn add_index(
        &mut self,
        name: Option<String>,
        spec: IndexSpec,
        unique: bool,
    ) -> DbResult<()> {
        let cols = spec.columns;
        for (p, c) in cols.iter().enumerate() {
            self.known(c)?;
            if !unique {
                let col = &self.columns[self.find(c)?].col;
                key_parts::check_lob_part(col, spec.prefix.get(p).copied().flatten())?;
            }
        }
        let taken = |n: &str, d: &Draft| d.indexes.iter().any(|ix| eq(&ix.name, n));
        let name = match name {
            Some(n) => {
                if eq(&n, "PRIMARY") {
                    return Err(DbError::new(
                        ErrorCode::WrongNameForIndex,
                        "Incorrect index name 'PRIMARY'",
                    ));
                }
                if taken(&n, self) {
                    return Err(DbError::dup_key_name(&n));
                }
                create_table::check_name(&n)?;
                n
            }
            None => {
                let base = self.columns[self.position(&cols[0]).unwrap_or(0)]
                    .col
                    .name
                    .clone();
                let mut n = base.clone();
                let mut k = 2;
                while taken(&n, self) || eq(&n, "PRIMARY") {
                    n = format!("{base}_{k}");
                    k += 1;
                }
                n
            }
        };
        self.indexes.push(DraftIndex {
            name,
            columns: cols,
            prefix: spec.prefix,
            unique,
            comment: spec.comment,
            using: spec.using,
            clustering: spec.clustering,
            origin: None,
        });
        Ok(())
    }

    pub fn drop_index(&mut self, name: &str) -> DbResult<()> {
        let Some(i) = self.indexes.iter().position(|ix| eq(&ix.name, name)) else {
            return Err(DbError::cant_drop_key(name));
        };
        let dropped = self.indexes.remove(i);
        // A foreign key keeps an index over its columns (design.md FKC1).
        let covers = |cols: &[String], fk: &ForeignKeyDef| {
            cols.len() >= fk.columns.len() && cols.iter().zip(&fk.columns).all(|(a, b)| eq(a, b))
        };
        let orphaned = self.foreign_keys.iter().any(|fk| {
            covers(&dropped.columns, fk)
                && !covers(&self.pk, fk)
                && !self.indexes.iter().any(|ix| covers(&ix.columns, fk))
        });
        if orphaned {
            return Err(DbError::new(
                ErrorCode::DropIndexFk,
                format!(
                    "Cannot drop index '{}': needed in a foreign key constraint",
                    dropped.name
                ),
            ));
        }
        Ok(())
    }

    /// RENAME INDEX: the index is rebuilt under its new name (trees are named by index).
    pub fn rename_index(&mut self, from: &str, to: &str) -> DbResult<()> {
        if !eq(from, to) && self.has_index(to) {
            return Err(DbError::dup_key_name(to));
        }
        create_table::check_name(to)?;
        let Some(ix) = self.indexes.iter_mut().find(|ix| eq(&ix.name, from)) else {
            return Err(DbError::new(
                ErrorCode::KeyDoesNotExists,
                format!("Key '{from}' doesn't exist in table '{}'", self.table),
            ));
        };
        if ix.name != to {
            ix.name = to.to_string();
            ix.origin = None;
        }
        Ok(())
    }

    pub fn has_index(&self, name: &str) -> bool {
        self.indexes.iter().any(|ix| eq(&ix.name, name))
    }

    /// The new definition: `old`'s table-level fields with the draft's columns and keys, checked
    /// by parsing its CREATE TABLE text like a user's.
    pub fn finish(self, old: &TableDef) -> DbResult<Finished> {
        let pos = |n: &String| self.position(n).expect("keys name existing columns");
        let mut def = TableDef {
            columns: self.columns.iter().map(|c| c.col.clone()).collect(),
            comments: self.columns.iter().map(|c| c.comment.clone()).collect(),
            default_now: self.columns.iter().map(|c| c.default_now).collect(),
            on_update_now: self.columns.iter().map(|c| c.on_update_now).collect(),
            generated: self.columns.iter().map(|c| c.generated.clone()).collect(),
            pk: self.pk.iter().map(pos).collect(),
            pk_prefix: self.pk_prefix.clone(),
            indexes: self
                .indexes
                .iter()
                .map(|ix| IndexDef {
                    name: ix.name.clone(),
                    columns: ix.columns.iter().map(pos).collect(),
                    prefix: ix.prefix.clone(),
                    unique: ix.unique,
                    comment: ix.comment.clone(),
                    using: ix.using.clone(),
                    clustering: ix.clustering,
                })
                .collect(),
            foreign_keys: self.foreign_keys.clone(),
            ..old.clone()
        };
        for (i, c) in def.columns.iter_mut().enumerate() {
            c.id = i as u32;
        }
        // Validate (AUTO_INCREMENT must be a key, PRIMARY KEY columns NOT NULL, ...) as CREATE
        // TABLE does; the parsed definition is the one kept. The partitioning is the old one's
        // text, read again against the new columns (its column numbers are the old table's).
        def.partitioning = None;
        def.retention = None;
        let text = render_create(&def) + &create_table::partition_text(old);
        let (ct, extras) = crate::parser::parse_create_table(&text)?;
        let mut notes = Vec::new();
        let mut parsed = create_table::table_from_create_mode(
            &old.db,
            &ct,
            &extras,
            old.collation,
            true,
            &mut notes,
        )?;
        if let Some(ids) = old.part_ids() {
            parsed.set_part_ids(&ids)?;
        }
        if parsed.indexes.len() > self.indexes.len() {
            // The text made an index for a foreign key: the statement dropped the one it had.
            let made = &parsed.indexes[self.indexes.len()..];
            return Err(DbError::new(
                ErrorCode::DropIndexFk,
                format!(
                    "Cannot drop index '{}': needed in a foreign key constraint",
                    made[0].name
                ),
            ));
        }
        check_generated_kinds(old, &parsed, &self.columns)?;
        let def = TableDef {
            db: old.db.clone(),
            name: old.name.clone(),
            counters: old.counters.clone(),
            generation: old.generation,
            temporary: old.temporary,
            key_format: old.key_format,
            ..parsed
        };
        Ok(Finished {
            origin: self.columns.iter().map(|c| c.origin).collect(),
            index_origin: self.indexes.iter().map(|ix| ix.origin).collect(),
            def,
        })
    }
}
