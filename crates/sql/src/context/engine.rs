//! [`Engine`]: the state every session shares: the store (the door to storage), the catalog,
//! global variables, the process list and counters. One per server; opened once
//! ([`Engine::open`]), which also removes what a crash left behind (trees of interrupted DDL,
//! temporary tables of an earlier run, LOAD DATA sort files).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use betula_storage::EnvOptions;
use parking_lot::{Mutex, RwLock};

use crate::context::temp_tables;
use crate::context::variables as vars;
use crate::error::db_error::{DbError, DbResult};
use crate::{catalog, store};

use crate::codec::key::decode_key;
use crate::codec::row::decode_row;
use crate::types::value::Value;

/// How to start the engine.
#[derive(Clone)]
pub struct EngineConfig {
    pub datadir: PathBuf,
    pub env: EnvOptions,
    pub port: u16,
}

/// A row of SHOW PROCESSLIST.
#[derive(Clone, Debug)]
pub struct ProcInfo {
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub info: Option<String>,
    pub started: Instant,
    /// The connection's interrupt flag (KILL).
    pub interrupt: crate::context::interrupt::Interrupt,
    /// The running statement's progress (SHOW PROCESSLIST's State and Progress).
    pub progress: Arc<crate::context::progress::Progress>,
}

pub struct Engine {
    pub store: store::Store,
    pub catalog: catalog::Catalog,
    pub globals: RwLock<HashMap<String, Value>>,
    pub processes: Mutex<BTreeMap<u64, ProcInfo>>,
    pub config: EngineConfig,
    pub started: Instant,
    pub queries: AtomicU64,
    /// Directory server-side LOAD DATA INFILE may read (None: refused). Set at start, never by SQL.
    pub secure_file_priv: RwLock<Option<PathBuf>>,
    /// Next temporary table id (design.md TMP1).
    pub temp_ids: AtomicU64,
    /// Named key caches (key_caches.rs): kept for MariaDB scripts, they hold nothing.
    pub key_caches: Mutex<crate::context::key_caches::KeyCaches>,
    /// LOCK TABLES, the global read lock and tables' write uses (table_locks.rs).
    pub table_locks: crate::context::table_locks::TableLocks,
    /// The running or last backup: the connection that runs it and its progress (SHOW STATUS, KILL).
    pub backup: Mutex<Option<(u64, Arc<betula_storage::BackupProgress>)>>,
    /// Tables whose AUTO_INCREMENT counter moved since it was last written (auto_inc.rs).
    pub moved_counters: Mutex<Vec<crate::context::auto_inc::MovedCounter>>,
    /// Moved counters listed or being written: 0 lets a commit skip the list (auto_inc.rs).
    pub counters_unwritten: std::sync::atomic::AtomicUsize,
    /// How KILL closes a connection and SHUTDOWN stops the server (interrupt.rs).
    pub server_hooks: crate::context::interrupt::SharedHooks,
    /// The connection that ran SHUTDOWN (0: none): the shutdown spares it (interrupt.rs).
    pub shutdown_by: AtomicU64,
    /// What the retention thread did (SHOW STATUS `Betula_retention_*`, ddl/retention.rs).
    pub retention: RetentionCounters,
    /// Counters for monitoring (metrics.rs).
    pub metrics: crate::context::metrics::ServerMetrics,
    /// MariaDB's status counters, every connection's summed (status.rs).
    pub status: crate::context::status::GlobalStatus,
    /// Called by an online index build at its steps with the step's name ("filled": the snapshot's
    /// rows are in the indexes; "round": a catch-up round without the lock ended), while writers
    /// may write: lets tests change rows at exactly those points (ddl/online_index.rs).
    pub online_build_hook: Mutex<Option<OnlineBuildHook>>,
    /// The binary log, once `log_bin` switched it on (binlog_commit.rs).
    pub binlog: std::sync::OnceLock<Arc<crate::binlog::Binlog>>,
}

/// See [`Engine::online_build_hook`].
pub type OnlineBuildHook = Arc<dyn Fn(&str) + Send + Sync>;

