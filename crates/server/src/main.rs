//! The `betula` binary: `betula serve` runs the MySQL-protocol server; `betula import` bulk-loads
//! CSV/TSV files into a table of a data directory (server stopped); `betula backup` backs a running
//! server up, `betula restore` makes a data directory of a backup, `betula verify` checks one.

/// The engine allocates many small keys and values; glibc malloc's consolidation showed up as about a third
/// of insert time in profiles, mimalloc does not.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use betula_server::backend::SqlBackend;
use betula_server::config::{is_loopback, socket_address, ServeConfig};
use betula_server::metrics::MetricsServer;
use betula_server::protocol::{Server, ServerConfig};
use betula_sql::{Engine, EngineConfig};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "betula",
    version,
    about = "Betula: a write-optimized MySQL-compatible database"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the MySQL-protocol server.
    Serve {
        /// Data directory (created on first start) [default: ./betula-data]
        #[arg(long)]
        datadir: Option<PathBuf>,
        /// TCP port (0 = any free port) [default: 3306]
        #[arg(long)]
        port: Option<u16>,
        /// Address to listen on [default: 127.0.0.1]
        #[arg(long)]
        bind: Option<String>,
        /// Settings file (key = value lines: cache_size, durability, compression, ...)
        #[arg(long)]
        config: Option<PathBuf>,
        /// Directory server-side LOAD DATA INFILE may read (default: refused)
        #[arg(long)]
        secure_file_priv: Option<PathBuf>,
        /// Serve Prometheus metrics over HTTP on this port (0 = any free port) [default: off]
        #[arg(long)]
        metrics_port: Option<u16>,
        /// Address of the metrics endpoint [default: 127.0.0.1]
        #[arg(long)]
        metrics_address: Option<String>,
        /// Binary log: ON, OFF or the files' base name (as the config file's log_bin)
        #[arg(long)]
        log_bin: Option<String>,
        /// This server's id in GTIDs and binlog events (as the config file's server_id)
        #[arg(long)]
        server_id: Option<u32>,
        /// TLS: the server's certificate (PEM); with --ssl-key, clients may use TLS
        #[arg(long)]
        ssl_cert: Option<String>,
        /// TLS: the certificate's private key (PEM)
        #[arg(long)]
        ssl_key: Option<String>,
        /// TLS: CA certificates (PEM) a client certificate, if presented, must chain to
        #[arg(long)]
        ssl_ca: Option<String>,
        /// Any config-file setting, as KEY=VALUE (repeatable; wins over the file)
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Bulk-load CSV/TSV files into a table (opens the data directory: stop the server first;
    /// use LOAD DATA LOCAL INFILE or mysqlimport --local against a running server).
    Import {
        /// Files to load, in order (each is one transaction)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Target table as db.table
        #[arg(long)]
        table: String,
        /// Data directory [default: ./betula-data]
        #[arg(long)]
        datadir: Option<PathBuf>,
        /// Settings file (as for serve: cache_size, compression, ...)
        #[arg(long)]
        config: Option<PathBuf>,
        /// csv or tsv [default: from the file extension, .csv = csv, else tsv]
        #[arg(long)]
        format: Option<String>,
        /// FIELDS TERMINATED BY (escapes \t \n \r allowed)
        #[arg(long)]
        fields_terminated_by: Option<String>,
        /// FIELDS ENCLOSED BY (one character, or empty)
        #[arg(long)]
        fields_enclosed_by: Option<String>,
        /// FIELDS ESCAPED BY (one character, or empty)
        #[arg(long)]
        fields_escaped_by: Option<String>,
        /// LINES TERMINATED BY
        #[arg(long)]
        lines_terminated_by: Option<String>,
        /// Header lines to skip in each file
        #[arg(long, default_value_t = 0)]
        ignore_lines: u64,
        /// Column list, e.g. id,ts,@skip,value
        #[arg(long)]
        columns: Option<String>,
        /// Rows with an existing key replace it
        #[arg(long)]
        replace: bool,
        /// Rows with an existing key are skipped; bad values become warnings
        #[arg(long)]
        ignore: bool,
        /// No progress bar
        #[arg(long)]
        quiet: bool,
    },
    /// Back up a running server (online: writes go on) into a directory on the server's machine, under
    /// its secure_file_priv directory.
    Backup {
        /// Server address
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Server port
        #[arg(long, default_value_t = 3306)]
        port: u16,
        /// User (root: backups need the RELOAD privilege)
        #[arg(long, default_value = "root")]
        user: String,
        /// Password
        #[arg(long)]
        password: Option<String>,
        /// New or empty directory for the backup, as the server sees it
        #[arg(long)]
        to: String,
        /// An earlier backup: copy only the blocks that changed since
        #[arg(long)]
        incremental_from: Option<String>,
        /// Read at most this many bytes per second
        #[arg(long)]
        throttle: Option<u64>,
        /// No progress bar
        #[arg(long)]
        quiet: bool,
    },
    /// Make a data directory of a backup (checks every checksum; the result recovers to the backup's end).
    Restore {
        /// The backup directory (an incremental backup finds its bases by itself)
        #[arg(long)]
        from: PathBuf,
        /// The new data directory (must not exist or be empty)
        #[arg(long)]
        datadir: PathBuf,
        /// Settings file (as for serve: cache_size, ...)
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Check every block, checksum and tree of a data directory (server stopped).
    Verify {
        /// Data directory [default: ./betula-data]
        #[arg(long)]
        datadir: Option<PathBuf>,
    },
}

/// `betula serve`'s flags (each overrides the config file's setting).
struct ServeFlags {
    datadir: Option<PathBuf>,
    port: Option<u16>,
    bind: Option<String>,
    config: Option<PathBuf>,
    secure_file_priv: Option<PathBuf>,
    metrics_port: Option<u16>,
    metrics_address: Option<String>,
    log_bin: Option<String>,
    server_id: Option<u32>,
    /// `--ssl-cert`, `--ssl-key`, `--ssl-ca` as (setting, value).
    tls: Vec<(&'static str, String)>,
    set: Vec<String>,
}

fn serve(flags: ServeFlags) -> Result<(), String> {
    let ServeFlags {
        datadir,
        port,
        bind,
        config,
        secure_file_priv,
        metrics_port,
        metrics_address,
        log_bin,
        server_id,
        tls,
        set,
    } = flags;
    let mut cfg = load_config(config)?;
    for kv in &set {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set {kv}: expected KEY=VALUE"))?;
        cfg.set(k, v).map_err(|e| format!("--set {kv}: {e}"))?;
    }
    if let Some(l) = log_bin {
        cfg.set("log_bin", &l)?;
    }
    if let Some(id) = server_id {
        cfg.set("server_id", &id.to_string())?;
    }
    for (k, v) in &tls {
        cfg.set(k, v)?;
    }
    cfg.validate()?;
    // A certificate that does not load stops the start (design.md TLS5).
    let tls_acceptor = cfg.tls.acceptor()?;
    if metrics_port.is_some() {
        cfg.metrics_port = metrics_port;
    }
    if let Some(a) = metrics_address {
        cfg.metrics_address = a;
    }
    if let Some(d) = secure_file_priv {
        cfg.secure_file_priv = Some(d);
    }
    if let Some(d) = datadir {
        cfg.datadir = d;
    }
    if let Some(p) = port {
        cfg.port = p;
    }
    if let Some(b) = bind {
        cfg.bind = b;
    }
    let server_collation = cfg.charset.server_collation()?;
    let engine = Engine::open_with_vfs(
        EngineConfig {
            datadir: cfg.datadir.clone(),
            env: cfg.env.clone(),
            port: cfg.port,
        },
        betula_server::fault_control::vfs_from_env(),
    )
    .map_err(|e| format!("cannot open {}: {e}", cfg.datadir.display()))?;
    engine.set_secure_file_priv(cfg.secure_file_priv.clone());
    if let Some(c) = server_collation {
        engine.set_server_collation(c);
    }
    for (name, value) in cfg.tls.globals(tls_acceptor.is_some()) {
        engine
            .globals
            .write()
            .insert(name.into(), betula_sql::types::value::Value::Text(value));
    }
    if let Some(m) = &cfg.sql_mode {
        engine.globals.write().insert(
            "sql_mode".into(),
            betula_sql::types::value::Value::Text(m.clone()),
        );
    }
    if let Some(b) = cfg.binlog.config() {
        engine
            .enable_binlog(b)
            .map_err(|e| format!("cannot open the binary log: {e}"))?;
    }
    if !is_loopback(&cfg.bind) && engine.root_without_password() {
        return Err(format!(
            "refusing to listen on {} while root has no password: start on 127.0.0.1 and run \
             ALTER USER root IDENTIFIED BY '...' first",
            cfg.bind
        ));
    }
    let addr = socket_address(&cfg.bind, cfg.port);
    let server = Server::bind(
        addr.as_str(),
        Arc::new(SqlBackend {
            engine: engine.clone(),
        }),
        ServerConfig {
            max_connections: cfg.max_connections,
            tls: tls_acceptor,
            ..Default::default()
        },
    )
    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = server.local_addr().map_err(|e| e.to_string())?;
    let metrics = match cfg.metrics_port {
        Some(port) => {
            let at = socket_address(&cfg.metrics_address, port);
            Some(
                MetricsServer::start(&at, engine.clone())
                    .map_err(|e| format!("cannot serve metrics on {at}: {e}"))?,
            )
        }
        None => None,
    };
    let stop = server.shutdown_handle().map_err(|e| e.to_string())?;
    // KILL CONNECTION shuts sockets down; SHUTDOWN takes the SIGTERM path below.
    // The replica of a primary, if one was set up (design.md "Replica of a MariaDB or MySQL primary").
    let replica = betula_server::replica::Replica::open(engine.clone(), cfg.datadir.clone())?;
    betula_server::backend::install_hooks(&engine, &stop, Some(replica.clone()));
    ctrlc::set_handler(move || stop.shutdown()).map_err(|e| format!("signal handler: {e}"))?;
    // One line, which tests and scripts read: the metrics address is in it.
    let metrics_note = metrics
        .as_ref()
        .map(|m| format!("; metrics on http://{}/metrics", m.local_addr()))
        .unwrap_or_default();
    println!(
        "betula: listening on {local} (data in {}{metrics_note})",
        cfg.datadir.display()
    );
    // Partitions of tables with a RETENTION come and go by themselves (design.md "Retention").
    let retention = betula_sql::ddl::retention::start(engine.clone(), |line| {
        let _ = writeln!(std::io::stdout(), "betula: {line}");
    })
    .map_err(|e| format!("retention thread: {e}"))?;
    server.run().map_err(|e| e.to_string())?;
    replica.shutdown();
    retention.stop();
    if let Some(m) = metrics {
        m.stop();
    }
    if let Some(b) = engine.binlog() {
        b.stop();
    }
    engine.checkpoint().map_err(|e| e.to_string())?;
    // stdout may be a closed pipe by now: never panic on it.
    let _ = writeln!(std::io::stdout(), "betula: shut down cleanly");
    Ok(())
}

fn load_config(config: Option<PathBuf>) -> Result<ServeConfig, String> {
    let mut cfg = ServeConfig::default();
    if let Some(path) = config {
        cfg.load_path(&path)?;
        cfg.validate()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        for w in &cfg.warnings {
            eprintln!("betula: warning: {w}");
        }
    }
    Ok(cfg)
}

/// Prints a command's summary line.
fn print(r: Result<String, String>) -> Result<(), String> {
    let line = r?;
    let _ = writeln!(std::io::stdout(), "betula: {line}");
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Serve {
            datadir,
            port,
            bind,
            config,
            secure_file_priv,
            metrics_port,
            metrics_address,
            log_bin,
            server_id,
            ssl_cert,
            ssl_key,
            ssl_ca,
            set,
        } => serve(ServeFlags {
            datadir,
            port,
            bind,
            config,
            secure_file_priv,
            metrics_port,
            metrics_address,
            log_bin,
            server_id,
            tls: [
                ("ssl_cert", ssl_cert),
                ("ssl_key", ssl_key),
                ("ssl_ca", ssl_ca),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect(),
            set,
        }),
        Cmd::Import {
            files,
            table,
            datadir,
            config,
            format,
            fields_terminated_by,
            fields_enclosed_by,
            fields_escaped_by,
            lines_terminated_by,
            ignore_lines,
            columns,
            replace,
            ignore,
            quiet,
        } => load_config(config).and_then(|cfg| {
            let summary = betula_server::import::run(betula_server::import::ImportArgs {
                files,
                table,
                datadir: datadir.unwrap_or(cfg.datadir),
                env: cfg.env,
                format,
                fields_terminated_by,
                enclosed_by: fields_enclosed_by,
                escaped_by: fields_escaped_by,
                lines_terminated_by,
                ignore_lines,
                columns,
                replace,
                ignore,
                progress: !quiet,
            })?;
            let _ = writeln!(std::io::stdout(), "betula import: {summary}");
            Ok(())
        }),
        Cmd::Backup {
            host,
            port,
            user,
            password,
            to,
            incremental_from,
            throttle,
            quiet,
        } => print(betula_server::backup_cli::backup(
            betula_server::backup_cli::BackupArgs {
                server: betula_server::backup_cli::ServerArgs {
                    host,
                    port,
                    user,
                    password,
                },
                to,
                incremental_from,
                throttle,
                progress: !quiet,
            },
        )),
        Cmd::Restore {
            from,
            datadir,
            config,
        } => load_config(config)
            .and_then(|cfg| print(betula_server::backup_cli::restore(from, datadir, cfg.env))),
        Cmd::Verify { datadir } => print(betula_server::backup_cli::verify(
            datadir.unwrap_or_else(|| ServeConfig::default().datadir),
        )),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("betula: {e}");
            ExitCode::FAILURE
        }
    }
}
