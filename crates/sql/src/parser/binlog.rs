//! The grammar of the binary log's statements: `FLUSH [BINARY] LOGS` (read by locks.rs's FLUSH),
//! `PURGE {BINARY | MASTER} LOGS {TO 'file' | BEFORE datetime}`, `RESET MASTER`, and SHOW's
//! `BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]` (read by show.rs).
//!
//! Invariants: each form ends where its grammar does (1064 otherwise); PURGE ... BEFORE with a
//! subquery is 1970, as in MariaDB.

use crate::expr::dialect::dialect;
use sqlparser::ast;
use sqlparser::parser::Parser;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::show::Show;
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, lex, syntax, Cursor, Tok};

/// A binary log statement.
#[derive(Debug, Clone)]
pub enum BinlogStmt {
    /// FLUSH [BINARY] LOGS: the next file (and a checkpoint, as FLUSH does).
    FlushLogs,
    /// PURGE ... TO 'file': deletes the files before it.
    PurgeTo(String),
    /// PURGE ... BEFORE expr: deletes the files last written before that time.
    PurgeBefore(Box<ast::Expr>),
    /// RESET MASTER: deletes every file and starts again.
    ResetMaster,
}

/// `PURGE ...` or `RESET ...` (the cursor is after the keyword).
pub fn parse(keyword: &str, c: &mut Cursor<'_>) -> DbResult<Statement> {
    let stmt = if keyword == "RESET" {
        if !c.kw("MASTER") {
            return Err(syntax(c));
        }
        BinlogStmt::ResetMaster
    } else {
        if !(c.kw("BINARY") || c.kw("MASTER")) || !c.kw("LOGS") {
            return Err(syntax(c));
        }
        if c.kw("TO") {
            BinlogStmt::PurgeTo(c.string().ok_or_else(|| syntax(c))?)
        } else if c.kw("BEFORE") {
            if lex(c.rest()).iter().any(
                |(t, _)| matches!(t, Tok::Word { upper, quoted: false, .. } if upper == "SELECT"),
            ) {
                // MariaDB refuses it before evaluating anything (binary log on or off).
                return Err(DbError::new(
                    ErrorCode::SubqueriesNotSupported,
                    "PURGE..BEFORE does not support subqueries or stored functions",
                ));
            }
            let e = Parser::new(dialect())
                .try_with_sql(c.rest())?
                .parse_expr()?;
            return Ok(Statement::Binlog(BinlogStmt::PurgeBefore(Box::new(e))));
        } else {
            return Err(syntax(c));
        }
    };
    expect_end(c)?;
    Ok(Statement::Binlog(stmt))
}

fn number(c: &mut Cursor<'_>) -> Option<u64> {
    let n = match c.peek() {
        Some(Tok::Num(n)) => n.parse().ok(),
        _ => None,
    };
    if n.is_some() {
        c.pos += 1;
    }
    n
}

/// After `SHOW BINLOG`: `EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]`.
pub fn show_events(c: &mut Cursor<'_>) -> DbResult<Show> {
    if !c.kw("EVENTS") {
        return Err(syntax(c));
    }
    let file = if c.kw("IN") {
        Some(c.string().ok_or_else(|| syntax(c))?)
    } else {
        None
    };
    let from = if c.kw("FROM") {
        Some(number(c).ok_or_else(|| syntax(c))?)
    } else {
        None
    };
    let limit = if c.kw("LIMIT") {
        let a = number(c).ok_or_else(|| syntax(c))?;
        if c.sym(',') {
            Some((a, number(c).ok_or_else(|| syntax(c))?))
        } else {
            Some((0, a))
        }
    } else {
        None
    };
    Ok(Show::BinlogEvents { file, from, limit })
}

#[cfg(test)]
mod tests {
    use crate::parser::parse_statement as p;
    use crate::parser::show::Show;
    use crate::parser::statement::Statement;

    use super::BinlogStmt;

    #[test]
    fn binlog_statements() {
        assert!(matches!(
            p("RESET MASTER").unwrap(),
            Statement::Binlog(BinlogStmt::ResetMaster)
        ));
        assert!(matches!(
            p("PURGE BINARY LOGS TO 'b.000003'").unwrap(),
            Statement::Binlog(BinlogStmt::PurgeTo(f)) if f == "b.000003"
        ));
        assert!(matches!(
            p("PURGE MASTER LOGS BEFORE '2026-01-01 00:00:00'").unwrap(),
            Statement::Binlog(BinlogStmt::PurgeBefore(_))
        ));
        for q in [
            "PURGE MASTER LOGS BEFORE (SELECT NOW())",
            "PURGE BINARY LOGS BEFORE NOW() + INTERVAL (select 1) DAY",
        ] {
            assert_eq!(
                p(q).unwrap_err().code,
                crate::error::code::ErrorCode::SubqueriesNotSupported
            );
        }
        // 'select' inside a string is no subquery
        assert!(p("PURGE MASTER LOGS BEFORE 'select'").is_ok());
        assert!(matches!(
            p("FLUSH BINARY LOGS").unwrap(),
            Statement::Binlog(BinlogStmt::FlushLogs)
        ));
        assert!(matches!(
            p("FLUSH LOGS").unwrap(),
            Statement::Binlog(BinlogStmt::FlushLogs)
        ));
        assert!(p("PURGE LOGS TO 'x'").is_err());
        assert!(p("RESET MASTER now").is_err());
        let Statement::Show(s) = p("SHOW BINLOG EVENTS IN 'b.000001' FROM 4 LIMIT 2, 3").unwrap()
        else {
            panic!("not a SHOW");
        };
        assert_eq!(
            s.what,
            Show::BinlogEvents {
                file: Some("b.000001".into()),
                from: Some(4),
                limit: Some((2, 3))
            }
        );
        let Statement::Show(s) = p("SHOW MASTER STATUS").unwrap() else {
            panic!()
        };
        assert_eq!(s.what, Show::MasterStatus);
        let Statement::Show(s) = p("SHOW BINARY LOGS").unwrap() else {
            panic!()
        };
        assert_eq!(s.what, Show::BinaryLogs);
    }
}
