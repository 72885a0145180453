//! The replica's connection settings: what CHANGE MASTER TO sets, kept in `<datadir>/replica.info`
//! (file-format.md §11) with whether the replica was running.
//!
//! Invariants: the file is replaced whole (written to `replica.info.tmp`, synced, renamed, the
//! directory synced), so a crash leaves the old settings or the new ones; a value holding `%` or a
//! line break is written with `%25` / `%0A` / `%0D`; an unreadable file is an error at start, never
//! settings guessed.

use std::io::Write;
use std::path::{Path, PathBuf};

use betula_sql::{DbError, DbResult, ErrorCode};

const MAGIC: &str = "betula-replica 1";

/// Which position the replica asks the primary for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseGtid {
    No,
    SlavePos,
    CurrentPos,
}

impl UseGtid {
    pub fn name(self) -> &'static str {
        match self {
            UseGtid::No => "No",
            UseGtid::SlavePos => "Slave_Pos",
            UseGtid::CurrentPos => "Current_Pos",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub use_gtid: UseGtid,
    /// Where a replica with no recorded GTID starts (empty: the primary's first binlog).
    pub log_file: String,
    pub log_pos: u64,
    /// Seconds between attempts to reach the primary.
    pub connect_retry: u64,
    /// Seconds of silence after which the primary sends a heartbeat.
    pub heartbeat_period: f64,
    /// Whether the replica runs (it starts with the server when it was running).
    pub running: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            host: String::new(),
            port: 3306,
            user: String::new(),
            password: String::new(),
            use_gtid: UseGtid::SlavePos,
            log_file: String::new(),
            log_pos: 4,
            connect_retry: 60,
            heartbeat_period: 1.0,
            running: false,
        }
    }
}

fn bad_value(option: &str, value: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongValueForVar,
        format!("Variable '{option}' can't be set to the value of '{value}'"),
    )
}

impl Settings {
    /// Applies CHANGE MASTER TO's options; the ones the replica does not carry out are refused.
    pub fn change(&mut self, options: &[(String, String)]) -> DbResult<()> {
        let mut next = self.clone();
        let mut new_source = false;
        for (name, value) in options {
            let num = || value.parse::<u64>().map_err(|_| bad_value(name, value));
            match name.as_str() {
                "MASTER_HOST" => {
                    next.host = value.clone();
                    new_source = true;
                }
                "MASTER_PORT" => {
                    next.port = u16::try_from(num()?).map_err(|_| bad_value(name, value))?;
                    new_source = true;
                }
                "MASTER_USER" => next.user = value.clone(),
                "MASTER_PASSWORD" => next.password = value.clone(),
                "MASTER_USE_GTID" => {
                    next.use_gtid = match value.to_ascii_lowercase().as_str() {
                        "no" => UseGtid::No,
                        "slave_pos" => UseGtid::SlavePos,
                        "current_pos" => UseGtid::CurrentPos,
                        _ => return Err(bad_value(name, value)),
                    }
                }
                "MASTER_LOG_FILE" => next.log_file = value.clone(),
                "MASTER_LOG_POS" => next.log_pos = num()?.max(4),
                "MASTER_CONNECT_RETRY" => next.connect_retry = num()?.max(1),
                "MASTER_HEARTBEAT_PERIOD" => {
                    let p: f64 = value.parse().map_err(|_| bad_value(name, value))?;
                    if !(0.001..=4_294_967.0).contains(&p) {
                        return Err(bad_value(name, value));
                    }
                    next.heartbeat_period = p;
                }
                "MASTER_SSL" if value == "0" => {}
                other => {
                    return Err(DbError::unsupported(format!(
                        "CHANGE MASTER TO {other} (replication over TLS, delays, filters, \
                         relay logs)"
                    )))
                }
            }
        }
        // A new primary starts from its first binlog unless a position is given (as MariaDB).
        if new_source
            && !options
                .iter()
                .any(|(n, _)| n == "MASTER_LOG_FILE" || n == "MASTER_LOG_POS")
        {
            next.log_file.clear();
            next.log_pos = 4;
        }
        *self = next;
        Ok(())
    }

    pub fn path(datadir: &Path) -> PathBuf {
        datadir.join("replica.info")
    }

