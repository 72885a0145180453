//! Keys of a CREATE TABLE: the primary key, UNIQUE and plain indexes (inline ones come from
//! columns.rs), their MySQL names, and the AUTO_INCREMENT column's key rule.
//!
//! Invariants: at most one primary key (1068), its columns NOT NULL; an unnamed index takes
//! its first column's name, then `_2`, `_3` ... on clashes; no index is named PRIMARY (1280);
//! at most one AUTO_INCREMENT column, an integer or floating-point one, first column of some
//! key (1075). CHECK constraints are read by check_def.rs. A FOREIGN KEY is kept
//! (foreign_key_def.rs) with the index InnoDB makes for it: one over its columns, named after
//! the index name or constraint name written (else as an unnamed index), unless the primary key
//! or another index already starts with those columns ([`drop_covered_fk_indexes`]). A column's
//! `REFERENCES` is such a constraint too ([`with_column_references`]), as in MariaDB 10.5+.

use sqlparser::ast::{self as ast, TableConstraint};

use super::columns::ident;
use crate::catalog::key_parts::key_parts;
use crate::catalog::{ForeignKeyDef, IndexDef};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::types::{Column, SqlType};

/// The keys of the table being defined.
#[derive(Default)]
pub(super) struct Keys {
    /// Primary key columns; empty = hidden row id.
    pub pk: Vec<usize>,
    /// Prefix lengths of the primary key columns, parallel to `pk`.
    pub pk_prefix: Vec<Option<u32>>,
    pub indexes: Vec<IndexDef>,
    /// FOREIGN KEY constraints, in the order written.
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// Positions in `indexes` of the indexes made for foreign keys (some dropped when covered).
    fk_indexes: Vec<usize>,
}

/// Adds the table constraints (PRIMARY KEY, UNIQUE, INDEX) to `keys`, in the order written;
/// primary key columns become NOT NULL.
pub(super) fn add_constraints(
    (db, table): (&str, &str),
    constraints: &[TableConstraint],
    columns: &mut [Column],
    keys: &mut Keys,
    notes: &mut Vec<Warning>,
) -> DbResult<()> {
    for c in constraints {
        match c {
            TableConstraint::PrimaryKey(p) => {
                if !keys.pk.is_empty() {
                    return Err(DbError::new(
                        ErrorCode::MultiplePriKey,
                        "Multiple primary key defined",
                    ));
                }
                (keys.pk, keys.pk_prefix) = key_parts(&p.columns, columns)?;
                for &i in &keys.pk {
                    columns[i].nullable = false;
                }
                if let Some(n) = p.index_name.as_ref().or(p.name.as_ref()) {
                    if !n.value.eq_ignore_ascii_case("PRIMARY") {
                        notes.push(Warning {
                            level: WarningLevel::Warning,
                            code: ErrorCode::WrongNameForIndex,
                            message: format!("Name '{}' ignored for PRIMARY key.", n.value),
                        });
                    }
                }
            }
            TableConstraint::Unique(u) => {
                let (cols, prefix) = key_parts(&u.columns, columns)?;
                let name = u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(ident)
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                keys.indexes.push(IndexDef {
                    name,
                    columns: cols,
                    prefix,
                    unique: true,
                    comment: index_comment(&u.index_options),
                    using: index_using(&u.index_type, &u.index_options),
                    clustering: clustering(&u.index_options),
                });
            }
            TableConstraint::Index(ix) => {
                let (cols, prefix) = key_parts(&ix.columns, columns)?;
                let name = ix
                    .name
                    .as_ref()
                    .map(ident)
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                keys.indexes.push(IndexDef {
                    name,
                    columns: cols,
                    prefix,
                    unique: false,
                    comment: index_comment(&ix.index_options),
                    using: index_using(&ix.index_type, &ix.index_options),
                    clustering: clustering(&ix.index_options),
                });
            }
            TableConstraint::ForeignKey(f) => {
                let taken: Vec<String> = keys.foreign_keys.iter().map(|k| k.name.clone()).collect();
                let fk = ForeignKeyDef::from_ast(db, f, || {
                    crate::catalog::foreign_key_def::generated_name(table, &taken)
                })?;
                let (cols, _) = key_parts(&fk_parts(f), columns)?;
                let name = fk
                    .index_name
                    .clone()
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                keys.fk_indexes.push(keys.indexes.len());
                keys.indexes.push(IndexDef::new(name, cols, false));
                keys.foreign_keys.push(fk);
            }
            TableConstraint::Check(_) => {}
            other => return Err(DbError::unsupported(format!("constraint {other}"))),
        }
    }
    Ok(())
}

