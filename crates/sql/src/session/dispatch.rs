//! Runs one parsed [`Statement`]: one `match` over the statement enum, calling the executor of
//! each kind in its layer (exec/, ddl/, load/, session/).
//!
//! Invariants: DDL and account statements commit the open transaction before they run
//! ([`Statement::commits_implicitly`]); a statement that truncates, drops, alters or renames a
//! table first closes this session's HANDLERs on it (exec/handler.rs); executors receive plain
//! data and never parse statement text (ALTER TABLE's column definitions excepted: their
//! meaning depends on the table, ddl/table_draft.rs).

use sqlparser::ast;

use crate::context::Context;
use crate::ddl::{alter, databases, indexes, maintenance, rollup, servers, tables, users, views};
use crate::error::db_error::{DbError, DbResult};
use crate::exec::{checksum, dml, handler, multi_table, query};
use crate::parser::statement::{FlushMode, Statement};
use crate::result::{Output, RowSink};
use crate::session::{backup, binlog_ddl, control, key_cache, locking, set, show, transaction};

/// Runs `stmt`; `input` is the client's file for LOAD DATA LOCAL, `sink` receives a query's
/// rows as they are read.
pub fn dispatch(
    cx: &mut Context,
    stmt: Statement,
    input: Option<&mut dyn std::io::Read>,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    before(cx, &stmt)?;
    let ddl_log = binlog_ddl::plan(cx, &stmt);
    let out = run(cx, stmt, input, sink);
    log_ddl(cx, ddl_log, out)
}

/// After a statement succeeded: its binary-log event, if it is DDL that needs one (binlog_ddl.rs).
fn log_ddl(
    cx: &mut Context,
    ddl_log: Option<binlog_ddl::DdlLog>,
    out: DbResult<Output>,
) -> DbResult<Output> {
    let out = out?;
    if let Some(plan) = ddl_log {
        binlog_ddl::log(cx, plan)?;
    }
    Ok(out)
}

