//! Tables: CREATE TABLE (from sqlparser's AST, with LIKE and ... SELECT), DROP TABLE,
//! TRUNCATE and RENAME TABLE, and the tree options a table's trees are created with.
//!
//! DDL ordering invariants (crash safety): trees are created before the catalog entry that names
//! them is written, and the catalog entry is removed before its trees are dropped, so the catalog
//! never names a missing tree. DDL commits the session's open transaction first (dispatch) and
//! holds the schema lock exclusively while it runs (`begin_ddl`: no writing transaction is open
//! meanwhile).

use std::sync::atomic::Ordering;

use betula_storage::TreeOptions;
use sqlparser::ast;

use crate::catalog::create_table::{check_name, render_stored};
use crate::catalog::partition::TableExtras;
use crate::catalog::{create_table, TableDef};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::object_name_parts;
use crate::result::Output;
use crate::types::value::Value;

/// The options of a table's trees: the engine's defaults, with the codec, level and basement
/// size its COMPRESSION / ROW_FORMAT select (`'zstd:9'`, `ROW_FORMAT=TOKUDB_SMALL`).
pub fn tree_opts(cx: &Context, t: &TableDef) -> TreeOptions {
    let mut o = cx.engine.config.env.default_tree;
    if let Some(codec) = t.codec {
        o.codec = codec;
        // The stored text parsed when the definition was made, so it parses again.
        if let Ok(Some(s)) = create_table::table_setting(&t.row_format, &t.compression) {
            if s.level != 0 {
                o.level = s.level;
            }
            if let Some(b) = s.basement_bytes {
                // A basement never outgrows its node.
                o.basement_size_bytes = b.min(o.node_size_bytes);
            }
        }
    }
    o
}

pub fn create_table(
    cx: &mut Context,
    ct: &ast::CreateTable,
    extras: &TableExtras,
) -> DbResult<Output> {
    if let Some(ast::CreateTableLikeKind::Plain(l) | ast::CreateTableLikeKind::Parenthesized(l)) =
        &ct.like
    {
        // CREATE TABLE new LIKE old: the same definition, empty.
        let src = cx.resolve_table_name(&object_name_parts(&l.name))?;
        cx.check_db_access(&src.0)?;
        let old = cx.get_table(&src.0, &src.1)?;
        let text = render_stored(&old);
        let (mut copy, extras) = crate::parser::parse_create_table(&text)?;
        copy.name = ct.name.clone();
        // Foreign keys are not copied (their indexes are), as in MariaDB.
        copy.constraints
            .retain(|c| !matches!(c, ast::TableConstraint::ForeignKey(_)));
        copy.if_not_exists = ct.if_not_exists;
        copy.temporary = ct.temporary;
        return create_table(cx, &copy, &extras);
    }
    if ct.temporary && extras.partitioning.is_some() {
        return Err(DbError::new(
            ErrorCode::PartitionNoTemporary,
            "Cannot create temporary table with partitions",
        ));
    }
    if ct.temporary && extras.retention.is_some() {
        return Err(crate::catalog::retention::not_for_temporary());
    }
    if let Some(q) = &ct.query {
        return crate::ddl::create_select::create_table_as(cx, ct, extras, q);
    }
    if ct.clone.is_some() {
        return Err(DbError::unsupported("CREATE TABLE ... CLONE"));
    }
    let parts = object_name_parts(&ct.name);
    let (db, name) = cx.resolve_table_name(&parts)?;
    if db == "information_schema" {
        return Err(DbError::access_denied_db(&cx.user, &cx.host, &db));
    }
    if !cx.engine.catalog.has_db(&db) {
        return Err(DbError::bad_db(&db));
    }
    cx.check_db_access(&db)?;
    cx.begin_ddl()?;
    // A temporary table may shadow a permanent one (and a permanent one be created under a
    // temporary one), not another of its kind.
    let exists = if ct.temporary {
        cx.temp.get(&db, &name).is_some()
    } else {
        cx.engine.catalog.name_taken(&db, &name)
    };
    if exists {
        return already_exists(cx, &name, ct.if_not_exists);
    }
    let mut notes = Vec::new();
    let default = cx.database_collation(&db);
    let mut def =
        create_table::table_from_create_mode(&db, ct, extras, default, cx.strict(), &mut notes)?;
    // `betula_key_format = 1` creates a table in the layout of versions before key formats
    // (compatibility tests); any other value gives the current format.
    if matches!(cx.vars.get("betula_key_format"), Some(Value::Int(1))) {
        def.key_format = 1;
    }
    crate::catalog::key_parts::check_lob_keys(&def)?;
    cx.warnings.extend(notes);
    if ct.temporary {
        def.temporary = Some(cx.new_temp_id());
    }
    crate::ddl::foreign_key_ops::validate(cx, &def, &[])?;
    // CREATE TABLE ... AUTO_INCREMENT=n starts the counter at n (persisted with the entry: AIC3)
    def.counters.auto_inc.store(
        create_table::create_auto_increment(ct).unwrap_or(1).max(1),
        Ordering::SeqCst,
    );
    let opts = tree_opts(cx, &def);
    for tree in def.all_trees() {
        // A leftover tree (crash between tree creation and catalog write) is reused empty.
        cx.engine.store.drop_tree(&tree)?;
        cx.engine.store.create_tree(&tree, Some(opts))?;
    }
    let sql = render_stored(&def);
    cx.store_table(def, &sql)?;
    Ok(Output::done(0))
}