/// The table's constraints with a column's `REFERENCES p (c)` first, as the table constraint
/// `FOREIGN KEY (col) REFERENCES p (c)` (MariaDB keeps those, in column order, before the
/// table's own).
pub(super) fn with_column_references(ct: &ast::CreateTable) -> Vec<TableConstraint> {
    let mut out = Vec::new();
    for cd in &ct.columns {
        for o in &cd.options {
            if let ast::ColumnOption::ForeignKey(f) = &o.option {
                let mut f = f.clone();
                if f.columns.is_empty() {
                    f.columns = vec![cd.name.clone()];
                }
                out.push(TableConstraint::ForeignKey(f));
            }
        }
    }
    out.extend(ct.constraints.iter().cloned());
    out
}

/// The columns of a foreign key as key parts (whole columns).
fn fk_parts(f: &ast::ForeignKeyConstraint) -> Vec<ast::IndexColumn> {
    f.columns
        .iter()
        .cloned()
        .map(ast::IndexColumn::from)
        .collect()
}

/// Drops the indexes made for foreign keys whose columns the primary key or another index
/// (an earlier kept one when both were made for foreign keys) already starts with.
pub(super) fn drop_covered_fk_indexes(keys: &mut Keys) {
    let starts_with = |ix: &IndexDef, cols: &[usize]| {
        ix.columns.len() >= cols.len()
            && ix.columns[..cols.len()] == *cols
            && ix.prefix[..cols.len()].iter().all(Option::is_none)
    };
    let mut dropped: Vec<usize> = Vec::new();
    for &g in &keys.fk_indexes {
        let cols = keys.indexes[g].columns.clone();
        let by_pk = keys.pk.len() >= cols.len()
            && keys.pk[..cols.len()] == *cols
            && keys.pk_prefix[..cols.len()].iter().all(Option::is_none);
        let by_other = keys.indexes.iter().enumerate().any(|(i, ix)| {
            i != g
                && !dropped.contains(&i)
                && (!keys.fk_indexes.contains(&i) || i < g)
                && starts_with(ix, &cols)
        });
        if by_pk || by_other {
            dropped.push(g);
        }
    }
    let mut i = 0;
    keys.indexes.retain(|_| {
        i += 1;
        !dropped.contains(&(i - 1))
    });
    keys.fk_indexes.clear();
}

/// Unnamed indexes get MySQL's names: the first column, then _2, _3 ... on clashes.
pub(super) fn name_indexes(indexes: &mut [IndexDef]) -> DbResult<()> {
    let mut seen: Vec<String> = Vec::new();
    for ix in indexes.iter_mut() {
        let base = ix.name.clone();
        let mut n = 2;
        while seen.iter().any(|s| s.eq_ignore_ascii_case(&ix.name)) {
            ix.name = format!("{base}_{n}");
            n += 1;
        }
        if ix.name.eq_ignore_ascii_case("PRIMARY") {
            return Err(DbError::new(
                ErrorCode::WrongNameForIndex,
                "Incorrect index name 'PRIMARY'",
            ));
        }
        seen.push(ix.name.clone());
    }
    Ok(())
}

/// At most one AUTO_INCREMENT column, of a numeric type that can count, first column of a key.
pub(super) fn check_auto_column(columns: &[Column], keys: &Keys) -> DbResult<()> {
    let (pk, indexes) = (&keys.pk, &keys.indexes);
    let autos: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].auto_increment)
        .collect();
    if autos.len() > 1
        || autos.iter().any(|&a| {
            !columns[a].sql_type.is_integer()
                && !matches!(
                    columns[a].sql_type,
                    SqlType::Float { .. } | SqlType::Double { .. }
                )
                || !(pk.first() == Some(&a)
                    || indexes.iter().any(|ix| ix.columns.first() == Some(&a)))
        })
    {
        return Err(DbError::new(
            ErrorCode::WrongAutoKey,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    Ok(())
}

/// `COMMENT '...'` of an index.
fn index_comment(opts: &[ast::IndexOption]) -> Option<String> {
    opts.iter().find_map(|o| match o {
        ast::IndexOption::Comment(c) => Some(c.clone()),
        _ => None,
    })
}

/// Whether `t` is the mark of a clustering key (parser/clustering.rs), not a declared type.
fn is_clustering_mark(t: &ast::IndexType) -> bool {
    matches!(t, ast::IndexType::Custom(id) if id.value == super::CLUSTERING_MARK)
}

/// Whether the key is a clustering one (design.md CIX1-CIX4).
fn clustering(opts: &[ast::IndexOption]) -> bool {
    opts.iter()
        .any(|o| matches!(o, ast::IndexOption::Using(t) if is_clustering_mark(t)))
}

/// The index type declared before the columns or as an option (`USING HASH` → `HASH`).
fn index_using(before: &Option<ast::IndexType>, opts: &[ast::IndexOption]) -> Option<String> {
    let opt = opts.iter().find_map(|o| match o {
        ast::IndexOption::Using(t) if !is_clustering_mark(t) => Some(t),
        _ => None,
    });
    opt.or(before.as_ref())
        .map(|t| t.to_string().to_ascii_uppercase())
}