fn run(
    cx: &mut Context,
    stmt: Statement,
    input: Option<&mut dyn std::io::Read>,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    match stmt {
        Statement::Sql(s) => sql(cx, &s, sink),
        Statement::CreateTableWith { table, extras } => tables::create_table(cx, &table, &extras),
        Statement::Analyze(q) => crate::exec::query::analyze(cx, &q),
        Statement::Do(q) => {
            crate::exec::query::run_query_to(cx, &q, None)?;
            Ok(Output::done(0))
        }
        Statement::ExplainPartitions(q) => crate::exec::query::explain_partitions(cx, &q),
        Statement::ExplainExtended { query, text } => {
            crate::exec::query::explain_extended(cx, &query, &text)
        }
        Statement::Insert(f) => {
            let f = *f;
            dml::run_insert(
                cx,
                dml::InsertSpec {
                    table: f.table,
                    replace: f.replace,
                    ignore: f.ignore,
                    columns: f.columns,
                    source: dml::InsertSource::Values(f.rows),
                    on_duplicate: &f.on_duplicate,
                },
            )
        }
        Statement::Load(l) => crate::load::run(cx, &l, input),
        Statement::Handler(h) => handler::run(cx, h),
        Statement::MultiTable(m) => multi_table::run(cx, m),
        Statement::Show(s) => show::run(cx, &s),
        Statement::Use(db) => control::use_db(cx, &db),
        Statement::Begin => {
            // A transaction ends LOCK TABLES mode, as in MariaDB.
            if cx.locked_tables.is_some() {
                locking::release_list(cx);
            }
            transaction::begin(cx)
        }
        Statement::Commit => transaction::commit(cx),
        Statement::Rollback { to_savepoint } => transaction::rollback(cx, to_savepoint.as_deref()),
        Statement::Savepoint(name) => transaction::savepoint(cx, &name),
        Statement::ReleaseSavepoint(name) => transaction::release(cx, &name),
        Statement::CreateDatabase {
            name,
            if_not_exists,
            options,
        } => databases::create_database(cx, &name, if_not_exists, &options),
        Statement::AlterDatabase { name, options } => {
            databases::alter_database(cx, name.as_deref(), &options)
        }
        Statement::DropDatabase { name, if_exists } => {
            databases::drop_database(cx, &name, if_exists)
        }
        Statement::DropTables {
            names,
            if_exists,
            temporary,
        } => {
            let out = tables::drop_tables(cx, &names, if_exists, temporary)?;
            locking::after_drop(cx, &names);
            Ok(out)
        }
        Statement::Truncate { table } => {
            let (db, t) = cx.resolve_table_name(&table)?;
            tables::truncate(cx, &db, &t)?;
            Ok(Output::done(0))
        }
        Statement::RenameTables(pairs) => tables::rename_tables(cx, &pairs),
        Statement::AlterTable { table, ops, online } => {
            let (db, t) = cx.resolve_table_name(&table)?;
            alter::alter_table(cx, &db, &t, ops, online)
        }
        Statement::CreateIndex {
            name,
            table,
            spec,
            unique,
        } => indexes::create_index(cx, name, &table, spec, unique),
        Statement::DropIndex { name, table } => indexes::drop_index(cx, name, &table),
        Statement::CreateRollup(r) => rollup::create(cx, &r),
        Statement::DropRollup { name, if_exists } => rollup::drop(cx, &name, if_exists),
        Statement::Server(s) => servers::run(cx, s),
        Statement::CreateView(v) => views::create_view(cx, &v),
        Statement::DropViews { names, if_exists } => views::drop_views(cx, &names, if_exists),
        Statement::CreateRoutine(r) => crate::routine::ddl::create(cx, &r),
        Statement::DropRoutine {
            kind,
            name,
            if_exists,
        } => crate::routine::ddl::drop(cx, kind, &name, if_exists),
        Statement::Call { name, args } => {
            crate::routine::call::call(cx, &name, &args, body_statement)
        }
        Statement::CreateUser {
            if_not_exists,
            users: list,
            require,
        } => users::create_user(cx, if_not_exists, &list, require),
        Statement::DropUser {
            if_exists,
            users: list,
        } => users::drop_user(cx, if_exists, &list),
        Statement::AlterUser {
            if_exists,
            users: list,
            require,
        } => users::alter_user(cx, if_exists, &list, require),
        Statement::RenameUsers(pairs) => users::rename_users(cx, &pairs),
        Statement::SetCharacterSet { charset } => cx
            .set_character_set(charset.as_deref())
            .map(|()| Output::done(0)),
        Statement::SetPassword { user, credential } => {
            users::set_password(cx, user.as_ref(), &credential)
        }
        Statement::Grant {
            on,
            user,
            revoke,
            replication,
        } => users::grant(cx, &on, &user, revoke, replication),
        Statement::Maintenance { op, tables } => maintenance::run(cx, op, &tables),
        Statement::Checksum { tables, quick } => checksum::run(cx, &tables, quick),
        Statement::CacheIndex { tables, cache } => key_cache::cache_index(cx, &tables, &cache),
        Statement::LoadIndex { tables } => key_cache::load_index(cx, &tables),
        Statement::Flush { status } => {
            if status {
                cx.flush_status();
            }
            control::checkpoint(cx)
        }
        Statement::Checkpoint => control::checkpoint(cx),
        Statement::Binlog(b) => crate::session::binlog_admin::run(cx, &b),
        Statement::FlushTables { tables, mode } => match mode {
            FlushMode::ForExport => locking::flush_for_export(cx, &tables),
            _ => locking::flush_tables(cx, mode),
        },
        Statement::LockTables(specs) => locking::lock_tables(cx, &specs),
        Statement::UnlockTables => locking::unlock_tables(cx),
        Statement::Backup(b) => backup::run(cx, &b),
        Statement::Tablespace { table, import } => {
            let (db, t) = cx.resolve_table_name(&table)?;
            if import {
                crate::ddl::transport::import(cx, &db, &t)
            } else {
                // DISCARD TABLESPACE empties the table (the import replaces its rows anyway).
                tables::truncate(cx, &db, &t)?;
                Ok(Output::done(0))
            }
        }
        Statement::Kill(id, query_only) => control::kill(cx, id, query_only),
        Statement::Shutdown => control::shutdown(cx),
        Statement::Replica(r) => control::replica(cx, &r),
    }
}

/// Runs a statement of a stored routine's body (routine/, design.md RTN3).
fn body_statement(cx: &mut Context, stmt: Statement) -> DbResult<Output> {
    dispatch(cx, stmt, None, None)
}

