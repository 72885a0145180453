//! The grammar of the session and maintenance statements Betula reads itself: USE, transaction
//! control (BEGIN / START TRANSACTION, COMMIT, ROLLBACK [TO SAVEPOINT], SAVEPOINT, RELEASE
//! SAVEPOINT; XA is refused with 1235), KILL, CHECKPOINT, ANALYZE / OPTIMIZE / CHECK TABLE, CHECKSUM TABLE, CACHE INDEX and
//! LOAD INDEX INTO CACHE; FLUSH, LOCK / UNLOCK and BACKUP are read by locks.rs.
//!
//! Invariant: text after the part a statement uses is ignored where MySQL's options change
//! nothing here (`START TRANSACTION READ ONLY`, `COMMIT AND CHAIN`, CHECK's `FOR UPGRADE`, a
//! savepoint or KILL statement's tail), as before;
//! CHECKSUM TABLE, CACHE INDEX and LOAD INDEX must end where their grammar does (1064).

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::{MaintenanceOp, Statement, TableIndexes};
use crate::parser::tokens::{expect_end, syntax, Cursor};

/// The statement starting with `keyword` (the cursor is after it).
pub fn parse(keyword: &str, c: &mut Cursor<'_>) -> DbResult<Statement> {
    Ok(match keyword {
        "USE" => Statement::Use(c.name().ok_or_else(|| syntax(c))?),
        "BEGIN" | "START" => {
            if keyword == "START" && !c.kw("TRANSACTION") {
                return Err(syntax(c));
            }
            c.kw("WORK");
            Statement::Begin
        }
        "COMMIT" => Statement::Commit,
        "ROLLBACK" => {
            c.kw("WORK");
            if c.kw("TO") {
                c.kw("SAVEPOINT");
                let name = c.name().ok_or_else(|| syntax(c))?;
                Statement::Rollback {
                    to_savepoint: Some(name),
                }
            } else {
                Statement::Rollback { to_savepoint: None }
            }
        }
        "SAVEPOINT" => Statement::Savepoint(c.name().ok_or_else(|| syntax(c))?),
        // Two-phase commit with a transaction manager (XA START/END/PREPARE/COMMIT/ROLLBACK/
        // RECOVER): a prepared branch would have to survive a crash, which Betula's log does not
        // record; refused rather than committed in one phase (docs/sharding.md).
        "XA" => return Err(DbError::unsupported("XA transactions")),
        "RELEASE" => {
            if !c.kw("SAVEPOINT") {
                return Err(syntax(c));
            }
            Statement::ReleaseSavepoint(c.name().ok_or_else(|| syntax(c))?)
        }
        "KILL" => {
            let _ = c.kw("HARD") || c.kw("SOFT");
            let query = c.kw("QUERY");
            if !query {
                c.kw("CONNECTION");
            }
            let id = c
                .name()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| syntax(c))?;
            Statement::Kill(id, query)
        }
        "SHUTDOWN" => {
            // MariaDB's `WAIT FOR ALL SLAVES`: there are none.
            c.kws(&["WAIT", "FOR", "ALL", "SLAVES"]);
            Statement::Shutdown
        }
        "FLUSH" => crate::parser::locks::parse_flush(c)?,
        "CHECKPOINT" => Statement::Checkpoint,
        "LOCK" | "UNLOCK" => crate::parser::locks::parse_lock(keyword, c)?,
        "BACKUP" => crate::parser::locks::parse_backup(c)?,
        "PURGE" | "RESET" => crate::parser::binlog::parse(keyword, c)?,
        "ANALYZE" | "OPTIMIZE" | "CHECK" => {
            let op = match keyword {
                "ANALYZE" => MaintenanceOp::Analyze,
                "OPTIMIZE" => MaintenanceOp::Optimize,
                _ => MaintenanceOp::Check,
            };
            c.kw("NO_WRITE_TO_BINLOG");
            c.kw("LOCAL");
            if !c.kw("TABLE") && !c.kw("TABLES") {
                return Err(syntax(c));
            }
            // CHECK's options (FOR UPGRADE, QUICK, FAST, MEDIUM, EXTENDED, CHANGED) and
            // ANALYZE's PERSISTENT FOR ... change nothing here.
            Statement::Maintenance {
                op,
                tables: table_names(c)?,
            }
        }
        "CHECKSUM" => {
            if !c.kw("TABLE") {
                return Err(syntax(c));
            }
            let tables = table_names(c)?;
            let quick = c.kw("QUICK");
            if !quick {
                c.kw("EXTENDED");
            }
            if !c.at_end() {
                return Err(syntax(c));
            }
            Statement::Checksum { tables, quick }
        }
        "CACHE" => {
            if !c.kw("INDEX") {
                return Err(syntax(c));
            }
            let tables = index_list(c, false)?;
            if !c.kw("IN") {
                return Err(syntax(c));
            }
            let cache = c.name().ok_or_else(|| syntax(c))?;
            expect_end(c)?;
            Statement::CacheIndex { tables, cache }
        }
        "LOAD" => {
            c.kw("INDEX");
            if !c.kws(&["INTO", "CACHE"]) {
                return Err(syntax(c));
            }
            let tables = index_list(c, true)?;
            expect_end(c)?;
            Statement::LoadIndex { tables }
        }
        _ => return Err(syntax(c)),
    })
}

/// `t [, t ...]` (each name's parts).
pub fn table_names(c: &mut Cursor<'_>) -> DbResult<Vec<Vec<String>>> {
    let mut names = Vec::new();
    loop {
        names.push(c.qualified().ok_or_else(|| syntax(c))?);
        if !c.sym(',') {
            return Ok(names);
        }
    }
}

/// `t [{INDEX|KEY} (i, ...)] [IGNORE LEAVES], ...` (IGNORE LEAVES with `leaves` only).
fn index_list(c: &mut Cursor<'_>, leaves: bool) -> DbResult<Vec<TableIndexes>> {
    let mut out = Vec::new();
    loop {
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        let mut indexes = Vec::new();
        if c.kw("INDEX") || c.kw("KEY") {
            if !c.sym('(') {
                return Err(syntax(c));
            }
            if !c.sym(')') {
                loop {
                    indexes.push(c.name().ok_or_else(|| syntax(c))?);
                    if c.sym(')') {
                        break;
                    }
                    if !c.sym(',') {
                        return Err(syntax(c));
                    }
                }
            }
        }
        if leaves && c.kw("IGNORE") && !c.kw("LEAVES") {
            return Err(syntax(c));
        }
        out.push(TableIndexes { table, indexes });
        if !c.sym(',') {
            return Ok(out);
        }
    }
}
