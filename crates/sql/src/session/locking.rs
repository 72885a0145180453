//! LOCK TABLES, UNLOCK TABLES and FLUSH TABLES [WITH READ LOCK], and what every other statement must
//! respect of them before it runs (design.md, "Table locks", TLK1-TLK6; the lock state is
//! context/table_locks.rs's).
//!
//! Invariants: a statement that changes tables or the schema passes [`before_statement`] first: under the
//! session's own LOCK TABLES it may change only tables it locked WRITE (1100, 1099), under its own global
//! read lock nothing (1223), otherwise it waits for other sessions' conflicting locks; reads are checked
//! where tables are looked up (`Context::get_table`). LOCK TABLES, FLUSH TABLES WITH READ LOCK and BEGIN
//! commit the open transaction first; BEGIN and UNLOCK TABLES release the session's table locks.

use sqlparser::ast;

use crate::context::table_locks::{conflicting_read_lock, locked_for_read, not_locked, HeldLock};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;
use crate::parser::multi_table::MultiTable;
use crate::parser::statement::{FlushMode, Statement, TableLockSpec};
use crate::result::Output;

/// The tables a statement changes, as written: None for a statement that changes nothing; an empty list
/// for one that changes the schema or accounts without naming a table (CREATE DATABASE, GRANT, ...).
pub fn changed_tables(stmt: &Statement) -> Option<Vec<Vec<String>>> {
    let refs = |twj: &[ast::TableWithJoins]| -> Vec<Vec<String>> {
        twj.iter()
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
            .filter_map(|f| match f {
                ast::TableFactor::Table { name, .. } => Some(object_name_parts(name)),
                _ => None,
            })
            .collect()
    };
    let delete_targets = |d: &ast::Delete| -> Vec<Vec<String>> {
        if !d.tables.is_empty() {
            return d.tables.iter().map(object_name_parts).collect();
        }
        match &d.from {
            ast::FromTable::WithFromKeyword(t) | ast::FromTable::WithoutKeyword(t) => refs(t),
        }
    };
    Some(match stmt {
        Statement::Sql(s) => match &**s {
            ast::Statement::Insert(i) => match &i.table {
                ast::TableObject::TableName(n) => vec![object_name_parts(n)],
                _ => vec![],
            },
            ast::Statement::Update(u) => refs(std::slice::from_ref(&u.table)),
            ast::Statement::Delete(d) => delete_targets(d),
            ast::Statement::CreateTable(ct) if ct.temporary => return None,
            ast::Statement::CreateTable(ct) => vec![object_name_parts(&ct.name)],
            _ => return None,
        },
        Statement::Insert(f) => vec![f.table.clone()],
        Statement::Load(l) => vec![l.table.clone()],
        Statement::MultiTable(m) => match m {
            MultiTable::Update { update, .. } => refs(std::slice::from_ref(&update.table)),
            MultiTable::Delete { delete, .. } => delete_targets(delete),
            MultiTable::MultiUpdate { refs: r, .. } => refs(r),
            MultiTable::MultiDelete { targets, .. } => targets.clone(),
        },
        Statement::DropTables {
            temporary: true, ..
        } => return None,
        Statement::DropTables { names, .. } => names.clone(),
        Statement::Truncate { table }
        | Statement::AlterTable { table, .. }
        | Statement::Tablespace { table, .. }
        | Statement::CreateIndex { table, .. }
        | Statement::DropIndex { table, .. } => vec![table.clone()],
        Statement::RenameTables(pairs) => pairs
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect(),
        Statement::CreateDatabase { .. }
        | Statement::DropDatabase { .. }
        | Statement::Server(_)
        | Statement::CreateUser { .. }
        | Statement::DropUser { .. }
        | Statement::AlterUser { .. }
        | Statement::RenameUsers(_)
        | Statement::SetPassword { .. }
        | Statement::Grant { .. } => vec![],
        _ => return None,
    })
}

