//! Starting a private MariaDB (InnoDB or MyRocks) the way the peer baselines did (shared/bench/peers:
//! `peer.cnf`, `mariadb_local.sh`): `mariadb-install-db` into a fresh datadir, then `mariadbd
//! --defaults-file=F` as a child process on 127.0.0.1 with its own socket and port. MyRocks is loaded at
//! startup with `plugin-load-add` (a runtime INSTALL SONAME crashes this MariaDB build). An init file
//! gives root@127.0.0.1 access without a password and creates the `bench` database.

use super::{version_of, wait_ready, EngineKind, Server, StartOptions};
use crate::engine::BenchResult;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The server settings: peer.cnf's, with this run's paths and cache size.
pub fn config_text(root: &Path, datadir: &Path, port: u16, cache_bytes: u64) -> String {
    let mb = cache_bytes >> 20;
    format!(
        "[mariadbd]
user                          = root
datadir                       = {datadir}
socket                        = {root}/mariadb.sock
pid-file                      = {root}/mariadb.pid
log-error                     = {root}/mariadb.err
init-file                     = {root}/init.sql
bind-address                  = 127.0.0.1
port                          = {port}
skip-name-resolve
max_connections               = 200
skip-log-bin
performance_schema            = OFF
local-infile                  = 1
innodb_buffer_pool_size        = {mb}M
innodb_flush_log_at_trx_commit = 1
plugin-load-add                       = ha_rocksdb.so
loose-rocksdb_block_cache_size        = {mb}M
loose-rocksdb_flush_log_at_trx_commit = 1
{cfs}
",
        cfs = ROCKS_CF_OPTIONS,
        datadir = datadir.display(),
        root = root.display(),
    )
}

/// MyRocks column families with one codec each, for the compression matrix (tables opt in with
/// `PRIMARY KEY (...) COMMENT 'cf_x'`; everything else stays in `default`, RocksDB's Snappy).
pub const ROCKS_CF_OPTIONS: &str = "loose-rocksdb_override_cf_options     = cf_none={compression=kNoCompression;bottommost_compression=kNoCompression};cf_snappy={compression=kSnappyCompression;bottommost_compression=kSnappyCompression};cf_lz4={compression=kLZ4Compression;bottommost_compression=kLZ4Compression};cf_zlib={compression=kZlibCompression;bottommost_compression=kZlibCompression};cf_zstd={compression=kZSTD;bottommost_compression=kZSTD}";

const INIT_SQL: &str = "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS bench;
";

fn find(bin: &str) -> PathBuf {
    for dir in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"] {
        let p = Path::new(dir).join(bin);
        if p.exists() {
            return p;
        }
    }
    PathBuf::from(bin)
}

pub fn start(kind: EngineKind, root: &Path, port: u16, o: &StartOptions) -> BenchResult<Server> {
    let datadir = root.join("data");
    std::fs::create_dir_all(&datadir)?;
    let cnf_path = root.join("my.cnf");
    let mut cnf = config_text(root, &datadir, port, o.cache_bytes);
    for line in &o.mariadb_settings {
        cnf.push_str(line);
        cnf.push('\n');
    }
    std::fs::write(&cnf_path, &cnf)?;
    std::fs::write(root.join("init.sql"), INIT_SQL)?;
    let defaults = format!("--defaults-file={}", cnf_path.display());
    let install = Command::new(find("mariadb-install-db"))
        .args([
            defaults.as_str(),
            "--user=root",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ])
        .stdin(Stdio::null())
        .stdout(File::create(root.join("install-db.log"))?)
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| {
            format!("mariadb-install-db: {e} (apt-get install -y mariadb-server mariadb-plugin-rocksdb)")
        })?;
    if !install.success() {
        return Err(format!(
            "mariadb-install-db failed ({install}); see {}",
            root.join("install-db.log").display()
        )
        .into());
    }
    let mariadbd = find("mariadbd");
    let mut child = Command::new(&mariadbd)
        .args([defaults.as_str(), "--user=root"])
        .stdin(Stdio::null())
        .stdout(File::create(root.join("mariadbd.stdout"))?)
        .stderr(File::create(root.join("mariadbd.stderr"))?)
        .spawn()?;
    if let Err(e) = wait_ready(
        &mut child,
        port,
        Duration::from_secs(120),
        &root.join("mariadb.err"),
    ) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok(Server {
        kind,
        port,
        datadir,
        version: version_of(&mariadbd, &["--version"]),
        config: format!(
            "{} {defaults} --user=root\ntables: CREATE TABLE ...{}\n{cnf}",
            mariadbd.display(),
            kind.table_options()
        ),
        child,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_is_durable_and_local() {
        let t = config_text(Path::new("/r"), Path::new("/r/data"), 4242, 1 << 30);
        assert!(t.contains("innodb_flush_log_at_trx_commit = 1"));
        assert!(t.contains("loose-rocksdb_flush_log_at_trx_commit = 1"));
        assert!(t.contains("innodb_buffer_pool_size        = 1024M"));
        assert!(t.contains("port                          = 4242"));
        assert!(t.contains("bind-address                  = 127.0.0.1"));
        assert!(t.contains("plugin-load-add                       = ha_rocksdb.so"));
        assert!(t.contains("datadir                       = /r/data"));
    }
}
