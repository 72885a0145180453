//! Statements Betula parses itself (see tokens.rs) and the DDL executors: SHOW ..., USE,
//! BEGIN/COMMIT/ROLLBACK, CREATE/DROP DATABASE, CREATE TABLE (from sqlparser's AST), DROP,
//! TRUNCATE, RENAME, CREATE/DROP INDEX, ALTER TABLE ADD/DROP INDEX, users and grants, SET.
//!
//! DDL ordering invariants (crash safety): trees are created before the catalog entry that names
//! them is written, and the catalog entry is removed before its trees are dropped, so the catalog
//! never names a missing tree. DDL commits the session's open transaction first and holds the
//! schema lock exclusively while it runs (no writing transaction is open meanwhile).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use betula_storage::TreeOptions;
use sqlparser::ast::{self as ast};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use crate::catalog::create_table::{check_name, render_create, render_stored};
use crate::catalog::{create_table, TableDef, UserDef};
use crate::context::variables;
use crate::context::Context;
use crate::ddl::alter;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::{OutCol, Output};
use crate::expr::eval::{eval, like_match, truth, EvalCtx};
use crate::expr::{object_name_parts, Scope, ScopeCol};
use crate::infoschema;
use crate::parser::tokens::{Cursor, Tok};
use crate::types::collation::Collation;
use crate::types::value::Value;

const SPECIAL: &[&str] = &[
    "SHOW",
    "USE",
    "BEGIN",
    "START",
    "COMMIT",
    "ROLLBACK",
    "DESCRIBE",
    "DESC",
    "DROP",
    "TRUNCATE",
    "RENAME",
    "ALTER",
    "GRANT",
    "REVOKE",
    "FLUSH",
    "KILL",
    "LOCK",
    "UNLOCK",
    "ANALYZE",
    "OPTIMIZE",
    "CHECK",
    "SAVEPOINT",
    "RELEASE",
    "CHECKPOINT",
    "CHECKSUM",
    "CACHE",
];

/// True if `sql` is handled here rather than by sqlparser.
pub fn is_special(sql: &str) -> bool {
    let mut c = Cursor::new(sql);
    let Some(k) = c.peek_kw().map(String::from) else {
        return false;
    };
    c.pos += 1;
    if k == "EXPLAIN" {
        return matches!(c.peek(), Some(Tok::Word { upper, quoted, .. }) if *quoted || !matches!(upper.as_str(), "SELECT" | "FORMAT" | "ANALYZE" | "EXTENDED" | "INSERT" | "UPDATE" | "DELETE" | "REPLACE" | "WITH" | "PARTITIONS"));
    }
    if k == "CREATE" {
        if c.kws(&["OR", "REPLACE"]) {
            return matches!(c.peek_kw(), Some("SERVER"));
        }
        return matches!(
            c.peek_kw(),
            Some("DATABASE" | "SCHEMA" | "INDEX" | "UNIQUE" | "USER" | "SERVER")
        );
    }
    if k == "SET" {
        return matches!(c.peek_kw(), Some("PASSWORD"));
    }
    if k == "LOAD" {
        return matches!(c.peek_kw(), Some("INDEX"));
    }
    SPECIAL.contains(&k.as_str())
}

/// Runs `sql` if it is one of ours; `None` otherwise.
pub fn special(cx: &mut Context, sql: &str) -> Option<DbResult<Output>> {
    if !is_special(sql) {
        return None;
    }
    let mut c = Cursor::new(sql);
    Some(run(cx, &mut c))
}

pub(crate) fn syntax(c: &Cursor<'_>) -> DbError {
    DbError::syntax(c.rest().chars().take(80).collect::<String>())
}

pub(crate) fn expect_end(c: &Cursor<'_>) -> DbResult<()> {
    if c.at_end() {
        Ok(())
    } else {
        Err(syntax(c))
    }
}

pub(crate) fn need_root(cx: &Context, what: &str) -> DbResult<()> {
    if cx.user == "root" {
        Ok(())
    } else {
        Err(DbError::new(
            1227,
            "42000",
            format!("Access denied; you need (at least one of) the {what} privilege(s) for this operation"),
        ))
    }
}