/// Drops one table if it exists (undoing a CREATE TABLE ... SELECT whose rows failed).
pub fn drop_table_named(cx: &mut Context, name: &ast::ObjectName) -> DbResult<Output> {
    drop_tables(cx, &[object_name_parts(name)], true, false)
}

/// DROP [TEMPORARY] TABLE: a name is the session's temporary table if it has one (only those
/// with TEMPORARY), else the catalog's table.
pub fn drop_tables(
    cx: &mut Context,
    names: &[Vec<String>],
    if_exists: bool,
    temporary: bool,
) -> DbResult<Output> {
    cx.begin_ddl()?;
    let mut missing = Vec::new();
    let mut found = Vec::new();
    for n in names {
        let (db, t) = cx.resolve_table_name(n)?;
        cx.check_db_access(&db)?;
        let def = if temporary {
            cx.temp.get(&db, &t)
        } else {
            cx.find_table(&db, &t)
        };
        match def {
            Some(def) => {
                // A base table's roll-ups go with it (design.md RUP6).
                if def.temporary.is_none() {
                    found.extend(cx.engine.catalog.rollups_of(&db, &t));
                }
                found.push(def);
            }
            // DROP TABLE of a view: 1965 (a note with IF EXISTS), design.md VIEW2.
            None if !temporary && cx.engine.catalog.view(&db, &t).is_some() => {
                if !if_exists {
                    crate::ddl::views::refuse_view_as_table(cx, &db, &t)?;
                }
                cx.warnings.push(Warning {
                    level: WarningLevel::Note,
                    code: ErrorCode::ItIsAView,
                    message: format!("'{db}.{t}' is a view"),
                });
            }
            None => missing.push(format!("{db}.{t}")),
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|d| seen.insert((d.db.clone(), d.name.clone())));
    let unknown = |names: &str| format!("Unknown table '{names}'");
    refuse_missing(cx, missing, if_exists, ErrorCode::BadTableError, unknown)?;
    let names: Vec<(String, String)> = found
        .iter()
        .filter(|d| d.temporary.is_none())
        .map(|d| (d.db.clone(), d.name.clone()))
        .collect();
    crate::ddl::foreign_key_ops::check_drop(cx, &names)?;
    for def in found {
        cx.forget_table(&def)?;
        for tree in def.all_trees() {
            cx.engine.store.drop_tree(&tree)?;
        }
    }
    Ok(Output::done(0))
}

pub fn truncate(cx: &mut Context, db: &str, t: &str) -> DbResult<()> {
    cx.check_db_access(db)?;
    cx.begin_ddl()?;
    let def = cx.get_table(db, t)?;
    if def.temporary.is_none() {
        crate::ddl::foreign_key_ops::check_truncate(cx, db, t)?;
    }
    // A base table's roll-ups are emptied with it (design.md RUP6).
    let mut trees = Vec::new();
    if def.temporary.is_none() {
        for r in cx.engine.catalog.rollups_of(db, t) {
            let opts = tree_opts(cx, &r);
            trees.extend(r.all_trees().into_iter().map(|n| (n, opts)));
        }
    }
    let opts = tree_opts(cx, &def);
    trees.extend(def.all_trees().into_iter().map(|n| (n, opts)));
    for (tree, opts) in trees {
        cx.engine.store.drop_tree(&tree)?;
        cx.engine.store.create_tree(&tree, Some(opts))?;
    }
    for r in cx.engine.catalog.rollups_of(db, t) {
        cx.engine.store.set_column_layouts(r.column_layouts())?;
    }
    cx.engine.store.set_column_layouts(def.column_layouts())?;
    def.counters.auto_inc.store(1, Ordering::SeqCst);
    def.counters.row_id.store(1, Ordering::SeqCst);
    cx.engine.auto_inc_stored(&def)
}

pub fn rename_table(cx: &mut Context, fdb: &str, ft: &str, tdb: &str, tt: &str) -> DbResult<()> {
    cx.check_db_access(fdb)?;
    cx.check_db_access(tdb)?;
    check_name(tt)?;
    cx.begin_ddl()?;
    let def = cx.get_table(fdb, ft)?;
    let taken = if def.temporary.is_some() {
        cx.temp.get(tdb, tt).is_some()
    } else {
        cx.engine.catalog.name_taken(tdb, tt)
    };
    if taken {
        return Err(DbError::table_exists(tt));
    }
    if !cx.engine.catalog.has_db(tdb) {
        return Err(DbError::bad_db(tdb));
    }
    let mut new = (*def).clone();
    new.db = tdb.into();
    new.name = tt.into();
    crate::ddl::foreign_key_ops::rename_references(&mut new, (fdb, ft), (tdb, tt));
    for (a, b) in def.all_trees().iter().zip(new.all_trees()) {
        // A temporary table's trees are named by its id and keep their names.
        if *a != b {
            cx.engine.store.rename_tree(a, &b)?;
        }
    }
    let sql = render_stored(&new);
    cx.forget_table(&def)?;
    cx.store_table(new, &sql)?;
    if def.temporary.is_none() {
        crate::ddl::foreign_key_ops::follow_rename(cx, (fdb, ft), (tdb, tt))?;
    }
    Ok(())
}

/// RENAME TABLE a TO b [, c TO d ...]: each pair in order (an error stops at that pair).
pub fn rename_tables(cx: &mut Context, pairs: &[(Vec<String>, Vec<String>)]) -> DbResult<Output> {
    for (from, to) in pairs {
        let (fdb, ft) = cx.resolve_table_name(from)?;
        let (tdb, tt) = cx.resolve_table_name(to)?;
        if cx.temp.get(&fdb, &ft).is_none() {
            if let Some(v) = cx.engine.catalog.view(&fdb, &ft) {
                cx.check_db_access(&fdb)?;
                cx.begin_ddl()?;
                crate::ddl::views::rename_view(cx, &v, &tdb, &tt)?;
                continue;
            }
        }
        rename_table(cx, &fdb, &ft, &tdb, &tt)?;
    }
    Ok(Output::done(0))
}

/// What CREATE of an existing name gives: with IF NOT EXISTS a note (1050) and nothing done,
/// else error 1050.
pub(crate) fn already_exists(
    cx: &mut Context,
    name: &str,
    if_not_exists: bool,
) -> DbResult<Output> {
    if !if_not_exists {
        return Err(DbError::table_exists(name));
    }
    cx.warnings.push(Warning {
        level: WarningLevel::Note,
        code: ErrorCode::TableExistsError,
        message: format!("Table '{name}' already exists"),
    });
    Ok(Output::done(0))
}

/// The names a DROP did not find: error `code` naming them all, or with IF EXISTS one note each;
/// `message` words it for a comma-separated list of names.
pub(super) fn refuse_missing(
    cx: &mut Context,
    missing: Vec<String>,
    if_exists: bool,
    code: ErrorCode,
    message: impl Fn(&str) -> String,
) -> DbResult<()> {
    if !missing.is_empty() && !if_exists {
        return Err(DbError::new(code, message(&missing.join(","))));
    }
    for m in missing {
        cx.warnings.push(Warning {
            level: WarningLevel::Note,
            code,
            message: message(&m),
        });
    }
    Ok(())
}
