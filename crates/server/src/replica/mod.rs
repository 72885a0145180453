//! A Betula server as the replica of a MariaDB or MySQL primary (design.md "Replica of a MariaDB or
//! MySQL primary", RPA1-RPA6): [`Replica`] carries out CHANGE MASTER TO, START / STOP / RESET SLAVE
//! and SHOW SLAVE STATUS for the SQL layer (its `ReplicaControl` hook) and owns the replica thread.
//!
//! Map: settings.rs (CHANGE MASTER's settings and `replica.info`), stream.rs (the thread: connect,
//! read events), apply.rs (events to statements), values.rs (row images to values), position.rs
//! (`mysql.gtid_slave_pos`), status.rs (SHOW SLAVE STATUS).
//!
//! Invariants: at most one replica thread runs; CHANGE MASTER and RESET SLAVE are refused while it
//! runs (1198, as MariaDB); every change of the settings is saved before the statement returns.

mod apply;
mod plain_rows;
mod position;
mod settings;
mod status;
mod stream;
mod values;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use betula_sql::context::interrupt::ReplicaControl;
use betula_sql::parser::replica::ReplicaStmt;
use betula_sql::{DbError, DbResult, Engine, ErrorCode, Output};
use parking_lot::Mutex;

pub use settings::Settings;
use status::Status;

/// The I/O side's state as SHOW SLAVE STATUS names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoState {
    No,
    Connecting,
    Yes,
}

/// What the thread and the statements share.
pub struct Shared {
    pub stop: AtomicBool,
    status: Mutex<Status>,
    server_id: std::sync::atomic::AtomicU32,
}

impl Shared {
    fn server_id(&self) -> u32 {
        self.server_id.load(Ordering::Relaxed)
    }
    fn set_io(&self, s: IoState) {
        let mut st = self.status.lock();
        st.io = s;
        if s == IoState::Yes {
            st.last_io_error = None;
        }
    }
    fn set_sql_running(&self, on: bool) {
        let mut st = self.status.lock();
        st.sql_running = on;
        if on {
            st.last_sql_error = None;
        }
    }
    fn io_failed(&self, code: u16, m: &str) {
        log(&format!("I/O error {code}: {m}"));
        self.status.lock().last_io_error = Some((code, m.to_string()));
    }
    fn sql_failed(&self, e: &DbError) {
        log(&format!(
            "stopped: error {}: {}",
            e.code.number(),
            e.message
        ));
        self.status.lock().last_sql_error = Some((e.code.number(), e.message.clone()));
    }
    fn any_applied(&self) -> bool {
        self.status.lock().applied > 0
    }
    fn read_event(&self, pos: u64) {
        if pos > 0 {
            self.status.lock().read_pos = pos;
        }
    }
    fn rotate(&self, file: &str, pos: u64) {
        let mut st = self.status.lock();
        st.log_file = file.to_string();
        st.read_pos = pos;
    }
    fn executed(&self, pos: u64) {
        let mut st = self.status.lock();
        st.applied += 1;
        if pos > 0 {
            st.exec_pos = pos;
        }
    }
    fn behind(&self, secs: u64) {
        self.status.lock().behind = Some(secs);
    }
    fn caught_up(&self) {
        self.status.lock().behind = Some(0);
    }
}

/// One line of the server's output about the replica (stdout may be a closed pipe: never panics).
fn log(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "betula: replica: {line}");
}