fn run(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    let k = c.peek_kw().unwrap_or("").to_string();
    c.pos += 1;
    match k.as_str() {
        "SHOW" => show(cx, c),
        "USE" => {
            let db = c.name().ok_or_else(|| syntax(c))?;
            cx.use_db(&db)?;
            Ok(Output::done(0))
        }
        "BEGIN" | "START" => {
            if k == "START" && !c.kw("TRANSACTION") {
                return Err(syntax(c));
            }
            c.kw("WORK");
            cx.begin()?;
            Ok(Output::done(0))
        }
        "COMMIT" => {
            cx.commit()?;
            Ok(Output::done(0))
        }
        "ROLLBACK" => {
            c.kw("WORK");
            if c.kw("TO") {
                c.kw("SAVEPOINT");
                let name = c.name().ok_or_else(|| syntax(c))?;
                cx.rollback_to_savepoint(&name)?;
                return Ok(Output::done(0));
            }
            cx.rollback();
            Ok(Output::done(0))
        }
        "SAVEPOINT" => {
            let name = c.name().ok_or_else(|| syntax(c))?;
            cx.savepoint(&name);
            Ok(Output::done(0))
        }
        "RELEASE" => {
            if !c.kw("SAVEPOINT") {
                return Err(syntax(c));
            }
            let name = c.name().ok_or_else(|| syntax(c))?;
            cx.release_savepoint(&name)?;
            Ok(Output::done(0))
        }
        "DESCRIBE" | "DESC" | "EXPLAIN" => {
            let parts = c.qualified().ok_or_else(|| syntax(c))?;
            let (db, t) = cx.resolve_table_name(&parts)?;
            // DESCRIBE t col_or_pattern: a column name or a LIKE pattern
            let pat = c.name();
            expect_end(c)?;
            show_columns(cx, &db, &t, false, pat)
        }
        "CREATE" => {
            cx.implicit_commit()?;
            let or_replace = c.kws(&["OR", "REPLACE"]);
            if c.kw("SERVER") {
                return crate::ddl::servers::create(cx, c, or_replace);
            }
            if or_replace {
                return Err(syntax(c));
            }
            if c.kw("DATABASE") || c.kw("SCHEMA") {
                let ine = c.kws(&["IF", "NOT", "EXISTS"]);
                let db = c.name().ok_or_else(|| syntax(c))?;
                check_name(&db)?;
                if db.eq_ignore_ascii_case("information_schema") || cx.engine.catalog.has_db(&db) {
                    if ine {
                        cx.warn(
                            1007,
                            format!("Can't create database '{db}'; database exists"),
                        );
                        return Ok(Output::done(0));
                    }
                    return Err(DbError::db_exists(&db));
                }
                need_root(cx, "CREATE")?;
                cx.engine.catalog.create_db(&db)?;
                return Ok(Output::done(1));
            }
            if c.kw("USER") {
                return create_user(cx, c);
            }
            let unique = c.kw("UNIQUE");
            if !c.kw("INDEX") {
                return Err(syntax(c));
            }
            let name = c.name().ok_or_else(|| syntax(c))?;
            if !c.kw("ON") {
                return Err(syntax(c));
            }
            let parts = c.qualified().ok_or_else(|| syntax(c))?;
            let spec = alter::index_columns(c)?;
            expect_end(c)?;
            let (db, t) = cx.resolve_table_name(&parts)?;
            cx.get_table(&db, &t)?;
            let op = alter::AlterOp::AddIndex {
                name: Some(name),
                spec,
                unique,
                if_not_exists: false,
            };
            alter::execute(cx, &db, &t, vec![op], false)?;
            Ok(Output::done(0))
        }
        "DROP" => {
            cx.implicit_commit()?;
            if c.kw("DATABASE") || c.kw("SCHEMA") {
                let ie = c.kws(&["IF", "EXISTS"]);
                let db = c.name().ok_or_else(|| syntax(c))?;
                return drop_database(cx, &db, ie);
            }
            if c.kw("USER") {
                return drop_user(cx, c);
            }
            if c.kw("SERVER") {
                return crate::ddl::servers::drop(cx, c);
            }
            if c.kw("INDEX") {
                let name = c.name().ok_or_else(|| syntax(c))?;
                if !c.kw("ON") {
                    return Err(syntax(c));
                }
                let parts = c.qualified().ok_or_else(|| syntax(c))?;
                let (db, t) = cx.resolve_table_name(&parts)?;
                cx.get_table(&db, &t)?;
                let op = alter::AlterOp::DropIndex {
                    name,
                    if_exists: false,
                };
                alter::execute(cx, &db, &t, vec![op], false)?;
                return Ok(Output::done(0));
            }
            let temporary = c.kw("TEMPORARY");
            if !c.kw("TABLE") && !c.kw("TABLES") {
                return Err(syntax(c));
            }
            let ie = c.kws(&["IF", "EXISTS"]);
            let mut names = Vec::new();
            loop {
                names.push(c.qualified().ok_or_else(|| syntax(c))?);
                if !c.sym(',') {
                    break;
                }
            }
            c.kw("RESTRICT");
            c.kw("CASCADE");
            expect_end(c)?;
            drop_tables(cx, &names, ie, temporary)
        }
        "TRUNCATE" => {
            cx.implicit_commit()?;
            c.kw("TABLE");
            let parts = c.qualified().ok_or_else(|| syntax(c))?;
            let (db, t) = cx.resolve_table_name(&parts)?;
            truncate(cx, &db, &t)?;
            Ok(Output::done(0))
        }
        "RENAME" => {
            cx.implicit_commit()?;
            if !c.kw("TABLE") {
                return Err(syntax(c));
            }
            loop {
                let from = c.qualified().ok_or_else(|| syntax(c))?;
                if !c.kw("TO") {
                    return Err(syntax(c));
                }
                let to = c.qualified().ok_or_else(|| syntax(c))?;
                let (fdb, ft) = cx.resolve_table_name(&from)?;
                let (tdb, tt) = cx.resolve_table_name(&to)?;
                rename_table(cx, &fdb, &ft, &tdb, &tt)?;
                if !c.sym(',') {
                    break;
                }
            }
            Ok(Output::done(0))
        }
        "ALTER" => {
            cx.implicit_commit()?;
            if c.kw("USER") {
                return alter_user(cx, c);
            }
            if c.kw("SERVER") {
                return crate::ddl::servers::alter(cx, c);
            }
            let online = c.kw("ONLINE");
            c.kw("IGNORE");
            if !c.kw("TABLE") {
                return Err(syntax(c));
            }
            let parts = c.qualified().ok_or_else(|| syntax(c))?;
            let (db, t) = cx.resolve_table_name(&parts)?;
            alter::alter_table(cx, &db, &t, c, online)
        }
        "SET" => {
            // SET PASSWORD [FOR user] = 'pw'
            c.kw("PASSWORD");
            let user = if c.kw("FOR") {
                c.user().ok_or_else(|| syntax(c))?.0
            } else {
                cx.user.clone()
            };
            if !c.sym('=') {
                return Err(syntax(c));
            }
            let pw = c.string().ok_or_else(|| syntax(c))?;
            if user != cx.user {
                need_root(cx, "CREATE USER")?;
            }
            let mut u = cx.engine.catalog.user(&user).ok_or_else(|| {
                DbError::new(
                    1133,
                    "28000",
                    "Can't find any matching row in the user table",
                )
            })?;
            u.password_hash = hash(cx, &pw);
            cx.engine.catalog.put_user(u)?;
            Ok(Output::done(0))
        }
        "GRANT" => grant(cx, c, true),
        "REVOKE" => grant(cx, c, false),
        "FLUSH" | "ANALYZE" | "OPTIMIZE" | "CHECK" | "LOCK" | "UNLOCK" => {
            if k == "FLUSH" {
                cx.engine.store.env().checkpoint()?;
            }
            if matches!(k.as_str(), "ANALYZE" | "OPTIMIZE" | "CHECK") {
                c.kw("NO_WRITE_TO_BINLOG");
                c.kw("LOCAL");
                if !c.kw("TABLE") && !c.kw("TABLES") {
                    return Err(syntax(c));
                }
                let op = k.to_ascii_lowercase();
                let mut rows = Vec::new();
                loop {
                    let parts = c.qualified().ok_or_else(|| syntax(c))?;
                    let (db, t) = cx.resolve_table_name(&parts)?;
                    let name = Value::Text(format!("{db}.{t}"));
                    let op = Value::Text(op.clone());
                    // As MySQL: a missing table is a row of the result, not an error.
                    let found = cx.get_table(&db, &t).map(|_| ());
                    // OPTIMIZE rebuilds the table (ALTER TABLE ... FORCE): every pending
                    // message applied, the rows packed into new trees, the old ones dropped.
                    let done = match found {
                        Ok(()) if k == "OPTIMIZE" => {
                            rows.push(vec![
                                name.clone(),
                                op.clone(),
                                t_("note"),
                                t_("Table does not support optimize, doing recreate + analyze instead"),
                            ]);
                            crate::ddl::alter::execute(
                                cx,
                                &db,
                                &t,
                                vec![crate::ddl::alter::AlterOp::Force],
                                false,
                            )
                        }
                        r => r,
                    };
                    match done {
                        Ok(_) => rows.push(vec![name, op, t_("status"), t_("OK")]),
                        Err(e) => {
                            let msg = Value::Text(e.message.clone());
                            rows.push(vec![name.clone(), op.clone(), t_("Error"), msg]);
                            rows.push(vec![name, op, t_("status"), t_("Operation failed")]);
                        }
                    }
                    if !c.sym(',') {
                        break;
                    }
                }
                // CHECK's options (FOR UPGRADE, QUICK, FAST, MEDIUM, EXTENDED, CHANGED) and
                // ANALYZE's PERSISTENT FOR ... change nothing here.
                return Ok(Output::text(&["Table", "Op", "Msg_type", "Msg_text"], rows));
            }
            Ok(Output::done(0))
        }
        "CHECKSUM" => {
            if !c.kw("TABLE") {
                return Err(syntax(c));
            }
            crate::exec::checksum::run(cx, c)
        }
        "CACHE" => {
            if !c.kw("INDEX") {
                return Err(syntax(c));
            }
            crate::session::key_cache::cache_index(cx, c)
        }
        "LOAD" => {
            c.kw("INDEX");
            crate::session::key_cache::load_index(cx, c)
        }
        "CHECKPOINT" => {
            cx.engine.store.env().checkpoint()?;
            Ok(Output::done(0))
        }
        "KILL" => {
            c.kw("QUERY");
            c.kw("CONNECTION");
            let id: u64 = c
                .name()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| syntax(c))?;
            if !cx.engine.processes.lock().contains_key(&id) {
                return Err(DbError::new(
                    1094,
                    "HY000",
                    format!("Unknown thread id: {id}"),
                ));
            }
            Err(DbError::unsupported("KILL"))
        }
        _ => Err(syntax(c)),
    }
}

