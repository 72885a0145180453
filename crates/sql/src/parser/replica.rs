//! The grammar of the replica statements (carried out by the server's replica, design.md "Replica of
//! a MariaDB or MySQL primary"):
//!
//! ```text
//! CHANGE MASTER TO option = value [, ...]
//! START {SLAVE | REPLICA}    STOP {SLAVE | REPLICA}    RESET {SLAVE | REPLICA} [ALL]
//! SHOW {SLAVE | REPLICA} STATUS    SHOW ALL SLAVES STATUS
//! ```
//!
//! Invariants: option names are MariaDB's (upper case here; one this grammar does not know is
//! 1064, one the replica does not support is refused where it is carried out); a value is a string
//! or a number (MASTER_USE_GTID takes a word); a named connection (`START SLAVE 'name'`,
//! multi-source replication) is refused (1235); each statement ends after its grammar.

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, syntax, Cursor};

/// The options of CHANGE MASTER TO that MariaDB knows.
const OPTIONS: &[&str] = &[
    "MASTER_HOST",
    "MASTER_PORT",
    "MASTER_USER",
    "MASTER_PASSWORD",
    "MASTER_USE_GTID",
    "MASTER_LOG_FILE",
    "MASTER_LOG_POS",
    "MASTER_CONNECT_RETRY",
    "MASTER_HEARTBEAT_PERIOD",
    "MASTER_SSL",
    "MASTER_SSL_CA",
    "MASTER_SSL_CAPATH",
    "MASTER_SSL_CERT",
    "MASTER_SSL_CIPHER",
    "MASTER_SSL_KEY",
    "MASTER_SSL_VERIFY_SERVER_CERT",
    "MASTER_DELAY",
    "MASTER_BIND",
    "RELAY_LOG_FILE",
    "RELAY_LOG_POS",
    "IGNORE_SERVER_IDS",
    "DO_DOMAIN_IDS",
    "IGNORE_DOMAIN_IDS",
    "MASTER_DEMOTE_TO_SLAVE",
];

/// A replica statement.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaStmt {
    /// CHANGE MASTER TO: (option, value) in the order written.
    ChangeMaster(Vec<(String, String)>),
    Start,
    Stop,
    Reset {
        all: bool,
    },
    Status,
}

/// After `CHANGE`.
pub fn parse_change(c: &mut Cursor<'_>) -> DbResult<Statement> {
    if !c.kw("MASTER") {
        return Err(syntax(c));
    }
    refuse_connection_name(c)?;
    if !c.kw("TO") {
        return Err(syntax(c));
    }
    let mut options = Vec::new();
    loop {
        let name = c.peek_kw().unwrap_or("").to_string();
        if !OPTIONS.contains(&name.as_str()) {
            return Err(syntax(c));
        }
        c.pos += 1;
        if !c.sym('=') {
            return Err(syntax(c));
        }
        let value = option_value(c)?;
        options.push((name, value));
        if !c.sym(',') {
            break;
        }
    }
    expect_end(c)?;
    Ok(Statement::Replica(ReplicaStmt::ChangeMaster(options)))
}

/// A string, a number, or a word (MASTER_USE_GTID = slave_pos); `(...)` lists are kept as text.
fn option_value(c: &mut Cursor<'_>) -> DbResult<String> {
    if let Some(s) = c.string() {
        return Ok(s);
    }
    if c.sym('(') {
        let mut parts = Vec::new();
        while !c.sym(')') {
            let part = c.name().ok_or_else(|| syntax(c))?;
            parts.push(part);
            c.sym(',');
        }
        return Ok(parts.join(","));
    }
    c.name().ok_or_else(|| syntax(c))
}

/// `'name'` after SLAVE / MASTER: multi-source replication is not built.
fn refuse_connection_name(c: &mut Cursor<'_>) -> DbResult<()> {
    if c.string().is_some() {
        return Err(DbError::unsupported(
            "named replication connections (multi-source replication)",
        ));
    }
    Ok(())
}

/// After START / STOP / RESET: `SLAVE` or `REPLICA`, or `None` when neither follows (the caller
/// reads its own statement then).
pub fn parse_control(keyword: &str, c: &mut Cursor<'_>) -> Option<DbResult<Statement>> {
    if !(c.kw("SLAVE") || c.kw("REPLICA")) {
        return None;
    }
    Some((|| {
        refuse_connection_name(c)?;
        let stmt = match keyword {
            "START" => ReplicaStmt::Start,
            "STOP" => ReplicaStmt::Stop,
            _ => ReplicaStmt::Reset { all: c.kw("ALL") },
        };
        expect_end(c)?;
        Ok(Statement::Replica(stmt))
    })())
}

/// After SHOW: `SLAVE STATUS`, `REPLICA STATUS` or `ALL SLAVES STATUS`, or `None`.
pub fn parse_status(c: &mut Cursor<'_>) -> Option<DbResult<Statement>> {
    let start = c.pos;
    if c.kws(&["SLAVE", "STATUS"])
        || c.kws(&["REPLICA", "STATUS"])
        || c.kws(&["ALL", "SLAVES", "STATUS"])
        || c.kws(&["ALL", "REPLICAS", "STATUS"])
    {
        return Some(expect_end(c).map(|_| Statement::Replica(ReplicaStmt::Status)));
    }
    c.pos = start;
    None
}

#[cfg(test)]
mod tests {
    use super::ReplicaStmt;
    use crate::error::code::ErrorCode;
    use crate::parser::parse_statement;
    use crate::parser::statement::Statement;

    fn replica(sql: &str) -> ReplicaStmt {
        match parse_statement(sql).unwrap() {
            Statement::Replica(r) => r,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn change_master_keeps_options_in_order() {
        let r = replica(
            "CHANGE MASTER TO MASTER_HOST='127.0.0.1', master_port=3307, MASTER_USER='r', \
             MASTER_PASSWORD='p', MASTER_USE_GTID=slave_pos",
        );
        let expected: Vec<(String, String)> = [
            ("MASTER_HOST", "127.0.0.1"),
            ("MASTER_PORT", "3307"),
            ("MASTER_USER", "r"),
            ("MASTER_PASSWORD", "p"),
            ("MASTER_USE_GTID", "slave_pos"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(r, ReplicaStmt::ChangeMaster(expected));
    }

    #[test]
    fn control_and_status_statements() {
        assert_eq!(replica("START SLAVE"), ReplicaStmt::Start);
        assert_eq!(replica("stop replica"), ReplicaStmt::Stop);
        assert_eq!(replica("RESET SLAVE ALL"), ReplicaStmt::Reset { all: true });
        assert_eq!(replica("RESET SLAVE"), ReplicaStmt::Reset { all: false });
        assert_eq!(replica("SHOW SLAVE STATUS"), ReplicaStmt::Status);
        assert_eq!(replica("SHOW ALL SLAVES STATUS"), ReplicaStmt::Status);
        assert!(matches!(
            parse_statement("START TRANSACTION").unwrap(),
            Statement::Begin
        ));
    }

    #[test]
    fn bad_forms_are_errors() {
        for sql in [
            "CHANGE MASTER TO MASTER_NOPE='x'",
            "CHANGE MASTER TO MASTER_HOST",
            "CHANGE MASTER TO MASTER_HOST='h' junk",
            "START SLAVE junk",
        ] {
            assert_eq!(
                parse_statement(sql).unwrap_err().code,
                ErrorCode::ParseError,
                "{sql}"
            );
        }
        assert_eq!(
            parse_statement("START SLAVE 'other'").unwrap_err().code,
            ErrorCode::NotSupportedYet
        );
    }
}
