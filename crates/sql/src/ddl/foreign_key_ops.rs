//! FOREIGN KEY constraints in DDL: ALTER TABLE ADD / DROP FOREIGN KEY on a [`Draft`], the
//! checks of a new constraint against its referenced table (MariaDB's 1005 / errno 150) and of its
//! name against the database's (errno 121, FKC7), and the refusals of DROP TABLE (1451) and TRUNCATE (1701) of a referenced table.
//!
//! Invariants (design.md FKC1, FKC5): with `foreign_key_checks = 1` a new constraint references
//! an existing table, existing columns of the same types, the first columns of its primary key
//! or of an index, and SET NULL only nullable columns; with 0 nothing about the referenced table
//! is checked (a dump may create the child first). ON ... SET DEFAULT is refused (1235) and a
//! constraint on a temporary table is 1005 (as in MariaDB) whatever the setting. With checks on,
//! ALTER TABLE ADD FOREIGN KEY checks the table's existing rows (1452). A table referenced by another table's constraint is neither dropped nor
//! truncated while `foreign_key_checks = 1`. ADD FOREIGN KEY makes the index InnoDB makes (keys.rs)
//! in the draft, so ALTER builds it like any added index; DROP FOREIGN KEY keeps the index.

use crate::catalog::foreign_key_def::generated_name;
use crate::catalog::{FkAction, ForeignKeyDef, TableDef};
use crate::context::Context;
use crate::ddl::table_draft::{Draft, IndexSpec};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::Column;

/// Whether the session checks foreign keys (`foreign_key_checks`).
pub fn checks_on(cx: &Context) -> bool {
    cx.int_var("foreign_key_checks") != 0
}

/// ALTER TABLE ADD FOREIGN KEY `text` (`[CONSTRAINT name] FOREIGN KEY ...`) on the draft of `db`.
pub fn add(
    cx: &mut Context,
    db: &str,
    draft: &mut Draft,
    text: &str,
    if_not_exists: bool,
) -> DbResult<()> {
    let probe = format!("CREATE TABLE `#fk` (`#fk` int, {text})");
    let (ct, _) = crate::parser::parse_create_table(&probe)?;
    let Some(sqlparser::ast::TableConstraint::ForeignKey(f)) = ct.constraints.first() else {
        return Err(DbError::syntax(text));
    };
    let taken: Vec<String> = draft.foreign_keys.iter().map(|k| k.name.clone()).collect();
    let fk = ForeignKeyDef::from_ast(db, f, || generated_name(&draft.table, &taken))?;
    // A name the table had before this ALTER stays taken even if the ALTER drops it (as InnoDB).
    let had = cx.engine.catalog.table(db, &draft.table).is_some_and(|t| {
        t.foreign_keys
            .iter()
            .any(|k| k.name.eq_ignore_ascii_case(&fk.name))
    });
    if had || taken.iter().any(|n| n.eq_ignore_ascii_case(&fk.name)) {
        if if_not_exists {
            cx.warn(
                ErrorCode::DupConstraintName,
                format!("Duplicate FOREIGN KEY constraint name '{}'", fk.name),
            );
            return Ok(());
        }
        return Err(duplicate_name(db, &draft.table));
    }
    for c in &fk.columns {
        if draft.position(c).is_none() {
            return Err(DbError::new(
                ErrorCode::KeyColumnDoesNotExits,
                format!("Key column '{c}' doesn't exist in table"),
            ));
        }
    }
    let covers = |cols: &[String]| {
        cols.len() >= fk.columns.len()
            && cols
                .iter()
                .zip(&fk.columns)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    };
    let covered = (covers(&draft.pk) && draft.pk_prefix.iter().all(Option::is_none))
        || draft
            .indexes
            .iter()
            .any(|ix| covers(&ix.columns) && ix.prefix.iter().all(Option::is_none));
    if !covered {
        let name = fk.index_name.clone().filter(|n| !draft.has_index(n));
        draft.add_index(name, IndexSpec::of(fk.columns.clone()), false)?;
    }
    draft.foreign_keys.push(fk);
    Ok(())
}

/// ALTER TABLE DROP FOREIGN KEY `name` (1091 when the table has none of that name).
pub fn drop(cx: &mut Context, draft: &mut Draft, name: &str, if_exists: bool) -> DbResult<()> {
    let before = draft.foreign_keys.len();
    draft
        .foreign_keys
        .retain(|fk| !fk.name.eq_ignore_ascii_case(name));
    if draft.foreign_keys.len() == before {
        let msg = format!("Can't DROP FOREIGN KEY `{name}`; check that it exists");
        if !if_exists {
            return Err(DbError::new(ErrorCode::CantDropFieldOrKey, msg));
        }
        cx.warn(ErrorCode::CantDropFieldOrKey, msg);
    }
    Ok(())
}

