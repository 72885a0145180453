//! Statements about the connection and the server rather than data: USE, KILL, SHUTDOWN, FLUSH and
//! CHECKPOINT (FLUSH TABLES and the table locks are locking.rs's).
//!
//! Invariants: FLUSH and CHECKPOINT write a checkpoint of the storage engine (whatever FLUSH
//! names); KILL raises the target connection's interrupt flag (error/interrupt.rs: its statement
//! stops at its next check with 1317, or 1927 and the connection closes), and KILL [QUERY] of the
//! connection running a backup also cancels the backup (it ends with 1317): 1094 for an unknown
//! connection, 1095 for another user's connection unless root; SHUTDOWN (root only, else 1227) stops
//! the server through the hook it installed, as SIGTERM does; the replica statements (root only)
//! go to the server's replica through its hook.

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

pub fn use_db(cx: &mut Context, db: &str) -> DbResult<Output> {
    cx.use_db(db)?;
    Ok(Output::done(0))
}

pub fn checkpoint(cx: &mut Context) -> DbResult<Output> {
    cx.engine.store.env().checkpoint()?;
    Ok(Output::done(0))
}

/// KILL [CONNECTION | QUERY] id: root kills any connection, a user its own (1095 otherwise).
/// KILL CONNECTION also asks the server to shut the connection's socket down.
pub fn kill(cx: &mut Context, id: u64, query_only: bool) -> DbResult<Output> {
    let (user, interrupt) = match cx.engine.processes.lock().get(&id) {
        Some(p) => (p.user.clone(), p.interrupt.clone()),
        None => {
            return Err(DbError::new(
                ErrorCode::NoSuchThread,
                format!("Unknown thread id: {id}"),
            ))
        }
    };
    if user != cx.user && cx.need_root("CONNECTION ADMIN").is_err() {
        return Err(DbError::new(
            ErrorCode::KillDeniedError,
            format!("You are not owner of thread {id}"),
        ));
    }
    if let Some((conn, progress)) = &*cx.engine.backup.lock() {
        if *conn == id && progress.phase.load(std::sync::atomic::Ordering::Relaxed) < 3 {
            progress
                .cancel
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    interrupt.kill(!query_only);
    cx.engine.wake_waits();
    if !query_only {
        if let Some(close) = &cx.engine.server_hooks.read().close_connection {
            close(id);
        }
    }
    Ok(Output::done(0))
}

/// SHUTDOWN: root only (1227); the server stops as on SIGTERM: every other connection is killed,
/// this one gets its reply, then a final checkpoint. Refused (1235) outside a server.
pub fn shutdown(cx: &mut Context) -> DbResult<Output> {
    cx.need_root("SHUTDOWN")?;
    let hooks = cx.engine.server_hooks.read();
    let Some(stop) = &hooks.shutdown else {
        return Err(DbError::unsupported("SHUTDOWN without a server"));
    };
    cx.engine
        .shutdown_by
        .store(cx.id, std::sync::atomic::Ordering::SeqCst);
    stop();
    Ok(Output::done(0))
}

/// CHANGE MASTER, START / STOP / RESET SLAVE, SHOW SLAVE STATUS: the server's replica carries them
/// out (design.md "Replica of a MariaDB or MySQL primary").
pub fn replica(cx: &mut Context, stmt: &crate::parser::replica::ReplicaStmt) -> DbResult<Output> {
    cx.need_root("SUPER")?;
    let replica = cx.engine.server_hooks.read().replica.clone();
    match replica {
        Some(r) => r.run(stmt),
        None => Err(DbError::unsupported("replication without a server")),
    }
}