/// Checks a statement against the table locks before it runs, and waits for other sessions' locks that
/// conflict with the tables it changes (TLK1-TLK3).
pub fn before_statement(cx: &mut Context, stmt: &Statement) -> DbResult<()> {
    let Some(named) = changed_tables(stmt) else {
        return Ok(());
    };
    let mut tables = Vec::with_capacity(named.len());
    for parts in &named {
        let (db, t) = cx.resolve_table_name(parts)?;
        if db == "information_schema" || cx.temp.get(&db, &t).is_some() {
            continue;
        }
        tables.push((db, t));
    }
    if tables.is_empty() && !named.is_empty() {
        return Ok(()); // temporary tables only
    }
    if let Some(list) = &cx.locked_tables {
        for (db, t) in &tables {
            let held = list.iter().filter(|l| l.table.0 == *db && l.table.1 == *t);
            match held.map(|l| l.write).max() {
                Some(true) => {}
                Some(false) => return Err(locked_for_read(t)),
                None => return Err(not_locked(t)),
            }
        }
        return Ok(());
    }
    if cx.engine.table_locks.holds_global_read(cx.id) {
        return Err(conflicting_read_lock());
    }
    let wait = cx.metadata_wait();
    cx.engine.table_locks.before_write(cx.id, &tables, wait)
}

/// After a DROP TABLE under LOCK TABLES: the dropped tables leave the list, and an emptied list ends
/// LOCK TABLES mode (as MariaDB).
pub fn after_drop(cx: &mut Context, names: &[Vec<String>]) {
    let Some(list) = &mut cx.locked_tables else {
        return;
    };
    for parts in names {
        if let Ok(key) = cx_resolve(&cx.db, parts) {
            list.retain(|l| l.table != key);
            cx.engine.table_locks.forget(cx.id, &key);
        }
    }
    if list.is_empty() {
        cx.locked_tables = None;
        cx.engine.table_locks.unlock_list(cx.id);
    }
}

fn cx_resolve(db: &Option<String>, parts: &[String]) -> Result<(String, String), ()> {
    match parts {
        [t] => db.clone().map(|d| (d, t.clone())).ok_or(()),
        [d, t] => Ok((d.clone(), t.clone())),
        _ => Err(()),
    }
}

/// LOCK TABLES: commits the open transaction, releases the session's earlier list (not its global read
/// lock), then locks every table
/// named (all or none, waiting up to `lock_wait_timeout`).
pub fn lock_tables(cx: &mut Context, specs: &[TableLockSpec]) -> DbResult<Output> {
    cx.implicit_commit()?;
    release_list(cx);
    let holds_global = cx.engine.table_locks.holds_global_read(cx.id);
    let mut list = Vec::with_capacity(specs.len());
    for s in specs {
        let (db, t) = cx.resolve_table_name(&s.table)?;
        cx.check_db_access(&db)?;
        if cx.temp.get(&db, &t).is_none() {
            if let Some(v) = cx.engine.catalog.view(&db, &t) {
                // A view locks the base tables it reads, in its mode (design.md VIEW7).
                for def in crate::plan::view::base_tables(cx, &v)? {
                    if s.write && holds_global {
                        return Err(conflicting_read_lock());
                    }
                    list.push(HeldLock {
                        table: (def.db.clone(), def.name.clone()),
                        alias: None,
                        write: s.write,
                    });
                }
                continue;
            }
        }
        let def = cx
            .find_table(&db, &t)
            .ok_or_else(|| DbError::no_table(&db, &t))?;
        if def.temporary.is_some() {
            continue; // a session's temporary tables need no lock
        }
        if s.write && holds_global {
            return Err(conflicting_read_lock());
        }
        list.push(HeldLock {
            table: (def.db.clone(), def.name.clone()),
            alias: s.alias.clone(),
            write: s.write,
        });
    }
    let wait = cx.metadata_wait();
    cx.engine
        .table_locks
        .lock_tables(cx.id, list.clone(), wait)?;
    cx.locked_tables = Some(list);
    Ok(Output::done(0))
}

/// UNLOCK TABLES: commits the transaction if LOCK TABLES was in effect, releases the list and the global
/// read lock.
pub fn unlock_tables(cx: &mut Context) -> DbResult<Output> {
    if cx.locked_tables.is_some() {
        cx.implicit_commit()?;
    }
    release(cx);
    Ok(Output::done(0))
}

/// Releases the session's LOCK TABLES list and global read lock (UNLOCK TABLES).
pub fn release(cx: &mut Context) {
    release_list(cx);
    cx.engine.table_locks.unlock(cx.id);
}

