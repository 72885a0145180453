//! Table definitions from CREATE TABLE, and back to text (`SHOW CREATE TABLE`).
//!
//! Owns: [`table_from_create`] (sqlparser's CreateTable → [`TableDef`]) and [`render_create`]
//! (column type text: `type_text.rs`). The catalog stores
//! `render_create`'s output and rebuilds the definition with `table_from_create`, so the two must
//! round-trip: every property of a `TableDef` appears in the text.
//! Character sets and collations of the table and its text columns are kept (charset_clause.rs);
//! ENGINE is kept when it names an engine of [`OTHER_ENGINES`] (shown again, stored as Betula).
//! Accepted and ignored: other ENGINE names, KEY_BLOCK_SIZE and other table options (an index's
//! KEY_BLOCK_SIZE too). Index prefix lengths and types (USING HASH) are kept (key_parts.rs; every
//! index is a B-tree whatever its declared type), and so is a clustering key (`CLUSTERING=YES`,
//! shown as `` `clustering`=yes ``; [`CLUSTERING_MARK`]). Integer and YEAR display widths and ZEROFILL are
//! kept for display only (`Column::display_width`, `Column::zerofill`; SHOW CREATE TABLE prints
//! `int(11)` as MariaDB does). DESC in index columns is ignored.
//!
//! Map: this file assembles the definition; columns.rs (column definitions), keys.rs (primary
//! key, indexes, AUTO_INCREMENT rule), options.rs (table options), render.rs (the text),
//! json_column.rs (the JSON type: LONGTEXT with `CHECK (json_valid(col))`).

mod columns;
mod json_column;
mod keys;
mod options;
mod render;

use std::sync::Arc;

use sqlparser::ast::CreateTable;

use crate::catalog::partition::{self, TableExtras};
use crate::catalog::{charset_clause, generated_def, Counters, GeneratedDef, TableDef};
use crate::codec::row::RowLayout;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::expr::object_name_parts;
use crate::types::collation::Collation;

pub(crate) use columns::const_value;
pub use options::{
    create_auto_increment, option_codec, shown_engine, table_codec, table_setting, TableOptions,
    OTHER_ENGINES, SHOWN_OPTIONS,
};
pub use render::{partition_text, quote_ident, quote_str, render_create, render_stored};

/// The index type that marks a clustering key in the text sqlparser reads (`USING `#clustering``:
/// parser/clustering.rs writes it for TokuDB's and MariaDB's forms, keys.rs reads it back; no
/// user writes this type).
pub const CLUSTERING_MARK: &str = "#clustering";

/// Builds a table definition from a parsed CREATE TABLE (database already resolved) and the
/// clauses Betula reads itself (PARTITION BY, RETENTION: parser/partition.rs).
pub fn table_from_create(db: &str, ct: &CreateTable, extras: &TableExtras) -> DbResult<TableDef> {
    table_from_create_mode(db, ct, extras, Collation::default(), true, &mut Vec::new())
}