/// The server's replica: its settings, and its thread while it runs.
pub struct Replica {
    engine: Arc<Engine>,
    datadir: PathBuf,
    settings: Mutex<Option<Settings>>,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Replica {
    /// The replica of the server on `datadir`; started when it was running at the last stop.
    pub fn open(engine: Arc<Engine>, datadir: PathBuf) -> Result<Arc<Replica>, String> {
        let settings = Settings::load(&datadir)?;
        let running = settings.as_ref().is_some_and(|s| s.running);
        let r = Arc::new(Replica {
            engine,
            datadir,
            settings: Mutex::new(settings),
            shared: Arc::new(Shared {
                stop: AtomicBool::new(false),
                status: Mutex::new(Status::default()),
                server_id: 1.into(),
            }),
            thread: Mutex::new(None),
        });
        if running {
            r.start_thread().map_err(|e| e.message)?;
        }
        Ok(r)
    }

    fn running(&self) -> bool {
        self.thread
            .lock()
            .as_ref()
            .is_some_and(|t| !t.is_finished())
    }

    fn save(&self, s: &Settings) -> DbResult<()> {
        s.save(&self.datadir)
            .map_err(|e| DbError::new(ErrorCode::ErrorOnWrite, format!("replica.info: {e}")))
    }

    fn start_thread(&self) -> DbResult<()> {
        let settings = self.settings.lock().clone().ok_or_else(|| {
            DbError::new(
                ErrorCode::BadSlave,
                "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO",
            )
        })?;
        let mut s = self.engine.session(u64::MAX - 3, "root", "localhost");
        if let Ok(Output::Rows { rows, .. }) = s.execute("SELECT @@GLOBAL.server_id", &[]) {
            let id = rows
                .first()
                .and_then(|r| r.first())
                .and_then(|v| v.to_f64_lenient())
                .unwrap_or(1.0);
            self.shared.server_id.store(id as u32, Ordering::Relaxed);
        }
        self.join();
        self.shared.stop.store(false, Ordering::SeqCst);
        let (engine, shared) = (self.engine.clone(), self.shared.clone());
        let handle = std::thread::Builder::new()
            .name("replica".into())
            .spawn(move || stream::run(engine, shared, settings))
            .map_err(|e| DbError::internal(format!("replica thread: {e}")))?;
        *self.thread.lock() = Some(handle);
        Ok(())
    }

    /// Stops the thread and waits for it (RPA5).
    fn join(&self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }

    /// At server shutdown: stops the thread, keeping `running` for the next start.
    pub fn shutdown(&self) {
        self.join();
    }

    fn set_running(&self, on: bool) -> DbResult<()> {
        let mut guard = self.settings.lock();
        if let Some(s) = guard.as_mut() {
            s.running = on;
            let s = s.clone();
            drop(guard);
            self.save(&s)?;
        }
        Ok(())
    }

    fn change(&self, options: &[(String, String)]) -> DbResult<Output> {
        if self.running() {
            return Err(slave_running());
        }
        let mut next = self.settings.lock().clone().unwrap_or_default();
        next.change(options)?;
        self.save(&next)?;
        *self.settings.lock() = Some(next);
        Ok(Output::done(0))
    }

    fn reset(&self, all: bool) -> DbResult<Output> {
        if self.running() {
            return Err(slave_running());
        }
        let mut s = self.engine.session(u64::MAX - 3, "root", "localhost");
        position::clear(&mut s)?;
        *self.shared.status.lock() = Status::default();
        if all {
            Settings::remove(&self.datadir)
                .map_err(|e| DbError::new(ErrorCode::ErrorOnWrite, format!("replica.info: {e}")))?;
            *self.settings.lock() = None;
        }
        Ok(Output::done(0))
    }
}

fn slave_running() -> DbError {
    DbError::new(
        ErrorCode::SlaveMustStop,
        "This operation cannot be performed as you have a running slave ''; run STOP SLAVE '' first",
    )
}

impl ReplicaControl for Replica {
    fn run(&self, stmt: &ReplicaStmt) -> DbResult<Output> {
        match stmt {
            ReplicaStmt::ChangeMaster(options) => self.change(options),
            ReplicaStmt::Start => {
                if !self.running() {
                    self.start_thread()?;
                    self.set_running(true)?;
                }
                Ok(Output::done(0))
            }
            ReplicaStmt::Stop => {
                self.join();
                self.set_running(false)?;
                Ok(Output::done(0))
            }
            ReplicaStmt::Reset { all } => self.reset(*all),
            ReplicaStmt::Status => {
                let settings = self.settings.lock().clone();
                let status = self.shared.status.lock().clone();
                let mut s = self.engine.session(u64::MAX - 3, "root", "localhost");
                let pos = position::load(&mut s).unwrap_or_default();
                Ok(status::render(settings.as_ref(), &status, &pos))
            }
        }
    }
}