    /// The settings in `datadir`, or `None` when no CHANGE MASTER ever ran there.
    pub fn load(datadir: &Path) -> Result<Option<Settings>, String> {
        let path = Self::path(datadir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        Self::parse(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    fn parse(text: &str) -> Result<Settings, String> {
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(format!(
                "not a replica settings file (first line is not {MAGIC:?})"
            ));
        }
        let mut s = Settings::default();
        for line in lines {
            let (k, v) = line.split_once('=').ok_or(format!("bad line {line:?}"))?;
            let v = unescape(v)?;
            let num = || v.parse::<u64>().map_err(|_| format!("bad {k} {v:?}"));
            match k {
                "host" => s.host = v.clone(),
                "port" => s.port = u16::try_from(num()?).map_err(|_| format!("bad port {v}"))?,
                "user" => s.user = v.clone(),
                "password" => s.password = v.clone(),
                "use_gtid" => {
                    s.use_gtid = match v.as_str() {
                        "no" => UseGtid::No,
                        "slave_pos" => UseGtid::SlavePos,
                        "current_pos" => UseGtid::CurrentPos,
                        _ => return Err(format!("bad use_gtid {v:?}")),
                    }
                }
                "log_file" => s.log_file = v.clone(),
                "log_pos" => s.log_pos = num()?,
                "connect_retry" => s.connect_retry = num()?.max(1),
                "heartbeat_period" => {
                    s.heartbeat_period = v
                        .parse::<f64>()
                        .ok()
                        .filter(|p| p.is_finite() && *p > 0.0)
                        .ok_or(format!("bad heartbeat_period {v:?}"))?
                }
                "running" => s.running = v == "1",
                _ => return Err(format!("unknown key {k:?}")),
            }
        }
        Ok(s)
    }

    fn render(&self) -> String {
        let gtid = match self.use_gtid {
            UseGtid::No => "no",
            UseGtid::SlavePos => "slave_pos",
            UseGtid::CurrentPos => "current_pos",
        };
        format!(
            "{MAGIC}\nhost={}\nport={}\nuser={}\npassword={}\nuse_gtid={gtid}\nlog_file={}\n\
             log_pos={}\nconnect_retry={}\nheartbeat_period={}\nrunning={}\n",
            escape(&self.host),
            self.port,
            escape(&self.user),
            escape(&self.password),
            escape(&self.log_file),
            self.log_pos,
            self.connect_retry,
            self.heartbeat_period,
            u8::from(self.running)
        )
    }

    /// Replaces the file in `datadir` with these settings (durably).
    pub fn save(&self, datadir: &Path) -> std::io::Result<()> {
        let path = Self::path(datadir);
        let tmp = datadir.join("replica.info.tmp");
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(self.render().as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(datadir)?.sync_all()
    }

    /// Removes the file (RESET SLAVE ALL).
    pub fn remove(datadir: &Path) -> std::io::Result<()> {
        match std::fs::remove_file(Self::path(datadir)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => std::fs::File::open(datadir)?.sync_all(),
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\n', "%0A")
        .replace('\r', "%0D")
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let code = rest
            .get(i + 1..i + 3)
            .ok_or(format!("bad escape in {s:?}"))?;
        out.push(match code {
            "25" => '%',
            "0A" => '\n',
            "0D" => '\r',
            _ => return Err(format!("bad escape in {s:?}")),
        });
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn settings_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Settings::default();
        s.change(&opts(&[
            ("MASTER_HOST", "db1"),
            ("MASTER_PORT", "3307"),
            ("MASTER_USER", "repl"),
            ("MASTER_PASSWORD", "p%w\nx"),
            ("MASTER_USE_GTID", "no"),
            ("MASTER_LOG_FILE", "mysql-bin.000002"),
            ("MASTER_LOG_POS", "1234"),
            ("MASTER_HEARTBEAT_PERIOD", "0.5"),
        ]))
        .unwrap();
        s.running = true;
        s.save(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Some(s));
        Settings::remove(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), None);
    }

    #[test]
    fn bad_values_and_unsupported_options_change_nothing() {
        let mut s = Settings::default();
        s.change(&opts(&[("MASTER_HOST", "a")])).unwrap();
        let before = s.clone();
        let e = s
            .change(&opts(&[("MASTER_HOST", "b"), ("MASTER_PORT", "70000")]))
            .unwrap_err();
        assert_eq!(e.code.number(), 1231);
        let e = s.change(&opts(&[("MASTER_DELAY", "5")])).unwrap_err();
        assert_eq!(e.code.number(), 1235);
        assert_eq!(s, before);
    }

    #[test]
    fn a_damaged_file_is_an_error() {
        assert!(Settings::parse("something else\n").is_err());
        assert!(Settings::parse(&format!("{MAGIC}\nport=x\n")).is_err());
        assert!(Settings::parse(&format!("{MAGIC}\nhost=a%2\n")).is_err());
    }
}