/// Releases the session's LOCK TABLES list only (LOCK TABLES, BEGIN): a global read lock stays. The
/// export directories of FLUSH TABLES ... FOR EXPORT go with it, as InnoDB removes its `.cfg` files.
pub fn release_list(cx: &mut Context) {
    cx.locked_tables = None;
    cx.engine.table_locks.unlock_list(cx.id);
    cx.remove_exports();
}

/// FLUSH TABLES t, ... FOR EXPORT: READ locks on the tables, as LOCK TABLES takes them (no writer and no
/// uncommitted change meanwhile, EXP3), then each table's export directory; until UNLOCK TABLES.
pub fn flush_for_export(cx: &mut Context, tables: &[Vec<String>]) -> DbResult<Output> {
    cx.need_root("RELOAD")?;
    if cx.locked_tables.is_some() || cx.in_txn {
        return Err(DbError::new(
            ErrorCode::LockOrActiveTransaction,
            "Can't execute the given command because you have active locked tables or an active transaction",
        ));
    }
    let mut defs = Vec::new();
    for parts in tables {
        let (db, t) = cx.resolve_table_name(parts)?;
        cx.check_db_access(&db)?;
        let def = cx
            .find_table(&db, &t)
            .ok_or_else(|| DbError::no_table(&db, &t))?;
        if def.temporary.is_some() {
            return Err(DbError::unsupported(
                "FLUSH TABLES ... FOR EXPORT of a temporary table",
            ));
        }
        // An export holds one tree per index; a partitioned table has those per partition.
        if def.partitioning.is_some() {
            return Err(DbError::unsupported(
                "FLUSH TABLES ... FOR EXPORT of a partitioned table",
            ));
        }
        defs.push(def);
    }
    let specs: Vec<TableLockSpec> = tables
        .iter()
        .map(|t| TableLockSpec {
            table: t.clone(),
            alias: None,
            write: false,
        })
        .collect();
    lock_tables(cx, &specs)?;
    for def in defs {
        match crate::ddl::transport::export_table(cx, &def) {
            Ok(dir) => cx.export_dirs.push(dir),
            Err(e) => {
                release(cx);
                return Err(e);
            }
        }
    }
    Ok(Output::done(0))
}

/// FLUSH TABLES [WITH READ LOCK]: a checkpoint; with the read lock, first the global read lock (waits for
/// writes in progress, TLK4). Refused under LOCK TABLES or in an explicit transaction (1192). FOR EXPORT is
/// the export's (ddl/export.rs).
pub fn flush_tables(cx: &mut Context, mode: FlushMode) -> DbResult<Output> {
    if mode == FlushMode::ReadLock {
        cx.need_root("RELOAD")?;
        if cx.locked_tables.is_some() || cx.in_txn {
            return Err(DbError::new(
                ErrorCode::LockOrActiveTransaction,
                "Can't execute the given command because you have active locked tables or an active transaction",
            ));
        }
        let wait = cx.metadata_wait();
        cx.engine.table_locks.global_read_lock(cx.id, wait)?;
    }
    cx.engine.store.env().checkpoint()?;
    Ok(Output::done(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(sql: &str) -> Option<Vec<Vec<String>>> {
        changed_tables(&crate::parser::parse_statement(sql).unwrap())
    }

    #[test]
    fn the_tables_a_statement_changes() {
        let one = |t: &str| Some(vec![vec![t.to_string()]]);
        assert_eq!(changed("SELECT * FROM t"), None);
        assert_eq!(changed("INSERT INTO t VALUES (1)"), one("t"));
        assert_eq!(changed("INSERT INTO t SELECT * FROM u"), one("t"));
        assert_eq!(changed("UPDATE t SET a = 1"), one("t"));
        assert_eq!(changed("DELETE FROM t WHERE a = 1"), one("t"));
        assert_eq!(changed("DELETE t FROM t JOIN u ON t.a = u.a"), one("t"));
        assert_eq!(changed("CREATE TABLE n (a INT)"), one("n"));
        assert_eq!(changed("CREATE TEMPORARY TABLE n (a INT)"), None);
        assert_eq!(changed("ALTER TABLE t ADD COLUMN b INT"), one("t"));
        assert_eq!(changed("TRUNCATE t"), one("t"));
        assert_eq!(changed("CREATE DATABASE x"), Some(vec![]));
        assert_eq!(
            changed("DROP TABLE a, d.b"),
            Some(vec![vec!["a".into()], vec!["d".into(), "b".into()]])
        );
    }
}