fn hash(cx: &Context, pw: &str) -> Option<[u8; 20]> {
    if pw.is_empty() {
        None
    } else {
        Some((cx.engine.config.password_hash)(pw.as_bytes()))
    }
}

pub fn tree_opts(cx: &Context, t: &TableDef) -> TreeOptions {
    let mut o = cx.engine.config.env.default_tree;
    if let Some(codec) = t.codec {
        o.codec = codec;
    }
    o
}

pub fn create_table(cx: &mut Context, ct: &ast::CreateTable) -> DbResult<Output> {
    if let Some(ast::CreateTableLikeKind::Plain(l) | ast::CreateTableLikeKind::Parenthesized(l)) =
        &ct.like
    {
        // CREATE TABLE new LIKE old: the same definition, empty.
        let src = cx.resolve_table_name(&object_name_parts(&l.name))?;
        cx.check_db_access(&src.0)?;
        let old = cx.get_table(&src.0, &src.1)?;
        let text = render_stored(&old);
        let stmts = crate::parser::parse(&text)?;
        if let Some(ast::Statement::CreateTable(mut copy)) = stmts.into_iter().next() {
            copy.name = ct.name.clone();
            copy.if_not_exists = ct.if_not_exists;
            copy.temporary = ct.temporary;
            return create_table(cx, &copy);
        }
    }
    if let Some(q) = &ct.query {
        return crate::ddl::create_select::create_table_as(cx, ct, q);
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
        cx.engine.catalog.table(&db, &name).is_some()
    };
    if exists {
        if ct.if_not_exists {
            cx.warnings.push(crate::error::sql_error::Warning {
                level: crate::error::sql_error::WarningLevel::Note,
                code: 1050,
                message: format!("Table '{name}' already exists"),
            });
            return Ok(Output::done(0));
        }
        return Err(DbError::table_exists(&name));
    }
    let mut notes = Vec::new();
    let mut def = create_table::table_from_create_mode(&db, ct, cx.strict(), &mut notes)?;
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
    // CREATE TABLE ... AUTO_INCREMENT=n starts the counter at n (not persisted, see render_stored)
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
fn drop_tables(
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
            Some(def) => found.push(def),
            None => missing.push(format!("{db}.{t}")),
        }
    }
    if !missing.is_empty() && !if_exists {
        return Err(DbError::new(
            1051,
            "42S02",
            format!("Unknown table '{}'", missing.join(",")),
        ));
    }
    for m in missing {
        cx.warnings.push(crate::error::sql_error::Warning {
            level: crate::error::sql_error::WarningLevel::Note,
            code: 1051,
            message: format!("Unknown table '{m}'"),
        });
    }
    for def in found {
        cx.forget_table(&def)?;
        for tree in def.all_trees() {
            cx.engine.store.drop_tree(&tree)?;
        }
    }
    Ok(Output::done(0))
}

