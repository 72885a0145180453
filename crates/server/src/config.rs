//! `betula serve` settings: command-line flags and the optional `--config FILE`
//! (`key = value` lines, `#` comments; keys: datadir, port, bind, cache_size (bytes, or with a
//! K/M/G suffix), durability (sync | periodic:<ms> | nosync), compression (a codec or TokuDB
//! row-format name), block_size and read_block_size (node and basement size of new tables' trees, as
//! TokuDB's tokudb_block_size / tokudb_read_block_size), log_recycle_segments (retired log segments
//! kept to be written over, 0-64; design.md SEG1-SEG3), max_connections, metrics_port (the HTTP metrics
//! endpoint's port, off unless set; 0 = any free port) and metrics_address (its address, 127.0.0.1 unless
//! set; docs/monitoring.md), the binary log's keys (binlog_settings.rs), the server's default
//! character set, character_set_server / collation_server (charset_settings.rs), TLS's ssl_cert / ssl_key /
//! ssl_ca / ssl (tls_settings.rs), and sql_mode).
//! The file is read as MariaDB reads a my.cnf (option_file.rs): its server sections, `loose-`
//! prefixes, includes; a key Betula does not have is a warning, a bad value an error. TokuDB's
//! tokudb_cache_size, tokudb_block_size, tokudb_read_block_size and tokudb_row_format name
//! Betula's settings. Flags given on the command line win over the file; an unknown flag key is
//! an error.

use std::path::PathBuf;
use std::time::Duration;

use betula_storage::{Codec, Durability, EnvOptions};

/// Most retired log segments a server keeps for reuse (each up to the segment size, 64 MiB).
const MAX_RECYCLE: usize = 64;

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub datadir: PathBuf,
    pub port: u16,
    pub bind: String,
    pub env: EnvOptions,
    pub max_connections: usize,
    /// Directory server-side LOAD DATA INFILE may read (None: refused).
    pub secure_file_priv: Option<PathBuf>,
    /// Port of the HTTP metrics endpoint (None: no endpoint; 0: any free port).
    pub metrics_port: Option<u16>,
    /// Address the metrics endpoint listens on.
    pub metrics_address: String,
    /// The binary log (binlog_settings.rs).
    pub binlog: crate::binlog_settings::BinlogSettings,
    /// The server's default character set (charset_settings.rs).
    pub charset: crate::charset_settings::CharsetSettings,
    /// TLS for client connections (tls_settings.rs).
    pub tls: crate::tls_settings::TlsSettings,
    /// The global `sql_mode` from the start, as MariaDB writes it (None: MariaDB's default).
    pub sql_mode: Option<String>,
    /// What the config file had that Betula does not use, one message each (printed at start).
    pub warnings: Vec<String>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            datadir: PathBuf::from("./betula-data"),
            port: 3306,
            bind: "127.0.0.1".into(),
            env: EnvOptions::default(),
            max_connections: 151,
            secure_file_priv: None,
            metrics_port: None,
            metrics_address: "127.0.0.1".into(),
            binlog: Default::default(),
            charset: Default::default(),
            tls: Default::default(),
            sql_mode: None,
            warnings: Vec::new(),
        }
    }
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mul) = match s.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&s[..s.len() - 1], 1u64 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim()
        .parse::<u64>()
        .map(|n| n.saturating_mul(mul))
        .map_err(|_| format!("bad size '{s}'"))
}

pub fn parse_durability(s: &str) -> Result<Durability, String> {
    let l = s.trim().to_ascii_lowercase();
    match l.as_str() {
        "sync" => Ok(Durability::Sync),
        "nosync" => Ok(Durability::NoSync),
        _ => match l.strip_prefix("periodic:") {
            Some(ms) => ms
                .parse::<u64>()
                .map(|m| Durability::Periodic(Duration::from_millis(m.max(1))))
                .map_err(|_| format!("bad durability '{s}'")),
            None => Err(format!(
                "bad durability '{s}' (sync | periodic:<ms> | nosync)"
            )),
        },
    }
}