/// DROP CONSTRAINT `name` of a foreign key: drops it and says true, false when no foreign key
/// has that name (it may be a CHECK's).
pub fn drop_constraint(draft: &mut Draft, name: &str) -> bool {
    let before = draft.foreign_keys.len();
    draft
        .foreign_keys
        .retain(|fk| !fk.name.eq_ignore_ascii_case(name));
    draft.foreign_keys.len() != before
}

/// MariaDB's error for a constraint the referenced table cannot carry.
fn incorrectly_formed(t: &TableDef) -> DbError {
    DbError::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{}`.`{}` (errno: 150 \"Foreign key constraint is incorrectly formed\")",
            t.db, t.name
        ),
    )
}

/// Checks the constraints of `t` not in `old` (all of them for a new table) against their
/// referenced tables (FKC1), unless `foreign_key_checks = 0`.
pub fn validate(cx: &Context, t: &TableDef, old: &[ForeignKeyDef]) -> DbResult<()> {
    for fk in t.foreign_keys.iter().filter(|fk| !old.contains(fk)) {
        check_name(cx, t, fk)?;
        if fk.on_delete == FkAction::SetDefault || fk.on_update == FkAction::SetDefault {
            return Err(DbError::new(
                ErrorCode::NotSupportedYet,
                "This version of Betula doesn't yet support 'ON DELETE / ON UPDATE SET DEFAULT'",
            ));
        }
        if t.temporary.is_some() {
            return Err(incorrectly_formed(t));
        }
        if !checks_on(cx) {
            continue;
        }
        let parent = if fk.references(&t.db, &t.name) {
            Some(std::sync::Arc::new(t.clone()))
        } else {
            cx.engine.catalog.table(&fk.ref_db, &fk.ref_table)
        };
        let Some(parent) = parent else {
            return Err(incorrectly_formed(t));
        };
        if !well_formed(t, &parent, fk) {
            return Err(incorrectly_formed(t));
        }
    }
    Ok(())
}

/// A new constraint's name is unique in its database, whatever `foreign_key_checks` says
/// (FKC7): 1061 when the table names it twice, 1005 errno 121 when another table has it.
fn check_name(cx: &Context, t: &TableDef, fk: &ForeignKeyDef) -> DbResult<()> {
    let same = |k: &ForeignKeyDef| k.name.eq_ignore_ascii_case(&fk.name);
    if t.foreign_keys.iter().filter(|k| same(k)).count() > 1 {
        return Err(DbError::new(
            ErrorCode::DupKeyname,
            format!("Duplicate key name '{}'", fk.name),
        ));
    }
    let elsewhere = cx
        .engine
        .catalog
        .tables(&t.db)
        .iter()
        .any(|o| o.name != t.name && o.foreign_keys.iter().any(same));
    if elsewhere {
        return Err(duplicate_name(&t.db, &t.name));
    }
    Ok(())
}

/// MariaDB's error for a constraint name taken in the database.
fn duplicate_name(db: &str, table: &str) -> DbError {
    DbError::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"
        ),
    )
}

/// Whether a child column of type `a` may reference a parent column of type `b`: text of one
/// character set, anything else of one type.
pub fn same_type(a: &Column, b: &Column) -> bool {
    if a.sql_type.is_text() && b.sql_type.is_text() {
        a.collation.charset() == b.collation.charset()
    } else {
        a.sql_type == b.sql_type
    }
}

/// Whether `fk` of `child` fits `parent`: columns exist with the same types, the referenced
/// ones start the primary key or an index, SET NULL columns are nullable, no partitioning.
fn well_formed(child: &TableDef, parent: &TableDef, fk: &ForeignKeyDef) -> bool {
    let cols: Option<Vec<usize>> = fk.columns.iter().map(|c| child.col_index(c)).collect();
    let refs: Option<Vec<usize>> = fk.ref_columns.iter().map(|c| parent.col_index(c)).collect();
    let (Some(cols), Some(refs)) = (cols, refs) else {
        return false;
    };
    let same_type = cols
        .iter()
        .zip(&refs)
        .all(|(&c, &r)| same_type(&child.columns[c], &parent.columns[r]));
    let set_null = fk.on_delete == FkAction::SetNull || fk.on_update == FkAction::SetNull;
    let nullable = !set_null || cols.iter().all(|&c| child.columns[c].nullable);
    same_type
        && nullable
        && parent.partitioning.is_none()
        && crate::catalog::foreign_key_def::parent_key(parent, &refs).is_some()
}

/// Refuses DROP TABLE of tables that a table not in `dropped` references (1451), unless
/// `foreign_key_checks = 0`.
pub fn check_drop(cx: &Context, dropped: &[(String, String)]) -> DbResult<()> {
    if !checks_on(cx) {
        return Ok(());
    }
    for (db, t) in dropped {
        let blocked = cx
            .engine
            .catalog
            .referencing(db, t)
            .iter()
            .any(|(child, _)| !dropped.contains(&(child.db.clone(), child.name.clone())));
        if blocked {
            return Err(DbError::new(
                ErrorCode::RowIsReferenced2,
                "Cannot delete or update a parent row: a foreign key constraint fails",
            ));
        }
    }
    Ok(())
}

/// Refuses TRUNCATE of a table another table references (1701), unless
/// `foreign_key_checks = 0`.
pub fn check_truncate(cx: &Context, db: &str, t: &str) -> DbResult<()> {
    if !checks_on(cx) {
        return Ok(());
    }
    let refs = cx.engine.catalog.referencing(db, t);
    if let Some((child, fk)) = refs
        .iter()
        .find(|(c, _)| (c.db.as_str(), c.name.as_str()) != (db, t))
    {
        // MariaDB names the referenced table with its database here (no database is ""), and
        // no actions.
        let bare = ForeignKeyDef {
            on_delete: FkAction::Restrict,
            on_update: FkAction::Restrict,
            ..fk.clone()
        };
        let clause = bare.clause("");
        return Err(DbError::new(
            ErrorCode::TruncateIllegalFk,
            format!(
                "Cannot truncate a table referenced in a foreign key constraint (`{}`.`{}`, CONSTRAINT `{}` {clause})",
                child.db, child.name, fk.name
            ),
        ));
    }
    Ok(())
}

/// With checks on, 1452 when an existing row of `old` breaks a constraint `new` adds (ALTER
/// TABLE ADD FOREIGN KEY checks the rows already there, as InnoDB does). The rows are read from
/// `old`'s trees (the statement holds the table exclusively); a constraint over a column the
/// statement adds is not checked here (the column holds its default in every row).
pub fn check_existing_rows(cx: &mut Context, old: &TableDef, new: &TableDef) -> DbResult<()> {
    if !checks_on(cx) {
        return Ok(());
    }
    let added: Vec<ForeignKeyDef> = new
        .foreign_keys
        .iter()
        .filter(|fk| !old.foreign_keys.contains(fk))
        .filter(|fk| fk.columns.iter().all(|c| old.col_index(c).is_some()))
        .cloned()
        .collect();
    if added.is_empty() {
        return Ok(());
    }
    // The old table with only the added constraints: its rows are the ones checked, and a
    // constraint referencing the table itself finds its referenced rows there.
    let probe = TableDef {
        foreign_keys: added,
        ..old.clone()
    };
    let engine = cx.engine.clone();
    let mut rows = Vec::new();
    {
        let mut scan = cx.ws.scan(
            &engine.store,
            &old.primary_tree(),
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
            None,
        )?;
        while let Some((_, v)) = scan.next_entry()? {
            rows.push(crate::codec::row::decode_row(&old.layout, &v)?);
        }
    }
    for row in rows {
        crate::exec::dml::foreign_keys::check_child(cx, &probe, &row, None)?;
    }
    Ok(())
}

/// Points `t`'s constraints that reference `from` at `to` (RENAME TABLE of their referenced
/// table, which may be `t` itself).
pub fn rename_references(t: &mut TableDef, from: (&str, &str), to: (&str, &str)) {
    if (t.db.as_str(), t.name.as_str()) == to && from != to {
        // The table renamed: its generated names follow (`<old>_ibfk_n` → `<new>_ibfk_n`).
        let prefix = format!("{}_ibfk_", from.1);
        for fk in &mut t.foreign_keys {
            if let Some(n) = fk.name.strip_prefix(&prefix) {
                if n.parse::<u64>().is_ok() {
                    fk.name = format!("{}_ibfk_{n}", to.1);
                }
            }
        }
    }
    for fk in t
        .foreign_keys
        .iter_mut()
        .filter(|fk| fk.references(from.0, from.1))
    {
        fk.ref_db = to.0.to_string();
        fk.ref_table = to.1.to_string();
    }
}

/// After RENAME TABLE `from` TO `to`: every other table's constraints that referenced `from`
/// reference `to` (InnoDB renames them with the table), each table's entry written again.
pub fn follow_rename(cx: &mut Context, from: (&str, &str), to: (&str, &str)) -> DbResult<()> {
    let mut children: Vec<_> = cx
        .engine
        .catalog
        .referencing(from.0, from.1)
        .into_iter()
        .map(|(child, _)| child)
        .collect();
    children.dedup_by(|a, b| (&a.db, &a.name) == (&b.db, &b.name));
    for child in children {
        let mut def = (*child).clone();
        rename_references(&mut def, from, to);
        let sql = crate::catalog::create_table::render_stored(&def);
        cx.store_table(def, &sql)?;
    }
    Ok(())
}