fn drop_database(cx: &mut Context, db: &str, if_exists: bool) -> DbResult<Output> {
    if !cx.engine.catalog.has_db(db) {
        if if_exists {
            cx.warn(
                1008,
                format!("Can't drop database '{db}'; database doesn't exist"),
            );
            return Ok(Output::done(0));
        }
        return Err(DbError::db_drop_missing(db));
    }
    need_root(cx, "DROP")?;
    let tables = cx.engine.catalog.tables(db);
    let names: Vec<Vec<String>> = tables
        .iter()
        .map(|t| vec![t.db.clone(), t.name.clone()])
        .collect();
    drop_tables(cx, &names, true, false)?;
    cx.warnings.clear();
    cx.engine.catalog.drop_db(db)?;
    if cx.db.as_deref() == Some(db) {
        cx.db = None;
    }
    Ok(Output::done(names.len() as u64))
}

fn truncate(cx: &mut Context, db: &str, t: &str) -> DbResult<()> {
    cx.check_db_access(db)?;
    cx.begin_ddl()?;
    let def = cx.get_table(db, t)?;
    let opts = tree_opts(cx, &def);
    for tree in def.all_trees() {
        cx.engine.store.drop_tree(&tree)?;
        cx.engine.store.create_tree(&tree, Some(opts))?;
    }
    def.counters.auto_inc.store(1, Ordering::SeqCst);
    def.counters.row_id.store(1, Ordering::SeqCst);
    Ok(())
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
        cx.engine.catalog.table(tdb, tt).is_some()
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
    for (a, b) in def.all_trees().iter().zip(new.all_trees()) {
        // A temporary table's trees are named by its id and keep their names.
        if *a != b {
            cx.engine.store.rename_tree(a, &b)?;
        }
    }
    let sql = render_stored(&new);
    cx.forget_table(&def)?;
    cx.store_table(new, &sql)?;
    Ok(())
}

fn create_user(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    need_root(cx, "CREATE USER")?;
    let ine = c.kws(&["IF", "NOT", "EXISTS"]);
    loop {
        let (u, h) = c.user().ok_or_else(|| syntax(c))?;
        let mut pw = None;
        if c.kw("IDENTIFIED") {
            if c.kw("WITH") {
                c.name();
            }
            if c.kw("BY") {
                pw = Some(c.string().ok_or_else(|| syntax(c))?);
            }
        }
        if cx.engine.catalog.user(&u).is_some() {
            if !ine {
                return Err(DbError::new(
                    1396,
                    "HY000",
                    format!("Operation CREATE USER failed for '{u}'@'{h}'"),
                ));
            }
        } else {
            cx.engine.catalog.put_user(UserDef {
                name: u,
                password_hash: pw.as_deref().and_then(|p| hash(cx, p)),
                grants: vec![],
            })?;
        }
        if !c.sym(',') {
            break;
        }
    }
    Ok(Output::done(0))
}

fn drop_user(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    need_root(cx, "CREATE USER")?;
    let ie = c.kws(&["IF", "EXISTS"]);
    loop {
        let (u, h) = c.user().ok_or_else(|| syntax(c))?;
        if u == "root" {
            return Err(DbError::new(
                1396,
                "HY000",
                format!("Operation DROP USER failed for '{u}'@'{h}'"),
            ));
        }
        if !cx.engine.catalog.drop_user(&u)? && !ie {
            return Err(DbError::new(
                1396,
                "HY000",
                format!("Operation DROP USER failed for '{u}'@'{h}'"),
            ));
        }
        if !c.sym(',') {
            break;
        }
    }
    Ok(Output::done(0))
}