impl ServeConfig {
    /// Applies one `key = value` setting; an unknown key is an error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let key = key.trim().to_ascii_lowercase().replace('-', "_");
        if self.apply(&key, value)? {
            Ok(())
        } else {
            Err(format!("unknown setting '{key}'"))
        }
    }

    /// Applies setting `key` (lower case, `_` for `-`); `Ok(false)` if Betula has no such key.
    fn apply(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let v = value.trim().trim_matches('"').trim_matches('\'');
        if self.binlog.set(key, v)? || self.charset.set(key, v)? || self.tls.set(key, v)? {
            return Ok(true);
        }
        match key {
            "datadir" => self.datadir = PathBuf::from(v),
            "port" => self.port = v.parse().map_err(|_| format!("bad port '{v}'"))?,
            "bind" | "bind_address" => self.bind = v.to_string(),
            "secure_file_priv" => self.secure_file_priv = Some(PathBuf::from(v)),
            "cache_size" | "cache_bytes" | "tokudb_cache_size" => {
                self.env.cache_bytes = parse_size(v)?
            }
            "sql_mode" => {
                let setting = betula_sql::types::value::Value::Text(v.to_string());
                let modes = betula_sql::types::sql_mode::assign(&setting)
                    .map_err(|e| format!("sql_mode: {}", e.message))?;
                self.sql_mode = Some(modes);
            }
            "durability" => self.env.durability = parse_durability(v)?,
            "compression" | "tokudb_row_format" => {
                self.env.default_tree.codec =
                    Codec::parse(v).ok_or_else(|| format!("unknown compression '{v}'"))?
            }
            "block_size" | "tokudb_block_size" => {
                self.env.default_tree.node_size_bytes = tree_size("block_size", v)?
            }
            "read_block_size" | "tokudb_read_block_size" => {
                self.env.default_tree.basement_size_bytes = tree_size("read_block_size", v)?
            }
            "log_compression" | "wal_compression" => {
                self.env.wal_codec =
                    Codec::parse(v).ok_or_else(|| format!("unknown log_compression '{v}'"))?
            }
            "log_recycle_segments" | "wal_recycle_segments" => {
                self.env.wal_recycle_segments = v
                    .parse()
                    .ok()
                    .filter(|&n: &usize| n <= MAX_RECYCLE)
                    .ok_or_else(|| {
                        format!("bad log_recycle_segments '{v}' (a count, 0-{MAX_RECYCLE})")
                    })?
            }
            "metrics_port" => {
                self.metrics_port = Some(
                    v.parse()
                        .map_err(|_| format!("bad metrics_port '{v}' (a port, 0-65535)"))?,
                )
            }
            "metrics_address" | "metrics_bind" => self.metrics_address = v.to_string(),
            "max_connections" => {
                self.max_connections = v
                    .parse()
                    .map_err(|_| format!("bad max_connections '{v}'"))?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks settings that only make sense together (node vs basement size, the server's
    /// character set and collation, TLS's certificate and key).
    pub fn validate(&self) -> Result<(), String> {
        self.charset.server_collation()?;
        self.tls.files()?;
        self.env
            .default_tree
            .validate()
            .map_err(|e| format!("block_size / read_block_size: {e}"))
    }

    /// Reads a config file's settings (option_file.rs; includes relative to the working
    /// directory).
    pub fn load_file(&mut self, text: &str) -> Result<(), String> {
        let lines = crate::option_file::parse(text, "config", std::path::Path::new("."))?;
        self.load_lines(lines)
    }

    /// Reads the config file at `path` (includes relative to its directory).
    pub fn load_path(&mut self, path: &std::path::Path) -> Result<(), String> {
        self.load_lines(crate::option_file::read(path)?)
    }

    /// Applies option-file settings: a bad value is an error; a key Betula does not have (a
    /// MariaDB setting such as innodb_buffer_pool_size) is kept in `warnings` and skipped.
    fn load_lines(&mut self, lines: Vec<crate::option_file::OptionLine>) -> Result<(), String> {
        for l in lines {
            if !self
                .apply(&l.key, &l.value)
                .map_err(|e| format!("{}: {e}", l.at))?
            {
                self.warnings
                    .push(format!("{}: unknown setting '{}' ignored", l.at, l.key));
            }
        }
        Ok(())
    }
}

/// A node or basement size: a byte count (K/M suffixes allowed) that fits the storage engine's limits.
fn tree_size(key: &str, v: &str) -> Result<u32, String> {
    let n = parse_size(v)?;
    u32::try_from(n)
        .ok()
        .filter(|n| (256..=256 << 20).contains(n))
        .ok_or_else(|| format!("{key} '{v}' outside 256 bytes..256M"))
}

/// `host:port` as a socket address (an IPv6 host in brackets).
pub fn socket_address(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// True if `bind` only accepts local connections.
pub fn is_loopback(bind: &str) -> bool {
    if bind.eq_ignore_ascii_case("localhost") {
        return true;
    }
    bind.trim_matches(['[', ']'])
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_config_file() {
        let mut c = ServeConfig::default();
        c.load_file("# comment\ncache_size = 64M\ndurability = periodic:50\ncompression = tokudb_lzma\nport=3307\n")
            .unwrap();
        assert_eq!(c.env.cache_bytes, 64 << 20);
        let mut t = ServeConfig::default();
        t.load_file("block_size = 1M\nread_block_size = 16K\n")
            .unwrap();
        assert_eq!(t.env.default_tree.node_size_bytes, 1 << 20);
        assert_eq!(t.env.default_tree.basement_size_bytes, 16 << 10);
        t.validate().unwrap();
        t.set("read_block_size", "2M").unwrap();
        assert!(t.validate().unwrap_err().contains("basement size"));
        assert!(t.set("read_block_size", "100").is_err());
        assert!(t.set("block_size", "1G").is_err());
        assert!(t.set("block_size", "lots").is_err());
        assert_eq!(
            c.env.durability,
            Durability::Periodic(Duration::from_millis(50))
        );
        assert_eq!(c.env.default_tree.codec, Codec::Lzma);
        assert_eq!(c.port, 3307);
        c.load_file("nonsense\n[mysqld]\ninnodb_buffer_pool_size = 1G\n")
            .unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[1].contains("innodb_buffer_pool_size"));
        assert!(
            c.set("nonsense", "1").is_err(),
            "a flag's unknown key is an error"
        );
        c.load_file("[mysqld]\nsql-mode = \"strict_all_tables,no_zero_date\"\n")
            .unwrap();
        assert_eq!(
            c.sql_mode.as_deref(),
            Some("STRICT_ALL_TABLES,NO_ZERO_DATE")
        );
        assert!(c
            .load_file("sql_mode = FOO\n")
            .unwrap_err()
            .contains("sql_mode"));
        c.load_file("[mariadbd]\ntokudb_cache_size = 2G\n").unwrap();
        assert_eq!(c.env.cache_bytes, 2 << 30);
        assert!(c.load_file("durability = sometimes\n").is_err());
        assert_eq!(c.env.wal_recycle_segments, 4, "the engine's default");
        c.set("log_recycle_segments", "0").unwrap();
        assert_eq!(c.env.wal_recycle_segments, 0);
        c.load_file("wal_recycle_segments = 8\n").unwrap();
        assert_eq!(c.env.wal_recycle_segments, 8);
        for bad in ["65", "-1", "many"] {
            let e = c.set("log_recycle_segments", bad).unwrap_err();
            assert!(e.contains("log_recycle_segments"), "{e}");
        }
        assert_eq!(c.env.wal_recycle_segments, 8, "a bad value changes nothing");
        assert_eq!(c.env.wal_codec, Codec::Lz4, "the engine's default");
        c.set("log_compression", "zstd").unwrap();
        assert_eq!(c.env.wal_codec, Codec::Zstd);
        c.load_file("wal_compression = none\n").unwrap();
        assert_eq!(c.env.wal_codec, Codec::None);
        let e = c.set("log_compression", "gzip9").unwrap_err();
        assert!(e.contains("log_compression"), "{e}");
        assert_eq!(c.env.wal_codec, Codec::None, "a bad value changes nothing");
        assert_eq!(c.metrics_port, None, "off unless configured");
        assert_eq!(c.metrics_address, "127.0.0.1");
        c.load_file("metrics-port = 9104\nmetrics_address = ::1\n")
            .unwrap();
        assert_eq!(c.metrics_port, Some(9104));
        assert_eq!(c.metrics_address, "::1");
        for bad in ["65536", "-1", "http"] {
            let e = c.set("metrics_port", bad).unwrap_err();
            assert!(e.contains("metrics_port"), "{e}");
        }
        assert_eq!(c.metrics_port, Some(9104), "a bad value changes nothing");
        assert_eq!(c.charset.server_collation(), Ok(None), "utf8mb4 unless set");
        c.load_file("[mariadbd]\ncharacter-set-server = latin1\n")
            .unwrap();
        assert_eq!(
            c.charset.server_collation(),
            Ok(Some(
                betula_sql::types::collation::Collation::Latin1SwedishCi
            ))
        );
        c.validate().unwrap();
        c.load_file("collation_server = utf8mb4_bin\n").unwrap();
        assert!(c.validate().unwrap_err().contains("collation_server"));
        assert!(c.load_file("character_set_server = latin9\n").is_err());
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("127.0.0.1"));
        assert!(is_loopback("::1"));
        assert!(is_loopback("localhost"));
        assert!(!is_loopback("0.0.0.0"));
        assert!(!is_loopback("10.1.2.3"));
    }
}