/// Runs a prepared statement, which runs again: a plain SQL statement is only read, the others
/// are copied for [`dispatch`].
pub fn dispatch_prepared(
    cx: &mut Context,
    stmt: &Statement,
    input: Option<&mut dyn std::io::Read>,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    match stmt {
        Statement::Sql(s) => {
            before(cx, stmt)?;
            let ddl_log = binlog_ddl::plan(cx, stmt);
            let out = sql(cx, s, sink);
            log_ddl(cx, ddl_log, out)
        }
        other => dispatch(cx, other.clone(), input, sink),
    }
}

/// What every statement does first: HANDLERs closed, the implicit commit, the statement's locks,
/// what it may not do to roll-ups (rollup_guard.rs).
fn before(cx: &mut Context, stmt: &Statement) -> DbResult<()> {
    close_handlers(cx, stmt);
    if stmt.commits_implicitly() {
        cx.implicit_commit()?;
    }
    // After the implicit commit, which would end the write uses this takes (design.md TLK5).
    locking::before_statement(cx, stmt)?;
    super::rollup_guard::check(cx, stmt)
}

fn sql(
    cx: &mut Context,
    stmt: &ast::Statement,
    sink: Option<&mut dyn RowSink>,
) -> DbResult<Output> {
    match stmt {
        ast::Statement::Query(q) => query::run_query_to(cx, q, sink),
        // RETURNING would be answered with no rows: refused (MariaDB has it, MySQL not).
        ast::Statement::Insert(i) if i.returning.is_some() => {
            Err(DbError::unsupported("INSERT ... RETURNING"))
        }
        ast::Statement::Delete(d) if d.returning.is_some() => {
            Err(DbError::unsupported("DELETE ... RETURNING"))
        }
        ast::Statement::Update(u) if u.returning.is_some() => Err(DbError::syntax("RETURNING")),
        ast::Statement::Insert(i) => dml::insert(cx, i),
        ast::Statement::Update(u) => dml::update(cx, u),
        ast::Statement::Delete(d) => dml::delete(cx, d),
        ast::Statement::CreateTable(ct) => tables::create_table(cx, ct, &Default::default()),
        // EXPLAIN FORMAT=JSON of the shapes plan/explain_json/ describes; other formats are
        // refused, never answered in the tabular form.
        ast::Statement::Explain {
            format: Some(f),
            statement,
            analyze: false,
            ..
        } if is_json(f) => match &**statement {
            ast::Statement::Query(q) => query::explain_json(cx, q),
            _ => Err(DbError::unsupported(
                "EXPLAIN FORMAT=JSON of this statement",
            )),
        },
        ast::Statement::Explain {
            format: Some(f), ..
        } => Err(DbError::unsupported(format!("EXPLAIN {f}"))),
        ast::Statement::Explain { statement, .. } => match &**statement {
            ast::Statement::Query(q) => query::explain(cx, q),
            ast::Statement::Update(u) => dml::explain_update(cx, u),
            _ => Err(DbError::unsupported("EXPLAIN of this statement")),
        },
        ast::Statement::Set(s) => set::set(cx, s),
        other => Err(DbError::unsupported(
            other.to_string().chars().take(60).collect::<String>(),
        )),
    }
}

/// Whether an EXPLAIN's format is `FORMAT=JSON` (MariaDB has no `FORMAT JSON`).
fn is_json(f: &ast::AnalyzeFormatKind) -> bool {
    matches!(
        f,
        ast::AnalyzeFormatKind::Assignment(ast::AnalyzeFormat::JSON)
    )
}

/// Closes this session's HANDLERs on the tables `stmt` truncates, drops, alters or renames (and
/// on every table of a dropped database), whether or not the statement then succeeds.
fn close_handlers(cx: &mut Context, stmt: &Statement) {
    if cx.handlers.is_empty() {
        return;
    }
    let last = |parts: &Vec<String>| parts.last().cloned().unwrap_or_default();
    let names: Vec<String> = match stmt {
        Statement::DropTables { names, .. } => names.iter().map(last).collect(),
        Statement::Truncate { table }
        | Statement::AlterTable { table, .. }
        | Statement::Tablespace { table, .. }
        | Statement::DropIndex { table, .. } => vec![last(table)],
        Statement::RenameTables(pairs) => pairs
            .iter()
            .flat_map(|(from, to)| [last(from), last(to)])
            .collect(),
        Statement::DropDatabase { name, .. } => {
            handler::close_database(cx, name);
            return;
        }
        _ => return,
    };
    handler::close_tables(cx, &names);
}