fn alter_user(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    c.kws(&["IF", "EXISTS"]);
    let (u, h) = c.user().ok_or_else(|| syntax(c))?;
    if u != cx.user {
        need_root(cx, "CREATE USER")?;
    }
    let mut user = cx.engine.catalog.user(&u).ok_or_else(|| {
        DbError::new(
            1396,
            "HY000",
            format!("Operation ALTER USER failed for '{u}'@'{h}'"),
        )
    })?;
    if c.kw("IDENTIFIED") {
        if c.kw("WITH") {
            c.name();
        }
        if c.kw("BY") {
            let pw = c.string().ok_or_else(|| syntax(c))?;
            user.password_hash = hash(cx, &pw);
        }
    }
    cx.engine.catalog.put_user(user)?;
    Ok(Output::done(0))
}

/// GRANT privs ON db.* TO user / REVOKE privs ON db.* FROM user (database level: any
/// privilege grants use of the database; see docs/mysql-compat.md).
fn grant(cx: &mut Context, c: &mut Cursor<'_>, give: bool) -> DbResult<Output> {
    need_root(cx, "GRANT OPTION")?;
    while !c.at_end() && !c.kw("ON") {
        c.pos += 1;
    }
    c.kw("TABLE");
    let first = if c.sym('*') {
        "*".to_string()
    } else {
        c.name().ok_or_else(|| syntax(c))?
    };
    let db = if c.sym('.') {
        if !c.sym('*') {
            c.name().ok_or_else(|| syntax(c))?;
        }
        first
    } else if first == "*" {
        cx.db.clone().unwrap_or_else(|| "*".into())
    } else {
        cx.db.clone().ok_or_else(DbError::no_db)?
    };
    if !(c.kw("TO") || c.kw("FROM")) {
        return Err(syntax(c));
    }
    let (u, h) = c.user().ok_or_else(|| syntax(c))?;
    let mut user = cx.engine.catalog.user(&u).ok_or_else(|| {
        if give {
            DbError::new(
                1410,
                "42000",
                "You are not allowed to create a user with GRANT",
            )
        } else {
            DbError::new(
                1141,
                "42000",
                format!("There is no such grant defined for user '{u}' on host '{h}'"),
            )
        }
    })?;
    if give {
        if !user.grants.contains(&db) {
            user.grants.push(db);
        }
    } else {
        user.grants.retain(|g| *g != db);
    }
    cx.engine.catalog.put_user(user)?;
    Ok(Output::done(0))
}

/// SET statements (parsed by sqlparser).
pub fn set(cx: &mut Context, s: &ast::Set) -> DbResult<Output> {
    use ast::Set as S;
    match s {
        S::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } => {
            let global = matches!(scope, Some(ast::ContextModifier::Global));
            let v = values.first().ok_or_else(|| DbError::syntax("SET"))?;
            assign(cx, &object_name_parts(variable), global, v)?;
        }
        S::MultipleAssignments { assignments } => {
            for a in assignments {
                let global = matches!(a.scope, Some(ast::ContextModifier::Global));
                assign(cx, &object_name_parts(&a.name), global, &a.value)?;
            }
        }
        S::SetNames { .. } | S::SetNamesDefault {} => {}
        S::SetTransaction { modes, .. } => {
            for m in modes {
                if let ast::TransactionMode::IsolationLevel(l) = m {
                    let v = match l {
                        ast::TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
                        ast::TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
                        ast::TransactionIsolationLevel::Serializable => "SERIALIZABLE",
                        _ => "REPEATABLE-READ",
                    };
                    for n in ["transaction_isolation", "tx_isolation"] {
                        cx.vars.insert(n.into(), Value::Text(v.into()));
                    }
                }
            }
        }
        other => {
            let text = other.to_string();
            cx.warn(1235, format!("Ignored: {text}"));
        }
    }
    Ok(Output::done(0))
}

