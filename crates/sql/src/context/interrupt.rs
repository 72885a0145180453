//! KILL and SHUTDOWN on the engine's side: each connection's [`Interrupt`] flag (in its context
//! and in the process list), the hooks through which the server closes a connection's socket or
//! stops or runs its replica ([`ServerHooks`]), and the interruption of every connection at shutdown.
//!
//! Invariants: KILL QUERY interrupts the statement running when it arrives; KILL [CONNECTION]
//! also closes the connection: its running statement stops with 1927 and the server shuts its
//! socket down, which ends a read the connection is blocked in. Statements check the flag between
//! rows and in every lock wait (KILL wakes the waits), never where stopping would leave shared
//! state half-changed: an interrupted statement
//! fails like any other, and its changes are rolled back by the statement rollback. At shutdown
//! every connection is killed except the one that ran SHUTDOWN, which gets its reply.

use std::sync::atomic::Ordering;

use parking_lot::RwLock;

use super::engine::Engine;
use super::Context;
use crate::error::db_error::DbResult;
pub use crate::error::interrupt::Interrupt;
use crate::result::Output;

/// What the server lends the engine (none outside a server: embedded use, `betula import`).
#[derive(Default)]
pub struct ServerHooks {
    /// Shuts down the socket of connection `id`, if it is live.
    pub close_connection: Option<Box<dyn Fn(u64) + Send + Sync>>,
    /// Stops the server as SIGTERM does (connections closed, a final checkpoint).
    pub shutdown: Option<Box<dyn Fn() + Send + Sync>>,
    /// The server's replica (CHANGE MASTER, START / STOP SLAVE, SHOW SLAVE STATUS).
    pub replica: Option<std::sync::Arc<dyn ReplicaControl>>,
}

/// What the replica statements ask of the server's replica.
pub trait ReplicaControl: Send + Sync {
    fn run(&self, stmt: &crate::parser::replica::ReplicaStmt) -> DbResult<Output>;
}

/// The engine's hooks, set once the server is listening.
pub type SharedHooks = RwLock<ServerHooks>;

impl Engine {
    /// Installs the server's hooks (KILL CONNECTION, SHUTDOWN).
    pub fn install_server_hooks(&self, hooks: ServerHooks) {
        *self.server_hooks.write() = hooks;
    }

    /// At shutdown: kills every connection's statement and connection, except the one that ran
    /// SHUTDOWN.
    pub fn interrupt_all(&self) {
        let spared = self.shutdown_by.load(Ordering::SeqCst);
        for (id, p) in self.processes.lock().iter() {
            if *id != spared {
                p.interrupt.kill(true);
            }
        }
        self.wake_waits();
    }

    /// After a KILL: wakes every lock wait (row locks, the schema lock, table locks) so that the
    /// killed sessions' waits see their flags and end.
    pub fn wake_waits(&self) {
        self.store.env().wake_lock_waiters();
        self.store.schema_lock.wake();
        self.table_locks.wake();
    }
}

impl Context {
    /// Stops the statement when its connection was killed (1317 / 1927): one relaxed load.
    #[inline]
    pub fn check_interrupted(&self) -> DbResult<()> {
        self.interrupt.check()
    }
}
