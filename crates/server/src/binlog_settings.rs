//! The binary log's settings in `betula serve`'s config file and flags, under MariaDB's names:
//! `log_bin` (ON / OFF / a base name), `server_id`, `gtid_domain_id`, `binlog_format` (ROW
//! only), `binlog_row_image` (FULL only), `max_binlog_size`, `binlog_expire_logs_seconds` /
//! `expire_logs_days`, `binlog_checksum` (CRC32 / NONE). Values Betula cannot honour are
//! refused at start with the setting's name, never replaced by another.

use betula_sql::binlog::BinlogConfig;

use crate::config::parse_size;

/// The base name `log_bin = ON` gives the files.
pub const DEFAULT_BASENAME: &str = "betula-bin";
/// MariaDB's largest max_binlog_size (positions in events are 32-bit).
const MAX_FILE: u64 = 1 << 30;

#[derive(Debug, Clone)]
pub struct BinlogSettings {
    /// The base name, when the log is on.
    pub log_bin: Option<String>,
    pub server_id: u32,
    pub domain_id: u32,
    pub max_size: u64,
    pub expire_secs: u64,
    pub checksum: bool,
}

impl Default for BinlogSettings {
    fn default() -> Self {
        BinlogSettings {
            log_bin: None,
            server_id: 1,
            domain_id: 0,
            max_size: MAX_FILE,
            expire_secs: 0,
            checksum: true,
        }
    }
}

fn number<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("bad {key} '{v}' (a number)"))
}

impl BinlogSettings {
    /// Applies `key = value` if it is one of the binary log's settings (Ok(false): not one).
    pub fn set(&mut self, key: &str, v: &str) -> Result<bool, String> {
        match key {
            "log_bin" => {
                self.log_bin = match v.to_ascii_uppercase().as_str() {
                    "" | "ON" | "1" | "TRUE" => Some(DEFAULT_BASENAME.into()),
                    "OFF" | "0" | "FALSE" => None,
                    _ => Some(v.to_string()),
                }
            }
            "log_bin_basename" => self.log_bin = Some(v.to_string()),
            "server_id" => self.server_id = number(key, v)?,
            "gtid_domain_id" => {
                self.domain_id = number(key, v)?;
                if self.domain_id > u32::MAX >> 4 {
                    return Err(format!("gtid_domain_id '{v}' out of range"));
                }
            }
            "binlog_format" if v.eq_ignore_ascii_case("ROW") => {}
            "binlog_format" => {
                return Err(format!(
                    "binlog_format '{v}' is not supported: Betula logs rows only (binlog_format = ROW)"
                ))
            }
            "binlog_row_image" if v.eq_ignore_ascii_case("FULL") => {}
            "binlog_row_image" => {
                return Err(format!(
                    "binlog_row_image '{v}' is not supported: Betula logs full row images (binlog_row_image = FULL)"
                ))
            }
            "max_binlog_size" => {
                self.max_size = parse_size(v)?;
                if !(4096..=MAX_FILE).contains(&self.max_size) {
                    return Err(format!("max_binlog_size '{v}' outside 4096..1G"));
                }
            }
            "binlog_expire_logs_seconds" => self.expire_secs = number(key, v)?,
            "expire_logs_days" => {
                let days: f64 = number(key, v)?;
                if !(0.0..=99.0).contains(&days) {
                    return Err(format!("expire_logs_days '{v}' outside 0..99"));
                }
                self.expire_secs = (days * 86_400.0) as u64;
            }
            "binlog_checksum" => {
                self.checksum = match v.to_ascii_uppercase().as_str() {
                    "CRC32" => true,
                    "NONE" => false,
                    _ => return Err(format!("binlog_checksum '{v}' (CRC32 | NONE)")),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The log's configuration, when `log_bin` is on.
    pub fn config(&self) -> Option<BinlogConfig> {
        Some(BinlogConfig {
            basename: self.log_bin.clone()?,
            server_id: self.server_id,
            domain_id: self.domain_id,
            max_size: self.max_size,
            expire_secs: self.expire_secs,
            checksum: self.checksum,
            version: format!("10.11.99-Betula-{}-log", env!("CARGO_PKG_VERSION")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings() {
        let mut s = BinlogSettings::default();
        assert!(s.config().is_none(), "off by default");
        assert!(s.set("log_bin", "ON").unwrap());
        assert_eq!(s.config().unwrap().basename, DEFAULT_BASENAME);
        s.set("log_bin", "/var/lib/betula/mb").unwrap();
        s.set("server_id", "7").unwrap();
        s.set("max_binlog_size", "64M").unwrap();
        s.set("expire_logs_days", "1.5").unwrap();
        s.set("binlog_checksum", "none").unwrap();
        let c = s.config().unwrap();
        assert_eq!(
            (c.basename.as_str(), c.server_id, c.max_size),
            ("/var/lib/betula/mb", 7, 64 << 20)
        );
        assert_eq!(c.expire_secs, 129_600);
        assert!(!c.checksum);
        assert!(
            c.version.starts_with("10.11."),
            "a MariaDB replica needs major version 10"
        );
        let e = s.set("binlog_format", "STATEMENT").unwrap_err();
        assert!(e.contains("binlog_format"), "{e}");
        assert!(s.set("binlog_format", "row").unwrap());
        assert!(s
            .set("binlog_row_image", "MINIMAL")
            .unwrap_err()
            .contains("FULL"));
        assert!(s.set("max_binlog_size", "2G").is_err());
        assert!(s.set("server_id", "x").is_err());
        assert!(!s.set("cache_size", "1G").unwrap(), "not a binlog setting");
        s.set("log_bin", "OFF").unwrap();
        assert!(s.config().is_none());
    }
}