fn assign(cx: &mut Context, name: &[String], global: bool, value: &ast::Expr) -> DbResult<()> {
    let (var, mut global, user) = match name {
        [n] if n.starts_with("@@") => (n[2..].to_string(), global, false),
        [s, n] if s.eq_ignore_ascii_case("@@global") => (n.clone(), true, false),
        [s, n] if s.eq_ignore_ascii_case("@@session") || s.eq_ignore_ascii_case("@@local") => {
            (n.clone(), false, false)
        }
        [n] if n.starts_with('@') => (n[1..].to_string(), false, true),
        [n] => (n.clone(), global, false),
        [cache, p] | [_, cache, p] if crate::session::key_cache::param(p).is_some() => {
            let v = eval(
                &cx.compile(&Scope::default(), value, "field list")?,
                &EvalCtx::default(),
            )?;
            need_root(cx, "SYSTEM_VARIABLES_ADMIN")?;
            let p = crate::session::key_cache::param(p).unwrap_or_default();
            return crate::session::key_cache::assign(cx, cache, p, &v);
        }
        other => return Err(DbError::syntax(other.join("."))),
    };
    let var = var.to_ascii_lowercase();
    let v = match value {
        ast::Expr::Identifier(i) if i.quote_style.is_none() && !i.value.starts_with('@') => {
            if i.value.eq_ignore_ascii_case("DEFAULT") {
                variables::defaults(0, "")
                    .get(&var)
                    .cloned()
                    .unwrap_or(Value::Null)
            } else {
                Value::Text(i.value.clone())
            }
        }
        e => {
            let ex = cx.compile(&Scope::default(), e, "field list")?;
            eval(&ex, &EvalCtx::default())?
        }
    };
    if user {
        cx.user_vars.insert(var, v);
        return Ok(());
    }
    if var == "transaction_isolation" || var == "tx_isolation" || var == "transaction_read_only" {
        // accepted; Betula has one isolation behaviour (see store.rs)
    }
    let known = cx.engine.globals.read().contains_key(&var);
    if !known {
        cx.warn(1193, format!("Unknown system variable '{var}' (ignored)"));
        return Ok(());
    }
    if var == "autocommit" {
        global = false.max(global);
    }
    let mut v = v;
    if var == "optimizer_switch" {
        let current = cx.sysvar_value(&var, global).unwrap_or(Value::Null);
        let current = crate::expr::eval::text_of(&current).unwrap_or_default();
        let (value, warnings) = crate::context::optimizer_switch::assign(&current, &v)?;
        for (code, message) in warnings {
            cx.warn(code, message);
        }
        v = Value::Text(value);
    }
    let v = variables::normalize(&var, v);
    if global {
        need_root(cx, "SYSTEM_VARIABLES_ADMIN")?;
        cx.engine.globals.write().insert(var.clone(), v.clone());
        return Ok(());
    }
    if var == "autocommit" && truth(&v) == Some(true) && !cx.autocommit() {
        // Turning autocommit on commits the open transaction.
        cx.commit()?;
    }
    cx.vars.insert(var, v);
    Ok(())
}

// ---------------------------------------------------------------- SHOW

fn like_filter(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    if c.kw("LIKE") {
        return Ok(Some(c.string().ok_or_else(|| syntax(c))?));
    }
    Ok(None)
}

fn matches(pat: &Option<String>, s: &str) -> bool {
    pat.as_ref().is_none_or(|p| like_match(s, p, '\\', true))
}

/// Applies `WHERE expr` (text after WHERE) over a result's columns.
fn where_filter(cx: &mut Context, out: Output, text: &str) -> DbResult<Output> {
    let Output::Rows { cols, rows } = out else {
        return Ok(out);
    };
    let e = Parser::new(&MySqlDialect {})
        .try_with_sql(text)?
        .parse_expr()?;
    let scope = Scope {
        cols: cols
            .iter()
            .map(|c| ScopeCol {
                table: String::new(),
                db: String::new(),
                org_table: String::new(),
                name: c.name.clone(),
                ty: c.ty,
                collation: Collation::default(),
                flags: 0,
                length: 0,
                members: Default::default(),
            })
            .collect(),
    };
    let ex = cx.compile(&scope, &e, "where clause")?;
    let mut kept = Vec::new();
    for r in rows {
        if truth(&eval(&ex, &EvalCtx::row(&r))?) == Some(true) {
            kept.push(r);
        }
    }
    Ok(Output::Rows { cols, rows: kept })
}