/// Counters of the retention thread (design.md "Retention").
#[derive(Default)]
pub struct RetentionCounters {
    /// Rounds run.
    pub rounds: AtomicU64,
    pub partitions_added: AtomicU64,
    pub partitions_dropped: AtomicU64,
    /// Expired key ranges deleted (tables without partitions).
    pub expiries: AtomicU64,
    /// Actions that failed (each also logged).
    pub errors: AtomicU64,
}

impl Engine {
    /// Opens (creating on first start) the data directory and loads the catalog.
    /// An engine of unit tests: a 16 MiB cache, no syncs, in `dir`.
    #[cfg(test)]
    pub fn open_for_test(dir: &std::path::Path) -> Arc<Engine> {
        Engine::open(EngineConfig {
            datadir: dir.to_path_buf(),
            env: betula_storage::EnvOptions {
                durability: betula_storage::Durability::NoSync,
                cache_bytes: 16 << 20,
                ..betula_storage::EnvOptions::default()
            },
            port: 0,
        })
        .expect("a test engine opens")
    }

    pub fn open(config: EngineConfig) -> DbResult<Arc<Engine>> {
        Engine::open_with_vfs(config, Arc::new(betula_storage::vfs::RealVfs))
    }

    /// Opens the data directory through any file system: the server's fault-injection mode passes a
    /// `betula_storage::vfs::FaultVfs` over the real one.
    pub fn open_with_vfs(
        config: EngineConfig,
        vfs: Arc<dyn betula_storage::vfs::Vfs>,
    ) -> DbResult<Arc<Engine>> {
        std::fs::create_dir_all(&config.datadir).map_err(|e| {
            DbError::internal(format!("cannot create {}: {e}", config.datadir.display()))
        })?;
        let store = store::Store::open_with_vfs(vfs, &config.datadir, config.env.clone())?;
        let catalog = catalog::Catalog::open(store.env(), |db, sql| {
            let (ct, extras) = crate::parser::parse_create_table(sql)
                .map_err(|e| DbError::internal(format!("bad catalog entry for {db}: {e}")))?;
            crate::catalog::create_table::table_from_create(db, &ct, &extras)
        })?;
        let mut globals = vars::defaults(config.port, &config.datadir.display().to_string());
        globals.insert(
            "betula_cache_size".into(),
            Value::UInt(config.env.cache_bytes),
        );
        // The server's own zone, named as MariaDB shows it (its abbreviation now).
        let started_utc = crate::context::now_utc();
        let system_zone = crate::types::time_zone::TimeZone::system()
            .at(crate::types::time_zone::unix_secs(started_utc))
            .1;
        globals.insert("system_time_zone".into(), Value::Text(system_zone));
        globals.insert(
            "betula_compression".into(),
            Value::Text(config.env.default_tree.codec.name().into()),
        );
        let engine = Engine {
            store,
            catalog,
            globals: RwLock::new(globals),
            processes: Mutex::new(BTreeMap::new()),
            config,
            started: Instant::now(),
            queries: AtomicU64::new(0),
            secure_file_priv: RwLock::new(None),
            temp_ids: AtomicU64::new(1),
            key_caches: Mutex::new(crate::context::key_caches::KeyCaches::default()),
            moved_counters: Mutex::new(Vec::new()),
            counters_unwritten: Default::default(),
            server_hooks: Default::default(),
            shutdown_by: AtomicU64::new(0),
            retention: RetentionCounters::default(),
            metrics: Default::default(),
            status: Default::default(),
            online_build_hook: Mutex::new(None),
            table_locks: Default::default(),
            backup: Mutex::new(None),
            binlog: std::sync::OnceLock::new(),
        };
        crate::codec::temp_dir::clean_stale(&engine.config.datadir);
        // Trees of a DDL statement a crash interrupted (catalog.rs: orphan trees).
        let names = engine.store.env().tree_names();
        for tree in engine.catalog.orphan_trees(&names) {
            engine.store.drop_tree(&tree)?;
        }
        // Trees of temporary tables of an earlier run (design.md TMP3).
        for tree in temp_tables::orphans(&names) {
            engine.store.drop_tree(&tree)?;
        }
        for t in engine.catalog.all_tables() {
            for tree in t.all_trees() {
                if engine.store.tree(&tree).is_err() {
                    engine.store.create_tree(&tree, None)?;
                }
            }
            engine.store.set_column_layouts(t.column_layouts())?;
            engine.init_counters(&t)?;
        }
        Ok(Arc::new(engine))
    }

