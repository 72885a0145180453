//! The grammar of table locks, FLUSH and BACKUP: `LOCK TABLE[S] t [[AS] a] {READ [LOCAL] | [LOW_PRIORITY]
//! WRITE [CONCURRENT]}, ...`, `UNLOCK TABLE[S]`, `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] TABLE[S] [t, ...]
//! [WITH READ LOCK [AND DISABLE CHECKPOINT] | FOR EXPORT]` (other FLUSH forms are [`Statement::Flush`]),
//! and Betula's `BACKUP TO 'dir' [INCREMENTAL FROM 'base'] [THROTTLE bytes_per_second]`.
//!
//! Invariant: each form ends where its grammar does (1064 otherwise), except the other FLUSH forms, whose
//! options change nothing here.

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::{BackupStmt, FlushMode, Statement, TableLockSpec};
use crate::parser::tokens::{expect_end, syntax, Cursor, Tok};

/// `LOCK ...` / `UNLOCK ...` (the cursor is after the first keyword).
pub fn parse_lock(keyword: &str, c: &mut Cursor<'_>) -> DbResult<Statement> {
    if !c.kw("TABLES") && !c.kw("TABLE") {
        // LOCK INSTANCE FOR BACKUP (MySQL) and MariaDB's BACKUP LOCK are not Betula's.
        return Err(DbError::unsupported(format!("{keyword} {}", c.rest())));
    }
    if keyword == "UNLOCK" {
        expect_end(c)?;
        return Ok(Statement::UnlockTables);
    }
    let mut list = Vec::new();
    loop {
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        let alias = if c.kw("AS") {
            Some(c.name().ok_or_else(|| syntax(c))?)
        } else if !matches!(c.peek_kw(), Some("READ" | "WRITE" | "LOW_PRIORITY")) {
            c.name()
        } else {
            None
        };
        let write = if c.kw("READ") {
            c.kw("LOCAL");
            false
        } else {
            c.kw("LOW_PRIORITY");
            if !c.kw("WRITE") {
                return Err(syntax(c));
            }
            c.kw("CONCURRENT");
            true
        };
        list.push(TableLockSpec {
            table,
            alias,
            write,
        });
        if !c.sym(',') {
            break;
        }
    }
    expect_end(c)?;
    Ok(Statement::LockTables(list))
}

/// `FLUSH ...` (the cursor is after FLUSH).
pub fn parse_flush(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if !c.kw("NO_WRITE_TO_BINLOG") {
        c.kw("LOCAL");
    }
    if c.kw("BINARY") || c.peek_kw() == Some("LOGS") {
        if !c.kw("LOGS") {
            return Err(syntax(c));
        }
        expect_end(c)?;
        return Ok(Statement::Binlog(
            crate::parser::binlog::BinlogStmt::FlushLogs,
        ));
    }
    if !c.kw("TABLES") && !c.kw("TABLE") {
        let status = c
            .rest()
            .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
            .any(|w| w.eq_ignore_ascii_case("STATUS"));
        return Ok(Statement::Flush { status });
    }
    let mut tables = Vec::new();
    if !c.at_end() && !matches!(c.peek_kw(), Some("WITH" | "FOR")) {
        loop {
            tables.push(c.qualified().ok_or_else(|| syntax(c))?);
            if !c.sym(',') {
                break;
            }
        }
    }
    let mode = if c.kws(&["WITH", "READ", "LOCK"]) {
        c.kws(&["AND", "DISABLE", "CHECKPOINT"]);
        FlushMode::ReadLock
    } else if c.kws(&["FOR", "EXPORT"]) {
        if tables.is_empty() {
            return Err(syntax(c));
        }
        FlushMode::ForExport
    } else {
        FlushMode::Plain
    };
    expect_end(c)?;
    Ok(Statement::FlushTables { tables, mode })
}