fn t_(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

fn show(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    let full = c.kw("FULL");
    let global = c.kw("GLOBAL");
    c.kw("SESSION");
    c.kw("LOCAL");
    let what = c.peek_kw().unwrap_or("").to_string();
    c.pos += 1;
    let mut out = match what.as_str() {
        "DATABASES" | "SCHEMAS" => {
            let pat = like_filter(c)?;
            let mut dbs = vec!["information_schema".to_string()];
            dbs.extend(cx.engine.catalog.databases());
            let user = cx.engine.catalog.user(&cx.user);
            let rows = dbs
                .into_iter()
                .filter(|d| matches(&pat, d) && user.as_ref().is_some_and(|u| u.may_use(d)))
                .map(|d| vec![t(d)])
                .collect();
            Output::text(&["Database"], rows)
        }
        "TABLES" => {
            let db = from_db(cx, c)?;
            let pat = like_filter(c)?;
            let col = format!("Tables_in_{db}");
            let names = infoschema::table_names(cx, &db);
            let rows = names
                .into_iter()
                .filter(|n| matches(&pat, n))
                .map(|n| {
                    let mut r = vec![t(n)];
                    if full {
                        r.push(t(if db == "information_schema" {
                            "SYSTEM VIEW"
                        } else {
                            "BASE TABLE"
                        }));
                    }
                    r
                })
                .collect();
            if full {
                Output::text(&[&col, "Table_type"], rows)
            } else {
                Output::text(&[&col], rows)
            }
        }
        "COLUMNS" | "FIELDS" => {
            if !(c.kw("FROM") || c.kw("IN")) {
                return Err(syntax(c));
            }
            let mut parts = c.qualified().ok_or_else(|| syntax(c))?;
            if c.kw("FROM") || c.kw("IN") {
                let db = c.name().ok_or_else(|| syntax(c))?;
                parts = vec![db, parts.pop().unwrap_or_default()];
            }
            let (db, tn) = cx.resolve_table_name(&parts)?;
            let pat = like_filter(c)?;
            show_columns(cx, &db, &tn, full, pat)?
        }
        "INDEX" | "INDEXES" | "KEYS" => {
            if !(c.kw("FROM") || c.kw("IN")) {
                return Err(syntax(c));
            }
            let mut parts = c.qualified().ok_or_else(|| syntax(c))?;
            if c.kw("FROM") || c.kw("IN") {
                let db = c.name().ok_or_else(|| syntax(c))?;
                parts = vec![db, parts.pop().unwrap_or_default()];
            }
            let (db, tn) = cx.resolve_table_name(&parts)?;
            cx.check_db_access(&db)?;
            let def = cx.get_table(&db, &tn)?;
            let (cols, rows) = infoschema::index_rows(&def);
            let _ = cols;
            Output::text(
                &[
                    "Table",
                    "Non_unique",
                    "Key_name",
                    "Seq_in_index",
                    "Column_name",
                    "Collation",
                    "Cardinality",
                    "Sub_part",
                    "Packed",
                    "Null",
                    "Index_type",
                    "Comment",
                    "Index_comment",
                    "Ignored",
                ],
                rows.into_iter()
                    .map(|mut r| {
                        // MariaDB's form: Ignored instead of MySQL 8's Visible, Expression
                        r.truncate(13);
                        r.push(t("NO"));
                        r
                    })
                    .collect(),
            )
        }
        "CREATE" => {
            if c.kw("DATABASE") || c.kw("SCHEMA") {
                c.kws(&["IF", "NOT", "EXISTS"]);
                let db = c.name().ok_or_else(|| syntax(c))?;
                if !cx.engine.catalog.has_db(&db) {
                    return Err(DbError::bad_db(&db));
                }
                Output::text(
                    &["Database", "Create Database"],
                    vec![vec![
                        t(db.clone()),
                        t(format!(
                            "CREATE DATABASE `{db}` /*!40100 DEFAULT CHARACTER SET utf8mb4 */"
                        )),
                    ]],
                )
            } else if c.kw("TABLE") {
                let parts = c.qualified().ok_or_else(|| syntax(c))?;
                let (db, tn) = cx.resolve_table_name(&parts)?;
                cx.check_db_access(&db)?;
                let def = cx.get_table(&db, &tn)?;
                Output::text(
                    &["Table", "Create Table"],
                    vec![vec![t(tn), t(render_create(&def))]],
                )
            } else if c.kw("USER") {
                let (u, h) = c.user().ok_or_else(|| syntax(c))?;
                Output::text(
                    &[&format!("CREATE USER for {u}@{h}")],
                    vec![vec![t(format!(
                        "CREATE USER '{u}'@'{h}' IDENTIFIED WITH 'mysql_native_password'"
                    ))]],
                )
            } else {
                return Err(DbError::unsupported("SHOW CREATE of this object"));
            }
        }
        "TABLE" => {
            if !c.kw("STATUS") {
                return Err(syntax(c));
            }
            let db = from_db(cx, c)?;
            let pat = like_filter(c)?;
            let (cols, rows) = infoschema::table_status(cx, &db)?;
            let rows = rows
                .into_iter()
                .filter(|r| matches(&pat, &crate::expr::eval::text_of(&r[0]).unwrap_or_default()))
                .collect();
            Output::Rows { cols, rows }
        }
        "VARIABLES" => {
            let pat = like_filter(c)?;
            let src = if global {
                cx.engine.globals.read().clone()
            } else {
                cx.vars.clone()
            };
            let mut names: Vec<&String> = src.keys().collect();
            names.sort();
            let rows = names
                .into_iter()
                .filter(|n| matches(&pat, n))
                .map(|n| vec![t(n.clone()), t(variables::show_text(n, &src[n]))])
                .collect();
            Output::text(&["Variable_name", "Value"], rows)
        }
        "STATUS" => {
            let pat = like_filter(c)?;
            let rows = infoschema::status(cx)
                .into_iter()
                .filter(|(n, _)| matches(&pat, n))
                .map(|(n, v)| vec![t(n), t(v)])
                .collect();
            Output::text(&["Variable_name", "Value"], rows)
        }
        "WARNINGS" | "ERRORS" => {
            // At most max_error_count are listed; @@warning_count still counts them all.
            let max = cx.int_var("max_error_count") as usize;
            let rows = cx
                .warnings
                .iter()
                .take(max)
                .filter(|w| {
                    what == "WARNINGS" || w.level == crate::error::sql_error::WarningLevel::Warning
                })
                .map(|w| {
                    vec![
                        t(match w.level {
                            crate::error::sql_error::WarningLevel::Note => "Note",
                            crate::error::sql_error::WarningLevel::Warning => "Warning",
                        }),
                        Value::Int(w.code as i64),
                        t(w.message.clone()),
                    ]
                })
                .collect();
            Output::text(&["Level", "Code", "Message"], rows)
        }
        "PROCESSLIST" => {
            let rows = infoschema::processlist(cx);
            Output::text(
                &[
                    "Id", "User", "Host", "db", "Command", "Time", "State", "Info",
                ],
                rows,
            )
        }
        "ENGINES" => {
            let (_, rows) = infoschema::engines();
            Output::text(
                &[
                    "Engine",
                    "Support",
                    "Comment",
                    "Transactions",
                    "XA",
                    "Savepoints",
                ],
                rows,
            )
        }
        "ENGINE" => {
            let name = c.name().unwrap_or_default();
            c.kw("STATUS");
            let st = cx.engine.store.env().stats();
            Output::text(
                &["Type", "Name", "Status"],
                vec![vec![t(name), t(""), t(format!("{st:#?}"))]],
            )
        }
        "GRANTS" => {
            let user = if c.kw("FOR") {
                c.user().ok_or_else(|| syntax(c))?.0
            } else {
                cx.user.clone()
            };
            let u = cx.engine.catalog.user(&user).ok_or_else(|| {
                DbError::new(
                    1141,
                    "42000",
                    format!("There is no such grant defined for user '{user}' on host '%'"),
                )
            })?;
            let mut rows = vec![vec![t(format!("GRANT USAGE ON *.* TO `{user}`@`%`"))]];
            for g in &u.grants {
                let on = if g == "*" {
                    "*.*".to_string()
                } else {
                    format!("`{g}`.*")
                };
                rows.push(vec![t(format!(
                    "GRANT ALL PRIVILEGES ON {on} TO `{user}`@`%`"
                ))]);
            }
            Output::text(&[&format!("Grants for {user}@%")], rows)
        }
        "COLLATION" => {
            let pat = like_filter(c)?;
            let rows = infoschema::collation_rows()
                .into_iter()
                .filter(|r| matches(&pat, &crate::expr::eval::text_of(&r[0]).unwrap_or_default()))
                .collect();
            Output::text(
                &[
                    "Collation",
                    "Charset",
                    "Id",
                    "Default",
                    "Compiled",
                    "Sortlen",
                    "Pad_attribute",
                ],
                rows,
            )
        }
        "CHARACTER" | "CHARSET" => {
            c.kw("SET");
            let pat = like_filter(c)?;
            // information_schema's column order is name, default collation, description, maxlen
            let rows = infoschema::charset_rows()
                .into_iter()
                .filter(|r| matches(&pat, &crate::expr::eval::text_of(&r[0]).unwrap_or_default()))
                .map(|r| vec![r[0].clone(), r[2].clone(), r[1].clone(), r[3].clone()])
                .collect();
            Output::text(
                &["Charset", "Description", "Default collation", "Maxlen"],
                rows,
            )
        }
        "PLUGINS" => Output::text(&["Name", "Status", "Type", "Library", "License"], vec![]),
        "MASTER" | "BINARY" | "SLAVE" | "REPLICA" => {
            while c.name().is_some() {}
            Output::text(&["File", "Position"], vec![])
        }
        "TRIGGERS" | "EVENTS" | "OPEN" => {
            while !c.at_end() {
                c.pos += 1;
            }
            Output::text(
                &["Trigger", "Event", "Table", "Statement", "Timing"],
                vec![],
            )
        }
        "PROCEDURE" | "FUNCTION" => {
            c.kw("STATUS");
            Output::text(&["Db", "Name", "Type", "Definer"], vec![])
        }
        _ => return Err(syntax(c)),
    };
    if c.kw("WHERE") {
        out = where_filter(cx, out, c.rest())?;
    } else {
        expect_end(c)?;
    }
    Ok(out)
}

fn from_db(cx: &Context, c: &mut Cursor<'_>) -> DbResult<String> {
    if c.kw("FROM") || c.kw("IN") {
        let db = c.name().ok_or_else(|| syntax(c))?;
        if !db.eq_ignore_ascii_case("information_schema") && !cx.engine.catalog.has_db(&db) {
            return Err(DbError::bad_db(&db));
        }
        cx.check_db_access(&db)?;
        return Ok(if db.eq_ignore_ascii_case("information_schema") {
            "information_schema".into()
        } else {
            db
        });
    }
    cx.db.clone().ok_or_else(DbError::no_db)
}

pub fn show_columns(
    cx: &mut Context,
    db: &str,
    tn: &str,
    full: bool,
    pat: Option<String>,
) -> DbResult<Output> {
    cx.check_db_access(db)?;
    if db == "information_schema" {
        let (cols, _) = infoschema::view(cx, tn)?;
        let rows = cols
            .iter()
            .map(|c| {
                vec![
                    t(c.name.clone()),
                    t("varchar(256)"),
                    t("YES"),
                    t(""),
                    Value::Null,
                    t(""),
                ]
            })
            .collect();
        return Ok(Output::text(
            &["Field", "Type", "Null", "Key", "Default", "Extra"],
            rows,
        ));
    }
    let def: Arc<TableDef> = cx.get_table(db, tn)?;
    let rows = infoschema::column_rows(&def)
        .into_iter()
        .filter(|r| {
            matches(
                &pat,
                &crate::expr::eval::text_of(&r.field).unwrap_or_default(),
            )
        })
        .map(|r| {
            if full {
                vec![
                    r.field,
                    r.ty,
                    r.collation,
                    r.null,
                    r.key,
                    r.default,
                    r.extra,
                    t("select,insert,update,references"),
                    r.comment,
                ]
            } else {
                vec![r.field, r.ty, r.null, r.key, r.default, r.extra]
            }
        })
        .collect();
    Ok(if full {
        Output::text(
            &[
                "Field",
                "Type",
                "Collation",
                "Null",
                "Key",
                "Default",
                "Extra",
                "Privileges",
                "Comment",
            ],
            rows,
        )
    } else {
        Output::text(&["Field", "Type", "Null", "Key", "Default", "Extra"], rows)
    })
}

pub fn out_cols(names: &[&str]) -> Vec<OutCol> {
    names
        .iter()
        .map(|n| OutCol::named(n, Some(crate::types::SqlType::VarChar { len: 256 })))
        .collect()
}
