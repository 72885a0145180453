//! ALTER TABLE of a column a FOREIGN KEY names, on either side (design.md FKC8): a renamed
//! column takes its constraints along (the table's own here and in the draft, its children's
//! written again after the ALTER, [`follow_renames`]); a changed type must still match the other
//! side, else 1832 (the child's column) or 1833 (the parent's), as InnoDB refuses it.
//!
//! Invariants: a constraint never names a column its table lacks, and never pairs columns
//! whose types do not match (the 150 checks of a new constraint, FKC1, hold for old ones too).

use crate::catalog::{ForeignKeyDef, TableDef};
use crate::context::Context;
use crate::ddl::foreign_key_ops::same_type;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// The columns of `old` that `new` names differently: (old name, new name), from the ALTER's
/// column origins (per new column, the old column it takes its values from).
pub fn renamed(old: &TableDef, new: &TableDef, origin: &[Option<usize>]) -> Vec<(String, String)> {
    new.columns
        .iter()
        .zip(origin)
        .filter_map(|(c, o)| {
            let was = &old.columns.get((*o)?)?.name;
            (!was.eq_ignore_ascii_case(&c.name)).then(|| (was.clone(), c.name.clone()))
        })
        .collect()
}

/// The table's constraints that reference the table itself name its renamed columns.
pub fn rename_self_references(t: &mut TableDef, renames: &[(String, String)]) {
    let (db, name) = (t.db.clone(), t.name.clone());
    for fk in t
        .foreign_keys
        .iter_mut()
        .filter(|fk| fk.references(&db, &name))
    {
        for r in &mut fk.ref_columns {
            *r = after(r, renames).to_string();
        }
    }
}

/// `name` after the renames.
fn after<'a>(name: &'a str, renames: &'a [(String, String)]) -> &'a str {
    renames
        .iter()
        .find(|(from, _)| from.eq_ignore_ascii_case(name))
        .map_or(name, |(_, to)| to)
}

/// 1832 when a constraint `new` kept from `old` now pairs its columns with a parent column of
/// another type; 1833 when a column another table's constraint references changed its type.
pub fn check_types(
    cx: &Context,
    old: &TableDef,
    new: &TableDef,
    renames: &[(String, String)],
) -> DbResult<()> {
    let kept = |fk: &ForeignKeyDef| old.foreign_keys.iter().any(|o| o.name == fk.name);
    for fk in new.foreign_keys.iter().filter(|fk| kept(fk)) {
        let parent = if fk.references(&new.db, &new.name) {
            Some(std::sync::Arc::new(new.clone()))
        } else {
            cx.engine.catalog.table(&fk.ref_db, &fk.ref_table)
        };
        let Some(parent) = parent else { continue };
        if let Some(c) = mismatch(new, &parent, fk) {
            return Err(DbError::new(
                ErrorCode::FkColumnCannotChange,
                format!(
                    "Cannot change column '{c}': used in a foreign key constraint '{}'",
                    fk.name
                ),
            ));
        }
    }
    for (child, fk) in cx.engine.catalog.referencing(&new.db, &new.name) {
        if (child.db.as_str(), child.name.as_str()) == (new.db.as_str(), new.name.as_str()) {
            continue;
        }
        let mut fk = fk.clone();
        for r in &mut fk.ref_columns {
            *r = after(r, renames).to_string();
        }
        if let Some(i) = fk
            .columns
            .iter()
            .position(|c| mismatch_at(&child, new, &fk, c))
        {
            return Err(DbError::new(
                ErrorCode::FkColumnCannotChangeChild,
                format!(
                    "Cannot change column '{}': used in a foreign key constraint '{}' of table '{}.{}'",
                    fk.ref_columns[i], fk.name, child.db, child.name
                ),
            ));
        }
    }
    Ok(())
}

/// The first child column of `fk` whose type does not match its parent column's.
fn mismatch<'a>(child: &TableDef, parent: &TableDef, fk: &'a ForeignKeyDef) -> Option<&'a str> {
    fk.columns
        .iter()
        .find(|c| mismatch_at(child, parent, fk, c))
        .map(String::as_str)
}

/// Whether child column `c` of `fk` and the parent column it references differ in type (a
/// column either table lacks is the 150 checks' business, not this one's).
fn mismatch_at(child: &TableDef, parent: &TableDef, fk: &ForeignKeyDef, c: &str) -> bool {
    let Some(i) = fk.columns.iter().position(|x| x == c) else {
        return false;
    };
    let (Some(a), Some(b)) = (
        child.col_index(c),
        fk.ref_columns.get(i).and_then(|r| parent.col_index(r)),
    ) else {
        return false;
    };
    !same_type(&child.columns[a], &parent.columns[b])
}

/// After an ALTER TABLE of `t` renamed columns: every other table's constraints that reference
/// them name the new names, each such table's entry written again.
pub fn follow_renames(
    cx: &mut Context,
    t: &TableDef,
    renames: &[(String, String)],
) -> DbResult<()> {
    if renames.is_empty() {
        return Ok(());
    }
    let mut children: Vec<_> = cx
        .engine
        .catalog
        .referencing(&t.db, &t.name)
        .into_iter()
        .map(|(child, _)| child)
        .filter(|c| (c.db.as_str(), c.name.as_str()) != (t.db.as_str(), t.name.as_str()))
        .collect();
    children.dedup_by(|a, b| (&a.db, &a.name) == (&b.db, &b.name));
    for child in children {
        let mut def = (*child).clone();
        for fk in def
            .foreign_keys
            .iter_mut()
            .filter(|fk| fk.references(&t.db, &t.name))
        {
            for r in &mut fk.ref_columns {
                *r = after(r, renames).to_string();
            }
        }
        let sql = crate::catalog::create_table::render_stored(&def);
        cx.store_table(def, &sql)?;
    }
    Ok(())
}