/// [`table_from_create`] in a database whose default collation is `default` (a table without
/// CHARACTER SET / COLLATE takes it), with the session's strictness; non-strict conversions add
/// notes.
pub fn table_from_create_mode(
    db: &str,
    ct: &CreateTable,
    extras: &TableExtras,
    default: Collation,
    strict: bool,
    notes: &mut Vec<Warning>,
) -> DbResult<TableDef> {
    let parts = object_name_parts(&ct.name);
    let name = parts.last().cloned().unwrap_or_default();
    check_name(&name)?;
    let ct = &*json_column::json_as_longtext(ct)?;
    if ct.columns.is_empty() {
        return Err(DbError::new(
            ErrorCode::TableMustHaveColumns,
            "A table must have at least 1 column",
        ));
    }
    let TableOptions {
        compression,
        row_format,
        comment,
        shown: options,
        charset,
        collate,
        engine,
    } = options::table_options(&ct.table_options);
    let table_collation = charset_clause::resolve(charset.as_deref(), collate.as_deref(), default)?;
    let mut keys = keys::Keys::default();
    let mut columns = Vec::new();
    let mut comments = Vec::new();
    let mut default_now = Vec::new();
    let mut on_update_now = Vec::new();
    let mut generated = Vec::new();
    for (i, cd) in ct.columns.iter().enumerate() {
        let c = columns::column_def(i, cd, &columns, table_collation, strict, &mut keys, notes)?;
        columns.push(c.col);
        comments.push(c.comment);
        default_now.push(c.default_now);
        on_update_now.push(c.on_update_now);
        generated.push(c.generated);
    }
    let constraints = keys::with_column_references(ct);
    keys::add_constraints((db, &name), &constraints, &mut columns, &mut keys, notes)?;
    keys::drop_covered_fk_indexes(&mut keys);
    keys::name_indexes(&mut keys.indexes)?;
    for &p in &keys.pk {
        columns[p].nullable = false;
    }
    keys::check_auto_column(&columns, &keys)?;
    check_generated(ct, &columns, &generated, &keys.pk)?;
    let codec = options::table_codec(&row_format, &compression)?;
    let layout = RowLayout::new(1, columns.clone());
    let full_columns = columns.len();
    let keys::Keys {
        pk,
        pk_prefix,
        indexes,
        foreign_keys,
        ..
    } = keys;
    let mut def = TableDef {
        db: db.to_string(),
        name,
        columns,
        comments,
        default_now,
        on_update_now,
        generated,
        pk,
        pk_prefix,
        indexes,
        compression,
        row_format,
        codec,
        comment,
        options,
        layout,
        counters: Arc::new(Counters::default()),
        generation: 0,
        full_columns,
        collation: table_collation,
        engine: engine.as_deref().and_then(shown_engine),
        temporary: None,
        key_format: crate::catalog::KEY_FORMAT,
        checks: Vec::new(),
        foreign_keys,
        partitioning: None,
        rollup: None,
        retention: None,
    };
    for g in def.generated.iter().flatten() {
        g.expr(|| def.scope(&def.name))?;
    }
    def.checks = crate::catalog::check_def::checks_of(ct);
    for c in &def.checks {
        c.expr(|| def.scope(&def.name))?;
    }
    def.partitioning = match &extras.partitioning {
        Some(clause) => Some(Arc::new(partition::define(clause, &def, None)?)),
        None => None,
    };
    if def.partitioning.is_some() && !def.foreign_keys.is_empty() {
        return Err(DbError::new(
            ErrorCode::ForeignKeyOnPartitioned,
            "Partitioned tables do not support FOREIGN KEY",
        ));
    }
    if let Some(r) = extras.retention {
        crate::catalog::retention::check(&def, r)?;
        def.retention = Some(r);
    }
    Ok(def)
}

/// The rules of generated columns (generated_def.rs): what their expressions read (1901,
/// 4029), and no PRIMARY KEY over one (1903).
fn check_generated(
    ct: &CreateTable,
    columns: &[crate::types::Column],
    generated: &[Option<GeneratedDef>],
    pk: &[usize],
) -> DbResult<()> {
    let is_generated: Vec<bool> = generated.iter().map(Option::is_some).collect();
    for (i, cd) in ct.columns.iter().enumerate() {
        if let Some((e, stored)) = generated_def::generated_option(cd) {
            generated_def::check_expression(&e.to_string(), i, stored, columns, &is_generated)?;
        }
    }
    if pk.iter().any(|&c| is_generated[c]) {
        return Err(DbError::new(
            ErrorCode::PrimaryKeyBasedOnGeneratedColumn,
            "Primary key cannot be defined upon a generated column",
        ));
    }
    Ok(())
}

/// Checks a table name: 1 to 64 bytes, no `/` or NUL, no trailing space (1103).
pub fn check_name(name: &str) -> DbResult<()> {
    if name.is_empty()
        || name.len() > 64
        || name.contains('/')
        || name.contains('\0')
        || name.ends_with(' ')
    {
        return Err(DbError::new(
            ErrorCode::WrongTableName,
            format!("Incorrect table name '{name}'"),
        ));
    }
    Ok(())
}