    /// AUTO_INCREMENT and hidden row-id counters from the data (largest value + 1 over every
    /// partition; the counters only grow, so an AUTO_INCREMENT counter never falls below its
    /// persisted value, design.md AIC4).
    pub fn init_counters(&self, t: &catalog::TableDef) -> DbResult<()> {
        let (mut next_row_id, mut max_auto) = (1u64, 0u64);
        for part in t.parts() {
            let (row_id, auto) = self.counters_of(t, &t.primary_tree_of(part))?;
            next_row_id = next_row_id.max(row_id);
            max_auto = max_auto.max(auto);
        }
        if t.pk.is_empty() {
            t.counters.row_id.fetch_max(next_row_id, Ordering::SeqCst);
        }
        if t.auto_inc_col().is_some() {
            t.counters
                .auto_inc
                .fetch_max(max_auto + 1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// The next hidden row id and the largest AUTO_INCREMENT value in one primary tree.
    fn counters_of(&self, t: &catalog::TableDef, primary: &str) -> DbResult<(u64, u64)> {
        let tree = self.store.tree(primary)?;
        let last = tree
            .range(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded, true)
            .next()
            .transpose()?;
        let mut next_row_id = 1;
        if t.pk.is_empty() {
            if let Some((k, _)) = &last {
                if let Some(Some(Value::UInt(u))) = decode_key(&t.pk_key_columns(), k)?.first() {
                    next_row_id = u + 1;
                }
            }
        }
        let mut max = 0u64;
        if let Some(ac) = t.auto_inc_col() {
            let as_u64 = |v: &Value| match v {
                Value::Int(i) if *i > 0 => *i as u64,
                Value::UInt(u) => *u,
                Value::Double(d) if *d > 0.0 => *d as u64,
                _ => 0,
            };
            if t.pk.first() == Some(&ac) {
                if let Some((_, v)) = &last {
                    max = as_u64(&decode_row(&t.layout, v)?[ac]);
                }
            } else {
                for item in tree.range(
                    std::ops::Bound::Unbounded,
                    std::ops::Bound::Unbounded,
                    false,
                ) {
                    let (_, v) = item?;
                    max = max.max(as_u64(&decode_row(&t.layout, &v)?[ac]));
                }
            }
        }
        Ok((next_row_id, max))
    }

    /// Lets server-side LOAD DATA INFILE read files under `dir` (MySQL's `secure_file_priv`).
    pub fn set_secure_file_priv(&self, dir: Option<PathBuf>) {
        let shown = dir
            .as_ref()
            .map(|d| Value::Text(d.display().to_string()))
            .unwrap_or(Value::Null);
        self.globals
            .write()
            .insert("secure_file_priv".into(), shown);
        *self.secure_file_priv.write() = dir;
    }

    /// The account a client `user` connecting from address `client` is matched to (design.md
    /// ACC3); `None`: no account matches.
    pub fn user_auth(&self, user: &str, client: &str) -> Option<crate::catalog::UserDef> {
        self.catalog.match_account(user, client)
    }

    /// Some root account has no password.
    pub fn root_without_password(&self) -> bool {
        self.catalog
            .users()
            .iter()
            .any(|u| u.name == "root" && u.auth.is_empty())
    }

    /// Final checkpoint at shutdown.
    pub fn checkpoint(&self) -> DbResult<()> {
        self.store.env().checkpoint()?;
        Ok(())
    }
}

#[cfg(test)]
pub fn test_table() -> catalog::TableDef {
    let sql = "CREATE TABLE t (id INT NOT NULL, k INT, c VARCHAR(10), PRIMARY KEY (id), KEY k (k))";
    let (ct, extras) = crate::parser::parse_create_table(sql).unwrap();
    crate::catalog::create_table::table_from_create("db", &ct, &extras).unwrap()
}
