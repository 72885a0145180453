//! The primary side of replication for a session: COM_REGISTER_SLAVE and COM_BINLOG_DUMP over
//! the engine's binary log (betula_sql::binlog::dump). The replica's setup statements
//! (`SET @master_binlog_checksum`, `SET @slave_connect_state=...`,
//! `SET @master_heartbeat_period=...`) are ordinary user variables of the session, read here.
//!
//! Invariants: only root or a user granted REPLICATION SLAVE may dump (1227); a dump ends when
//! the connection is killed or the server stops (its session's interrupt flag) or the replica
//! goes away.

use std::time::Duration;

use betula_sql::binlog::dump::{dump, DumpSink, StartAt};
use betula_sql::binlog::Gtid;
use betula_sql::error::interrupt::Interrupt;
use betula_sql::types::value::Value as SqlValue;
use betula_sql::{DbError, ErrorCode};

use super::{error, SqlSession};
use crate::protocol::{DumpRequest, EventSink, SqlError};

/// The protocol's event sink with the session's kill flag.
struct Sink<'a> {
    out: &'a mut dyn EventSink,
    interrupt: Interrupt,
}

impl DumpSink for Sink<'_> {
    fn event(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.out.event(bytes).map_err(|e| e.message)
    }
    fn killed(&self) -> bool {
        self.interrupt.connection_killed()
    }
}

fn text_var(sess: &SqlSession, name: &str) -> Option<String> {
    match sess.sess.user_vars.get(name) {
        SqlValue::Null => None,
        v => betula_sql::expr::eval::text_of(&v),
    }
}

impl SqlSession {
    fn may_replicate(&self) -> Result<(), SqlError> {
        let ok = self.sess.account().is_some_and(|u| u.may_replicate());
        if ok || self.sess.account_user == "root" {
            return Ok(());
        }
        Err(error(DbError::new(
            ErrorCode::SpecificAccessDeniedError,
            "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation",
        )))
    }

    pub(super) fn register(&mut self, _server_id: u32) -> Result<(), SqlError> {
        self.may_replicate()
    }

    pub(super) fn dump(
        &mut self,
        req: &DumpRequest,
        out: &mut dyn EventSink,
    ) -> Result<(), SqlError> {
        self.may_replicate()?;
        let engine = self.sess.engine.clone();
        let Some(log) = engine.binlog() else {
            return Err(error(DbError::new(
                ErrorCode::MasterFatalErrorReadingBinlog,
                "Binary log is not open",
            )));
        };
        let start = match text_var(self, "slave_connect_state") {
            Some(state) => StartAt::Gtids(Gtid::parse_list(&state).ok_or_else(|| {
                error(DbError::new(
                    ErrorCode::MasterFatalErrorReadingBinlog,
                    format!("Failed to parse GTID position '{state}' sent by the slave"),
                ))
            })?),
            None => StartAt::File {
                name: req.file.clone(),
                pos: req.pos as u64,
            },
        };
        let heartbeat = text_var(self, "master_heartbeat_period")
            .and_then(|ns| ns.trim().parse::<u64>().ok())
            .filter(|&ns| ns > 0)
            .map(Duration::from_nanos);
        let mut sink = Sink {
            out,
            interrupt: self.sess.interrupt.clone(),
        };
        let non_block = req.flags & DumpRequest::NON_BLOCK != 0;
        dump(log, &start, heartbeat, non_block, &mut sink).map_err(error)
    }
}