/// `BACKUP TO 'dir' [INCREMENTAL FROM 'base'] [THROTTLE n]` (the cursor is after BACKUP). MariaDB's
/// `BACKUP STAGE` and `BACKUP LOCK` are refused with 1235.
pub fn parse_backup(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if matches!(c.peek_kw(), Some("STAGE" | "LOCK" | "UNLOCK")) {
        return Err(DbError::unsupported(format!("BACKUP {}", c.rest())));
    }
    if !c.kw("TO") {
        return Err(syntax(c));
    }
    let to = c.string().ok_or_else(|| syntax(c))?;
    let mut stmt = BackupStmt {
        to,
        base: None,
        throttle: None,
    };
    loop {
        if c.kws(&["INCREMENTAL", "FROM"]) && stmt.base.is_none() {
            stmt.base = Some(c.string().ok_or_else(|| syntax(c))?);
        } else if c.kw("THROTTLE") && stmt.throttle.is_none() {
            c.sym('=');
            let n = match c.peek() {
                Some(Tok::Num(n)) => n.parse::<u64>().ok(),
                _ => None,
            };
            let n = n.ok_or_else(|| syntax(c))?;
            c.pos += 1;
            stmt.throttle = Some(n);
        } else {
            break;
        }
    }
    expect_end(c)?;
    Ok(Statement::Backup(stmt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_statement as p;

    fn lock(t: &str, alias: Option<&str>, write: bool) -> TableLockSpec {
        TableLockSpec {
            table: t.split('.').map(String::from).collect(),
            alias: alias.map(String::from),
            write,
        }
    }

    #[test]
    fn lock_tables_forms() {
        let Statement::LockTables(l) =
            p("LOCK TABLES t READ, d.u AS x LOW_PRIORITY WRITE, v w READ LOCAL").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            l,
            vec![
                lock("t", None, false),
                lock("d.u", Some("x"), true),
                lock("v", Some("w"), false)
            ]
        );
        assert!(matches!(
            p("UNLOCK TABLES").unwrap(),
            Statement::UnlockTables
        ));
        assert!(matches!(
            p("unlock table").unwrap(),
            Statement::UnlockTables
        ));
        assert!(p("LOCK TABLES t").is_err());
        assert!(p("LOCK TABLES t READ extra").is_err());
    }

    #[test]
    fn flush_forms() {
        let f = |sql: &str| match p(sql).unwrap() {
            Statement::FlushTables { tables, mode } => (tables.len(), mode),
            other => panic!("{other:?}"),
        };
        assert_eq!(f("FLUSH TABLES"), (0, FlushMode::Plain));
        assert_eq!(f("FLUSH TABLES WITH READ LOCK"), (0, FlushMode::ReadLock));
        assert_eq!(
            f("FLUSH LOCAL TABLES WITH READ LOCK AND DISABLE CHECKPOINT"),
            (0, FlushMode::ReadLock)
        );
        assert_eq!(f("FLUSH TABLES a, b FOR EXPORT"), (2, FlushMode::ForExport));
        assert!(matches!(
            p("FLUSH PRIVILEGES").unwrap(),
            Statement::Flush { status: false }
        ));
        assert!(matches!(
            p("FLUSH LOCAL STATUS").unwrap(),
            Statement::Flush { status: true }
        ));
        assert!(p("FLUSH TABLES FOR EXPORT").is_err());
    }

    #[test]
    fn backup_forms() {
        let Statement::Backup(b) =
            p("BACKUP TO '/b/2' INCREMENTAL FROM '/b/1' THROTTLE 1048576").unwrap()
        else {
            panic!()
        };
        assert_eq!(b.to, "/b/2");
        assert_eq!(b.base.as_deref(), Some("/b/1"));
        assert_eq!(b.throttle, Some(1 << 20));
        assert!(p("BACKUP TO dir").is_err());
        assert_eq!(
            p("BACKUP STAGE START").unwrap_err().code,
            crate::error::code::ErrorCode::NotSupportedYet
        );
    }
}
